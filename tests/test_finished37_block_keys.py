"""Session 37: a run printed as a YAML-style block (a state runner's or a dumped dict's output), each
metric's name alone on a line and its value alone on the next, indented deeper, is read by name: the
training and validation losses are two curves, not one list of numbers read as the loss. The sample is
written for this test. A heading line that ends in a colon keeps its meaning (a split's heading), and
a key whose next line is no number is read as it was. Torch-free.
"""

import math

from conftest import diagnose_log_report
from traindx.probes.readers.console import read_console_text


def _block_log(epochs=8):
    out = []
    for e in range(1, epochs + 1):
        tr = 3.0 * math.exp(-0.3 * e) + 0.2
        out += [f"- task: fit_epoch_{e}", "  status: ok", "  metrics:",
                "    train_loss:", f"      {tr:.5f}", "    val_loss:", f"      {tr * 1.08:.5f}",
                "    lr:", "      0.001"]
    return "\n".join(out)


def test_a_name_above_its_value_is_one_metric():
    log = read_console_text(_block_log())
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].rows == 8 and log.series["val_loss"].rows == 8
    ys = [y for _x, y in log.series["loss"].head]
    assert ys[0] > ys[-1] and abs(ys[0] - (3.0 * math.exp(-0.3) + 0.2)) < 1e-4


def test_the_report_follows_both_curves(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _block_log())
    assert "val_loss" in out.splitlines()[0]
    assert "one number each" not in out


def test_a_heading_with_a_colon_still_names_the_split():
    text = "\n".join(["Validation:", "  loss 0.91", "  accuracy 0.70"] * 1 + [
        f"epoch {e} loss {1.5 - 0.1 * e:.3f}" for e in range(1, 6)])
    log = read_console_text(text)
    assert "val_loss" in log.series
