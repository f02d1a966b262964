"""Reading shapes of session 31's pasted tuning material (made-up lines in the same shapes): an axis
printed as an abbreviation with its full stop (``Ep. 3 : Up. 12000``), an abbreviated name's own
full stop (``L.r. 3e-05``), and the unit of a printed speed, which is never the first word of the
next metric's name (``95.7 samples/sec Train-CrossEntropy=2.31``)."""

from traindx.probes.readers.console import read_console_text


def _nmt_lines(n: int = 5) -> str:
    return "\n".join(f"[2022-03-0{1 + i % 8} 10:00:00] Ep. 3 : Up. {12000 + 500 * i} : "
                     f"Sen. {1_200_000 + i * 61_000:,} : Cost {4.8 - 0.2 * i:.5f} : Time {210.5 + i:.2f}s : "
                     f"9120.44 words/s : L.r. {3.0e-4 - 1e-5 * i:.4e}"
                     for i in range(n))


def test_abbreviated_update_counter_is_the_step():
    """``Up. 12000`` is the update counter: records sit on it, not on their row numbers."""
    log = read_console_text(_nmt_lines())
    assert log.x_label == "step"
    assert [p.x for p in log.series["loss"].points] == [12000 + 500 * i for i in range(5)]


def test_abbreviated_learning_rate_is_read():
    """``L.r. 3.0e-04``: the learning rate under its abbreviation, its name not run into the speed's unit."""
    log = read_console_text(_nmt_lines())
    assert log.names["lr"] == "L.r"
    assert log.series["lr"].points[0].mean == 3.0e-4


def test_validation_lines_keep_their_updates():
    """Validation lines that print only ``Ep.`` and ``Up.`` spread over their updates, not one x."""
    text = "\n".join(f"[2022-05-02 1{i}:00:00] [valid] Ep. 2 : Up. {50000 + 5000 * i} : "
                     f"cross-entropy : {61.2 - i:.4f} : new best" for i in range(4))
    log = read_console_text(text)
    assert [p.x for p in log.series["val_loss"].points] == [50000, 55000, 60000, 65000]


def test_a_bare_up_is_no_axis():
    """Only with its full stop is ``up`` an axis: ``warmed up 5`` in prose is not an update counter."""
    text = "\n".join(f"step {10 * (i + 1)} loss {2.0 - 0.1 * i:.3f} lr warmed up 5" for i in range(5))
    log = read_console_text(text)
    assert [p.x for p in log.series["loss"].points] == [10, 20, 30, 40, 50]


def test_a_speed_unit_is_no_part_of_the_next_name():
    """The unit of a speed printed before a metric stays with the speed: the metric keeps its own name."""
    text = "\n".join(f"Epoch[{i // 4}] Batch [{20 * (i % 4 + 1)}]\tSpeed: {95.7 - i:.2f} samples/sec\t"
                     f"Train-CrossEntropy={2.3 - 0.05 * i:.6f}" for i in range(8))
    log = read_console_text(text)
    assert log.names["loss"] == "Train-CrossEntropy"
    text = "\n".join(f"[12:0{i}:00][#0{61370 + 10 * i}][{4100 + i}ms] src_loss:{0.3 - 0.01 * i:.3f} "
                     f"dst_loss:{0.2 - 0.01 * i:.3f}" for i in range(6))
    assert read_console_text(text).names["loss"] == "src_loss"


def test_a_rate_over_seconds_is_no_part_of_the_next_name():
    text = "\n".join(f"Train Epoch: 0 [{640 * (i + 1)}/100000 ({i}%)] Loss: {1.1 - 0.02 * i:.4f} "
                     f"Batch (t): 0.551, {36.1 + i:.4f}/s LR: {1e-6 * (i + 1):.6f}" for i in range(6))
    log = read_console_text(text)
    assert log.names["lr"] == "LR"


def test_a_progress_bars_share_done_is_no_metric():
    """``eval model:: 100%|████| 205/205``: the bar's percentage is how far the evaluation got, not a
    validation loss of 100."""
    lines = [f"[2024/01/02 10:0{i}:00] INFO: epoch: [1/5], global_step: {10 * i}, lr: 0.000500, "
             f"loss: {1.3 - 0.03 * i:.5f}, avg_batch_cost: 0.42 s" for i in range(1, 6)]
    lines.append("eval model:: 100%|" + "\u2588" * 30 + "| 205/205 [00:04<00:00, 44.29it/s]")
    log = read_console_text("\n".join(lines))
    assert "val_loss" not in log.series
    assert log.series["loss"].rows == 5


def test_a_numbered_suffix_is_part_of_the_name_not_its_value():
    """``accuracy_top-3: 40.0`` and ``error@0.7: 0.48``: the ``-3`` and ``@0.7`` qualify the name (a top-k
    accuracy, an error at a threshold); read as the value they made an accuracy of -3 on every record."""
    text = "\n".join(f"epoch {i + 1} train_loss {0.9 - 0.05 * i:.4f} error@0.7: {0.5 - 0.02 * i:.4f} "
                     f"accuracy_top-3: {40 + 2 * i:.4f} recall@10: {0.2 + 0.01 * i:.3f}" for i in range(6))
    log = read_console_text(text)
    for series in log.series.values():
        assert all(p.mean >= 0 for p in series.points)
    assert log.series["loss"].rows == 6


def test_vali_is_the_validation_split():
    """The time-series library family prints ``Train Loss ... Vali Loss ... Test Loss``: the
    validation curve is the Vali one, the test loss a held-out value of its own."""
    text = "\n".join(f"Epoch: {i + 1}, Steps: 22 | Train Loss: {0.9 - 0.05 * i:.7f} Vali Loss: {0.8 - 0.01 * i:.7f} "
                     f"Test Loss: {0.7 + 0.02 * i:.7f}" for i in range(6))
    log = read_console_text(text)
    assert log.names["val_loss"] == "Vali Loss"
    assert log.series["val_loss"].points[0].mean == 0.8


def test_a_metric_named_error_with_its_values_is_no_exception():
    """``topFiveError: [0.11 0.04 ...]`` prints a top-5 error's history: the run did not crash."""
    text = ("info.train =\n"
            "objective: [1.5653 1.1478 0.9879 0.8890 0.8178 0.7637 0.7225 0.6781]\n"
            "topFiveError: [0.1101 0.0439 0.0321 0.0259 0.0218 0.0183 0.0162 0.0143]\n")
    log = read_console_text(text)
    assert log.errors == []


def test_a_traceback_pasted_on_one_line_keeps_its_exception():
    """A traceback whose newlines the paste lost still ends in its exception: a diverged loss is
    non-finite evidence, not an unnamed crash."""
    lines = [f"I runner.py:276] Step = {29750 + 10 * i} ; Learning rate = 0.000187 ; Loss = {1.60 + 0.01 * i:.6f}"
             for i in range(4)]
    lines.append("Traceback (most recent call last):")
    lines.append('  File "main.py", line 356, in <module>    main()  File "main.py", line 314, in main    '
                 'run(  File "/p/training.py", line 269, in _steps    raise RuntimeError("Model diverged with '
                 'loss = NaN.")RuntimeError: Model diverged with loss = NaN.')
    log = read_console_text("\n".join(lines))
    assert [e["kind"] for e in log.errors] == ["nonfinite"]


def test_rewards_alone_are_a_reinforcement_learning_run():
    """A paste that prints only an agent's mean reward is an RL run's (out of scope, said so), not
    a log with no metrics."""
    import pytest

    from traindx.engine.errors import RLLogError
    text = "\n".join(f"INFO:trainer: Agent: Step: {2000 * (i + 1)}. Mean Reward: {1.2 + 0.4 * i:.3f}. "
                     f"Std of Reward: {0.1 * i:.3f}." for i in range(6))
    with pytest.raises(RLLogError):
        read_console_text(text)


def test_a_return_alone_stays_no_rl_evidence():
    """``return`` (a finance model's) alone is no agent's reward: the log is still one without metrics."""
    import pytest

    from traindx.engine.errors import InputError, RLLogError
    text = "\n".join(f"day {i + 1}: portfolio return {0.01 * i:.3f}" for i in range(6))
    with pytest.raises(InputError) as exc:
        read_console_text(text)
    assert not isinstance(exc.value, RLLogError)


def test_frames_per_second_is_a_speed():
    """An agent's ``speed 281.9 f/s`` is its environment frames per second: a log of games that
    prints it is a speed to judge, and its exploration ``eps`` is no training loss."""
    text = "\n".join(f"{900 * (i + 1)}: done {i + 1} games, mean reward -{19 + 0.1 * i:.3f}, "
                     f"speed {300 - 25 * i:.2f} f/s, eps {1 - 0.01 * i:.2f}" for i in range(10))
    log = read_console_text(text)
    assert "step_time" in log.series
    assert "loss" not in log.series
