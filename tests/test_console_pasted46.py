"""Session 46 (issue 13): shapes of printed logs that read wrong or not at all before it.

- a word with a letter outside ASCII is no loss abbreviation (Icelandic ``líkaninu`` normalises to
  ``l_kaninu``, whose ``l_`` is BasicSR's abbreviation of "loss": the parameter count was the loss);
- ``loss in epoch 3: 0.08``: the axis between the name and its value;
- W&B's run summary, ``wandb:    train/box_loss 1.667``: the tool's tag before a path-named metric;
- a step time in milliseconds beside the loss (lit-llama's / nanoGPT's ``time: 3363.41ms``).
Each test fails before session 46."""

from __future__ import annotations

import math

from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.logs import analyze_log


def _vals(log, role):
    return [p.mean for p in log[role].points]


def test_a_parameter_count_in_icelandic_is_no_loss():
    lines = ["Fjöldi stika í líkaninu: 14721", "Lærdómshraði: 0.002, stærð lotu: 16"]
    for e in range(1, 9):
        tl, vl = 0.07 * 0.8 ** e, 0.05 * 0.8 ** e
        lines.append(f"Umferð {e}/8: þjálfunartap {tl:.5f}, staðfestingartap {vl:.5f}")
    log = read_console_text("\n".join(lines) + "\n")
    assert 14721.0 not in _vals(log, "loss")
    assert len(_vals(log, "loss")) == 8           # the epochs, read under names guessed from their values
    assert max(_vals(log, "loss")) < 1.0


def test_basicsr_loss_abbreviation_still_reads():
    text = "".join(f"<epoch: {e}, iter: {100 * e}, lr:1.0e-04> l_pix: {0.1 / e:.4e}\n" for e in range(1, 7))
    log = read_console_text(text)
    assert len(_vals(log, "loss")) == 6


def test_loss_in_epoch():
    for shape in ("loss in epoch {e}: {v}", "Validation loss in epoch {e} is {v}"):
        text = "".join(shape.format(e=e, v=round(0.9 - 0.05 * e, 3)) + "\n" for e in range(8))
        log = read_console_text(text)
        role = "val_loss" if shape.startswith("Validation") else "loss"
        assert _vals(log, role) == [round(0.9 - 0.05 * e, 3) for e in range(8)], shape
        assert log.x_label == "epoch", shape


def test_metrics_reported_for_a_step_keep_their_own_names():
    # "for" joins no name to its axis: the dict's keys are the names (determined.ai's report)
    text = "".join(f"INFO: [1] determined.core: Reporting training metrics for step {50 * e}: "
                   f"{{'loss': {3 - 0.1 * e:.4f}, 'lr': 0.1}}\n" for e in range(1, 8))
    log = read_console_text(text)
    assert log.columns["loss"] == "loss"


def test_wandb_run_summary_with_path_names(tmp_path):
    text = ("wandb:          train/box_loss 1.66723\n"
            "wandb:          train/cls_loss 2.90567\n"
            "wandb:            val/box_loss nan\n"
            "wandb:            val/cls_loss nan\n"
            "wandb: model/speed_PyTorch(ms) 43.344\n"
            "wandb:          train/box_loss nan\n"
            "wandb:          train/cls_loss nan\n"
            "wandb:            val/box_loss nan\n")
    path = tmp_path / "summary.txt"
    path.write_text(text, encoding="utf-8")
    findings, _ = analyze_log(str(path))
    facts = {f.fact: f.value for f in findings}
    assert facts["loss_has_nonfinite"] is True
    assert facts["loss_trend"] == "nonfinite"


def test_step_time_in_milliseconds_beside_the_loss():
    text = "".join(f"iter {i}: loss {2.6 + 0.01 * (i % 3):.4f}, time: {1000 * 1.3 ** i:.2f}ms\n" for i in range(20))
    log = read_console_text(text)
    assert "step_time" in log.series
    assert len(_vals(log, "loss")) == 20
    # nanoGPT's print: no colon, and the model-flops share after it
    text = "".join(f"iter {i}: loss {2.6 - 0.01 * i:.4f}, time {120 + i:.2f}ms, mfu 30.2%\n" for i in range(20))
    log = read_console_text(text)
    assert "step_time" in log.series
    assert all(math.isfinite(v) and v < 1.0 for v in _vals(log, "step_time"))   # seconds, not milliseconds


def test_a_step_time_line_of_its_own_stays_apart_and_best_is_no_path():
    lines = []
    for i in range(6):
        lines.append(f"[INFO] Epoch 1/500, Step {240 + 20 * i}/1516, step time: {100 - i:.2f} ms")
        lines.append(f"[INFO] Epoch 1/500, Step {250 + 20 * i}/1516, loss: {10 - 0.3 * i:.4f}")
    log = read_console_text("\n".join(lines) + "\n")
    assert log.rows == 6                             # the loss records; the time lines are no rows
    text = "".join(f"epoch={e} train/loss={1.1 - 0.02 * e:.4f} val/acc={0.3 + 0.02 * e:.4f}\n" for e in range(1, 9))
    log = read_console_text(text + "Best val/acc=0.4600\n")
    assert log.columns["val_accuracy"] == "val/acc"
    assert len(_vals(log, "val_accuracy")) == 8      # the run's best is no point of its curve
