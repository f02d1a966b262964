"""Print shapes read in session 19 (issue 13): a metric's history printed as a list (Keras'
``print(history.history)``, ``val_losses = [...]``, a numpy ``array([...])`` wrapped over lines),
and a run's objective named by a word that does not say "loss" (Deeplearning4j's ``Score at
iteration N is X``, a CNTK criterion node named ``error``). Each sample is written for this test
(invented numbers in the print shapes of common code) and asserts what a user sees through
``traindx diagnose --log FILE`` or what the reader keeps; each has a twin that must not change.
Torch-free.
"""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text

_TRAIN = [0.912, 0.701, 0.553, 0.441, 0.352, 0.281, 0.224, 0.178, 0.139, 0.108, 0.084, 0.066]
_VAL = [0.934, 0.782, 0.701, 0.688, 0.712, 0.759, 0.821, 0.893, 0.968, 1.052, 1.139, 1.227]


def _vals(log, role):
    return [round(p.mean, 4) for p in log[role].points]


def _xs(log, role):
    return [p.x for p in log[role].points]


def _fmt(vals):
    return ", ".join(f"{v}" for v in vals)


# ------------------------------------------------------------------------- a history as a list
def test_a_printed_keras_history_reads_one_value_per_epoch_for_each_metric():
    acc = [0.61 + 0.03 * k for k in range(len(_TRAIN))]
    text = ("print(history.history)\n"
            f"{{'loss': [{_fmt(_TRAIN)}], 'accuracy': [{_fmt(acc)}], 'val_loss': [{_fmt(_VAL)}]}}")
    log = read_console_text(text)
    assert _vals(log, "loss") == _TRAIN and _vals(log, "val_loss") == _VAL
    assert _xs(log, "loss") == list(range(1, len(_TRAIN) + 1))
    assert _vals(log, "accuracy")[-1] == pytest.approx(acc[-1])


def test_a_printed_history_whose_validation_loss_turns_up_reads_as_overfitting(tmp_path):
    text = f"{{'loss': [{_fmt(_TRAIN)}], 'val_loss': [{_fmt(_VAL)}]}}"
    rep, out = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "overfitting"
    assert "12 epochs" in out


def test_lists_assigned_on_their_own_lines_are_aligned_by_epoch():
    text = f"train_losses = [{_fmt(_TRAIN)}]\nval_losses = [{_fmt(_VAL)}]\n"
    log = read_console_text(text)
    assert _vals(log, "loss") == _TRAIN and _vals(log, "val_loss") == _VAL
    assert _xs(log, "val_loss") == _xs(log, "loss")


def test_a_numpy_array_wrapped_over_lines_is_named_by_the_line_above_it():
    rows = [_VAL[k:k + 4] for k in range(0, len(_VAL), 4)]
    body = ",\n       ".join(", ".join(f"{v:.8f}" for v in r) for r in rows)
    text = f"Validation losses per epoch:\narray([{body}], dtype=float32)\n"
    log = read_console_text(text)
    assert log.roles == ["val_loss"] or set(log.roles) == {"val_loss"}
    assert _vals(log, "val_loss") == _VAL


def test_numpy2_scalars_in_a_history_are_numbers():
    text = "{'loss': [" + ", ".join(f"np.float64({v})" for v in _TRAIN) + "]}"
    assert _vals(read_console_text(text), "loss") == _TRAIN


def test_twin_a_history_printed_after_the_epoch_lines_repeats_them():
    lines = [f"Epoch {k + 1}/12 - loss: {v:.4f} - val_loss: {w:.4f}" for k, (v, w) in enumerate(zip(_TRAIN, _VAL))]
    text = "\n".join(lines) + f"\n{{'loss': [{_fmt(_TRAIN)}], 'val_loss': [{_fmt(_VAL)}]}}\n"
    log = read_console_text(text)
    assert _vals(log, "loss") == _TRAIN and not log.restart_lines


def test_twin_a_schedule_in_a_config_dump_is_no_history():
    # a learning-rate schedule and its milestones hold no loss or accuracy: the epoch lines are the run
    lines = [f"Epoch {k + 1}/12 - loss: {v:.4f} - val_loss: {w:.4f}" for k, (v, w) in enumerate(zip(_TRAIN, _VAL))]
    text = "config: {'lr': [0.1, 0.01, 0.001], 'milestones': [30, 60, 90]}\n" + "\n".join(lines)
    log = read_console_text(text)
    assert _vals(log, "loss") == _TRAIN and _xs(log, "loss")[0] == 1
    assert "lr" not in log.roles and not log.restart_lines


def test_twin_brackets_that_label_a_value_are_no_history():
    # "Loss [epoch, batch](epoch, minibatch): value": the bracket is the value's position
    lines = [f"Loss [{31 + k // 3}, {100 * (k % 3 + 1)}](epoch, minibatch):  {v}" for k, v in enumerate(_TRAIN)]
    assert _vals(read_console_text("\n".join(lines)), "loss") == _TRAIN


def test_twin_two_values_are_no_history():
    with pytest.raises(InputError):
        read_console_text("losses = [0.61, 0.58]\n")


# ----------------------------------------------------------- the objective under another word
def test_a_dl4j_score_that_turns_nan_reads_as_an_explosion(tmp_path):
    vals = ["2.301", "2.214", "2.388", "3.906", "41.27", "NaN", "NaN", "NaN"]
    lines = [f"09:54:{10 + k}.023 [main] INFO  o.d.o.l.ScoreIterationListener - Score at iteration {20 * k} is {v}"
             for k, v in enumerate(vals)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert report_symptom(rep) == "explosion"


def test_a_dl4j_score_is_the_loss_curve():
    lines = [f"Score at iteration {10 * k} is {v}" for k, v in enumerate(_TRAIN)]
    log = read_console_text("\n".join(lines))
    assert _vals(log, "loss") == _TRAIN and _xs(log, "loss")[:2] == [0, 10]


def test_a_cntk_criterion_named_error_frozen_at_a_huge_value_is_not_learning(tmp_path):
    vals = ["88412.55"] * 7 + ["88410.91", "88410.91"]
    lines = [f"Epoch[40 of 500]-Minibatch[ {10 * k + 1}- {10 * k + 10}, {k + 1}.0%]: error = {v} * 256; "
             f"time = 0.01{k + 1}s; samplesPerSecond = {16901.2 - 40 * k:.1f}" for k, v in enumerate(vals)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert report_symptom(rep) == "not_learning"


def test_twin_a_score_or_error_beside_a_loss_leaves_the_loss_the_curve():
    lines = [f"step {10 * k} loss {v:.4f} score {0.2 + 0.01 * k:.3f} error {0.5 - 0.01 * k:.3f}"
             for k, v in enumerate(_TRAIN)]
    log = read_console_text("\n".join(lines))
    assert log["loss"].column == "loss" and _vals(log, "loss") == _TRAIN


def test_twin_a_validation_score_alone_is_no_loss():
    lines = [f"epoch {k + 1} valid score {20.1 + k:.2f}" for k in range(8)]
    with pytest.raises(InputError):
        read_console_text("\n".join(lines))


# ------------------------------------------------------------------ a validation loss alone
def test_a_validation_history_alone_that_bottoms_early_and_climbs_is_overfitting(tmp_path):
    text = "history of validation losses:\narray([" + ", ".join(f"{v * 400:.4f}" for v in _VAL) + "])"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "overfitting"


def test_twin_a_validation_history_alone_still_falling_is_no_overfitting(tmp_path):
    falling = [v * 400 for v in _TRAIN[:10]] + [_TRAIN[9] * 400 * 1.01, _TRAIN[9] * 400 * 1.02]
    text = "val_losses = [" + ", ".join(f"{v:.4f}" for v in falling) + "]"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) != "overfitting"
