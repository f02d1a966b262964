"""Pasted excerpts whose printed step time grows partway (issue 13, session 47, pasteimp47): a step
that takes many times longer at the end of the excerpt than at its start, outgrowing its own step
counter (``step_time_slowdown``), is the Training Slow symptom; before, the fact was not read and no
rule read the rising step time, so such a run was healthy or a plateau. An elapsed clock printed on
each line (seconds since the start) grows with the counter it times and is no slowdown. Each sample
is written for this test (invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _iters(losses, ms, start=40) -> str:
    return "\n".join(f"iter {start + k}: loss {loss:.4f}, time: {t:.2f}ms"
                     for k, (loss, t) in enumerate(zip(losses, ms))) + "\n"


def _facts(rep) -> dict:
    return {f["fact"]: f["value"] for f in rep.get("facts", [])}


def test_a_mid_run_excerpt_whose_step_grows_from_one_second_to_a_minute_is_slow_training(tmp_path):
    losses = [2.71, 2.64, 2.69, 2.66, 2.70, 2.63, 2.68, 2.65, 2.69, 2.66, 2.67, 2.64, 2.70, 2.65, 2.68, 2.66]
    ms = [1100, 1180, 1250, 2400, 5100, 9800, 15000, 22000, 31000, 39000, 47000, 55000, 61000, 66000,
          70000, 73000]
    rep, _ = diagnose_log_report(tmp_path, _iters(losses, ms))
    assert report_symptom(rep) == "slow_training"
    assert _facts(rep)["step_time_slowdown"] >= 4


def test_a_throughput_that_falls_to_a_third_late_in_a_run_is_slow_training(tmp_path):
    lines = [f"Epoch 3 Step {20100 + 50 * k}  Speed {s:.2f} samples/sec  Loss {48.0 - 1.2 * k:.4f}"
             for k, s in enumerate([1473, 1548, 1507, 1517, 1540, 1530, 1534, 905, 485, 488, 479, 482,
                                    490, 476, 481])]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == "slow_training"


def test_an_elapsed_clock_that_grows_with_its_step_is_no_slowdown(tmp_path):
    lines = [f'{{"step": {10 * k}, "loss": {2.5 * 0.96 ** k:.4f}, "time": {k // 4}}}' for k in range(1, 45)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert "step_time_slowdown" not in _facts(rep)
    assert report_symptom(rep) != "slow_training"


def test_a_step_a_little_slower_at_the_end_is_no_slowdown(tmp_path):
    losses = [2.4 * 0.95 ** k for k in range(16)]
    ms = [400 + 12 * k for k in range(16)]
    rep, _ = diagnose_log_report(tmp_path, _iters(losses, ms))
    assert report_symptom(rep) != "slow_training"


def test_a_slowdown_does_not_hide_a_loss_that_goes_nan(tmp_path):
    losses = [2.3, 2.2, 2.1, 2.4, 3.9, 8.8, 27.0, 90.0, float("nan"), float("nan")]
    ms = [500, 520, 510, 900, 2500, 4800, 6000, 7100, 7400, 7600]
    rep, _ = diagnose_log_report(tmp_path, _iters(losses, ms))
    assert report_symptom(rep) == "explosion"


def test_a_throughput_that_falls_while_the_counter_grows_as_much_is_not_read_as_a_slowdown(tmp_path):
    # from step 100 to 800 the counter grows 5x; a speed that falls 3x over the same records cannot be
    # told from an average rate or a clock that counts with it, so no slowdown is read
    lines = [f"Epoch 0 Step {100 + 50 * k}  Speed {s:.2f} samples/sec  Loss {48.0 - 1.2 * k:.4f}"
             for k, s in enumerate([1473, 1548, 1507, 1517, 1540, 1530, 1534, 905, 485, 488, 479, 482,
                                    490, 476, 481])]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert "step_time_slowdown" not in _facts(rep)


def test_a_short_excerpt_whose_step_climbs_at_every_record_is_slow_training(tmp_path):
    # five records of a run in its 36th epoch, each step slower than the last: 2.6 s -> 5.6 s
    lines = [f"epoch: 36/300, iter: {1260 + 10 * k}/1849, iter_time: {t:.3f}s, total_loss: {v:.1f}, lr: 9.721e-03"
             for k, (t, v) in enumerate([(2.564, 6.7), (3.890, 6.2), (4.339, 6.4), (4.707, 7.0), (5.567, 7.0)])]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == "slow_training"
    assert _facts(rep)["step_time_slowdown"] >= 2


def test_a_clock_that_counts_up_with_its_step_at_every_record_is_no_slowdown(tmp_path):
    lines = [f"step {10 * k}: loss {2.0 * 0.97 ** k:.4f}, time {1.02 * k:.2f}" for k in range(1, 9)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert "step_time_slowdown" not in _facts(rep)
    assert report_symptom(rep) != "slow_training"


def test_an_elapsed_clock_counted_by_rows_from_zero_is_read_without_error(tmp_path):
    # an RL trainer's summary lines: an elapsed time that climbs at every line and no loss; the records
    # are counted from row 0, so there is no counter growth to compare the clock with
    lines = [f"INFO:trainers: run: Env: Step: {30000 + 1000 * k}. Time Elapsed: {98.2 + 3.17 * k:.3f} s "
             f"Mean Reward: {0.25 * (k % 3):.3f}. Std of Reward: 0.433. Training." for k in range(9)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert rep.get("status") != "error"
    assert "step_time_slowdown" not in _facts(rep)
