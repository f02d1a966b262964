"""Tables whose rows belong to a split the row itself does not name in a metric's name (session 32,
paste32): a table printed under a heading that names its split (``Validation:`` above a CSV
header), and a table whose rows are labelled by split in a column of their own (``train`` /
``valid`` / ``test`` rows of one epoch). Made-up lines in those shapes."""

import pytest

from traindx.probes.readers.console import read_console_text


def _headed_tables() -> str:
    train = [f"{e}, {1.2 - 0.1 * e:.3f}, {0.5 + 0.05 * e:.3f}" for e in range(1, 8)]
    val = [f"{e}, {1.0 + 0.08 * e:.3f}, {0.52 - 0.01 * e:.3f}" for e in range(1, 8)]
    return "\n".join(["Train:", "epoch, loss, accuracy", *train, "",
                      "Validation:", "epoch, loss, accuracy", *val])


def test_table_under_a_validation_heading_is_the_validation_curve():
    """The rows under ``Validation:`` are validation metrics, not a restart of the training curve."""
    log = read_console_text(_headed_tables())
    assert log.series["loss"].rows == 7
    assert log.series["loss"].last_value == pytest.approx(0.5)
    assert log.series["val_loss"].rows == 7
    assert log.series["val_loss"].last_value == pytest.approx(1.56)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.45)
    assert not log.restart_lines


def test_a_training_heading_keeps_its_table_training():
    """``Train:`` over a table names the split the rows would be read as anyway: nothing moves to validation."""
    log = read_console_text("\n".join(_headed_tables().split("\n")[:9]))
    assert log.series["loss"].rows == 7
    assert "val_loss" not in log.series


def test_a_heading_with_records_after_it_does_not_reach_a_later_table():
    """A heading's block ends with its own metric lines: a table header further down is training again."""
    lines = ["Evaluating", "  loss: 0.90", "  accuracy: 0.61", "epoch, loss, accuracy"]
    lines += [f"{e}, {1.2 - 0.1 * e:.3f}, {0.5 + 0.05 * e:.3f}" for e in range(1, 8)]
    log = read_console_text("\n".join(lines))
    assert log.series["loss"].rows == 7


def _split_rows(bar: str = "|") -> str:
    lines = []
    for e in range(1, 7):
        lines += [f"Epoch {e}", f"{bar} split {bar} loss {bar} accuracy {bar} auc {bar}",
                  f"{bar} train {bar} {1.0 - 0.12 * e:.4f} {bar} {0.4 + 0.08 * e:.4f} {bar} 0.9 {bar}",
                  f"{bar} valid {bar} {0.9 + 0.1 * e:.4f} {bar} {0.45 + 0.01 * e:.4f} {bar} 0.8 {bar}",
                  f"{bar} test  {bar} {0.95 + 0.1 * e:.4f} {bar} {0.44 + 0.01 * e:.4f} {bar} 0.8 {bar}"]
    return "\n".join(lines)


@pytest.mark.parametrize("bar", ["|", "│"])
def test_rows_labelled_by_split_go_to_their_split(bar):
    """A ``train`` row, a ``valid`` row and a ``test`` row per epoch: three curves, not one zigzag."""
    log = read_console_text(_split_rows(bar))
    assert log.series["loss"].rows == 6
    assert log.series["loss"].last_value == pytest.approx(0.28)
    assert log.series["val_loss"].last_value == pytest.approx(1.5)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.51)
    assert log.series["accuracy"].last_value == pytest.approx(0.88)


# ------------- a second loop after the training loop completes, with a smaller total: the evaluation
def _two_loops(n_epochs: int = 5, first_epoch_line: bool = True) -> str:
    lines = []
    for e in range(1, n_epochs + 1):
        if first_epoch_line:
            lines.append(f"Epoch {e}/{n_epochs}")
        lines.append(f"1250/1250 [==============================] - 41s 33ms/step - loss: {0.9 / e:.4f} "
                     f"- acc: {0.6 + 0.05 * e:.4f}")
        lines.append(f"157/157 [==============================] - 2s 12ms/step - loss: {0.5 + 0.2 * e:.4f} "
                     f"- acc: {0.62 - 0.01 * e:.4f}")
    return "\n".join(lines)


def test_a_smaller_loop_after_the_training_loop_is_the_evaluation():
    """Each epoch runs 1250 batches to the end, then 157 of another loop: that loop's metrics are held out."""
    log = read_console_text(_two_loops())
    assert log.series["loss"].rows == 5
    assert log.series["loss"].last_value == pytest.approx(0.18)
    assert log.series["val_loss"].rows == 5
    assert log.series["val_loss"].last_value == pytest.approx(1.5)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.57)
    assert not log.restart_lines


def test_a_loop_cut_off_before_its_total_is_no_evaluation_pair():
    """A training loop that did not reach its total (a run restarted mid-epoch) keeps the next bar training."""
    lines = ["Epoch 1/3", "600/1250 [=============>................] - ETA: 20s - loss: 0.9100 - acc: 0.6000",
             "Epoch 1/3", "100/1000 [==>...........................] - ETA: 30s - loss: 0.9500 - acc: 0.5900",
             "200/1000 [=====>........................] - ETA: 25s - loss: 0.8800 - acc: 0.6100"]
    log = read_console_text("\n".join(lines))
    assert "val_loss" not in log.series


def test_loops_of_many_totals_are_not_a_training_and_an_evaluation_loop():
    """Bars counting to three or more totals are loops of several fits, not one run's training and evaluation."""
    totals = [300, 420, 96, 250, 64]
    lines = [f"{t}/{t} [==============================] - 3s 10ms/step - loss: {0.5 - 0.01 * k:.4f} "
             f"- accuracy: {0.7 + 0.01 * k:.4f}" for k, t in enumerate(totals)]
    log = read_console_text("\n".join(lines))
    assert "val_loss" not in log.series


def test_a_shorter_loop_that_prints_its_own_validation_is_training():
    """A bar that prints val_loss itself is a training loop (another run's, with a smaller set), not the evaluation."""
    lines = ["Epoch 1/20", "5000/5000 [==============================] - 9s - loss: 1.7000 - acc: 0.3600 - "
             "val_loss: 1.3200 - val_acc: 0.5300",
             "Epoch 1/5", "2000/2000 [==============================] - 4s - loss: 0.4500 - acc: 0.7600 - "
             "val_loss: 0.3200 - val_acc: 0.8600"]
    log = read_console_text("\n".join(lines))
    assert log.series["val_loss"].last_value == pytest.approx(0.32)
    assert log.series["loss"].last_value == pytest.approx(0.45)


def test_training_tables_after_a_headed_validation_table_stay_training():
    """``valid:`` over its own small table, then the next training table without a heading: training again."""
    lines = []
    for e in range(1, 7):
        lines += [f"12:00:0{e} | epochs:{e}.00 total_steps:{100 * e}", "    exs   loss    lr",
                  f"    480  {0.9 / e:.4f}  .001", "", "valid:", "    exs   loss", f"    120  {0.5 + 0.01 * e:.4f}", ""]
    log = read_console_text("\n".join(lines))
    assert log.series["loss"].rows == 6
    assert log.series["loss"].last_value == pytest.approx(0.15)
    assert log.series["val_loss"].rows == 6
    assert log.series["val_loss"].last_value == pytest.approx(0.56)
