"""Curve readings prompted by the real logs and session 15's pasted tuning material: each sample is
written for this test (synthetic numbers in the print shapes of common tools) and asserts what a
user sees through ``traindx diagnose --log FILE``.

Readings: a validation accuracy thrown back and forth between epochs while the training loss has
levelled off is instability (``val_accuracy_swing``); the accuracy's trend is read beside a loss too
(``accuracy_trend``), a negative runaway staying explosion; a nearly noiseless loss whose level is
mostly an offset fell and levelled (``curves.plateau_sure_bands``), a plateau, not a run that never
started; a printed gradient norm grown a thousandfold and staying there while the loss is still
finite is explosion evidence (``grad_norm_blowup`` from a log); a paste that prints only speeds is
read (``speed_only``). Each has a twin that must not change. Torch-free.
"""

import math

from conftest import diagnose_log_report, report_symptom

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def _keras(rows):
    """Keras ``model.fit`` epoch summaries: ``(loss, acc, val_loss, val_acc)`` per epoch."""
    out = []
    for i, (lo, ac, vl, va) in enumerate(rows, 1):
        out += [f"Epoch {i}/{len(rows)}",
                f"22/22 [==============================] - 1s 25ms/step - loss: {lo:.4f} - accuracy: {ac:.4f}"
                f" - val_loss: {vl:.4f} - val_accuracy: {va:.4f}"]
    return "\n".join(out)


# ------------------------------------------------------------------ a validation accuracy thrown around
def _levelled(n, swing):
    rows = []
    for i in range(n):
        lo = 1.3 if i == 0 else 0.92 + 0.03 * math.sin(1.7 * i)
        va = 0.58 + swing * (1 if i % 2 else -1) + 0.01 * math.cos(i)
        vl = 0.90 + 0.04 * math.sin(2.3 * i)
        rows.append((lo, 0.55 + 0.02 * math.sin(i), vl, va))
    return rows


def test_a_swinging_validation_accuracy_on_a_levelled_loss_is_instability(tmp_path):
    rep, _ = _diagnose(tmp_path, _keras(_levelled(30, 0.07)))
    assert _facts(rep)["val_accuracy_swing"] >= 0.05
    assert _symptom(rep) == "instability"


def test_a_quiet_validation_accuracy_on_a_levelled_loss_stays_a_plateau(tmp_path):
    rep, _ = _diagnose(tmp_path, _keras(_levelled(30, 0.005)))
    assert _facts(rep)["val_accuracy_swing"] < 0.05
    assert _symptom(rep) != "instability"


def test_one_drop_of_the_validation_accuracy_then_a_level_is_no_swing(tmp_path):
    rows = [(1.2 - 0.02 * i, 0.5 + 0.005 * i, 1.1 - 0.01 * i, 0.6 if i == 0 else 0.4) for i in range(8)]
    rep, _ = _diagnose(tmp_path, _keras(rows))
    assert _facts(rep)["val_accuracy_swing"] < 0.05
    assert _symptom(rep) != "instability"


# ------------------------------------------------------------------ a loss running off below zero
def _runaway(acc):
    return [(-6000.0 * (i + 1) ** 3, acc(i), -9000.0 * (i + 1) ** 3, acc(i) + 0.005) for i in range(10)]


def test_a_loss_running_below_zero_with_the_accuracy_unmoved_reports_the_accuracy(tmp_path):
    # the accuracy's own trend is read beside a loss; the runaway stays explosion (the knowledge
    # base's reading, and the finished set's label for the same mechanism)
    rep, _ = _diagnose(tmp_path, _keras(_runaway(lambda i: 0.33 + 0.002 * (i % 2))))
    assert _facts(rep)["accuracy_trend"] == "flat"
    assert _symptom(rep) == "explosion"


def test_a_loss_running_below_zero_with_the_accuracy_rising_stays_explosion(tmp_path):
    rep, _ = _diagnose(tmp_path, _keras(_runaway(lambda i: 0.2 + 0.04 * i)))
    assert _facts(rep)["accuracy_trend"] == "rising"
    assert _symptom(rep) == "explosion"


# ------------------------------------------------------------------ a small, noiseless fall that levels off
def _offset_loss(fall):
    """``epoch N loss X`` lines: a level of 1800 plus a fall of ``fall`` that decays in ~10 epochs."""
    return "\n".join(f"epoch {i} loss {1800.0 + fall * math.exp(-i / 6.0):.4f}" for i in range(1, 301))


def test_a_noiseless_fall_on_a_large_offset_is_a_plateau(tmp_path):
    rep, _ = _diagnose(tmp_path, _offset_loss(30.0))
    assert _facts(rep)["loss_trend"] == "plateaued"
    assert _symptom(rep) == "plateau"


def test_a_fall_of_a_few_printed_digits_stays_flat(tmp_path):
    rep, _ = _diagnose(tmp_path, _offset_loss(0.02))
    assert _facts(rep)["loss_trend"] == "flat"
    assert _symptom(rep) == "not_learning"


def test_a_loss_toggling_between_two_values_stays_flat(tmp_path):
    # a constant output: the loss alternates between two values, its fall no larger than its toggle
    vals = [0.9544, 0.9512, 0.9512, 0.9487, 0.9512, 0.9487, 0.9487, 0.9512, 0.9487, 0.9512]
    rep, _ = _diagnose(tmp_path, "\n".join(f"[Epoch {i}] Train Loss={v:.16f} T=220.5s" for i, v in enumerate(vals, 1)))
    assert _facts(rep)["loss_trend"] == "flat"


# ------------------------------------------------------------------ a gradient norm that blows up
def _steps(grad):
    return "\n".join(f"step {s:5d} | loss {2.1 + 0.25 * math.sin(1.3 * s):.4f} | grad_norm {grad(s):.4e} | lr 3.0e-04"
                     for s in range(10, 610, 10))


def test_a_gradient_norm_grown_a_thousandfold_under_a_finite_loss_is_explosion(tmp_path):
    rep, _ = _diagnose(tmp_path, _steps(lambda s: 1.5 * 10 ** (5.0 * s / 600)))
    f = _facts(rep)
    assert f["grad_norm_blowup"] >= 1000 and f["grad_norm_trend"] == "growing"
    assert _symptom(rep) == "explosion"


def test_a_steady_gradient_norm_under_the_same_loss_is_not_explosion(tmp_path):
    rep, _ = _diagnose(tmp_path, _steps(lambda s: 1.5 + 0.2 * math.sin(s)))
    assert _facts(rep)["grad_norm_blowup"] < 10
    assert _symptom(rep) != "explosion"


# ------------------------------------------------------------------ a paste that prints only speeds
def test_a_progress_bar_without_metrics_is_read_as_speed(tmp_path):
    text = "\n".join(f" {k}%|{'#' * (k // 10):10s}| {k * 9}/900 [0{k // 10}:12<21:07, {6.0 + 0.1 * (k % 3):.2f}s/it]"
                     for k in range(1, 4))
    rep, out = _diagnose(tmp_path, text)
    assert "time per step" in out.splitlines()[0]
    assert _facts(rep)["speed_only"] is True
    assert _symptom(rep) == "slow_training"
