"""Faults that the rotated scripts (s254-s267, session 17) showed and traindx read wrong, confidently.

What a user would notice:
- inputs in the thousands fed to a network whose hand-written loss takes an exp: the first loss is
  finite, the first update throws the outputs up and the exp overflows at step 1. traindx blamed the
  loss's math at 0.99; the inputs are the cause (rule raw-inputs-then-nan-after-first-updates);
- a binary classifier trained with BCE on float 0/1 labels from a class-ordered set, batched in
  order: the labels were invisible to the purity probe (floats), so dead ReLUs were blamed and the
  loss, quiet within each class's run of batches, read as a collapse to chance;
- validation run in train mode on a dropout model, with a plateau: the monitored floor is dropout's
  noise, yet a missing LR decay was named at 0.95 (plateau prior, rule
  plateau-read-through-train-mode-validation);
- a detection head summing smooth-L1 box loss and cross-entropy class loss was told its loss does
  not fit its task (0.81): smooth L1 on continuous box targets is right (loss_mixes_tasks).
"""

from __future__ import annotations

import functools

from traindx.engine.api import diagnose as _diagnose
from traindx.engine.api import load_kb


@functools.lru_cache(maxsize=1)
def _kb():
    return load_kb()


def diagnose(facts):
    return _diagnose(facts, kb=_kb())


def _top(facts):
    r = diagnose(facts)
    return r["symptom"]["id"], r["root_causes"][0]["id"], r["root_causes"][0]["confidence"]


RAW_INPUTS_EXP_LOSS = {
    "custom_loss": True, "loss_function": "custom", "unsafe_math": ["exp_overflow", "log_without_eps"],
    "nonfinite_first_module": "loss", "loss_has_nonfinite": True, "loss_trend": "nonfinite",
    "nan_first_step": 1, "grads_have_nan": True, "inputs_have_nan": False, "uses_amp": False,
    "initial_loss": 5.97, "input_scale": 1994.0, "input_scale_spread": 58.6, "learning_rate": 0.05,
    "optimizer": "sgd", "momentum": 0.9,
}


def test_raw_inputs_that_overflow_the_loss_after_the_first_update_name_the_inputs():
    symptom, cause, conf = _top(RAW_INPUTS_EXP_LOSS)
    assert (symptom, cause) == ("explosion", "unnormalized_inputs")
    assert conf >= 0.5


def test_the_same_loss_on_standardised_inputs_still_names_the_loss_math():
    facts = {**RAW_INPUTS_EXP_LOSS, "input_scale": 1.1, "input_scale_spread": 2.0}
    assert _top(facts)[1] == "numerical_instability"
    # NaN at the very first loss: nothing was updated yet, so the loss's own math
    facts = {**RAW_INPUTS_EXP_LOSS, "nan_first_step": 0}
    assert _top(facts)[1] == "numerical_instability"


CLASS_ORDERED_BINARY = {
    "batch_label_purity": 1.0, "shuffle": False, "labels_constant": False, "loss_trend": "diverging",
    "loss_noise": 0.0007, "loss_spikes": 0, "current_loss": 0.697, "initial_loss": 0.69, "num_classes": 2,
    "train_accuracy": 0.53, "val_accuracy": 0.80, "val_loss_trend": "flat", "dead_relu_fraction": 0.92,
    "loss_function": "bce_with_logits", "optimizer": "adam", "learning_rate": 0.001,
}


def test_single_class_batches_at_chance_are_instability_from_unshuffled_data():
    symptom, cause, _ = _top(CLASS_ORDERED_BINARY)
    assert (symptom, cause) == ("instability", "unshuffled_data")


def test_mixed_batches_at_chance_with_a_quiet_loss_are_still_a_collapse():
    facts = {**CLASS_ORDERED_BINARY, "batch_label_purity": 0.55}
    del facts["shuffle"]
    assert _top(facts)[0] == "not_learning"


TRAIN_MODE_VALIDATION = {
    "model_mode_in_validation": "train", "model_mode_in_training": "train", "model_has_dropout_or_bn": True,
    "dropout_p": 0.5, "loss_trend": "plateaued", "val_loss_trend": "flat", "lr_final_ratio": 1.0,
    "scheduler": "none", "lr_decay_helps": True, "optimizer": "adam", "learning_rate": 0.001,
    "initial_loss": 0.22, "loss_function": "mse",
}


def test_a_plateau_measured_with_dropout_on_names_the_mode_mismatch():
    symptom, cause, conf = _top(TRAIN_MODE_VALIDATION)
    assert (symptom, cause) == ("plateau", "train_eval_mode_mismatch")
    assert conf >= 0.5


def test_a_plateau_validated_in_eval_mode_stays_a_missing_decay():
    facts = {**TRAIN_MODE_VALIDATION, "model_mode_in_validation": "eval"}
    assert _top(facts)[1] == "missing_lr_decay"


DETECTION_HEAD = {
    "loss_function": "smooth_l1", "task_type": "classification", "target_kind": "continuous",
    "loss_mixes_tasks": True, "loss_shape_mismatch": False, "loss_negative": False,
    "loss_trend": "oscillating", "loss_noise": 0.9, "oscillation_trend": "steady", "loss_decrease_fraction": 0.96,
    "val_loss_trend": "decreasing", "val_accuracy": 0.83, "learning_rate": 0.001, "optimizer": "sgd",
}


def test_a_box_loss_beside_a_class_loss_is_not_a_wrong_loss():
    r = diagnose(DETECTION_HEAD)
    assert not any(c["id"] == "wrong_loss_function" and c["confidence"] >= 0.5 for c in r["root_causes"])


def test_a_regression_loss_on_class_ids_is_still_a_wrong_loss():
    facts = {**DETECTION_HEAD, "target_kind": "class_indices", "loss_mixes_tasks": False,
             "loss_trend": "plateaued", "val_loss_trend": "flat"}
    assert _top(facts)[1] == "wrong_loss_function"
