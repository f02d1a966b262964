"""Session 39: finished runs whose console output traindx read as no metrics at all, or whose curves it
misread. Each sample is written for this test (synthetic numbers, no run's own):

- a table behind a 12-hour clock's time stamp (sysstat's ``sar``: ``09:03:51 AM  epoch  loss ...`` over
  ``09:03:55 AM      2  0.46 ...``), its header repeated now and then: the header is read behind its
  stamp as its rows are;
- a MediaWiki table (``! Epoch !! Train loss`` over ``| 1 || 6.94``);
- records that name their metric in a ``"key"`` field and hold it in ``"value"`` (MLPerf's
  ``:::MLLOG {...}`` lines, MLflow's metric records);
- a metric tagged ``<loss>`` between its name and value (SageMaker's ``train mse_objective <loss>=0.96``);
- a scheduler whose ``step`` is handed to other code to call (``after_epoch=sched.step``) is no
  scheduler "never stepped". Torch-free.
"""

import json

from conftest import diagnose_code_and_log, diagnose_log_report, report_fact, report_symptom
from traindx.probes.readers.console import read_console_text


def _clock(e):
    return f"10:{e:02d}:17 PM"


def _sar_log(epochs=12):
    out = ["Linux 6.1.0 (host) \t01/02/2027 \t_x86_64_\t(4 CPU)", ""]
    for e in range(1, epochs + 1):
        if e % 10 == 1:
            out.append(f"{_clock(e)}  epoch      loss  val_loss  val_acc")
        out.append(f"{_clock(e)}  {e:5d}  {2.0 / e:8.4f}  {2.1 / e + 0.05:8.4f}  {0.5 + 0.03 * e:7.4f}")
    out.append("Average:       all    0.5000    0.6000   0.6800")
    return "\n".join(out)


def test_a_table_behind_a_twelve_hour_time_stamp_is_read():
    log = read_console_text(_sar_log())
    assert {"loss", "val_loss", "val_accuracy"} <= set(log.series)
    assert log.series["loss"].rows == 12


def _wiki_log(epochs=8):
    out = ["== Training run ==", '{| class="wikitable"', "! Epoch !! Train loss !! Val loss !! note"]
    for e in range(1, epochs + 1):
        out += ["|-", f"| {e} || {3.0 - 0.2 * e:.4f} || {3.1 - 0.2 * e:.4f} || fine"]
    return "\n".join(out + ["|}"])


def test_a_mediawiki_table_is_read():
    log = read_console_text(_wiki_log())
    assert {"loss", "val_loss"} <= set(log.series)
    ys = [y for _x, y in log.series["loss"].head]
    assert ys[0] > ys[-1] and log.series["loss"].rows == 8


def test_a_markdown_row_with_an_empty_cell_keeps_its_bars():
    from traindx.probes.readers.console_tables import markup_row
    assert markup_row("| a || b |") is None
    assert markup_row("| 1 || 0.52 || 0.61") == "1|0.52|0.61"


def _keyed_log(epochs=6):
    out = []
    for e in range(1, epochs + 1):
        for k, v in (("train_loss", 4.0 / e), ("eval_loss", 4.2 / e), ("eval_accuracy", 0.1 * e)):
            rec = {"namespace": "", "time_ms": 1000 * e, "event_type": "POINT_IN_TIME", "key": k, "value": v,
                   "metadata": {"epoch_num": e}}
            out.append(":::MLLOG " + json.dumps(rec))
    return "\n".join(out)


def test_records_naming_their_metric_in_a_key_field_are_read(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _keyed_log())
    first = out.splitlines()[0]
    assert "val_loss" in first and "val_accuracy" in first
    assert report_symptom(rep) == "healthy"


_CALLBACK_SCRIPT = '''
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.05)


def run_epochs(epochs, after_epoch=None):
    for _ in range(epochs):
        for _ in range(10):
            x = torch.randn(8, 4)
            loss = nn.functional.cross_entropy(model(x), torch.zeros(8, dtype=torch.long))
            opt.zero_grad()
            loss.backward()
            opt.step()
        if after_epoch is not None:
            after_epoch()


run_epochs(8, after_epoch=sched.step)
'''


def test_a_scheduler_stepped_through_a_callback_is_a_scheduler(tmp_path):
    log = "\n".join(f"epoch {e} loss {0.9 if e == 1 else 0.5:.3f} val_loss {0.95 if e == 1 else 0.55:.3f}"
                    for e in range(1, 9))
    rep = diagnose_code_and_log(tmp_path, _CALLBACK_SCRIPT, log)
    assert report_fact(rep, "scheduler") == "steplr"
    assert "never stepped" not in json.dumps(rep)


def test_a_metric_tagged_as_a_loss_is_read_as_one():
    out = []
    for e in range(6):
        out += [f"#quality_metric: host=algo-1, epoch={e}, train mse_objective <loss>={0.9 / (e + 1):.4f}",
                f"#quality_metric: host=algo-1, epoch={e}, validation mse_objective <loss>={1.0 / (e + 1):.4f}",
                f"#quality_metric: host=algo-1, epoch={e}, validation rmse <score>={0.9 / (e + 1):.4f}"]
    log = read_console_text("\n".join(out))
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].rows == 6
