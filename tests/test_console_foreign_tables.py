"""Console shapes met in finished runs (session 23, fresh14): metrics and axes printed in other
Latin-script languages, a stable-baselines3-style boxed key/value block per log point, and a pandas
DataFrame history printed at the end (its index column unnamed, wide frames wrapped in blocks of
columns). Each log is made up here; the tests check what is read and the symptom it leads to."""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

EPOCHS = 12
# an overfitting run: the training loss keeps falling, the validation loss turns up after epoch 4
TRAIN = [1.30 * 0.78 ** e for e in range(EPOCHS)]
VAL = [1.20 - 0.12 * e if e < 4 else 0.72 + 0.09 * (e - 4) for e in range(EPOCHS)]
TRAIN_ACC = [0.40 + 0.05 * e for e in range(EPOCHS)]
VAL_ACC = [0.38 + 0.05 * e if e < 4 else 0.58 - 0.01 * (e - 4) for e in range(EPOCHS)]


def _last(log, role):
    return log.series[role].last_value


def _assert_overfitting_read(log):
    assert log.x_label == "epoch"
    assert log.series["loss"].rows == EPOCHS
    assert _last(log, "loss") == pytest.approx(TRAIN[-1], abs=1e-4)
    assert _last(log, "val_loss") == pytest.approx(VAL[-1], abs=1e-4)


LANGUAGES = {
    # Spanish, Keras-like dashes and percentages
    "es": lambda e, n: (f"Época {e + 1}/{n} - pérdida entrenamiento: {TRAIN[e]:.4f} - precisión entrenamiento: "
                        f"{100 * TRAIN_ACC[e]:.2f}% - pérdida validación: {VAL[e]:.4f} - precisión validación: "
                        f"{100 * VAL_ACC[e]:.2f}%"),
    # Portuguese, pipes
    "pt": lambda e, n: (f"Época {e + 1:02d} concluída | perda treino {TRAIN[e]:.4f} | acurácia treino "
                        f"{TRAIN_ACC[e]:.3f} | perda validação {VAL[e]:.4f} | acurácia validação {VAL_ACC[e]:.3f}"),
    # Italian, all ASCII
    "it": lambda e, n: (f"Epoca {e + 1}/{n} | perdita addestramento {TRAIN[e]:.4f} | accuratezza di validazione "
                        f"{VAL_ACC[e]:.3f} | perdita di validazione {VAL[e]:.4f}"),
    # Dutch compounds, key = value
    "nl": lambda e, n: (f"Epoch {e + 1:2d}: trainingsverlies = {TRAIN[e]:.4f}, validatieverlies = {VAL[e]:.4f}, "
                        f"validatienauwkeurigheid = {VAL_ACC[e]:.3f}"),
    # Polish, inflected adjectives after the noun
    "pl": lambda e, n: (f"Epoka {e + 1:2d}/{n}: strata treningowa {TRAIN[e]:.4f}, dokładność treningowa "
                        f"{TRAIN_ACC[e]:.3f} | strata walidacyjna {VAL[e]:.4f}, "
                        f"dokładność walidacyjna {VAL_ACC[e]:.3f}"),
    # German
    "de": lambda e, n: (f"Epoche {e + 1}/{n}: Trainingsverlust {TRAIN[e]:.4f}, Validierungsverlust {VAL[e]:.4f}, "
                        f"Validierungsgenauigkeit {VAL_ACC[e]:.3f}"),
    # French, with "de" / "d'" phrases
    "fr": lambda e, n: (f"Époque {e + 1}/{n} : perte d'entraînement {TRAIN[e]:.4f}, perte de validation "
                        f"{VAL[e]:.4f}, précision de validation {VAL_ACC[e]:.3f}"),
}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_metrics_and_epochs_printed_in_another_language_are_read(lang):
    line = LANGUAGES[lang]
    text = "Modelo listo\n" + "\n".join(line(e, EPOCHS) for e in range(EPOCHS)) + "\n"
    log = read_console_text(text)
    _assert_overfitting_read(log)
    assert log.series["val_accuracy"].last_value == pytest.approx(VAL_ACC[-1], abs=1e-3)
    assert log.epochs == EPOCHS


@pytest.mark.parametrize("lang", ["es", "pl"])
def test_a_run_printed_in_another_language_gets_its_symptom(tmp_path, lang):
    text = "\n".join(LANGUAGES[lang](e, EPOCHS) for e in range(EPOCHS)) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "overfitting"


def test_a_setting_phrase_is_no_axis():
    """``tamaño de lote: 64`` is the batch size, not batch 64: the epochs stay the x axis."""
    text = "Tasa de aprendizaje: 0.002 | tamaño de lote: 64 | épocas: 8\n" + "\n".join(
        LANGUAGES["es"](e, EPOCHS) for e in range(EPOCHS))
    log = read_console_text(text)
    _assert_overfitting_read(log)


def test_a_pack_extends_the_other_language_words(tmp_path):
    """A word the shipped vocabulary lacks (Finnish) is read for sure once a pack adds it, axis word
    included; without the pack it is only guessed from the values (and the log says so)."""
    from traindx.engine.api import load_kb
    pack = tmp_path / "fi"
    pack.mkdir()
    (pack / "words.yaml").write_text("kind: parameters\nextends:\n  console.latin_words:\n"
                                     "    häviö: loss\n    kierros: epoch\n    validointi: val\n", encoding="utf-8")
    text = "\n".join(f"Kierros {e + 1}: häviö {TRAIN[e]:.4f}, validointi häviö {VAL[e]:.4f}" for e in range(EPOCHS))
    guessed = read_console_text(text)
    assert guessed.guessed_names == {"kierros": "epoch", "häviö": "train loss", "validointi häviö": "val loss"}
    log = read_console_text(text, params=load_kb([str(pack)], entry_point_packs=False).params())
    _assert_overfitting_read(log)
    assert not log.guessed_names


def _boxed(nested: bool) -> str:
    out = ["Using cpu device"]
    for e in range(EPOCHS):
        rows = [("train/", ""), ("    epoch", str(e + 1)), ("    loss", f"{TRAIN[e]:.4g}"),
                ("val/", ""), ("    loss", f"{VAL[e]:.4g}"), ("    accuracy", f"{VAL_ACC[e]:.3g}"),
                ("time/", ""), ("    time_elapsed", f"{0.1 * (e + 1):.3g}")]
        if nested:
            rows[4:6] = [("    head/", ""), ("        loss", f"{VAL[e]:.4g}"), ("    accuracy", f"{VAL_ACC[e]:.3g}")]
        out.append("-" * 34)
        out += [f"| {k:<16} | {v:<11} |" for k, v in rows]
        out.append("-" * 34)
    return "\n".join(out) + "\n"


def test_a_boxed_key_value_block_is_one_record():
    log = read_console_text(_boxed(nested=False))
    assert log.columns["loss"] == "train/loss" and log.columns["val_loss"] == "val/loss"
    assert log.columns["val_accuracy"] == "val/accuracy"
    assert log.rows == EPOCHS                        # one record per block, not one per row
    _assert_overfitting_read(log)


def test_a_boxed_block_with_nested_sections():
    log = read_console_text(_boxed(nested=True))
    assert log.columns["val_loss"] == "val/head/loss"
    assert log.columns["val_accuracy"] == "val/accuracy"   # back at the section's own indent
    _assert_overfitting_read(log)


def test_a_boxed_run_gets_its_symptom(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _boxed(nested=False))
    assert report_symptom(rep) == "overfitting"


def test_a_two_column_table_between_rules_is_still_a_table():
    """Rules of dashes around a header and rows of numbers: not a boxed block, read as before."""
    text = "-" * 17 + "\n| epoch | loss |\n" + "-" * 17 + "\n" + "".join(
        f"| {e + 1} | {TRAIN[e]:.4f} |\n" for e in range(EPOCHS))
    log = read_console_text(text)
    assert log.series["loss"].rows == EPOCHS and _last(log, "loss") == pytest.approx(TRAIN[-1], abs=1e-4)


def _frame(columns: list, values: dict, wrap_after: int | None = None) -> str:
    """A DataFrame as pandas prints it: an unnamed index, right-aligned columns; with
    ``wrap_after``, in blocks of that many columns, each header but the last ending in ``\\``."""
    blocks = [columns] if wrap_after is None else [columns[i:i + wrap_after]
                                                   for i in range(0, len(columns), wrap_after)]
    out = []
    for k, cols in enumerate(blocks):
        more = k < len(blocks) - 1
        out.append("    " + "  ".join(f"{c:>10}" for c in cols) + ("  \\" if more else ""))
        for i in range(EPOCHS):
            out.append(f"{i:<4}" + "  ".join(f"{values[c][i]:>10.6f}" if isinstance(values[c][i], float)
                                            else f"{values[c][i]:>10}" for c in cols))
        out.append("")
    out.append(f"[{EPOCHS} rows x {len(columns)} columns]")
    return "training: lr=0.003\n" + "\n".join(out) + "\n"


VALUES = {"epoch": list(range(1, EPOCHS + 1)), "train_loss": TRAIN, "val_loss": VAL, "val_acc": VAL_ACC,
          "lr": [0.003] * EPOCHS, "dead_units": [0] * EPOCHS}


def test_a_dataframe_history_with_its_index_column_is_read():
    log = read_console_text(_frame(["epoch", "train_loss", "val_loss", "val_acc"], VALUES))
    _assert_overfitting_read(log)
    assert _last(log, "val_accuracy") == pytest.approx(VAL_ACC[-1], abs=1e-4)


def test_a_wrapped_dataframe_joins_its_blocks_of_columns():
    """The validation columns are only in the second block: each epoch's record holds both."""
    cols = ["epoch", "train_loss", "dead_units", "val_loss", "val_acc", "lr"]
    log = read_console_text(_frame(cols, VALUES, wrap_after=3))
    _assert_overfitting_read(log)
    assert log.series["val_loss"].rows == EPOCHS
    assert _last(log, "lr") == pytest.approx(0.003)


def test_a_dataframe_with_elided_columns():
    """pandas elides the middle columns of a wide frame as ``...``, in its header and every row."""
    log = read_console_text(_frame(["epoch", "train_loss", "...", "val_loss"], {**VALUES, "...": ["..."] * EPOCHS}))
    _assert_overfitting_read(log)


def test_a_dataframe_run_gets_its_symptom(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _frame(["epoch", "train_loss", "dead_units", "val_loss", "val_acc"],
                                                  VALUES, wrap_after=2))
    assert report_symptom(rep) == "overfitting"


def test_decimal_commas_of_a_line_in_another_language_are_points():
    """German writes ``1,1939``: on a line read in German the comma is the decimal point; a list of
    numbers (``1,2,3``) stays a list."""
    text = "\n".join(f"Epoche {e + 1} von {EPOCHS}: Trainings-NLL = {TRAIN[e]:.4f}, Validierungs-NLL = {VAL[e]:.4f}, "
                     f"Schichten 1,2,3".replace(".", ",") for e in range(EPOCHS))
    log = read_console_text(text)
    _assert_overfitting_read(log)
    assert log.columns["val_loss"] == "val-NLL"
