"""A printed gradient norm that falls from an ordinary start to nothing while the loss stalls is a
path to the output that no longer passes any gradient (dead or saturated units), read from the
log alone: the user sees dead ReLUs named first, not a learning rate to raise."""

from __future__ import annotations

from traindx.engine.api import Session
from traindx.engine.frontends import gather
from traindx.engine.loader import load_kb

KB = load_kb(entry_point_packs=False)


def _log(norms, losses):
    lines = ["model: encoder-decoder, loss: custom"]
    for i, (g, loss) in enumerate(zip(norms, losses), 1):
        lines.append(f"Iter [{i * 20}/{len(norms) * 20}]\tlr: 5.000e-04, time: 0.210, data_time: 0.001, "
                     f"loss: {loss:.4f}, grad_norm: {g:.4f}")
    return "\n".join(lines) + "\n"


def _diagnose(text):
    s = Session(KB)
    gather.absorb(s, gather.read_pasted(text, params=KB.params()))
    s.run()
    return s.report()


STALLED = [2.7512, 2.7391, 2.7440, 2.7385, 2.7466, 2.7402, 2.7431, 2.7398, 2.7457, 2.7420, 2.7389, 2.7436]


def test_a_gradient_norm_that_dies_under_a_stalled_loss_names_dead_units_first():
    norms = [1.42, 0.31, 0.004] + [0.0] * 9
    report = _diagnose(_log(norms, STALLED))
    assert report["symptom"]["id"] == "not_learning"
    assert report["root_causes"][0]["id"] == "dead_relu"


def test_a_gradient_norm_that_only_settles_is_no_dead_network():
    norms = [1.42, 0.9, 0.7] + [0.35, 0.31, 0.29, 0.33, 0.3, 0.28, 0.32, 0.3, 0.31]
    report = _diagnose(_log(norms, STALLED))
    assert report["root_causes"][0]["id"] != "dead_relu"
