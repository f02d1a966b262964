"""Thresholds that used to be written in code, now read from the knowledge base, move with a pack.

What a user would notice: a team whose optimizer runs well at a higher learning rate than the
shipped ladder says can move one cut of the ladder (``rules.lr.*``) without code; the "now" of a
loss curve (``curves.now_share``) is one window for a log and for a live run, so the two read the
same numbers alike, and a pack that widens it moves both.
"""

from __future__ import annotations

import math
import random

from traindx.engine.api import Session
from traindx.engine.loader import load_kb


def _pack(tmp_path, body):
    (tmp_path / "p.yaml").write_text(body)
    return str(tmp_path)


def _adam_at(kb, lr):
    s = Session(kb)
    s.add("optimizer", "adam", "code:train.py:3")
    s.add("learning_rate", lr, "code:train.py:3")
    s.add("loss_trend", "oscillating", "log:metrics.csv:steps 0-99")
    return s.report()


def test_a_pack_moving_a_cut_of_the_lr_ladder_changes_the_diagnosis(tmp_path):
    """Adam at 5e-3 is above its usual range (rules.lr.adaptive.normal_top, 3e-3) but under the cut
    where it is called too high (rules.lr.adaptive.high, 1e-2): no LR rule speaks. A pack that
    lowers the high cut to 4e-3 makes lr-high-adaptive fire and the too-high LR rise."""
    shipped = load_kb(entry_point_packs=False)
    base = _adam_at(shipped, 5e-3)
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  rules.lr.adaptive.high: 4.0e-3\n")],
                 entry_point_packs=False)
    moved = _adam_at(kb, 5e-3)

    def conf(r, cause):
        return next((c["confidence"] for c in r["root_causes"] if c["id"] == cause), 0.0)

    assert conf(moved, "lr_too_high") > conf(base, "lr_too_high") + 0.1
    assert moved["root_causes"][0]["id"] == "lr_too_high"


def _noisy_then_drop(n=400, seed=0):
    """A per-step loss flat at 2.0 that drops to 0.5 over its last 8 % (the last 32 steps)."""
    rng = random.Random(seed)
    cut = int(n * 0.92)
    return [(2.0 if i < cut else 0.5) + rng.gauss(0, 0.01) for i in range(n)]


def test_now_is_one_window_for_a_log_and_a_live_run_and_a_pack_moves_both(tmp_path):
    from traindx.probes.live import losses as L

    series = _noisy_then_drop()
    steps = list(range(len(series)))
    for kb in (load_kb(entry_point_packs=False),
               load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  curves.now_share: 0.2\n")],
                       entry_point_packs=False)):
        P = kb.params()
        live = L.current_loss(series, P)
        an = L.curve_analysis(steps, series, (), None, params=P)
        assert math.isclose(an.facts["current_loss"], live, rel_tol=1e-5)   # facts keep 6 digits
    # the shipped 5 % (20 steps) sits after the drop; a 20 % window (80 steps) straddles it
    shipped_now = L.current_loss(series, load_kb(entry_point_packs=False).params())
    assert shipped_now < 0.6
    assert L.current_loss(series, P) > 1.5
