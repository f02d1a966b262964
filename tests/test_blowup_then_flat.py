"""A loss that blows up and then never moves again is an Explosion, not a flat start.

What a user would notice: a hand-written SGD loop with a step far too large sent the loss from
0.23 to 2e25 within twenty steps; the weights died in that jump and the loss came back to a
constant 0.230 for the rest of the run. The curve around the blow-up is flat from start to end, so
traindx read "loss flat from epoch 0" and blamed a learning rate too *low*. The blow-up is now read
(``loss_blowup``: the largest spike over the level before it) and a run that blew up a thousandfold
and never moved since reads Explosion, with the LR too high leading. A hard batch a few times the
level, or a spike the run learns on from, changes nothing.
"""

from __future__ import annotations

import random

from traindx.engine.api import Session
from traindx.probes.live import losses as L


def _curve(spike):
    rnd = random.Random(0)
    flat = [0.2303 * (1 + 0.002 * (2 * rnd.random() - 1)) for _ in range(375)]
    for i, v in spike.items():
        flat[i] = v
    return flat


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


def _facts(values):
    an = L.curve_analysis(range(1, len(values) + 1), values, ())
    return {k: v for k, v in an.facts.items() if v is not None}


def test_a_blow_up_followed_by_a_dead_flat_loss_is_an_explosion_with_the_lr_leading(kb):
    # steps 5-20: 3.2 -> 2e25, one blow-up growing step after step; then 0.230 for good
    facts = _facts(_curve({i: 3.2 * 10 ** (25 * (i - 4) / 15) for i in range(4, 20)}))
    assert facts["loss_trend"] == "flat" and facts["loss_blowup"] >= 1e3
    rep = _report(kb, facts)
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] == "lr_too_high"


def test_a_hard_batch_a_few_times_the_level_is_no_blow_up(kb):
    facts = _facts(_curve({40: 0.9}))
    assert facts.get("loss_blowup", 0) < 1e3
    rep = _report(kb, facts)
    assert rep["symptom"]["id"] != "explosion"
