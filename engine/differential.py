"""Differential diagnosis: which experiment on copies would best separate the leading causes?

When the two leading causes are within ``experiments.margin`` of each other, or the leader is below
the decided level, the engine looks at the experiments of the knowledge base (``kb/experiments.yaml``)
that apply to what is known (their symptom list, their ``when`` condition, not yet run, not made
redundant by a fact in ``unless_known``) and bear on one of the leading causes. For each it computes
the expected information gain over the posterior -- if cause ``h`` is the truth, the experiment
comes out the way its likelihood ratios say it favours ``h`` (confirms when its ``confirms`` ratio for
``h`` is above 1, refutes otherwise) -- and divides by its cost. The best one above
``experiments.min_gain_bits`` is returned as a plain spec the probe side runs
(:func:`traindx.probes.live.experiments.run_experiment`); its outcome comes back as the fact
``exp_<id>`` from ``probe:experiment`` and its rules carry the likelihood ratios.

No torch and no probes here: plain arithmetic on the session's posterior.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import confidence as cf
from .loader import experiment_fact


def undecided(session) -> bool:
    """True when the evidence leaves the diagnosis open: the leader below the decided level, or the
    two leading causes within ``experiments.margin``. A healthy or deferred run is never undecided:
    nothing there calls for an experiment."""
    sym = session.symptom()
    if sym in (None, "healthy", "out_of_scope") or session.deferral():
        return False
    lead = session.leading(2)
    if not lead:
        return False
    if lead[0][1] < session.kb.param("confidence.decided"):
        return True
    margin = session.kb.param("experiments.margin")
    return len(lead) > 1 and lead[0][1] - lead[1][1] < margin


def _evidence(e: dict, outcome: str) -> list[tuple[str, float]]:
    return [(x["cause"], float(x["lr"])) for x in (e.get("evidence") or {}).get(outcome) or []]


def applicable(session, e: dict) -> bool:
    """Whether experiment ``e`` applies to what the session knows."""
    facts = session.facts
    if experiment_fact(e["id"]) in facts:
        return False
    if any(f in facts for f in e.get("unless_known", ())):
        return False
    syms = e.get("symptoms")
    if syms and session.symptom() not in syms:
        return False
    test = e.get("_test")
    if test is not None:
        values = {k: f.value for k, f in facts.items()}
        if test(values) is not True:
            return False
    return True


def expected_gain(dist: Mapping[str, float], e: dict) -> float:
    """Expected information gain (bits) of experiment ``e`` over ``dist``."""
    confirms, refutes = _evidence(e, "confirms"), _evidence(e, "refutes")
    favours = {c for c, lr in confirms if lr > 1}
    worlds = {h: confirms for h in favours if h in dist}
    return cf.entropy(dist) - cf.expected_entropy(dist, worlds, null_world=refutes)


def rank(session, done: Iterable[str] = ()) -> list[dict]:
    """The applicable experiments bearing on the leading causes, best (gain per cost) first: dicts
    ``{"id", "gain", "cost", "score", "bears_on"}``."""
    kb = session.kb
    done = set(done)
    top_n = int(kb.param("experiments.consider_top"))
    dist = session.posterior()
    leading = {c for c, _ in cf.ranked(dist)[:top_n]}
    out = []
    for eid, e in kb.experiments.items():
        if eid in done or not applicable(session, e):
            continue
        bears = {c for o in ("confirms", "refutes") for c, lr in _evidence(e, o) if lr != 1}
        if not bears & leading:
            continue
        gain = expected_gain(dist, e)
        cost = float(e.get("cost", 1.0))
        out.append({"id": eid, "gain": gain, "cost": cost, "score": gain / max(cost, 1e-9),
                    "bears_on": sorted(bears & leading)})
    out.sort(key=lambda r: (-r["score"], r["id"]))
    return out


def spec(kb, eid: str) -> dict:
    """What the probe side needs to run experiment ``eid``: plain JSON-able data."""
    e = kb.experiments[eid]
    return {"id": eid, "intervention": dict(e["intervention"]), "steps": int(e["steps"]),
            "measure": dict(e["measure"]), "fact": experiment_fact(eid)}


def next_experiment(session, done: Iterable[str] = ()) -> dict | None:
    """The experiment to run now (a :func:`spec`), or None: the diagnosis is not open, the per-run
    budget (``experiments.max_per_run``) is spent, or no experiment is worth its cost."""
    kb = session.kb
    if not kb.experiments:
        return None
    done = set(done) | {eid for eid in kb.experiments if experiment_fact(eid) in session.facts}
    if len(done) >= int(kb.param("experiments.max_per_run")):
        return None
    if not undecided(session):
        return None
    ranked = rank(session, done)
    if not ranked or ranked[0]["gain"] < float(kb.param("experiments.min_gain_bits")):
        return None
    return {**spec(kb, ranked[0]["id"]), "gain": round(ranked[0]["gain"], 4), "bears_on": ranked[0]["bears_on"]}
