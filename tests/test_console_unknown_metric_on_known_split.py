"""A metric named in a word traindx does not know, on a split word it does know (session 35).

``Epoh 3/12 | kelangan latihan 0.52 | kelangan validasi 0.61 | akurasi validasi 81.0%``: the split
words (``latihan``, ``validasi``) and the accuracy (``akurasi``) are in the vocabulary, the loss's noun
is not. The known split word no longer hides the label from the guess by values, so the two losses are
read (one metric on two splits, sharing the stem; alone on one split such a label is not guessed)
beside the known accuracy; and a run's closing line
in the same language (``akurasi akhir``: the final accuracy) is a summary, not a training accuracy.
The log is made up here."""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

EPOCHS = 14
# an overfitting run: the training loss keeps falling, the validation loss turns up after epoch 5
TRAIN = [1.40 * 0.72 ** e for e in range(EPOCHS)]
VAL = [1.30 - 0.08 * e if e < 5 else 0.90 + 0.11 * (e - 5) for e in range(EPOCHS)]
VAL_ACC = [40.0 + 3.0 * e if e < 5 else 52.0 - 0.4 * (e - 5) for e in range(EPOCHS)]


def _log() -> str:
    lines = ["Modél: 9000 paraméter"]
    lines += [f"Epoh {e + 1}/{EPOCHS} | kelangan latihan {TRAIN[e]:.4f} | kelangan validasi {VAL[e]:.4f} | "
              f"akurasi validasi {VAL_ACC[e]:.2f}% | 0.9 detik" for e in range(EPOCHS)]
    lines.append(f"Rampung. Akurasi akhir: {VAL_ACC[-1]:.2f}%")
    return "\n".join(lines) + "\n"


def test_an_unknown_loss_word_on_known_split_words_is_read_by_its_values():
    log = read_console_text(_log())
    assert log.x_label == "epoch"
    assert log.series["loss"].rows == EPOCHS
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1], abs=1e-4)
    assert log.series["val_loss"].last_value == pytest.approx(VAL[-1], abs=1e-4)
    assert log.series["val_accuracy"].rows == EPOCHS
    # the closing "final accuracy" is a summary of the run, not a training accuracy of one point
    assert "accuracy" not in log.series


def test_such_a_run_gets_its_symptom(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log())
    assert report_symptom(rep) == "overfitting"


def test_a_split_word_alone_is_still_the_readers():
    """``latihan 5`` (a split word alone as a counter) is not guessed to be the epoch."""
    from traindx.probes.readers.console_guess import guess_vocabulary

    lines = [f"latihan {e} | kelangan latihan {TRAIN[e]:.4f} | kelangan validasi {VAL[e]:.4f}" for e in range(EPOCHS)]
    vocab = guess_vocabulary(lines)
    assert "latihan" not in vocab
    assert vocab.get("kelangan latihan") == "train loss"


def test_an_unknown_word_on_one_split_alone_is_not_guessed():
    """``kelangan latihan`` with no other split of it: nothing says it is one metric on two splits, so it
    stays the readers' to refuse (as ``train pplx`` does)."""
    from traindx.probes.readers.console_guess import guess_vocabulary

    lines = [f"Epoh {e + 1} | kelangan latihan {TRAIN[e]:.4f}" for e in range(EPOCHS)]
    assert "kelangan latihan" not in guess_vocabulary(lines)


def test_a_log_its_unknown_labels_already_read_is_read_as_before():
    """Per-batch ``xentropia=1.31`` beside checkpoint lines ``Train-xentropia`` / ``Validation-xentropia``: the
    bare unknown label is guessed first (the per-batch training loss), and the split-qualified ones are left
    to the readers as before, never paired with it (which would make the per-batch loss a validation loss)."""
    from traindx.probes.readers.console_guess import guess_vocabulary

    lines = []
    for e in range(EPOCHS):
        lines += [f"Epoch[{e}] Batch [{b}]\tSpeed: 120.5 samples/sec\txentropia={TRAIN[e] + 0.02 * b:.4f}\t"
                  "learning-rate=0.000500" for b in (10, 20, 30)]
        lines += [f"Checkpoint [{e + 1:03d}]\tUpdates={32 * (e + 1)} Epoch={e}",
                  f"Checkpoint [{e + 1:03d}]\tTrain-xentropia={TRAIN[e]:.4f}",
                  f"Checkpoint [{e + 1:03d}]\tTrain-acc=0.5",
                  f"Checkpoint [{e + 1:03d}]\tValidation-xentropia={VAL[e]:.4f}"]
    vocab = guess_vocabulary(lines)
    assert vocab.get("xentropia") == "train loss"
    assert "train-xentropia" not in vocab
