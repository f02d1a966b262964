"""Console excerpts in print shapes the reader missed (issue 13, session 33, paste33). Each sample is
written for this test (invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE`` or what the console reader makes of the text. Torch-free.

Shapes: a metric named as a path of namespaces whose last part is one component of a loss
(``train/generator_loss``, ``losses/value_loss``, ``val/box_loss``: a summary tag's name, printed one
tag per line by a vocoder's or an RL trainer's logger); a step's time and its data wait named as
what the batch "cost" (``batch_cost: 4.1 s, reader_cost: 3.6 s``, ``avg_batch_cost``, ``data_cost``:
PaddlePaddle's loggers), with the seconds printed apart from the number or not at all.
"""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text


def _tag_lines(values: dict, steps) -> str:
    """One tag per line, the step in front (a logger printing each summary tag it averaged)."""
    out = []
    for k, step in enumerate(steps):
        for tag, vals in values.items():
            out.append(f"[2024-03-01 10:{k:02d}:00] INFO (trainer:212) step {step}: {tag} = {vals[k]:.4f}")
    return "\n".join(out) + "\n"


def test_a_path_named_loss_component_is_read_as_the_loss():
    gen = [3.91, 3.42, 3.10, 2.86, 2.70, 2.55, 2.44, 2.36]
    text = _tag_lines({"train/adversarial_loss": gen, "train/feature_match_loss": [v / 3 for v in gen]},
                      range(500, 4500, 500))
    log = read_console_text(text)
    assert "loss" in log.series
    assert len(log.series["loss"].points) == len(gen)


def test_a_path_named_component_under_a_validation_namespace_is_the_validation_loss():
    lines = []
    for k in range(8):
        lines.append(f"epoch {k + 1} train/box_loss: {0.09 * 0.9 ** k:.4f} train/cls_loss: {0.05 * 0.9 ** k:.4f}")
        lines.append(f"epoch {k + 1} val/box_loss: {0.08 + 0.004 * k:.4f} val/cls_loss: {0.04 + 0.003 * k:.4f}")
    log = read_console_text("\n".join(lines) + "\n")
    assert "loss" in log.series and "val_loss" in log.series


def test_nan_under_a_path_named_loss_component_is_an_explosion(tmp_path):
    vals = [2.31, 2.05, 1.92, float("nan"), float("nan"), float("nan")]
    text = _tag_lines({"train/generator_loss": vals, "train/mel_loss": [v / 4 for v in vals]},
                      range(1000, 7000, 1000))
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "explosion"


def test_a_path_whose_last_part_names_no_loss_stays_unread():
    """``lr/pg0``, ``time/fps``: a path's last part that is no loss component names no loss."""
    text = "".join(f"step {k * 10} lr/pg0 = {0.01:.4f} time/fps = {300 + k}\n" for k in range(6))
    try:
        log = read_console_text(text)
    except Exception:   # nothing read at all: the reader refuses, as it should
        return
    assert "loss" not in log.series


def _paddle_lines(reader, batch, unit=" s", names=("reader_cost", "batch_cost")) -> str:
    out = []
    for k, (r, b) in enumerate(zip(reader, batch)):
        out.append(f"[2024/05/02 09:{k:02d}:10] trainer INFO: epoch: [3/120], iter: {2000 + 20 * k}, "
                   f"lr: 0.000500, loss: {1.9 - 0.01 * k:.5f}, acc: {0.52 + 0.002 * k:.4f}, "
                   f"{names[0]}: {r:.5f}{unit}, {names[1]}: {b:.5f}{unit}, ips: {64 / b:.3f} samples/s")
    return "\n".join(out) + "\n"


def test_a_reader_cost_in_seconds_is_the_data_wait():
    reader, batch = [3.61, 4.02, 2.95, 3.88, 4.40], [4.12, 4.51, 3.47, 4.40, 4.93]
    log = read_console_text(_paddle_lines(reader, batch))
    assert "step_time" in log.series
    share, lines, _ = log.data_wait
    assert lines == len(reader) and share > 0.8


def test_an_averaged_cost_without_units_is_read_the_same():
    reader, batch = [0.012, 0.010, 0.011, 0.013], [0.410, 0.398, 0.402, 0.405]
    log = read_console_text(_paddle_lines(reader, batch, unit="", names=("avg_reader_cost", "avg_batch_cost")))
    share, lines, _ = log.data_wait
    assert lines == len(reader) and share < 0.05


def test_a_data_bound_paddle_run_is_slow_training(tmp_path):
    reader, batch = [3.61, 4.02, 2.95, 3.88, 4.40, 3.70], [4.12, 4.51, 3.47, 4.40, 4.93, 4.20]
    rep, _ = diagnose_log_report(tmp_path, _paddle_lines(reader, batch))
    assert report_symptom(rep) == "slow_training"


def test_a_cost_alone_stays_the_objective_and_a_time_cost_a_duration():
    """``cost`` alone is what a loop minimises; ``epoch time cost 12.3 s`` is how long an epoch took."""
    text = "".join(f"iter {k * 10} cost {2.0 - 0.1 * k:.3f} time cost {12.3 + k:.1f} s\n" for k in range(6))
    log = read_console_text(text)
    assert "loss" in log.series and log.series["loss"].points[0].mean == 2.0
    assert log.data_wait is None


def test_a_hyphenated_step_time_in_seconds_is_the_time_per_step():
    """``step-time 1.52s`` (an NMT trainer's step line): the hyphen joins the words of one timing name."""
    text = "".join(f"  global step {100 * (k + 1)} lr 0.5 step-time {1.52 + 0.01 * k:.2f}s wps 3.10K "
                   f"ppl {900 / (k + 1):.2f}\n" for k in range(6))
    log = read_console_text(text)
    assert "step_time" in log.series and len(log.series["step_time"].points) == 6


def _trainer_dicts(epochs, losses) -> str:
    return "".join(f"{{'loss': {v:.4f}, 'learning_rate': {2e-5 * (1 - e):.6e}, 'epoch': {e:.2f}}}\n"
                   for e, v in zip(epochs, losses))


def _facts_of(tmp_path, text):
    rep, _ = diagnose_log_report(tmp_path, text)
    return {f["fact"]: f["value"] for f in rep["facts"]}


def test_a_trainer_excerpt_from_the_middle_of_an_epoch_starts_mid_run(tmp_path):
    """``'epoch': 0.52`` .. ``0.58``: half an epoch went by before the excerpt, far more than it shows."""
    epochs = [0.52 + 0.01 * k for k in range(7)]
    losses = [1.412, 1.398, 1.421, 1.405, 1.391, 1.409, 1.400]
    assert _facts_of(tmp_path, _trainer_dicts(epochs, losses))["log_starts_mid_run"] is True


def test_a_trainer_log_from_its_first_records_does_not_start_mid_run(tmp_path):
    epochs = [0.02 * (k + 1) for k in range(12)]
    losses = [2.9 * 0.93 ** k for k in range(12)]
    assert _facts_of(tmp_path, _trainer_dicts(epochs, losses))["log_starts_mid_run"] is False
