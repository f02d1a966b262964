"""A pasted log that prints quality scores and no loss or accuracy (a per-epoch dict of F1 or BLEU
scores, a train/validation R2 pair, an mAP line per evaluation) is read from its scores instead of
being refused; a log that prints a loss or an accuracy reads exactly as before, its scores unread
(session 27, ``console.quality_score_names``)."""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text


def test_a_train_and_validation_score_pair_reads_as_a_gap(tmp_path):
    """A regressor's R2 far higher on its training data than on held-out data is overfitting."""
    text = ("Training set metrics {'mean-r2_score': 0.962}\n"
            "Validation set metrics {'mean-r2_score': 0.411}\n")
    log = read_console_text(text)
    assert log.series["accuracy"].points[-1].mean == pytest.approx(0.962)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.411)
    assert any("quality score" in n for n in log.notes)
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) == "overfitting"


def test_rising_per_epoch_scores_read_as_learning(tmp_path):
    """Caption scores printed as a dict per epoch, a list of n-gram BLEUs beside scalar scores: the
    list is per n-gram, not a history, and the scalars rise epoch by epoch."""
    lines = []
    for e in range(8):
        b = 0.61 + 0.012 * e
        lines.append(f"[epoch {e}] dev results: {{'bleu': [{b:.4f}, {b - 0.1:.4f}, {b - 0.2:.4f}], "
                     f"'rouge_l': {0.48 + 0.01 * e:.4f}, 'meteor': {0.22 + 0.004 * e:.4f}}}")
    text = "\n".join(lines)
    log = read_console_text(text)
    s = log.series["val_accuracy"]
    assert s.rows == 8                      # one point per epoch, not three per line
    assert s.points[-1].mean > s.points[0].mean
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) == "healthy"


def test_a_percent_dice_score_is_read_as_a_fraction():
    text = "\n".join(f"eval epoch {i}: mean dice coefficient = {70.5 + i:.2f}" for i in range(6))
    log = read_console_text(text)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.755)


def test_a_score_beside_a_loss_is_not_read():
    """With a loss printed, the loss is the curve: an F1 beside it stays unread (no accuracy)."""
    text = "\n".join(f"epoch {i} | train loss {1.2 - 0.1 * i:.3f} | dev f1 {0.5 + 0.03 * i:.3f}" for i in range(8))
    log = read_console_text(text)
    assert "loss" in log.series
    assert "accuracy" not in log.series and "val_accuracy" not in log.series


def test_a_word_that_is_not_a_score_is_no_accuracy():
    """A score's name must be a known score word: ``psnr`` (decibels, unbounded) is not one, and is
    left to the reading by values as before."""
    text = "\n".join(f"<epoch {i}> psnr: {21.3 + (i % 3) * 0.8:.2f}" for i in range(8))
    log = read_console_text(text)
    assert "accuracy" not in log.series and "val_accuracy" not in log.series
    assert not any("quality score" in n for n in log.notes)


def test_an_unknown_heading_word_is_no_score():
    """Every word of a score's name must be a score, a split, a filler or a heading word: ``loader
    map`` is no mAP."""
    text = "\n".join(f"step {i} loader map {0.2 + 0.01 * i:.2f}" for i in range(8))
    try:
        log = read_console_text(text)
    except InputError:
        return
    assert not any("quality score" in n for n in log.notes)
