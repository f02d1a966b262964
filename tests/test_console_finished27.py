"""Session 27 (finish27): what a finished run's console leaves that the reader missed — a loss printed
in words the knowledge base lacks beside an accuracy it knows (``acc`` is English in any language's
print)."""
import json
import math

from conftest import run_cli
from traindx.probes.readers.console import read_console_text


def _finnish_with_acc(epochs=20):
    """Train loss falls, validation loss turns up after epoch 8; the accuracies keep the English
    abbreviation the reader knows, the losses are Finnish words it does not."""
    rows = []
    for e in range(1, epochs + 1):
        train = 2.0 * math.exp(-e / 5) + 0.05
        held = 0.9 + 0.01 * (e - 8) ** 2 if e > 8 else train + 0.3
        rows.append(f"Kierros {e}/{epochs} - koulutushäviö {train:.4f} - koulutus acc {1 - train / 3:.4f} - "
                    f"validointihäviö {held:.4f} - validointi acc {0.8 - 0.002 * e:.4f}\n")
    return "".join(rows)


def test_a_loss_in_unknown_words_beside_a_known_accuracy_is_read_by_its_values():
    log = read_console_text(_finnish_with_acc())
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.guessed_names["koulutushäviö"] == "train loss"
    assert log.guessed_names["validointihäviö"] == "val loss"
    assert any("how their values behave" in n for n in log.notes)


def test_such_a_log_is_diagnosed_from_its_losses(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(_finnish_with_acc(), encoding="utf-8")
    r = run_cli("diagnose", "--log", str(path), "--non-interactive", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["symptom"]["id"] == "overfitting"


def test_an_accuracy_only_log_with_no_unknown_pair_is_read_as_before():
    text = "".join(f"Epoch {e}/12 - acc {0.5 + 0.03 * e:.4f} - val_acc {0.48 + 0.03 * e:.4f}\n" for e in range(1, 13))
    log = read_console_text(text)
    assert set(log.series) == {"accuracy", "val_accuracy"}
    assert not log.guessed_names


def test_an_arrow_after_a_name_parts_it_from_its_value():
    text = "".join(f"it {e:04d} >> fit_loss -> {3 - 0.1 * e:.4f} >> valid_mse => {3.2 - 0.1 * e:.4f}\n"
                   for e in range(1, 16))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == 1.5
    assert log.series["val_loss"].points[-1].mean == 1.7


def test_an_arrow_between_two_numbers_stays_a_change_of_value():
    text = "".join(f"epoch {e} loss {2 - 0.1 * e:.3f} lr 0.1 -> 0.05\n" for e in range(1, 12))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == 0.9
    assert "val_loss" not in log.series


def test_slovak_split_words_in_their_other_cases_name_the_split():
    text = "".join(f"Epocha {e}/10 - strata trénovania {2 - 0.1 * e:.3f} - strata validácie {2.2 - 0.1 * e:.3f}\n"
                   for e in range(1, 11))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == 1.0
    assert log.series["val_loss"].points[-1].mean == 1.2


def test_a_loss_that_prints_only_nan_in_unknown_words_is_read_as_diverged(tmp_path):
    text = "".join(f"Kierros {e}/12 - koulutushäviö nan - koulutus acc 0.3100 - validointihäviö nan - "
                   f"validointi acc 0.2950\n" for e in range(1, 13))
    log = read_console_text(text)
    assert log.guessed_names["koulutushäviö"] == "train loss"
    assert log.guessed_names["validointihäviö"] == "val loss"
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    r = run_cli("diagnose", "--log", str(path), "--non-interactive", "--format", "json")
    assert json.loads(r.stdout)["symptom"]["id"] == "explosion"


def test_a_value_field_takes_the_name_a_quoted_field_gives_it():
    """ClearML-like ``'name' iteration=N value=V`` and a TensorBoard event's ``tag: "name" simple_value: V``."""
    reported = "".join(f"[tracker] scalar 'loss/train' iteration={i} value={2 / i:.4f}\n"
                       f"[tracker] scalar 'loss/val' iteration={i} value={2.5 / i:.4f}\n" for i in range(1, 13))
    log = read_console_text(reported)
    assert log.series["loss"].points[-1].mean == round(2 / 12, 4)
    assert log.series["val_loss"].points[-1].mean == round(2.5 / 12, 4)
    event = "".join(f'step: {i} tag: "loss" simple_value: {3 / i:.4f}\n' for i in range(1, 13))
    assert read_console_text(event).series["loss"].points[-1].mean == 0.25


def test_a_value_field_with_no_quoted_name_names_nothing_new():
    text = "".join(f"epoch {e} loss {2 - 0.1 * e:.3f} best value {1.5:.3f}\n" for e in range(1, 12))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == 0.9
