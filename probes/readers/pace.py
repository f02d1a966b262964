"""The pace of a training loss that is still going down: ``loss_pace`` (``slow`` / ``normal``).

A run that learns at a normal pace falls fast at first and then decelerates: its last third falls
a small fraction of what its first third fell. A run whose loss has fallen little over the whole
log (under ``pace.slow_max_fall`` of its start), is still falling over its last third (at least
``pace.slow_min_last_fall`` of its start) and has not decelerated (last-third fall at least
``pace.slow_min_ratio`` of the first-third fall) converges slowly: the Training-slow symptom read
from the curve. Each third's level is the median of a sixth of the run around its boundary.

Only a decreasing or levelled-off finite training loss with at least six points is read (a flat,
diverging or NaN loss is another symptom), and only a log that starts with the run (its first
point at step/epoch 1, or within ``pace.start_fraction`` of the span it covers): an excerpt from
the middle of a run has already made its fast fall before the window starts. Torch-free;
thresholds in kb/parameters/pace.yaml.
"""

from __future__ import annotations

from statistics import median

from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve



def _level(xs: list, ys: list, a: float, b: float) -> float | None:
    vals = [y for x, y in zip(xs, ys) if a <= x <= b]
    return median(vals) if vals else None


def pace_facts(analysis, findings: list, params=None) -> list[Finding]:
    """``loss_pace`` for the training loss of a :class:`~traindx.probes.readers.curves.CurveAnalysis`
    (``findings``: the curve facts already found, for ``loss_trend``). Empty when not readable."""
    if analysis is None:
        return []
    trend = next((f.value for f in findings if f.fact == "loss_trend"), None)
    if trend not in ("decreasing", "plateaued"):
        return []
    curve = analysis.curves.get("loss")
    p = resolve(params)
    if curve is None or len(curve.x) < p["pace.min_points"]:
        return []
    xs, ys = curve.x, curve.y
    x0, x1 = xs[0], xs[-1]
    span = x1 - x0
    if span <= 0:
        return []
    if x0 > max(1.0, float(p["pace.start_fraction"]) * span):
        return []   # a window from the middle of a run: how much it fell says nothing of its pace
    w = span / 6
    third = span / 3
    y0 = _level(xs, ys, x0, x0 + w)
    y1 = _level(xs, ys, x0 + third - w / 2, x0 + third + w / 2)
    y2 = _level(xs, ys, x0 + 2 * third - w / 2, x0 + 2 * third + w / 2)
    y3 = _level(xs, ys, x1 - w, x1)
    if None in (y0, y1, y2, y3) or y0 <= 0:
        return []
    fall, first, last = (y0 - y3) / y0, (y0 - y1) / y0, (y2 - y3) / y0
    slow = (fall < float(p["pace.slow_max_fall"]) and last >= float(p["pace.slow_min_last_fall"])
            and (first <= 0 or last >= float(p["pace.slow_min_ratio"]) * first))
    src = f"log:{analysis.name}:steps {x0:g}-{x1:g}"
    how = ("has not slowed down" if first <= 0 or last >= first else
           f"fell {last / first:.0%} as much as in the first third")
    if slow:
        detail = (f"the training loss fell only {fall:.0%} over the run ({y0:.3g} -> {y3:.3g}) and is "
                  f"still falling: {last:.0%} of its start over the last third, which {how}")
    else:
        detail = (f"the training loss fell {fall:.0%} over the run ({y0:.3g} -> {y3:.3g}); over the "
                  f"last third it fell {last:.0%} of its start")
    return [Finding("loss_pace", "slow" if slow else "normal", src, detail)]


__all__ = ["pace_facts"]
