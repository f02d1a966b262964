"""Metric words of more languages and loss functions met in finished runs (session 24, fresh15):
Hindi (Devanagari) and Greek lines read through ``console.local_words``, Swedish compounds and
Vietnamese multi-word terms through ``console.latin_words``, and a loss printed only under its ranking
loss function's name (``listnet``) in LightGBM's, OpenNMT's and key=value prints. Each log is made up
here; the tests check what is read and the symptom it leads to."""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

EPOCHS = 12
# an overfitting run: the training loss keeps falling, the validation loss turns up after epoch 4
TRAIN = [1.30 * 0.78 ** e for e in range(EPOCHS)]
VAL = [1.20 - 0.12 * e if e < 4 else 0.72 + 0.09 * (e - 4) for e in range(EPOCHS)]
VAL_ACC = [0.38 + 0.05 * e if e < 4 else 0.58 - 0.01 * (e - 4) for e in range(EPOCHS)]

LANGUAGES = {
    # Hindi: the noun after its split word, pipes, the learning-rate phrase of three words
    "hi": lambda e, n: (f"युग {e + 1}/{n} पूरा | प्रशिक्षण हानि {TRAIN[e]:.4f} | सत्यापन हानि {VAL[e]:.4f} | "
                        f"सत्यापन सटीकता {VAL_ACC[e]:.3f} | सीखने की दर 1.0e-03"),
    # Greek: the split word after the noun, in the genitive
    "el": lambda e, n: (f"Εποχή {e + 1:2d}/{n} | απώλεια εκπαίδευσης {TRAIN[e]:.4f} | απώλεια επικύρωσης "
                        f"{VAL[e]:.4f} | ακρίβεια επικύρωσης {VAL_ACC[e]:.3f} | ρυθμός μάθησης 0.003"),
    # Swedish: compounds, and a split prefix joined to a metric by a hyphen
    "sv": lambda e, n: (f"Epok {e + 1:2d}/{n}: träningsförlust {TRAIN[e]:.4f}, tränings-F1 0.5 | "
                        f"valideringsförlust {VAL[e]:.4f}, valideringsnoggrannhet {VAL_ACC[e]:.3f}"),
    # Vietnamese: every term two words or more
    "vi": lambda e, n: (f"Epoch {e + 1}/{n} xong | mất mát huấn luyện {TRAIN[e]:.5f} | mất mát kiểm định "
                        f"{VAL[e]:.5f} | độ chính xác kiểm định {VAL_ACC[e]:.3f}"),
}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_a_run_printed_in_another_language_is_read(lang):
    text = "\n".join(LANGUAGES[lang](e, EPOCHS) for e in range(EPOCHS)) + "\n"
    log = read_console_text(text)
    assert log.x_label == "epoch"
    assert log.series["loss"].rows == EPOCHS
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1], abs=1e-4)
    assert log.series["val_loss"].last_value == pytest.approx(VAL[-1], abs=1e-4)
    assert log.series["val_accuracy"].last_value == pytest.approx(VAL_ACC[-1], abs=1e-3)


@pytest.mark.parametrize("lang", ["el", "hi"])
def test_a_run_printed_in_another_script_gets_its_symptom(tmp_path, lang):
    text = "\n".join(LANGUAGES[lang](e, EPOCHS) for e in range(EPOCHS)) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "overfitting"


def test_batch_lines_within_an_epoch_in_hindi_are_steps():
    """``युग 3 | बैच 16/47 | हानि 0.74``: the batch of an epoch, so the per-batch losses are a step curve."""
    lines = []
    for e in range(EPOCHS):
        lines += [f"  युग {e + 1} | बैच {b}/40 | हानि {TRAIN[e] + 0.01 * b / 40:.4f}" for b in (10, 20, 30, 40)]
    log = read_console_text("\n".join(lines) + "\n")
    assert log.series["loss"].rows == 4 * EPOCHS
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1] + 0.01, abs=1e-4)


RANKING = {
    # LightGBM's evaluation line: a round in brackets, "<set>'s <metric>: value" separated by tabs
    "lightgbm": lambda e: (f"[{e + 1}]\ttraining's listnet: {TRAIN[e]:.6f}\ttraining's ndcg@5: 0.9\t"
                           f"valid_1's listnet: {VAL[e]:.6f}\tvalid_1's ndcg@5: 0.9"),
    # OpenNMT's step line and its validation lines
    "opennmt": lambda e: (f"[2026-12-04 15:09:32,194 INFO] Step {10 * (e + 1):3d}/{10 * EPOCHS}; listnet: "
                          f"{TRAIN[e]:.4f}; lr: 0.00002000;   2803 q/s;      0 sec\n"
                          f"[2026-12-04 15:09:32,297 INFO] Validation listnet: {VAL[e]:.4f}"),
    # key=value, ListMLE
    "keyvalue": lambda e: f"epoch {e + 1:2d}: train_listmle={TRAIN[e]:.4f} val_listmle={VAL[e]:.4f} val_ndcg5=0.8",
}


@pytest.mark.parametrize("style", sorted(RANKING))
def test_a_loss_named_by_its_ranking_loss_function_is_the_loss(style):
    text = "\n".join(RANKING[style](e) for e in range(EPOCHS)) + "\n"
    log = read_console_text(text)
    assert log.series["loss"].rows == EPOCHS
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1], abs=1e-4)
    assert log.series["val_loss"].last_value == pytest.approx(VAL[-1], abs=1e-4)


NEIGHBOURS = {
    # Czech: adjectives before the loss function's name
    "cs": lambda e, n: (f"Epocha {e + 1}/{n}: trénovací NLL {TRAIN[e]:.4f} nat, validační NLL {VAL[e]:.4f} nat, "
                        f"validační přesnost {VAL_ACC[e]:.3f}"),
    # Indonesian: the English word loss with an Indonesian split word after it
    "id": lambda e, n: (f"Epoch {e + 1}/{n} selesai - loss latih: {TRAIN[e]:.4f} - loss validasi: {VAL[e]:.4f} - "
                        f"akurasi validasi: {VAL_ACC[e]:.3f}"),
    # Ukrainian: "on training" / "on validation" phrases after the noun
    "uk": lambda e, n: (f"Епоха {e + 1}/{n}: втрати на навчанні {TRAIN[e]:.4f} | втрати на валідації {VAL[e]:.4f}, "
                        f"точність на валідації {VAL_ACC[e]:.3f}"),
}


@pytest.mark.parametrize("lang", sorted(NEIGHBOURS))
def test_the_validation_split_of_a_neighbouring_language_is_read(lang):
    """Without its split words a Czech, Indonesian or Ukrainian line reads one loss (or none): the
    validation loss printed beside the training loss is what tells overfitting apart."""
    text = "\n".join(NEIGHBOURS[lang](e, EPOCHS) for e in range(EPOCHS)) + "\n"
    log = read_console_text(text)
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1], abs=1e-4)
    assert log.series["val_loss"].last_value == pytest.approx(VAL[-1], abs=1e-4)
    assert log.series["val_accuracy"].last_value == pytest.approx(VAL_ACC[-1], abs=1e-3)


def test_bracketed_rounds_under_named_steps_are_no_restarts():
    """LightGBM-style ``[N]`` evaluation rounds printed between a script's own ``iter S`` lines are a
    second counter, not the step going back: no restart, and each round's validation loss sits at
    the step it was printed after (so its best is placed late, where it was)."""
    lines = []
    for e in range(EPOCHS):
        lines += [f"[Debug] iter {40 * e + i}: batch listnet = {TRAIN[e]:.5f}" for i in (10, 20, 30, 40)]
        lines.append(f"[{e + 1}]\ttraining's listnet: {TRAIN[e]:.6f}\tvalid_1's listnet: {VAL[e]:.6f}")
    log = read_console_text("\n".join(lines) + "\n")
    assert not log.restart_lines
    assert [p[0] for p in log.series["val_loss"].points][:3] == [40, 80, 120]
    assert log.series["loss"].points[-1][0] == 40 * EPOCHS


def test_a_log_of_rounds_alone_keeps_them_as_its_steps():
    text = "".join(f"[{e}]\ttrain-rmse:{TRAIN[e]:.5f}\tvalid-rmse:{VAL[e]:.5f}\n" for e in range(EPOCHS))
    log = read_console_text(text)
    assert [p[0] for p in log.series["loss"].points] == list(range(EPOCHS))
