"""The symptom a diagnosed cause is predicted to show when the curve itself looks healthy.

A run whose training loss and validation loss are both still falling at its end has reached no
floor yet: a cause that slows learning (layers frozen at random init, parameters left out of the
optimizer) shows there as Training slow, not as the Plateau the loss would stop at later. With the
validation loss flat, the Plateau stays the prediction.
"""
from traindx.engine.api import Session
from traindx.engine.loader import load_kb


def _report(cause_facts: dict, val_trend: str) -> dict:
    s = Session(load_kb(entry_point_packs=False))
    for fact, value in cause_facts.items():
        s.add(fact, value, "code:train.py:12")
    s.add("optimizer", "adam", "code:train.py:25")
    s.add("learning_rate", 0.001, "code:train.py:25")
    s.add("zero_grad_called", True, "code:train.py:30")
    s.add("loss_trend", "decreasing", "log:console.log:steps 1-20")
    s.add("loss_pace", "normal", "log:console.log:steps 1-20")
    s.add("val_loss_trend", val_trend, "log:console.log:steps 1-20")
    return s.report()


_FROZEN = {"frozen_params": ["model.encoder.parameters()"], "frozen_weights": "random_init"}
_LEFT_OUT = {"frozen_params": [], "params_not_in_optimizer": ["model.blocks (a plain list)"]}


def test_layers_frozen_at_random_init_under_two_falling_losses_show_as_slow_training():
    rep = _report(_FROZEN, "decreasing")
    assert rep["root_causes"][0]["id"] == "frozen_parameters"
    assert rep["symptom"]["id"] == "slow_training" and rep["symptom"]["predicted"]
    assert _report(_FROZEN, "flat")["symptom"]["id"] == "plateau"


def test_parameters_left_out_of_the_optimizer_under_two_falling_losses_show_as_slow_training():
    rep = _report(_LEFT_OUT, "decreasing")
    assert rep["root_causes"][0]["id"] == "params_not_in_optimizer"
    assert rep["symptom"]["id"] == "slow_training" and rep["symptom"]["predicted"]
    assert _report(_LEFT_OUT, "flat")["symptom"]["id"] == "plateau"
