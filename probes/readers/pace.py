"""The pace of a training loss that is still going down: ``loss_pace`` (``slow`` / ``normal``).

A run that learns at a normal pace falls fast at first and then decelerates: its last third falls
a small fraction of what its first third fell. A run whose loss has fallen little over the whole
log (under ``pace.slow_max_fall`` of its start), is still falling over its last third (and still
decreasing beyond its noise by the curve reader: a levelled-off loss is ``normal``) (at least
``pace.slow_min_last_fall`` of its start) and has not decelerated (last-third fall at least
``pace.slow_min_ratio`` of the first-third fall) converges slowly: the Training-slow symptom read
from the curve. Each third's level is the median of a sixth of the run around its boundary.

Only a decreasing or levelled-off finite training loss with at least six points is read (a flat,
diverging or NaN loss is another symptom), and only a log that starts with the run (its first
point at step/epoch 1, or within ``pace.start_fraction`` of the span it covers): an excerpt from
the middle of a run has already made its fast fall before the window starts.

``loss_creeping`` (true / false) reads a loss too flat to count as decreasing (``loss_trend``
flat): it is *creeping* when it still falls record after record — the Mann-Kendall trend of the
training loss (on at most ``pace.creep_max_points`` bucket medians) is below ``-pace.creep_z``
standard deviations, it fell at least ``pace.creep_min_fall`` of its start, its second half
still falls (Kendall's tau at most ``-pace.creep_val_tau``, and it takes off at least
``pace.slow_min_ratio`` of what the first half did: a loss that fell early and levelled off is
not creeping), and the validation loss
(when four or more evaluations were printed) falls with it (Kendall's tau at most
``-pace.creep_val_tau``; without a validation loss the training loss alone must reach that tau).
A model that learns, only slowly (a tiny LR, most layers frozen, every step clipped), creeps; one
that does not learn wanders around its start (tau near 0), and one that memorises corrupted labels
creeps on training while validation rises.

``loss_late_drift`` (true / false) reads a levelled-off loss (``loss_trend`` plateaued): it still
*drifts* when the second half of the run (on at most ``pace.creep_max_points`` bucket medians, at
least ``pace.creep_min_points`` of them) falls record after record, its Mann-Kendall trend below
``-pace.creep_z`` standard deviations. The LR still moves the weights: an LR that a schedule drove
to zero leaves a levelled loss that only wanders in its noise. Torch-free; thresholds in
kb/parameters/pace.yaml.
"""

from __future__ import annotations

from statistics import median

from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

#: The pace reader compares a curve's thirds (the module docstring, the findings' texts): the
#: method's structure, not a cut.
_THIRDS = 3


def _level(xs: list, ys: list, a: float, b: float) -> float | None:
    vals = [y for x, y in zip(xs, ys) if a <= x <= b]
    return median(vals) if vals else None


def pace_facts(analysis, findings: list, params=None) -> list[Finding]:
    """``loss_pace`` for the training loss of a :class:`~traindx.probes.readers.curves.CurveAnalysis`
    (``findings``: the curve facts already found, for ``loss_trend``). Empty when not readable."""
    if analysis is None:
        return []
    trend = next((f.value for f in findings if f.fact == "loss_trend"), None)
    if trend == "flat":
        return _creeping(analysis, findings, resolve(params))
    if trend not in ("decreasing", "plateaued"):
        return []
    p = resolve(params)
    drift = _late_drift(analysis, p) if trend == "plateaued" else []
    return _pace(analysis, trend, p) + drift


def _late_drift(analysis, p) -> list[Finding]:
    """``loss_late_drift`` for a levelled-off training loss (see the module docstring)."""
    curve = analysis.curves.get("loss")
    ys = [y for y in curve.y if y is not None] if curve is not None else []
    thin = _bucketed(ys, int(p["pace.creep_max_points"]))
    late = thin[len(thin) // 2:]
    if len(late) < int(p["pace.creep_min_points"]):
        return []
    tau, z = kendall(late)
    drifting = z <= -float(p["pace.creep_z"])
    src = f"log:{analysis.name}:steps {curve.x[0]:g}-{curve.x[-1]:g}"
    if drifting:
        detail = (f"after it levelled off the training loss still ticks down record after record over the "
                  f"second half of the run (trend {z:+.1f} standard deviations, tau {tau:+.2f}): the LR still "
                  "moves the weights")
    else:
        detail = (f"over the second half of the run the levelled training loss shows no steady fall "
                  f"(trend {z:+.1f} standard deviations, tau {tau:+.2f})")
    return [Finding("loss_late_drift", drifting, src, detail)]


def _pace(analysis, trend, p) -> list[Finding]:
    curve = analysis.curves.get("loss")
    if curve is None or len(curve.x) < p["pace.min_points"]:
        return []
    xs, ys = curve.x, curve.y
    x0, x1 = xs[0], xs[-1]
    span = x1 - x0
    if span <= 0:
        return []
    if x0 > max(1.0, float(p["pace.start_fraction"]) * span):
        return []   # a window from the middle of a run: how much it fell says nothing of its pace
    w = span / int(p["pace.level_window_parts"])
    third = span / _THIRDS
    y0 = _level(xs, ys, x0, x0 + w)
    y1 = _level(xs, ys, x0 + third - w / 2, x0 + third + w / 2)
    y2 = _level(xs, ys, x0 + 2 * third - w / 2, x0 + 2 * third + w / 2)
    y3 = _level(xs, ys, x1 - w, x1)
    if None in (y0, y1, y2, y3) or y0 <= 0:
        return []
    fall, first, last = (y0 - y3) / y0, (y0 - y1) / y0, (y2 - y3) / y0
    # a loss the curve reader found levelled off takes nothing off over its last stretch beyond its
    # own noise: the medians of sixths can still differ by chance on a noisy per-batch loss, but a
    # loss that is not still falling is not falling slowly
    slow = (trend == "decreasing"
            and fall < float(p["pace.slow_max_fall"]) and last >= float(p["pace.slow_min_last_fall"])
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


def _bucketed(ys: list, most: int) -> list:
    """At most ``most`` values: the medians of equal runs of ``ys`` (a cheap, outlier-proof thinning)."""
    if len(ys) <= most:
        return list(ys)
    k = len(ys) / most
    return [median(ys[int(i * k):max(int(i * k) + 1, int((i + 1) * k))]) for i in range(most)]


def kendall(ys: list) -> tuple[float, float]:
    """(tau, z) of the Mann-Kendall trend test of ``ys`` against its order: tau in [-1, 1] (-1:
    every later value lower), z the statistic in standard deviations under "no trend" (ties
    count as neither)."""
    n = len(ys)
    if n < 2:
        return 0.0, 0.0
    s = 0
    for i in range(n - 1):
        a = ys[i]
        for b in ys[i + 1:]:
            s += (b > a) - (b < a)
    pairs = n * (n - 1) / 2
    var = n * (n - 1) * (2 * n + 5) / 18
    return s / pairs, s / var ** 0.5


def _creeping(analysis, findings: list, p) -> list[Finding]:
    """``loss_creeping`` for a flat training loss (see the module docstring)."""
    curve = analysis.curves.get("loss")
    if curve is None or len(curve.y) < int(p["pace.creep_min_points"]):
        return []
    ys = [y for y in curve.y if y is not None]
    if len(ys) < int(p["pace.creep_min_points"]):
        return []
    most = int(p["pace.creep_max_points"])
    tau, z = kendall(_bucketed(ys, most))
    fall = next((f.value for f in findings if f.fact == "loss_decrease_fraction"), None)
    val = analysis.curves.get("val_loss")
    vys = [y for y in val.y if y is not None] if val is not None else []
    need_tau = float(p["pace.creep_val_tau"])
    vtau = kendall(_bucketed(vys, most))[0] if len(vys) >= int(p["pace.creep_min_val_points"]) else None
    val_ok = (vtau if vtau is not None else tau) <= -need_tau
    # still falling over its second half: a loss that fell early and levelled off is not creeping
    # and has not decelerated: its second half takes off at least pace.slow_min_ratio of what the
    # first half did (a saturating fall still ticks down in the last digits long after it stopped)
    thin = _bucketed(ys, most)
    h, k = len(thin) // 2, max(1, len(thin) // int(p["pace.level_window_parts"]))
    start, mid, end = median(thin[:k]), median(thin[max(0, h - k // 2):h + k // 2 + 1]), median(thin[-k:])
    late = kendall(thin[h:])[0]
    steady = (z <= -float(p["pace.creep_z"]) and late <= -need_tau
              and mid - end >= float(p["pace.slow_min_ratio"]) * (start - mid))
    creeping = steady and val_ok and isinstance(fall, (int, float)) and fall >= float(p["pace.creep_min_fall"])
    src = f"log:{analysis.name}:steps {curve.x[0]:g}-{curve.x[-1]:g}"
    fell = f"{fall:.1%}" if isinstance(fall, (int, float)) else "little"
    trend = f"trend {z:+.1f} standard deviations, tau {tau:+.2f}"
    val_txt = "" if vtau is None else f" (validation tau {vtau:+.2f})"
    if creeping:
        with_val = "the validation loss with it" + val_txt if vtau is not None else \
            "with no validation loss printed"
        detail = (f"the training loss fell only {fell} but fell steadily, record after record ({trend}), "
                  f"{with_val}: it learns, slowly")
    elif steady and vtau is not None and not val_ok:
        detail = (f"the training loss fell {fell}, steadily ({trend}), but the validation loss does not fall "
                  f"with it{val_txt}: it fits the training batches without learning the task")
    else:
        detail = f"the training loss is flat (fell {fell}) with no steady fall ({trend}){val_txt}"
    return [Finding("loss_creeping", creeping, src, detail)]


__all__ = ["pace_facts", "kendall"]
