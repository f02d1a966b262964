"""A console log in a language the knowledge base has no words for is read by how its values behave
(probes/readers/console_guess.py), and the report says the names were guessed."""
import json
import math

import pytest

from conftest import run_cli
from traindx.engine.errors import NoMetricsError
from traindx.engine.parameters import shipped
from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.console_guess import guess_vocabulary


def _finnish(epochs=30):
    """Train loss falls, validation loss turns up after epoch 10; a decaying learning rate and an
    epoch time printed beside them."""
    rows = []
    for e in range(1, epochs + 1):
        train = 2.3 * math.exp(-e / 8) + 0.05
        held = 1.2 + 0.002 * (e - 10) ** 2 if e > 10 else train + 0.2
        rows.append(f"Epoki {e}/{epochs} | koulutushäviö: {train:.4f} | validointihäviö: {held:.4f} | "
                    f"oppimisnopeus: {0.001 * 0.95 ** e:.6f} | aika: {11 + e % 3}.2s\n")
    return "".join(rows)


def test_the_roles_come_from_the_values_not_the_words():
    vocab = guess_vocabulary(_finnish().splitlines())
    assert vocab == {"epoki": "epoch", "koulutushäviö": "train loss", "validointihäviö": "val loss"}


def test_a_dense_script_pair_sharing_its_loss_word_is_train_then_val():
    text = "".join(f"รอบที่ {e} การสูญเสียการฝึก {1.5 * math.exp(-e / 6) + 0.2:.4f} "
                   f"การสูญเสียการตรวจสอบ {1.5 * math.exp(-e / 6) + 0.25:.4f}\n" for e in range(1, 16))
    # Thai read as a language the vocabulary lacks: its entries left out
    full = shipped()
    no_thai = {k: v for k, v in full["console.local_words"].items() if not any("\u0e00" <= c <= "\u0e7f" for c in k)}
    log = read_console_text(text, params=dict(full, **{"console.local_words": no_thai}))
    assert set(log.series) == {"loss", "val_loss"}
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.5 * math.exp(-15 / 6) + 0.25, abs=1e-4)
    assert any("guess" in n or "how their values behave" in n for n in log.notes)


def test_diagnose_reads_an_unknown_language_log_and_says_the_names_were_guessed(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_finnish(), encoding="utf-8")
    r = run_cli("diagnose", "--log", str(log), "--non-interactive", "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["symptom"]["id"] == "overfitting"
    assert "read by their values" in r.stderr.splitlines()[0]
    assert "'koulutushäviö' as train loss" in json.dumps(report, ensure_ascii=False)


@pytest.mark.parametrize("text", [
    "".join(f"vaihe {i} eräkoko 32 näytteitä {i * 32}\n" for i in range(1, 30)),      # counters and a constant
    "".join(f"muisti {100 + i}.5MB aika {i}.1s\n" for i in range(1, 30)),              # values with units
    "Lorem ipsum dolor sit amet 3.5, consectetur 2.1 adipiscing.\n" * 2,                # too few lines
])
def test_values_that_tell_no_metric_stay_one_clear_refusal(text):
    with pytest.raises(NoMetricsError) as exc:
        read_console_text(text)
    assert "no training metrics found" in str(exc.value) and "\n" not in str(exc.value)


def test_known_words_stay_the_readers_and_an_unknown_pair_beside_them_is_guessed():
    """``Epoch`` is the reader's own word (the axis, not guessed); the unknown pair beside it is."""
    text = "".join(f"Epoch {e} | koulutushäviö: {2 * math.exp(-e / 5) + 0.1:.4f} | "
                   f"validointihäviö: {2 * math.exp(-e / 5) + 0.3:.4f}\n" for e in range(1, 13))
    log = read_console_text(text)
    assert log.guessed_names == {"koulutushäviö": "train loss", "validointihäviö": "val loss"}
    assert log.epochs == 12
