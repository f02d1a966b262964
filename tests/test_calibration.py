"""The displayed confidence of a diagnosed cause is calibrated (kb ``confidence.calibration.*``).

What a user would notice: a diagnosed report's confidence is the calibrated probability of its
posterior, the ranking and the verdict are the posterior's, the shown confidences never add up to
more than 1, and an undecided or healthy report shows the posterior itself. The fitting tool
(benchmarks/calibrate.py) recovers a known miscalibration from scored runs.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

from traindx.engine import confidence as cf
from traindx.engine.api import Session


def test_the_map_raises_middling_and_keeps_the_order():
    hi, mid = cf.calibrated(0.97), cf.calibrated(0.68)
    assert mid > 0.68 and hi > mid           # a diagnosed cause is right more often than its posterior says
    xs = [i / 100 for i in range(1, 100)]
    ys = [cf.calibrated(x) for x in xs]
    assert ys == sorted(ys)                                # monotone: no ranking changes
    shown = cf.calibrated_ranking([0.97, 0.02, 0.01])
    assert shown[0] == cf.calibrated(0.97) and shown[0] >= shown[1] >= shown[2]
    assert abs(sum(shown) - 1.0) < 1e-9                    # what the top gives up goes to the others
    shown = cf.calibrated_ranking([0.6, 0.39])
    assert shown[0] > 0.6 and shown[1] < 0.39 and sum(shown) <= 1.0


def _session(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    return s


def test_a_diagnosed_report_shows_the_calibrated_posterior(kb):
    s = _session(kb, {"symptom": "explosion", "loss_has_nonfinite": True, "inputs_have_nan": True})
    rep = s.report()
    assert rep["status"] == "diagnosed"
    post = s.posterior()
    top = rep["root_causes"][0]
    assert top["id"] == max((c for c in post if c != cf.OTHER), key=post.get)
    assert top["confidence"] == cf.shown(cf.calibrated(post[top["id"]]), kb.params())
    assert sum(c["confidence"] for c in rep["root_causes"]) <= 1.0 + 0.01 * len(rep["root_causes"])


def test_an_undecided_report_shows_the_raw_posterior(kb):
    s = _session(kb, {"symptom": "plateau"})
    rep = s.report()
    assert rep["status"] != "diagnosed" and rep["root_causes"]
    post = s.posterior()
    for c in rep["root_causes"]:
        assert c["confidence"] == cf.shown(post[c["id"]], kb.params())


def test_the_fitting_tool_recovers_a_known_miscalibration():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import calibrate
    rng = random.Random(0)
    rows = []
    for _ in range(3000):
        p = rng.uniform(0.3, 0.995)
        truth = 1 / (1 + math.exp(-(0.5 * math.log(p / (1 - p)) + 0.4)))   # right this often
        ok = rng.random() < truth
        rows.append({"status": "diagnosed", "kind": "fault", "top1_confidence": p, "top1_correct": ok,
                     "top1_ok": ok})
    slope, shift = calibrate.fit(rows)
    assert abs(slope - 0.5) < 0.1 and abs(shift - 0.4) < 0.15
    assert calibrate.scores(rows, slope, shift)["ece"] < calibrate.scores(rows)["ece"] - 0.05
