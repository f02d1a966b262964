"""Console prints of finished runs that session 25 taught the reader: a metric's name and value parted
by a single ``|`` (trax's training loop), a loss named by an acronym glued to ``Loss``, and the metric
words of Danish, Catalan, Hungarian, Romanian, Thai, Bengali and Bulgarian logs."""
import math

import pytest

from traindx.probes.readers.console import read_console_text


def _curve(e, start=1.4, floor=0.2, tau=4.0):
    return floor + (start - floor) * math.exp(-e / tau)


def test_a_single_pipe_parts_a_name_from_the_value_that_ends_the_line():
    text = "".join(f"Step {100 * e:6d}: train      WeightedCE |  {_curve(e):.5f}\n"
                   f"Step {100 * e:6d}: eval       WeightedCE |  {_curve(e) + 0.05:.5f}\n" for e in range(1, 9))
    log = read_console_text(text)
    assert set(log.series) >= {"loss", "val_loss"}
    assert log.series["loss"].points[-1].mean == pytest.approx(_curve(8), abs=1e-4)


def test_a_model_summary_row_with_several_pipes_is_no_loss():
    text = ("  | Name    | Type             | Params\n"
            "1 | loss_fn | CrossEntropyLoss | 0\n"
            "2 | net     | Sequential       | 12.3 K\n")
    text += "".join(f"epoch {e} train_loss {_curve(e):.4f}\n" for e in range(1, 8))
    log = read_console_text(text)
    assert log.series["loss"].points[0].mean == pytest.approx(_curve(1), abs=1e-4)


def test_an_acronym_glued_to_loss_is_the_loss_when_it_is_the_only_one():
    text = "".join(f"Step {50 * e}: train GRULMLoss | {_curve(e):.4f}\n" for e in range(1, 9))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == pytest.approx(_curve(8), abs=1e-4)


def test_a_plain_loss_beats_the_named_parts_printed_before_it():
    text = "".join(f"iter {10 * e}, RNNTLoss: 0.000000, CTCLoss: {_curve(e) / 3:.6f}, loss: {_curve(e):.6f}\n"
                   for e in range(1, 9))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == pytest.approx(_curve(8), abs=1e-5)


@pytest.mark.parametrize("line", [
    "Epoke {e}/12: træningstab {t:.4f} | valideringstab {v:.4f}",                     # Danish
    "Època {e}/12: pèrdua d'entrenament {t:.4f}, pèrdua de validació {v:.4f}",         # Catalan
    "{e}. korszak / 12: tanítási veszteség {t:.4f}; validációs veszteség {v:.4f}",     # Hungarian
    "Epoca {e}/12: pierdere de antrenare {t:.4f} | pierdere de validare {v:.4f}",      # Romanian
    "รอบที่ {e}/12 | ค่าสูญเสียฝึก {t:.4f} | ค่าสูญเสียตรวจสอบ {v:.4f}",                  # Thai
    "ইপক {e}/12: প্রশিক্ষণ লস {t:.4f} | যাচাই লস {v:.4f}",                               # Bengali
    "Епоха {e}/12: загуба (обучение) {t:.4f} | загуба (валидация) {v:.4f}",            # Bulgarian
])
def test_a_language_s_train_and_validation_losses_are_read_for_sure(line):
    text = "".join(line.format(e=e, t=_curve(e), v=_curve(e) + 0.1) + "\n" for e in range(1, 13))
    log = read_console_text(text)
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["val_loss"].points[-1].mean == pytest.approx(_curve(12) + 0.1, abs=1e-4)
    assert not any("read by their values" in n or "guess" in n for n in log.notes)


def _exposition(epochs=10):
    """One metric a line in Prometheus's exposition format, the epoch as a label, a timestamp after the value."""
    rows = ['lm_learning_rate{group="0"} 0.01\n']
    for e in range(1, epochs + 1):
        ts = 1700000000000 + 1000 * e
        rows += [f'lm_train_loss{{epoch="{e}",rank="0"}} {_curve(e):.5f} {ts}\n',
                 f'lm_val_loss{{epoch="{e}"}} {_curve(e) + 0.1:.5f} {ts}\n',
                 f'lm_token_perplexity{{epoch="{e}"}} {math.exp(_curve(e)):.3f} {ts}\n']
    return "".join(rows)


def test_a_label_set_is_no_value_and_its_epoch_is_the_axis():
    log = read_console_text(_exposition())
    assert log.x_label == "epoch"
    xs = [p.x for p in log.series["loss"].points]
    assert xs == [float(e) for e in range(1, 11)]
    assert log.series["loss"].points[-1].mean == pytest.approx(_curve(10), abs=1e-5)
    assert log.series["val_loss"].points[0].mean == pytest.approx(_curve(1) + 0.1, abs=1e-5)


def test_the_same_metric_printed_twice_in_one_epoch_is_still_two_rows():
    text = "".join(f"Epoch {1 + i // 3} train loss: {_curve(i):.4f}\n" for i in range(12))
    log = read_console_text(text)
    assert len(log.series["loss"].points) == 12


def _ctr_log(train_score="train_auc", val_score="valid_auc"):
    """A click model: the training loss falls, the validation loss stays high, the AUCs part."""
    return "".join(f"ep {e:02d} | train loss {_curve(e, 0.62, 0.30):.4f} {train_score} {0.80 + 0.01 * e:.3f} | "
                   f"valid loss {0.70 + 0.002 * (e % 3):.4f} {val_score} {0.63 + 0.002 * e:.3f}\n"
                   for e in range(1, 13))


def test_an_auc_stands_in_for_the_accuracy_of_its_split():
    log = read_console_text(_ctr_log())
    assert log.series["accuracy"].points[-1].mean == pytest.approx(0.92, abs=1e-6)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.654, abs=1e-6)


def test_a_training_accuracy_beside_a_validation_auc_is_no_gap():
    log = read_console_text(_ctr_log(train_score="train_acc"))
    assert "accuracy" in log.series and "val_accuracy" not in log.series


def test_diagnose_reads_a_widening_auc_gap_as_overfitting(tmp_path):
    from conftest import run_cli
    import json
    p = tmp_path / "ctr.log"
    p.write_text(_ctr_log(), encoding="utf-8")
    r = run_cli("diagnose", "--log", str(p), "--non-interactive", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["symptom"]["id"] == "overfitting"
