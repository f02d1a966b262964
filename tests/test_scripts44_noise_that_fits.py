"""Session 44 (scripts44): a weakly supervised detector trained one image per step (OICR's
trainval_net.py) sums a MIDN loss that falls and refinement losses that rise as their weights grow,
so the per-step loss swings (48% of its level, steady) while the model comes to answer every
training batch right and the loss has fallen by 64% of its start; the run prints no validation
loss. traindx read Instability with "batch too small" at 0.80 from two readings of the same swings.
Noise that has not kept the model from fitting its training data is healthy; the same swings
growing, or on a model that does not fit, stay instability. Facts of the kind --script measures
(synthetic values, not a benchmark run's own). Torch-free.
"""

from __future__ import annotations

from traindx.engine.api import Session

_NOISY_FITTED = {"loss_trend": "oscillating", "oscillation_trend": "steady", "loss_noise": 0.48,
                 "loss_decrease_fraction": 0.64, "initial_loss": 1.16, "train_loss": 0.44,
                 "train_accuracy": 1.0, "grad_norm_trend": "steady", "grad_norm_max": 6.7,
                 "loss_has_nonfinite": False, "grads_have_nan": False, "learning_rate": 0.01,
                 "optimizer": "sgd", "momentum": 0.9, "loss_function": "bce", "num_classes": 2}


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


def test_swings_on_a_run_that_fits_its_training_batches_name_no_cause(kb):
    rep = _report(kb, _NOISY_FITTED)
    assert rep["status"] == "healthy"
    assert not any(c["confidence"] >= 0.5 for c in rep["root_causes"])


def test_the_same_swings_growing_stay_instability(kb):
    rep = _report(kb, {**_NOISY_FITTED, "oscillation_trend": "growing"})
    assert rep["status"] != "healthy" and rep["symptom"]["id"] == "instability"


def test_the_same_swings_on_a_model_that_does_not_fit_stay_instability(kb):
    rep = _report(kb, {**_NOISY_FITTED, "train_accuracy": 0.7})
    assert rep["status"] != "healthy" and rep["symptom"]["id"] == "instability"
