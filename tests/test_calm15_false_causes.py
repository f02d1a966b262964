"""Session 19 (calm15): two confident false causes of script mode, decided by mechanism.

Each test feeds the engine the findings a script run produces (probe and code sources, as the
runner hands them over) and checks what the user reads in the report: the status and the leading
cause. The values are written for these tests.
"""

from traindx.engine.api import Finding, Session, load_kb
from traindx.engine import differential


def _session(facts: dict) -> Session:
    s = Session(load_kb())
    s.add_findings(Finding(fact=k, value=v, source=src) for k, (v, src) in facts.items())
    return s


# A binary classifier on raw features (thousands), Adam at its usual LR, no schedule: the loss fell
# from thousands, then swings around 20-40 BCE, far above ln 2. The LR-decay copies helped (a tenth
# of the LR calms any too-large step).
RAW_FEATURES = {
    "loss_trend": ("plateaued", "probe:loss_vs_chance"),
    "current_loss": (27.0, "probe:loss_vs_chance"),
    "initial_loss": (4100.0, "probe:loss_vs_chance"),
    "num_classes": (2, "probe:loss_vs_chance"),
    "loss_function": ("bce_with_logits", "probe:output_squash"),
    "optimizer": ("adam", "probe:optimizer_coverage"),
    "learning_rate": (1e-3, "probe:optimizer_coverage"),
    "lr_final_ratio": (1.0, "probe:lr_trace"),
    "scheduler": ("none", "code:train.py:40"),
    "lr_decay_helps": (True, "probe:lr_decay"),
    "input_scale": (21000.0, "probe:input_stats"),
    "input_scale_spread": (1800.0, "probe:input_stats"),
    "update_ratio": (2e-3, "probe:update_ratio"),
}


def test_a_floor_worse_than_a_constant_guess_is_not_decided_as_a_missing_decay():
    s = _session(RAW_FEATURES)
    ranked = dict(s.leading(3))
    assert ranked.get("missing_lr_decay", 0.0) < 0.6   # no longer a confident missing decay
    assert s.leading(1)[0][0] != "missing_lr_decay"    # raw inputs under a plateau lead (finish16)
    assert not s.decided()                       # open: the standardisation copy decides it
    assert differential.next_experiment(s) is not None
    assert "standardize" in [r["id"] for r in differential.rank(s)]


def test_standardising_on_a_copy_names_the_raw_inputs():
    s = _session({**RAW_FEATURES, "exp_standardize": ("confirms", "probe:experiment")})
    rep = s.report()
    assert rep["root_causes"][0]["id"] == "unnormalized_inputs"
    assert all(c["confidence"] < 0.3 for c in rep["root_causes"] if c["id"] == "missing_lr_decay")


def test_a_floor_below_chance_keeps_the_decay():
    facts = {**RAW_FEATURES, "current_loss": (0.31, "probe:loss_vs_chance"),
             "initial_loss": (0.69, "probe:loss_vs_chance"),
             "input_scale": (1.1, "probe:input_stats"), "input_scale_spread": (3.0, "probe:input_stats")}
    s = _session(facts)
    assert s.leading(1)[0][0] == "missing_lr_decay"


# An encoder-decoder trained with SGD momentum 0.9: a warm-up LR of 1e-6 for the first epochs, then
# 0.02 with a poly decay. The loss sat still during the warm-up, then fell steadily. The update ratio
# and the one-batch copy were measured at the warm-up LR.
WARMUP = {
    "loss_trend": ("decreasing", "probe:loss_vs_chance"),
    "loss_decrease_fraction": (0.7, "probe:loss_vs_chance"),
    "current_loss": (0.2, "probe:loss_vs_chance"),
    "initial_loss": (0.76, "probe:loss_vs_chance"),
    "loss_function": ("bce_with_logits", "probe:output_squash"),
    "optimizer": ("sgd", "probe:optimizer_coverage"),
    "momentum": (0.9, "code:train.py:30"),
    "learning_rate": (1e-6, "probe:optimizer_coverage"),
    "lr_peak_ratio": (18000.0, "probe:lr_trace"),
    "lr_final_ratio": (140.0, "probe:lr_trace"),
    "update_ratio": (3e-7, "probe:update_ratio"),
    "overfit_one_batch": (False, "probe:overfit_batch"),
    "overfit_still_falling": (False, "probe:overfit_batch"),
    "val_loss_trend": ("decreasing", "probe:train_val_gap"),
    "train_val_gap": (0.0, "probe:train_val_gap"),
    "best_val_fraction": (1.0, "probe:train_val_gap"),
}


def test_a_warm_up_start_is_not_an_lr_too_low():
    rep = _session(WARMUP).report()
    assert not (rep["status"] == "diagnosed" and rep["root_causes"][0]["id"] == "lr_too_low")
    assert all(c["confidence"] < 0.5 for c in rep["root_causes"] if c["id"] == "lr_too_low")


def test_a_held_tiny_lr_is_still_too_low():
    facts = {**WARMUP, "lr_final_ratio": (1.0, "probe:lr_trace"), "lr_peak_ratio": (1.0, "probe:lr_trace"),
             "loss_trend": ("flat", "probe:loss_vs_chance"), "loss_decrease_fraction": (0.004, "probe:loss_vs_chance"),
             "current_loss": (0.757, "probe:loss_vs_chance")}
    rep = _session(facts).report()
    assert rep["root_causes"][0]["id"] == "lr_too_low"
