"""Session 46 (finimp46): three readings of a finished run's console output.

- A split's heading printed as a logger's message (AllenNLP's trainer logs
  ``2026-12-07 05:52:07,747 - INFO - allennlp.training.gradient_descent_trainer - Validating``): the
  logger's name is no part of the heading, and the evaluation's progress bar under it is validation,
  even when the evaluation loop has more batches than the training loop (a small training set).
- An evaluation's record that prints its own times (mmengine's ``Epoch(val) [1][256/256]  EPE: 1.46
  data_time: 0.0010  time: 0.8191``) times the evaluation, not a training step: its data time does
  not dilute the training steps' data-loading share.
- EPE (optical flow's average end-point error, the objective of FlowNet, PWC-Net, RAFT) names the
  loss as mse or l1 do: ``Validation synthetic EPE: 1.46`` is a validation loss.

Each sample is written for this test, with a twin that must not change. Torch-free.
"""

import math

from conftest import diagnose_log_report, report_symptom
from traindx.probes.readers.console import read_console_text

_PREFIX = "2026-12-07 05:52:{:02d},747 - INFO - allennlp.training.{}"


def _allennlp(epochs: int, train_batches: int, val_batches: int) -> str:
    lines, t = [], 0
    for e in range(epochs):
        tr = 1.1 * math.exp(-0.25 * e) + 0.05
        va = 1.0 * math.exp(-0.25 * min(e, 10)) + 0.3 + 0.01 * max(0, e - 10)
        lines.append(_PREFIX.format(t % 60, f"gradient_descent_trainer - Epoch {e}/{epochs - 1}"))
        lines.append(_PREFIX.format(t % 60, "gradient_descent_trainer - Training"))
        bar = "".join(f"\raccuracy: 0.{50 + e:02d}, batch_loss: {tr:.4f}, loss: {tr:.4f} ||: "
                      f"{100 * i // train_batches:3d}%|#| {i}/{train_batches} [00:00<00:00, 9.0it/s]"
                      for i in range(2, train_batches + 1, 2))
        lines.append(f"  0%|          | 0/{train_batches} [00:00<?, ?it/s]{bar}")
        lines.append(_PREFIX.format(t % 60, "gradient_descent_trainer - Validating"))
        lines.append(f"  0%|          | 0/{val_batches} [00:00<?, ?it/s]\raccuracy: 0.{40 + e:02d}, "
                     f"batch_loss: {va:.4f}, loss: {va:.4f} ||: 100%|#| {val_batches}/{val_batches} "
                     "[00:00<00:00, 700000.0it/s]")
        t += 1
    return "\n".join(lines) + "\n"


def test_a_logged_validating_heading_makes_the_bar_under_it_validation():
    log = read_console_text(_allennlp(epochs=20, train_batches=8, val_batches=25))
    assert "val_loss" in log.series
    assert len(log.series["val_loss"].points) == 20
    # the training curve is the training bars' alone: the evaluation's 25/25 is no point of it
    assert max(p.mean for p in log.series["loss"].points) < 1.2
    assert log.epochs == 20


def test_the_twin_without_a_logger_prefix_reads_the_same():
    text = _allennlp(epochs=20, train_batches=8, val_batches=25).replace(
        "2026-12-07 ", "").replace(" - INFO - allennlp.training.gradient_descent_trainer - ", " ")
    log = read_console_text(text)
    assert len(log.series["val_loss"].points) == 20


def test_an_overfitting_run_logged_so_reads_as_overfitting(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _allennlp(epochs=30, train_batches=8, val_batches=25))
    assert report_symptom(rep) == "overfitting"


def _mmengine(data_time: float, val_data_time: float) -> str:
    lines = []
    for e in range(1, 7):
        for i in (24, 48):
            loss = 2.5 * math.exp(-0.3 * (e + i / 64)) + 0.4
            lines.append(f"12/07 06:00:{e * 2:02d} - mmengine - INFO - Epoch(train) [{e}][{i:3d}/64]  lr: 1.0000e-03"
                         f"  eta: 0:01:42  time: 0.1718  data_time: {data_time:.4f}  memory: 0  loss: {loss:.4f}")
        va = 2.2 * math.exp(-0.3 * e) + 0.5
        lines.append(f"12/07 06:00:{e * 2 + 1:02d} - mmengine - INFO - Epoch(val) [{e}][256/256]    EPE: {va:.4f}"
                     f"  1px: 0.3521  3px: 0.9333  data_time: {val_data_time:.4f}  time: 0.8191")
    return "\n".join(lines) + "\n"


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def test_an_evaluation_lines_times_do_not_dilute_the_data_wait(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mmengine(data_time=0.0981, val_data_time=0.0010))
    assert _facts(rep)["data_time_fraction"] > 0.5
    assert report_symptom(rep) == "slow_training"


def test_the_twin_with_fast_batches_stays_healthy(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mmengine(data_time=0.0002, val_data_time=0.0010))
    assert _facts(rep).get("data_time_fraction", 0) < 0.05
    assert report_symptom(rep) != "slow_training"


def test_epe_names_the_validation_loss():
    rows = []
    for e in range(8):
        rows.append(f"[{32 * (e + 1):6d}, 0.0002000]     0.{10 + e:02d},     0.69,     0.97,"
                    f"     {2.3 - 0.15 * e:.4f}, ")
        rows.append(f"Validation synthetic EPE: {2.29 - 0.14 * e:.6f}, 1px: 0.{10 + 5 * e:02d}, 3px: 0.76")
    log = read_console_text("Parameter Count: 132710\n" + "\n".join(rows) + "\n")
    assert "val_loss" in log.series
    assert log.columns["val_loss"].lower().endswith("epe")
