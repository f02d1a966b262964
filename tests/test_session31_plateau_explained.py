"""Session 31 (finish31b): a plateau the code explains is not a missing LR decay.

A finished run read from its console log and its script: the log shows the loss levelling off under
an LR held to the end; the script shows a mechanism that stops learning whatever the schedule. The
constant LR then explains nothing more, and the mechanism the script shows is named (status
diagnosed), not ranked first below a missing decay's share. The values are written for these tests.
"""

from traindx.engine.api import Finding, Session, load_kb


def _report(facts: dict) -> dict:
    s = Session(load_kb())
    s.add_findings(Finding(fact=k, value=v, source=src) for k, (v, src) in facts.items())
    return s.report()


# A 5-class text classifier under Adam at 3e-4, no scheduler: the loss fell a little early on,
# then sat flat for the rest of the 3,000 steps, with validation flat beside it.
PLATEAU = {
    "loss_trend": ("plateaued", "log:console.log:steps 10-3000"),
    "initial_loss": (1.61, "log:console.log:steps 10-10"),
    "current_loss": (1.42, "log:console.log:steps 2800-3000"),
    "loss_decrease_fraction": (0.12, "log:console.log:steps 10-3000"),
    "loss_flat_share": (0.8, "log:console.log:steps 600-3000"),
    "val_loss_trend": ("flat", "log:console.log:steps 100-3000"),
    "num_classes": (5, "code:train.py:12"),
    "lr_final_ratio": (1.0, "log:console.log:steps 10-3000"),
    "learning_rate": (3e-4, "code:train.py:40"),
    "optimizer": ("adam", "code:train.py:40"),
    "scheduler": ("none", "code:train.py:40"),
    "run_length_steps": (2990, "log:console.log:steps 10-3000"),
}


def _leader(rep: dict) -> tuple[str, str]:
    return rep["status"], rep["root_causes"][0]["id"]


def test_the_plateau_alone_leans_to_a_missing_decay_without_naming_it():
    rep = _report(PLATEAU)
    assert rep["status"] != "diagnosed"
    assert rep["root_causes"][0]["id"] == "missing_lr_decay"


def test_a_softmax_fed_to_cross_entropy_is_named_over_the_constant_lr():
    rep = _report({**PLATEAU, "output_activation": ("softmax", "code:train.py:30"),
                   "loss_function": ("cross_entropy", "code:train.py:41")})
    assert _leader(rep) == ("diagnosed", "double_softmax")


def test_labels_permuted_away_from_their_rows_are_named_over_the_constant_lr():
    rep = _report({**PLATEAU, "permuted_alone": (True, "code:train.py:22")})
    assert _leader(rep) == ("diagnosed", "corrupted_labels")


def test_sorted_rows_never_shuffled_are_named_over_the_constant_lr():
    rep = _report({**PLATEAU, "data_sorted": (True, "code:train.py:20"), "shuffle": (False, "code:train.py:25")})
    assert _leader(rep) == ("diagnosed", "unshuffled_data")


def test_an_adam_lr_far_outside_its_range_is_named_over_the_constant_lr():
    rep = _report({**PLATEAU, "learning_rate": (0.5, "code:train.py:40")})
    assert _leader(rep) == ("diagnosed", "lr_too_high")


# A 3-class classifier under AdamW at 5e-3: the loss fell for a few hundred steps, then swung ever
# wider and climbed back above ln 3. The script never clears the gradients.
GROWING_SWINGS = {
    "loss_trend": ("diverging", "log:console.log:steps 1-1200"),
    "oscillation_trend": ("growing", "log:console.log:steps 300-1200"),
    "initial_loss": (0.9, "log:console.log:steps 1-1"),
    "current_loss": (1.4, "log:console.log:steps 1100-1200"),
    "num_classes": (3, "code:train.py:12"),
    "loss_has_nonfinite": (False, "log:console.log:steps 1-1200"),
    "optimizer": ("adamw", "code:train.py:33"),
    "learning_rate": (5e-3, "code:train.py:33"),
    "zero_grad_called": (False, "code:train.py:40"),
}


def test_growing_swings_with_gradients_never_cleared_name_the_missing_zero_grad():
    # summed gradients make every step larger than the last: the swings grow without a high LR
    rep = _report(GROWING_SWINGS)
    assert rep["symptom"]["id"] == "instability"
    assert _leader(rep) == ("diagnosed", "missing_zero_grad")


def test_growing_swings_with_gradients_cleared_stay_with_the_lr():
    rep = _report({**GROWING_SWINGS, "zero_grad_called": (True, "code:train.py:40"),
                   "learning_rate": (0.2, "code:train.py:33")})
    assert rep["root_causes"][0]["id"] == "lr_too_high"
