"""Shapes read from session 16's pasted tuning material (issue 13): each sample is written for this
test (invented numbers in the print shapes of common tools) and asserts what a user sees through
``traindx diagnose --log FILE`` or what the reader keeps.

Readings: a checkpoint or early-stopping callback's verdict on the validation metric it monitors
(Keras' ``val_loss did not improve from B``, Lightning's ``Monitored metric ... did not improve in
the last N records. Best score: B``) says the best came before the evaluations an excerpt shows;
an excerpt that starts mid-epoch, before its first ``Epoch N/M`` header, is the epoch before (no
restart); a mixed-precision scaler stuck at its minimum scale (``Attempted loss scale: 1, reducing
to 1``, repeated with no step between) is a gradient blow-up; four curves parting ways (training
loss down and accuracy up, validation loss up and accuracy down) is overfitting at any training
accuracy. Each has a twin that must not change. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


# ------------------------------------------------------------------ a callback's verdict on val_loss
_TRAIN = [0.2841, 0.2716, 0.2630, 0.2544, 0.2467, 0.2391]
_VAL = [0.6412, 0.6351, 0.6409, 0.6298, 0.6207, 0.6190]


def _checkpointed(verdict: bool) -> str:
    """A Keras ``fit`` excerpt copied from the middle of a run: the first epoch's header is above
    the excerpt, each epoch ends with the ModelCheckpoint line (when ``verdict``) before its summary."""
    out = [" 256/1200 [=====>........................] - ETA: 1s - loss: 0.2907"]
    for i, (lo, vl) in enumerate(zip(_TRAIN, _VAL)):
        ep = 41 + i
        if i:
            out += [f"Epoch {ep}/300", f" 256/1200 [=====>........................] - ETA: 1s - loss: {lo + 0.004:.4f}"]
        if verdict:
            out.append(f"Epoch {ep:05d}: val_loss did not improve from 0.58817")
        out.append(f"1200/1200 [==============================] - 1s 802us/sample - loss: {lo:.4f} - "
                   f"val_loss: {vl:.4f}")
    return "\n".join(out)


def test_a_checkpoint_saying_val_loss_did_not_improve_reads_overfitting(tmp_path):
    rep, out = _diagnose(tmp_path, _checkpointed(verdict=True))
    assert _facts(rep)["best_val_fraction"] == 0
    assert _symptom(rep) == "overfitting"
    assert "restart" not in out.splitlines()[0]      # the excerpt began mid-epoch: no restart


def test_the_same_curves_without_the_verdict_are_not_overfitting(tmp_path):
    rep, _ = _diagnose(tmp_path, _checkpointed(verdict=False))
    assert _facts(rep)["best_val_fraction"] > 0
    assert _symptom(rep) != "overfitting"


def test_a_verdict_of_improvement_resets_the_count_and_states_the_new_best():
    text = "\n".join([
        "Epoch 3/9", "90/90 [==============================] - 2s - loss: 0.71 - val_loss: 0.80",
        "Epoch 00003: val_loss improved from 0.83110 to 0.80042, saving model to ckpt.h5",
        "Epoch 4/9", "90/90 [==============================] - 2s - loss: 0.66 - val_loss: 0.82",
        "Epoch 00004: val_loss did not improve from 0.80042",
        "Epoch 5/9", "90/90 [==============================] - 2s - loss: 0.62 - val_loss: 0.79",
        "Epoch 00005: val_loss improved from 0.80042 to 0.79013, saving model to ckpt.h5",
    ])
    log = read_console_text(text)
    assert log.verdicts["val_loss"][:2] == (0.79013, 0)


def test_an_early_stopping_verdict_over_several_records_counts_them():
    text = "\n".join([
        "Epoch 7: 100%|██████████| 40/40 [00:03<00:00, 12.1it/s, loss=0.183, val_loss=0.522]",
        "Monitored metric val_loss did not improve in the last 4 records. Best score: 0.471. "
        "Signaling Trainer to stop.",
    ])
    log = read_console_text(text)
    assert log.verdicts["val_loss"][:2] == (0.471, 4)


def test_a_verdict_on_a_training_metric_is_not_kept():
    text = "\n".join([
        "epoch 1 loss 0.93 acc 0.61", "loss did not improve from 0.91000",
        "epoch 2 loss 0.95 acc 0.60", "loss did not improve from 0.91000",
    ])
    assert read_console_text(text).verdicts == {}


# ------------------------------------------------------------------ a loss scaler stuck at its minimum
def _scaler(attempted: str, to: str, n: int) -> str:
    return "\n".join(
        f"  1%|▏         | {300 + i}/20000 [01:{10 + i}<2:11:05,  2.49it/s]"
        f"[2024-02-01 09:14:{10 + i:02d},118] [INFO] [stage_1_and_2.py:1812:step] [deepspeed] OVERFLOW! "
        f"Rank 0 Skipping step. Attempted loss scale: {attempted}, reducing to {to}" for i in range(n))


def test_overflows_at_the_minimum_loss_scale_are_a_blow_up(tmp_path):
    rep, _ = _diagnose(tmp_path, _scaler("1", "1", 4))
    assert _facts(rep)["grads_have_nan"] is True
    assert _symptom(rep) == "explosion"


def test_one_overflow_at_the_minimum_is_not_a_collapse():
    assert read_console_text(_scaler("1", "1", 1)).scale_collapse is None


def test_a_scaler_calibrating_far_above_one_is_not_a_collapse():
    assert read_console_text(_scaler("131072", "65536", 3)).scale_collapse is None


def test_ranks_reporting_one_halving_each_are_not_stuck():
    text = "\n".join(["step 11 | loss 2.3107", "Grad overflow on iteration 12"] + [
        f"[Rank {r}] Overflow detected. Skipping step. Attempted loss scale: 2.0, reducing to 1.0"
        for r in range(4)])
    assert read_console_text(text).scale_collapse is None


# ------------------------------------------------------------------ four curves parting ways
def _keras4(val_acc_step: float) -> str:
    out = []
    for i in range(8):
        lo, ac = 0.702 - 0.014 * i * (1 + 0.2 * i), 0.521 + 0.012 * i * (1 + 0.2 * i)
        vl, va = 0.690 + 0.011 * i * (1 + 0.15 * i), 0.548 + val_acc_step * i
        out += [f"Epoch {i + 1}/20", f"3100/3100 [==============================] - 41s - loss: {lo:.4f} - "
                f"acc: {ac:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}"]
    return "\n".join(out)


def test_training_and_validation_curves_parting_ways_are_overfitting_at_a_low_accuracy(tmp_path):
    rep, _ = _diagnose(tmp_path, _keras4(-0.004))
    f = _facts(rep)
    assert f["train_accuracy"] < 0.7 and f["val_accuracy_trend"] == "falling"
    assert _symptom(rep) == "overfitting"


def test_a_validation_accuracy_still_rising_is_no_parting(tmp_path):
    rep, _ = _diagnose(tmp_path, _keras4(0.004))
    assert _facts(rep)["val_accuracy_trend"] != "falling"
    assert _symptom(rep) != "overfitting"


# ------------------------------------------------------------------ a loss scaler settling
def test_a_paste_of_a_loss_scaler_settling_far_above_one_reads_healthy(tmp_path):
    text = "\n".join(["Starting epoch 1 of 12, 2210 micro batches"] + [
        f"[2024-06-02 11:0{i}:41,377] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 "
        f"Skipping step. Attempted loss scale: {2 ** (20 - i)}, reducing to {2 ** (19 - i)}" for i in range(5)])
    rep, out = _diagnose(tmp_path, text)
    assert "no training metrics" not in out
    assert _facts(rep)["loss_scale_warmup"] is True
    assert _symptom(rep) == "healthy"


def test_a_hysteresis_step_is_not_a_scale_set_to_one():
    text = "\n".join([
        "step 40 loss 3.112",
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 32768, but hysteresis is 2. "
        "Reducing hysteresis to 1",
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 32768, reducing to 16384",
    ])
    assert read_console_text(text).scale_reports[2] == 16384


def test_overflows_that_drive_the_scale_to_a_few_units_are_no_warm_up(tmp_path):
    text = "\n".join(["step 10 | loss 2.9011"] + [
        f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {2.0 ** (3 - i)}"
        for i in range(2)] + ["step 20 | loss 2.8874"])
    rep, _ = _diagnose(tmp_path, text)
    assert "loss_scale_warmup" not in _facts(rep)
