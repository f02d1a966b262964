"""All confidence arithmetic in one place (as EMYCIN keeps its certainty factors in one module).

The calculus is Bayesian over a closed set of hypotheses: every root cause in the knowledge base
plus :data:`OTHER` ("none of these", which also covers "nothing is wrong"). Each symptom gives
prior probabilities for the causes the seed says it "usually" comes from; what remains is shared
between :data:`OTHER` and the remaining causes. Each fired rule contributes a likelihood ratio per
cause (> 1 supports, < 1 argues against); the posterior is the normalised product, computed in
log space. Everything here is plain arithmetic on dicts: no torch, no knowledge of rules.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .parameters import resolve

OTHER = "_other"
#: Numeric stability, not knowledge: a probability is kept this far from 0 and 1 (the "other" prior
#: never vanishes, a logit stays finite).
_PROB_FLOOR = 1e-6
# The numbers of the calculus are knowledge (kb/parameters/engine.yaml, ``confidence.*``): the share
# of the unlisted prior mass that goes to OTHER, OTHER's prior without a symptom, the posterior that
# decides (stop asking), that diagnoses, that overrides a healthy run, the displayed cap and the
# report's floor. Callers pass the knowledge base's ``params()``; None reads the shipped values.


def priors(causes: Iterable[str], symptom_priors: Mapping[str, float] | None, params=None) -> dict[str, float]:
    """Prior distribution over ``causes`` + OTHER, from a symptom's listed priors (or uniform)."""
    causes = list(causes)
    p = resolve(params)
    if not symptom_priors:
        no_symptom = p["confidence.other_prior_no_symptom"]
        rest = (1.0 - no_symptom) / max(len(causes), 1)
        out = {c: rest for c in causes}
        out[OTHER] = no_symptom
        return out
    listed = {c: float(p) for c, p in symptom_priors.items() if c in causes}
    remainder = max(0.0, 1.0 - sum(listed.values()))
    unlisted = [c for c in causes if c not in listed]
    other = remainder * p["confidence.other_share"] if unlisted else remainder
    each = (remainder - other) / len(unlisted) if unlisted else 0.0
    out = {c: listed.get(c, each) for c in causes}
    out[OTHER] = max(other, _PROB_FLOOR)
    out = _normalise(out)
    # no cause is diagnosed on its prior alone: what a symptom's base rate gives above the cap
    # goes to "none of these" until evidence for that cause arrives
    cap = p["confidence.max_prior"]
    excess = sum(v - cap for c, v in out.items() if c != OTHER and v > cap)
    if excess > 0:
        out = {c: (min(v, cap) if c != OTHER else v + excess) for c, v in out.items()}
    return out


def _normalise(dist: Mapping[str, float]) -> dict[str, float]:
    total = sum(dist.values())
    return {k: v / total for k, v in dist.items()} if total > 0 else dict(dist)


def posterior(prior: Mapping[str, float], evidence: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Combine a prior with likelihood ratios ``(cause, lr)``; return the normalised posterior."""
    logp = {h: math.log(p) if p > 0 else -math.inf for h, p in prior.items()}
    for cause, lr in evidence:
        if cause in logp and lr > 0:
            logp[cause] += math.log(lr)
    top = max(logp.values())
    if top == -math.inf:
        return dict(prior)
    exp = {h: math.exp(v - top) for h, v in logp.items()}
    return _normalise(exp)


def entropy(dist: Mapping[str, float]) -> float:
    """Shannon entropy in bits."""
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


def ranked(dist: Mapping[str, float], include_other: bool = False) -> list[tuple[str, float]]:
    """Hypotheses best first."""
    items = [(h, p) for h, p in dist.items() if include_other or h != OTHER]
    return sorted(items, key=lambda kv: (-kv[1], kv[0]))


def shown(p: float, params=None) -> float:
    """The confidence as reported: capped (``confidence.max``), rounded to 2 decimals."""
    return round(min(p, resolve(params)["confidence.max"]), 2)


def calibrated(p: float, params=None) -> float:
    """A diagnosed cause's posterior as a calibrated probability: the monotone map
    ``sigmoid(slope * logit(p) + shift)`` (``confidence.calibration.*``)."""
    q = resolve(params)
    p = min(max(p, _PROB_FLOOR), 1 - _PROB_FLOOR)
    z = q["confidence.calibration.slope"] * math.log(p / (1 - p)) + q["confidence.calibration.shift"]
    return 1.0 / (1.0 + math.exp(-z))


def calibrated_ranking(probs: list[float], params=None) -> list[float]:
    """Display probabilities of a diagnosed report's ranked causes (raw posteriors, best first): the
    first calibrated, the rest sharing what it no longer claims (or gives up) in proportion, and
    never above the first, so the ranking is unchanged."""
    if not probs:
        return []
    top = probs[0]
    new = calibrated(top, params)
    scale = (1.0 - new) / (1.0 - top) if top < 1.0 else 0.0
    return [new] + [min(p * scale, new) for p in probs[1:]]


def expected_entropy(dist: Mapping[str, float], worlds: Mapping[str, list[tuple[str, float]]],
                     null_world: list[tuple[str, float]] | None = None) -> float:
    """Expected posterior entropy if we learn an answer.

    ``worlds[h]`` is the evidence the answer would add if ``h`` were the truth; hypotheses without
    a world of their own (and OTHER) share ``null_world`` (usually: nothing fires).
    """
    total = 0.0
    covered = 0.0
    for h, ev in worlds.items():
        w = dist.get(h, 0.0)
        if w <= 0:
            continue
        total += w * entropy(posterior(dist, ev))
        covered += w
    rest = max(0.0, 1.0 - covered)
    if rest > 0:
        total += rest * entropy(posterior(dist, null_world or []))
    return total


def odds_factor(factors: Iterable[float], supporting_only: bool = False) -> float:
    """How much evidence multiplied a cause's odds: the product of its likelihood ratios (with
    ``supporting_only``, of those above 1: what speaks for the cause, leaving out what argues against)."""
    out = 1.0
    for f in factors:
        if not supporting_only or f > 1:
            out *= f
    return out


def contribution_text(lr: float) -> str:
    """How a likelihood ratio reads in a report: ×8.0 supports, ×0.10 argues against."""
    return f"×{lr:.2g}"
