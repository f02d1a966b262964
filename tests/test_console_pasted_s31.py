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
