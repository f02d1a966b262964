"""Shapes met in session 25's pasted tuning material (fresh19): a loss that leaves its level for
astronomically large values and keeps climbing at every record is on its way to Inf, however short
the excerpt (its climb is no noise band to clear)."""

from conftest import diagnose_log_report, report_fact

from traindx.probes.readers.console import read_console_text


def _runaway_excerpt() -> str:
    # an excerpt from mid-run: a few ordinary records, then the loss leaves for 1e17 and grows
    # several-fold at every record after that
    vals = [0.41, 0.37, 0.44, 0.39, 3.1e17, 2.2e18, 9.7e18, 4.4e19, 1.9e20]
    return "\n".join(f"iteration {1200 + i}: total loss = {v:.4f} ({0.31 + 0.01 * (i % 2):.2f} s/iter)"
                     for i, v in enumerate(vals))


def test_a_loss_that_runs_off_at_every_record_is_an_explosion(tmp_path):
    rep = diagnose_log_report(tmp_path, _runaway_excerpt())[0]
    assert report_fact(rep, "loss_trend") == "diverging"
    assert rep["symptom"]["id"] == "explosion"


def test_the_same_excerpt_with_its_last_record_back_down_is_no_run_off(tmp_path):
    """The climb has to hold at every record of the recent stretch: a loss that comes back down
    between its jumps is swinging, and the noise band still stands between it and a divergence."""
    vals = [0.41, 0.37, 0.44, 0.39, 3.1e17, 0.52, 9.7e18, 0.47, 1.9e20, 0.45]
    text = "\n".join(f"iteration {1200 + i}: total loss = {v:.4f}" for i, v in enumerate(vals))
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_fact(rep, "loss_trend") != "diverging"


def test_a_falling_loss_is_not_touched(tmp_path):
    vals = [2.3 * 0.93 ** i for i in range(30)]
    text = "\n".join(f"step {i * 10}: loss = {v:.4f}" for i, v in enumerate(vals))
    log = read_console_text(text)
    assert log.series["loss"].rows == 30
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_fact(rep, "loss_trend") in ("decreasing", "plateaued")


def test_a_batch_id_is_the_position_in_the_run():
    """``batch_id:412, cost:3.2`` (PaddlePaddle's fluid-era examples, many custom loops): the batch
    index is where the record sits, so an excerpt from batch 412 on starts mid-run."""
    lines = [f"batch_id:{412 + i}, cost:{3.2 + 0.05 * ((i * 5) % 3 - 1):.4f}" for i in range(12)]
    log = read_console_text("\n".join(lines))
    s = log.series["loss"]
    assert s.rows == 12
    assert s.first_x == 412 and s.last_x == 423


def test_a_flat_excerpt_from_a_later_batch_id_is_a_plateau_not_a_loss_that_never_moved(tmp_path):
    lines = []
    for i in range(16):
        lines.append(f"step_id: {9000 + 10 * i}, avg_loss: {0.83 + 0.02 * ((i * 7) % 5 - 2) / 2:.5f}")
        if i % 5 == 4:
            lines.append("finished one pass over the training files")
    rep = diagnose_log_report(tmp_path, "\n".join(lines))[0]
    assert report_fact(rep, "log_starts_mid_run") is True
    assert rep["symptom"]["id"] == "plateau"


def test_a_fractional_epoch_that_repeats_stays_the_position_in_the_run(tmp_path):
    """HF Trainer's log dicts round the epoch to two decimals, so a run that logs often prints the
    same epoch twice: the records stay at their epoch (3.40 ... 3.45), not rows counted from the
    first repeat, and an excerpt from epoch 3.4 on starts mid-run."""
    noise = [0.0123, -0.0071, 0.0048, -0.0139, 0.0097, -0.0025, 0.0152, -0.0113, 0.0031, -0.0068, 0.0119,
             -0.0144, 0.0059, -0.0007]
    lines = [str({"loss": round(0.71 + noise[i], 4), "learning_rate": 2.1e-05 - 1e-07 * i,
                  "epoch": round(3.40 + 0.004 * i, 2)}) for i in range(14)]
    log = read_console_text("\n".join(lines))
    s = log.series["loss"]
    assert s.rows == 14
    assert s.first_x == 3.4 and s.last_x <= 3.46
    rep = diagnose_log_report(tmp_path, "\n".join(lines))[0]
    assert report_fact(rep, "log_starts_mid_run") is True
    assert rep["symptom"]["id"] == "plateau"


def test_whole_epochs_printed_per_batch_still_count_rows():
    """``Epoch 2 train loss: ...`` line after line under the same whole epoch: each line is a row."""
    text = "\n".join(f"Epoch 2 train loss: {0.9 - 0.01 * i:.4f}" for i in range(10))
    s = read_console_text(text).series["loss"]
    assert s.rows == 10
    assert s.last_x - s.first_x >= 9
