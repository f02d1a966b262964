"""Session 37 (issue 13, pasted console logs): three shapes in which a value's name is not beside it the way
``key: value`` puts it, each read now where traindx refused the log ("no training metrics found") or read only
part of it:

- Python 2's ``print("loss:", loss)`` prints a tuple, ``('loss:', 0.53)``: a quoted name, a comma, its value;
- a value printed on the line under its name (``print("mean loss this epoch:")`` then ``print(loss)``);
- a table header behind a split's heading on one line (``Valid: loss, acc, f1``), its row of numbers below,
  set apart by blanks rather than the header's commas.

Each log is an invented one, written in the shape such a loop prints."""
from __future__ import annotations

import json
import math

from click.testing import CliRunner

from traindx.engine.frontends.cli import main
from traindx.probes.readers.console import read_console_text


def _diagnose(path) -> dict:
    res = CliRunner().invoke(main, ["diagnose", "--non-interactive", "--format", "json", "--log", str(path)])
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("{"):])


def test_a_python2_tuple_print_is_read_as_its_names_values(tmp_path):
    """``print("iter", i, "train cost:", cost)`` under Python 2 prints ``('iter', 40, 'train cost:', 2.3026)``;
    a cost stuck at ln 10 from the first iteration is a run that does not learn."""
    lines = ["Building graph...", "('learning rate', 0.5)"]
    for i in range(0, 400, 20):
        lines.append(f"('iter', {i}, 'train cost:', {2.302585 + 1e-7 * (i % 3):.7f})")
    p = tmp_path / "nohup.out"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert rep["symptom"]["id"] == "not_learning"
    log = read_console_text(p.read_text())
    assert log.series["loss"].rows == 20
    # a quoted CSV row keeps its cells (the comma after a quote is a separator there, under a header)
    csv = "split,loss,acc\n" + "\n".join(f'"train",{1.0 / (e + 1):.4f},{0.5 + e / 40:.3f}' for e in range(10))
    assert read_console_text(csv).series["loss"].rows == 10


def test_a_value_on_the_line_under_its_name(tmp_path):
    """``mean loss this epoch:`` and the loss alone on the next line, the loss growing until it is nan: the
    run exploded. Numbers alone one per line under a heading stay a list of values without names."""
    lines, loss = [], 0.8
    for ep in range(1, 13):
        lines += [f"==> epoch {ep}", "mean loss this epoch:", "nan" if ep > 10 else f"{loss:.5f}", "-" * 20]
        loss *= 1.9 if ep > 4 else 0.9
    p = tmp_path / "run.log"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert rep["symptom"]["id"] == "explosion"
    log = read_console_text(p.read_text())
    assert log.names["loss"] == "mean loss this epoch"
    values = "validation losses:\n" + "\n".join(f"{0.9 - 0.05 * i:.3f}" for i in range(12)) + "\n"
    bare = read_console_text(values)
    assert bare.series["loss"].rows == 12


def test_a_header_behind_its_splits_heading(tmp_path):
    """Training prints ``epoch N  train loss X``; evaluation prints ``Valid: loss, acc, f1`` and the values
    under it set apart by blanks. The validation loss rising while the training loss falls is overfitting."""
    lines = []
    for ep in range(1, 16):
        lines.append(f"epoch {ep}  train loss {1.2 * math.exp(-0.25 * ep):.4f}")
        lines.append("Valid: loss, acc, f1")
        val = 0.9 - 0.05 * ep if ep <= 5 else 0.65 + 0.06 * (ep - 5)
        lines.append(f"{val:.4f} {0.6 + 0.01 * min(ep, 5):.4f} {0.5 + 0.01 * min(ep, 5):.4f}")
    p = tmp_path / "train.txt"
    p.write_text("\n".join(lines) + "\n")
    log = read_console_text(p.read_text())
    assert log.series["val_loss"].rows == 15
    assert log.series["val_accuracy"].rows == 15
    rep = _diagnose(p)
    assert rep["symptom"]["id"] == "overfitting"
