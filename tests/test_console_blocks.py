"""Console shapes met in session 20's print styles (benchmarks/print_styles.py, styles20): a validation
block under a heading, TF eager tensors, split words alone beside a named loss."""

import pytest

from traindx.probes.readers.console import read_console_text


def _val_block(heading: str, indent: str = "    ") -> str:
    lines = []
    for e in range(1, 9):
        lines.append(f"Epoch {e}/8 train loss {2.0 / e:.4f} acc {0.1 * e:.4f}")
        lines.append(heading)
        lines.append(f"{indent}loss: {2.2 / e:.4f}")
        lines.append(f"{indent}acc: {0.09 * e:.4f}")
    return "\n".join(lines)


@pytest.mark.parametrize("heading", ["  validation:", "Eval begin...", "Validating", "=== Validation ==="])
def test_metrics_under_a_validation_heading_are_validation_metrics(heading):
    log = read_console_text(_val_block(heading))
    assert log.series["loss"].last_value == pytest.approx(0.25)
    assert log.series["loss"].rows == 8
    assert log.series["val_loss"].last_value == pytest.approx(0.275)
    assert log.series["accuracy"].last_value == pytest.approx(0.8)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.72)


def test_validation_block_ends_at_the_next_training_line_without_an_epoch():
    """``Validation @ N`` then one metric a line; the next ``it N loss`` line is training again."""
    lines = []
    for i in range(1, 13):
        lines.append(f"it {i * 100:6d}  loss {3.0 / i:.4f}")
        if i % 3 == 0:
            lines += ["=" * 40, f"Validation @ {i * 100}", f"  loss     : {3.3 / i:.4f}",
                      f"  accuracy : {0.07 * i:.4f}", "=" * 40]
    log = read_console_text("\n".join(lines))
    assert log.series["loss"].rows == 12
    assert log.series["loss"].last_value == pytest.approx(0.25)
    assert log.series["val_loss"].rows == 4
    assert log.series["val_loss"].last_value == pytest.approx(0.275)
    assert "accuracy" not in log.series


def test_a_heading_word_inside_a_sentence_opens_no_block():
    lines = []
    for e in range(1, 9):
        if e % 2 == 0:
            lines.append(f"Validation finished in {e}s")
        lines.append(f"epoch {e} loss {1.0 / e:.4f}")
    text = "\n".join(lines)
    log = read_console_text(text)
    assert "val_loss" not in log.series
    assert log.series["loss"].rows == 8


def test_tf_eager_tensors_unwrap():
    text = "\n".join(f"Epoch 1 step {i * 10}: loss: tf.Tensor({2.4 / i:.4f}, shape=(), dtype=float32) "
                     f"accuracy: tf.Tensor({0.1 * i:.4f}, shape=(), dtype=float32)" for i in range(1, 9))
    log = read_console_text(text)
    assert log.series["loss"].last_value == pytest.approx(0.3)
    assert log.series["accuracy"].last_value == pytest.approx(0.8)


@pytest.mark.parametrize("fmt", ["[Epoch {e}] train={a:.6f} val={v:.6f} loss={lo:.6f} time: 12.3",
                                 "Epoch: {e:03d}, Loss: {lo:.4f}, Train: {a:.4f}, Val: {v:.4f}, Test: 0.7800"])
def test_split_words_alone_beside_a_named_loss_are_no_validation_loss(fmt):
    text = "\n".join(fmt.format(e=e, a=0.5 + 0.05 * e, v=0.45 + 0.05 * e, lo=1.0 / e) for e in range(1, 9))
    log = read_console_text(text)
    assert log.series["loss"].last_value == pytest.approx(0.125)
    assert "val_loss" not in log.series


def test_split_words_alone_still_read_as_the_losses_when_no_loss_is_named():
    log = read_console_text("\n".join(f"epoch {e} train {1.0 / e:.4f} val {1.2 / e:.4f}" for e in range(1, 9)))
    assert log.series["loss"].last_value == pytest.approx(0.125)
    assert log.series["val_loss"].last_value == pytest.approx(0.15)
