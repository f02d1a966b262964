"""Curve analysis: turn a reduced metrics log into ``log:curves`` facts, a symptom region and events.

Input is a :class:`~traindx.probes.readers.logs.LogData`; every metric is a list of at most 2048 points
(exact rows for shorter logs, equal-row buckets with mean/min/max/sd for longer ones), so each
step below is cheap whatever the log's length. Output: ``(findings, CurveAnalysis)``.

Method
------
Everything works on *windows and medians*, never on single points, because per-step losses are
noisy and epoch logs are short.

1. **Smoothing.** The training loss is smoothed with a running *median* over ``±w`` points,
   ``w = max(3, N // 40)`` (a window of ~5 % of the run, at least 7 points, so that even a short
   epoch log with three wild epochs out of ten keeps a sane level). A median follows a falling
   curve without being dragged by the outliers that a mean would smear out.
2. **Noise band.** The residual of each point from that running median gives a local robust
   scale ``1.4826 * median|residual|`` over ``±max(3, 2w)`` points (the MAD, which equals the
   standard deviation for Gaussian noise); for bucketed logs the within-bucket standard deviation
   is added in quadrature.
3. **Spikes.** A point is a spike when its maximum exceeds both the running median and the
   last non-spike value before it by more than ``6`` noise bands *and* by more than 50 % of the
   level: far outside the noise, a jump *up* (the high first epoch of a fast-falling curve is
   not a spike; the first point never is), and large enough to matter even on a near-noiseless
   curve. Adjacent spike points make one spike event.
   Spikes are then left out of the level statistics below (and the curve is re-smoothed), so a
   single 60 000 in a loss of 2 does not move "initial" or "current".
4. **Initial and current loss.** ``initial_loss`` is the median of the first ``k_head`` values
   (``k_head = clamp(N // 50, 1, 25)``: an epoch log's first epoch is already an average, a
   per-step log needs a few values); a long log uses its first raw rows, which are kept
   verbatim. ``current_loss`` is the median of the last ``k_tail = max(3, N // 20)`` points
   (the last ~5 % of the run; the last value for a log of under 5 points, where noise,
   oscillation and plateau are not judged at all).
   ``loss_decrease_fraction = (initial - current) / |initial|``.
5. **Recent noise.** ``loss_noise`` is the robust residual scale over the last 30 % of the run
   divided by ``|current|``.
6. **Trend**, decided in this order (the first that holds wins):

   - ``nonfinite``: the loss ends in NaN/Inf, or at least half of its values are non-finite;
   - ``diverging``: the current level is >20 % above the initial one (and above 2 noise bands),
     or its magnitude grew tenfold (a loss running off to -1e7 too), or the curve climbed back
     at least half-way from its best level towards where it started;
   - ``oscillating``: the recent noise is at least 25 % of the level and at least a quarter of
     all progress made, or the run keeps spiking (3+ spike events, or 2+ covering 15 % of it,
     unless the loss is still clearly falling -- it fell by half or more and the last 30 % still
     takes >= 10 % of the level off, by 3+ standard errors -- or they are rare, under one point
     in 200, and the spikes are single points: then they are the heavy upper tail of per-batch
     losses, hard batches, not instability),
     or it wanders: over the last 70 % the running median climbs back from a low by at least the
     current level (the smoothed loss doubles) while the net progress over that stretch is under
     a quarter of its range (slow swings the step-to-step noise measure does not see);
   - ``flat``: the loss fell by less than 10 %;
   - ``plateaued``: it fell, but over the last 30 % it no longer does: the median around the
     70 % mark exceeds ``current`` by less than 5 % of the total decrease *and* less than 2 % of
     the level, or by less than two standard errors of that difference (noise, not progress).
     The plateau starts where the running median last entered the band ``flat level +
     max(2 noise, 5 %)``;
   - ``decreasing``: otherwise.

   The thresholds are deliberately coarse: they separate the seed's symptoms (not learning,
   plateau, instability, explosion), not fine grades of health.
7. **Oscillation trend.** The mean absolute residual (plus within-bucket sd) in the last third of
   the run over that in the first third: >= 1.5 ``growing``, <= 1/1.5 ``shrinking``, else
   ``steady``. Reported when the loss oscillates, diverges, spikes or is noisy (>= 10 %).
8. **Validation loss.** Smoothed with a running median of ``±max(1, N // 40)``. ``increasing``
   when the level of the last tenth of the evaluations (their median, at least ``k_tail`` of
   them, all after the best) is >10 % and 2 noise bands above the best smoothed value, the noise
   band being the scatter since the best where there are 5+ evaluations after it, and (with 6+
   evaluations after the best) the last third of those sits at or above their first third;
   ``decreasing`` when it is still >5 % below the value at mid-run; else ``flat``.
   ``best_val_fraction`` is where the smoothed minimum lies in the whole run (0 = first logged
   step of any metric, 1 = last).
9. **Other curves.** Accuracies: median of the last ``k_tail`` values. LR: the last value over
   the initial one (the peak, when a warm-up raises it); the collapse point is where it stays
   below 1 % of that reference. When the loss plateaued while the LR was at half its peak or more
   and the LR then fell 5x or more with the loss still flat, ``lr_decay_helps`` is false: the
   run's own decay did not lower the plateau. Gradient norm and step time: the median of the last third over
   the first third (x2 / x0.5 for the gradient norm, x1.25 / x0.8 for step time).
10. **Chance level.** With ``num_classes`` = C, ``loss_at_chance`` is true when both the initial
    and the current loss are within 10 % of ln(C), the loss of a uniform guess under
    cross-entropy.

Every finding's ``source`` is ``log:<file>:steps A-B``, the step (or epoch/row) range its value
was computed from, and ``detail`` is one sentence a user can check against their plot.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

# The thresholds of the method above are knowledge: kb/parameters/curves.yaml (``curves.*``). A
# caller passes the knowledge base's ``params()`` (a pack's overrides applied); None reads the
# shipped values.


@dataclass
class Event:
    """A step range worth marking on a plot: ``kind`` is ``symptom``, ``nan``, ``spike`` or
    ``restart``; ``start``/``end`` are steps (equal for a single step); ``label`` is short text."""

    kind: str
    start: float
    end: float
    label: str


@dataclass
class Curve:
    """One metric as plotted: point steps ``x``, means ``y``, bucket ``lo``/``hi`` (equal to ``y``
    for exact rows) and the running-median ``smooth`` (training and validation loss only)."""

    role: str
    column: str
    x: list
    y: list
    lo: list
    hi: list
    smooth: list | None = None


@dataclass
class CurveAnalysis:
    """The result of :func:`analyze`: facts, findings, symptom region, events, plot curves."""

    path: str
    name: str
    x_label: str
    loss_trend: str | None = None
    facts: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    region: Event | None = None
    events: list = field(default_factory=list)
    curves: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    log: Any = field(default=None, repr=False)

    def finding(self, fact: str) -> Finding | None:
        return next((f for f in self.findings if f.fact == fact), None)


# --------------------------------------------------------------------------------------------
# small robust helpers
# --------------------------------------------------------------------------------------------

def _rolling_median(vals: list, w: int) -> list:
    """Lower median of ``vals[i-w : i+w+1]`` (clipped at the ends) for every i."""
    n = len(vals)
    if n == 0:
        return []
    out = []
    win = sorted(vals[: min(n, w + 1)])
    lo, hi = 0, min(n, w + 1)
    for i in range(n):
        new_lo, new_hi = max(0, i - w), min(n, i + w + 1)
        while hi < new_hi:
            bisect.insort(win, vals[hi])
            hi += 1
        while lo < new_lo:
            del win[bisect.bisect_left(win, vals[lo])]
            lo += 1
        out.append(win[(len(win) - 1) // 2])
    return out


def _fmt(v: float) -> str:
    if v is None:
        return "?"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5 or a < 1e-3:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:.1f}"
    return f"{v:.3g}" if a < 1 else f"{v:.2f}"


def _fx(x) -> str:
    if x is None:
        return "?"
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"


def _num(v: float) -> float:
    """A plain float with 6 significant digits (no 0.30000000000000004 in reports)."""
    return float(f"{v:.6g}")


def _window(xs: list, a: float, b: float) -> list[int]:
    return [i for i, x in enumerate(xs) if a <= x <= b]


def _thirds_ratio(xs: list, ys: list) -> tuple[float, float, float] | None:
    """(median of the first third, of the last third, ratio) by step position."""
    if len(ys) < 6:
        return None
    x0, x1 = xs[0], xs[-1]
    span = x1 - x0
    if span <= 0:
        return None
    first = [y for x, y in zip(xs, ys) if x <= x0 + span / 3]
    last = [y for x, y in zip(xs, ys) if x >= x1 - span / 3]
    if len(first) < 2 or len(last) < 2:
        k = max(2, len(ys) // 3)
        first, last = ys[:k], ys[-k:]
    a, b = median(first), median(last)
    if a == 0:
        return a, b, (math.inf if b > 0 else 1.0)
    return a, b, b / a


# --------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------

class _Out:
    def __init__(self, log, analysis: CurveAnalysis, params):
        self.log = log
        self.a = analysis
        self.p = resolve(params)
        self.unit = {"step": "steps", "epoch": "epochs"}.get(log.x_label, "rows")

    @property
    def run_range(self) -> tuple:
        """First and last step of any metric in the log."""
        pts = [s.points for s in self.log.series.values() if s.points]
        return min(p[0].x0 for p in pts), max(p[-1].x1 for p in pts)

    def rng(self, a, b) -> str:
        return f"{self.unit} {_fx(a)}-{_fx(b)}"

    def add(self, fact: str, value, a, b, detail: str, **extra) -> None:
        if isinstance(value, float):
            value = _num(value)
        self.a.facts[fact] = value
        self.a.findings.append(Finding(fact=fact, value=value,
                                       source=f"log:{self.log.name}:steps {_fx(a)}-{_fx(b)}",
                                       detail=detail, extra=extra))


def analyze(log, num_classes: int | None = None, *, min_head: int = 1,
            params=None) -> tuple[list[Finding], CurveAnalysis]:
    """Analyse a :class:`~traindx.probes.readers.logs.LogData`: ``(findings, CurveAnalysis)``.

    ``num_classes`` (C >= 2) adds ``loss_at_chance``. ``min_head`` is the fewest values the initial
    loss is the median of (a live run's per-step losses are noisier than an epoch log's rows: the
    probes pass 5). ``params``: the knowledge base's parameter values (``curves.*``; None: the
    shipped ones). See the module docstring for the method.
    """
    an = CurveAnalysis(path=log.path, name=log.name, x_label=log.x_label, log=log,
                       notes=list(log.notes))
    out = _Out(log, an, params)
    for role, s in log.series.items():
        pts = s.finite_points()
        an.curves[role] = Curve(role, s.column, [p.x for p in pts], [p.mean for p in pts],
                                [p.lo for p in pts], [p.hi for p in pts])
    for a, b in log.restarts:
        an.events.append(Event("restart", b, b, f"restart: {log.x_label} {_fx(a)} -> {_fx(b)}"))
    loss = _analyze_loss(log, out, num_classes, min_head)
    _analyze_val(log, out)
    _analyze_accuracy(log, out)
    _analyze_lr(log, out)
    _analyze_grad_norm(log, out)
    _analyze_step_time(log, out)
    _run_length(log, out)
    an.loss_trend = loss
    return an.findings, an


def _analyze_loss(log, out: _Out, num_classes, min_head: int = 1) -> str | None:  # noqa: C901 -- one method, read top to bottom
    s = log.get("loss")
    an = out.a
    P = out.p
    SPIKE_BANDS, SPIKE_REL = P["curves.spike_bands"], P["curves.spike_rel"]
    FLAT_FRACTION, DIVERGE_RISE, OSC_NOISE = P["curves.flat_fraction"], P["curves.diverge_rise"], P["curves.osc_noise"]
    PLATEAU_SHARE, PLATEAU_REL = P["curves.plateau_share"], P["curves.plateau_rel"]
    TAIL_FRACTION = P["curves.tail_fraction"]
    CHANCE_TOLERANCE, NOISY = P["curves.chance_tolerance"], P["curves.noisy"]
    WANDER_TAIL, WANDER_REBOUND = P["curves.wander_tail"], P["curves.wander_rebound"]
    STILL_FALLING_TOTAL, STILL_FALLING_REL = P["curves.still_falling_total"], P["curves.still_falling_rel"]
    BLIP_POINTS, RARE_SPIKES = P["curves.blip_points"], P["curves.rare_spikes"]
    MAGNITUDE, GROWTH = P["curves.diverge_magnitude"], P["curves.oscillation_growth"]
    if s is None:
        an.notes.append("no training-loss column: no loss trend")
        return None
    pts = s.points
    x_start, x_end = pts[0].x0, pts[-1].x1
    span = (x_end - x_start) or 1.0

    out.add("loss_has_nonfinite", s.nonfinite > 0, s.first_x, s.last_x,
            f"{s.nonfinite} of {s.rows} training-loss values are NaN/Inf"
            if s.nonfinite else f"all {s.rows} training-loss values are finite")
    if s.nonfinite:
        first_nan = s.nonfinite_steps[0]
        out.add("nan_first_step", int(first_nan) if float(first_nan).is_integer() else first_nan,
                first_nan, first_nan,
                f"the training loss is first NaN/Inf at {log.x_label} {_fx(first_nan)}")
        an.events.append(Event("nan", first_nan, first_nan,
                                f"first NaN/Inf at {log.x_label} {_fx(first_nan)}"))
    if s.finite:
        out.add("loss_negative", s.min < 0, s.first_x, s.last_x,
                f"the training loss goes down to {_fmt(s.min)}, below zero" if s.min < 0
                else f"the training loss stays at or above zero (lowest {_fmt(s.min)})")

    ends_nonfinite = s.trailing_nonfinite > 0 or s.nonfinite >= 0.5 * s.rows
    fin = [p for p in pts if p.n]
    if not fin:
        trend = "nonfinite"
        start = s.nonfinite_steps[0] if s.nonfinite_steps else x_start
        out.add("loss_trend", trend, x_start, x_end,
                f"every training-loss value is NaN/Inf ({log.x_label}s {_fx(x_start)}-{_fx(x_end)})")
        an.region = Event("symptom", start, x_end, "loss NaN/Inf")
        an.events.append(an.region)
        return trend

    xs = [p.x for p in fin]
    means = [p.mean for p in fin]
    n = len(fin)
    w = max(3, n // 40)
    level = _rolling_median(means, w)
    resid = [m - l for m, l in zip(means, level)]
    sig = [1.4826 * v for v in _rolling_median([abs(r) for r in resid], max(3, 2 * w))]
    sds = _rolling_median([p.sd for p in fin], max(3, 2 * w))
    spike = [False] * n
    if n >= 5:
        prev = means[0]  # the last non-spike value: a spike is a jump *up* from it
        for i in range(1, n):
            p = fin[i]
            band = math.hypot(sig[i], sds[i])
            thr = max(SPIKE_BANDS * band, SPIKE_REL * abs(level[i]))
            if p.hi - level[i] > thr and p.hi - prev > thr:
                spike[i] = True
            else:
                prev = p.mean
    spikes: list[tuple[int, int]] = []
    for i in range(n):
        if spike[i]:
            if spikes and spikes[-1][1] == i - 1:
                spikes[-1] = (spikes[-1][0], i)
            else:
                spikes.append((i, i))
    spike_points = sum(spike)
    for a, b in spikes:
        peak = max(fin[k].hi for k in range(a, b + 1))
        an.events.append(Event("spike", fin[a].x0, fin[b].x1, f"spike to {_fmt(peak)}"))
    out.add("loss_spikes", len(spikes), x_start, x_end,
            (f"{len(spikes)} sudden upward spike(s) in the training loss, highest "
             f"{_fmt(max(p.hi for p, f in zip(fin, spike) if f))} against a level of "
             f"{_fmt(median(means))}") if spikes else
            "no sudden upward spikes in the training loss")

    keep = [i for i in range(n) if not spike[i]] or list(range(n))
    cx = [xs[i] for i in keep]
    cm = [means[i] for i in keep]
    csd = [fin[i].sd for i in keep]
    nc = len(cm)
    sm = _rolling_median(cm, w)
    if an.curves.get("loss"):
        an.curves["loss"].smooth = _rolling_median(means, w)

    # initial and current
    if s.rows_per_point == 1 or not s.head:
        k_head = min(nc, max(min_head, min(25, nc // 50)))
        initial = median(cm[:k_head])
        ia, ib = cx[0], cx[k_head - 1]
    else:
        head = [(x, y) for x, y in s.head if math.isfinite(y)][:25]
        initial = median(y for _, y in head)
        ia, ib = head[0][0], head[-1][0]
        k_head = len(head)
    k_tail = _tail_k(nc)
    current = median(cm[-k_tail:])
    ta, tb = cx[-k_tail], cx[-1]
    if abs(initial) > 1e-12:
        frac = (initial - current) / abs(initial)
    else:
        frac = 0.0 if abs(current) <= 1e-12 else (-1.0 if current > 0 else 1.0)

    # recent noise (last 30 % of the run)
    tail_idx = [i for i, x in enumerate(cx) if x >= x_end - TAIL_FRACTION * span]
    if len(tail_idx) < min(3, nc):
        tail_idx = list(range(max(0, nc - 3), nc))
    res_tail = [abs(cm[i] - sm[i]) for i in tail_idx]
    sig_tail = math.hypot(1.4826 * median(res_tail), median(csd[i] for i in tail_idx))
    denom = max(abs(current), 1e-3 * abs(initial), 1e-12)
    noise = sig_tail / denom
    best_i = min(range(nc), key=lambda i: sm[i])
    best = sm[best_i]
    # wandering: over the last 70 % the smoothed loss climbs back from a low by at least the
    # current level (it doubles) while it makes no net progress over that stretch
    late = [v for x, v in zip(cx, sm) if x >= x_start + (1 - WANDER_TAIL) * span]
    rebound, low = 0.0, math.inf
    for v in late:
        low = min(low, v)
        rebound = max(rebound, v - low)
    late_range = (max(late) - min(late)) if late else 0.0
    wander = (len(late) >= 10 and current > 0 and rebound >= WANDER_REBOUND * current
              and (late[0] - current) < 0.25 * late_range)

    # still falling: the median around the 70 % mark against the current level (also the plateau
    # test's reference), with the standard error of that difference of two window medians
    # (1.25: a median's efficiency)
    x70 = x_end - TAIL_FRACTION * span
    idx70 = _window(cx, x70 - 0.05 * span, x70 + 0.05 * span) or \
        [min(range(nc), key=lambda i: abs(cx[i] - x70))]
    tail_ref = median(cm[i] for i in idx70)
    drop = tail_ref - current
    se = 1.25 * 1.4826 * median(res_tail) * math.sqrt(1 / k_tail + 1 / len(idx70))
    still_falling = (frac >= STILL_FALLING_TOTAL and drop >= STILL_FALLING_REL * abs(current)
                     and drop >= 3 * se)
    # hard batches, not instability: while the loss is still clearly falling, "spikes" that are
    # single points (the loss is back in its band at the next point) are the heavy upper tail of
    # per-batch losses (a few badly fitted examples in a batch), not a run being knocked off course
    # -- and so are a few of them in a long run (under one point in 200): a run that "keeps
    # spiking" does so more often, or takes more than one point to recover
    blips = (bool(spikes) and spike_points <= BLIP_POINTS * len(spikes)
             and (still_falling or len(spikes) < RARE_SPIKES * n))
    spiky = (len(spikes) >= 3 or (len(spikes) >= 2 and spike_points >= 0.15 * n)) and not blips

    # trend
    region = None
    rise = current - initial
    if ends_nonfinite:
        trend = "nonfinite"
        start = s.trailing_nonfinite_x if s.trailing_nonfinite else s.nonfinite_steps[0]
        region = (start, x_end)
        why = (f"the training loss turns NaN/Inf at {log.x_label} {_fx(start)} and stays so "
               f"to the end ({s.nonfinite} of {s.rows} values non-finite)")
    elif (rise > max(DIVERGE_RISE * abs(initial), 2 * sig_tail)
          or (abs(current) > MAGNITUDE * abs(initial) and abs(current) - abs(initial) > 2 * sig_tail)
          or (best < initial and current - best >= 0.5 * (initial - best)
              and current - best > max(0.25 * abs(best), 2 * sig_tail))):
        trend = "diverging"
        low = min(range(nc), key=lambda i: cm[i])
        if abs(current) > MAGNITUDE * abs(initial) and current < 0:
            region = (x_start, x_end)
            why = (f"the training loss runs away below zero, {_fmt(initial)} -> {_fmt(current)}, "
                   f"over {out.rng(x_start, x_end)}")
        elif best < initial and current > best:
            region = (cx[low], x_end)
            why = (f"the training loss went {_fmt(initial)} -> {_fmt(current)} over "
                   f"{out.rng(x_start, x_end)}, climbing from a low of {_fmt(cm[low])} at "
                   f"{log.x_label} {_fx(cx[low])}")
        else:
            region = (x_start, x_end)
            why = (f"the training loss rose {_fmt(initial)} -> {_fmt(current)} over "
                   f"{out.rng(x_start, x_end)}")
    elif ((n >= 5 and noise >= OSC_NOISE and sig_tail >= 0.25 * max(initial - current, 0.0))
          or spiky or wander):
        trend = "oscillating"
        if wander and not spiky:
            region = (cx[-len(late)], x_end)
            why = (f"the training loss wanders between {_fmt(min(late))} and {_fmt(max(late))} "
                   f"(smoothed) over the last {WANDER_TAIL:.0%} of the run without net progress: "
                   f"it climbed back {_fmt(rebound)} from a low, against a level of {_fmt(current)}")
        elif spikes:
            region = (fin[spikes[0][0]].x0, fin[spikes[-1][1]].x1)
            why = (f"the training loss keeps jumping: {len(spikes)} spikes up to "
                   f"{_fmt(max(p.hi for p, f in zip(fin, spike) if f))} around a level of "
                   f"{_fmt(current)} over {out.rng(x_start, x_end)}")
        else:
            rel = [math.hypot(sig[i], sds[i]) / max(abs(level[i]), 1e-12) for i in range(n)]
            first = next((i for i in range(n) if rel[i] >= OSC_NOISE), 0)
            region = (xs[first], x_end)
            why = (f"the training loss swings by about {_fmt(sig_tail)} (±{noise:.0%}) around "
                   f"{_fmt(current)} over the last {TAIL_FRACTION:.0%} of the run, against a total "
                   f"change of {_fmt(initial - current)}")
    elif frac < FLAT_FRACTION:
        trend = "flat"
        region = (x_start, x_end)
        why = (f"the training loss stays flat: {_fmt(initial)} -> {_fmt(current)} "
               f"(a change of {-frac:+.1%}) over {out.rng(x_start, x_end)}")
    else:
        share = drop / (initial - current)
        rel = drop / max(abs(current), 1e-12)
        if nc >= 5 and ((share < PLATEAU_SHARE and rel < PLATEAU_REL) or drop < 2 * se):
            trend = "plateaued"
            flat_level = median(cm[i] for i in tail_idx)
            delta = max(2 * sig_tail, 0.05 * abs(flat_level))
            j = nc
            while j > 0 and sm[j - 1] <= flat_level + delta:
                j -= 1
            j = max(1, min(j, nc - 1)) if nc > 1 else 0
            region = (cx[j], x_end)
            flat_for = (x_end - cx[j]) / span
            why = (f"the training loss fell {_fmt(initial)} -> {_fmt(current)} over "
                   f"{out.rng(x_start, cx[j])}, then flat for the last {flat_for:.0%}")
        else:
            trend = "decreasing"
            why = (f"the training loss fell {_fmt(initial)} -> {_fmt(current)} "
                   f"({frac:.0%}) over {out.rng(x_start, x_end)} and is still going down")
    if blips and len(spikes) >= 3 and trend in ("decreasing", "plateaued", "flat"):
        why += (f"; its {len(spikes)} one-point spikes in {n} points fall back at once "
                f"(hard batches, not instability)")
    out.add("loss_trend", trend, x_start, x_end, why)
    if region is not None:
        an.region = Event("symptom", region[0], region[1], trend)
        an.events.append(an.region)

    out.add("initial_loss", initial, ia, ib,
            f"training loss at the start: {_fmt(initial)}"
            + (f" (median of the first {k_head} values)" if k_head > 1 else ""))
    out.add("current_loss", current, ta, tb,
            f"training loss now: {_fmt(current)} (median of the last {k_tail} "
            f"{'values' if s.rows_per_point == 1 else 'buckets'}, {out.rng(ta, tb)})")
    out.add("train_loss", current, ta, tb,
            f"latest training loss {_fmt(current)} ({log.columns.get('loss', 'loss')}, "
            f"median of {out.rng(ta, tb)})")
    out.add("loss_decrease_fraction", frac, x_start, x_end,
            f"the training loss went {_fmt(initial)} -> {_fmt(current)}: "
            f"{'a fall' if frac >= 0 else 'a rise'} of {abs(frac):.0%}")
    if n >= 5:  # fewer points say nothing about noise
        out.add("loss_noise", noise, cx[tail_idx[0]], x_end,
                f"step-to-step noise over the last {TAIL_FRACTION:.0%} is about {_fmt(sig_tail)} "
                f"on a level of {_fmt(current)} ({noise:.0%})")

    # oscillation trend
    if (trend in ("oscillating", "diverging") or spikes or noise >= NOISY) and n >= 6:
        amp = [abs(r) + (p.sd or 0.0) for r, p in zip(resid, fin)]
        third = span / 3
        a1 = [a for a, x in zip(amp, xs) if x <= x_start + third] or amp[: n // 3]
        a3 = [a for a, x in zip(amp, xs) if x >= x_end - third] or amp[-(n // 3):]
        m1, m3 = sum(a1) / len(a1), sum(a3) / len(a3)
        ratio = (m3 / m1) if m1 > 0 else (math.inf if m3 > 0 else 1.0)
        ot = "growing" if ratio >= GROWTH else "shrinking" if ratio <= 1 / GROWTH else "steady"
        out.add("oscillation_trend", ot, x_start, x_end,
                f"the loss swings average {_fmt(m1)} in the first third and {_fmt(m3)} in the "
                f"last third of the run ({ot})")

    if num_classes is not None and num_classes >= 2:
        chance = math.log(num_classes)
        tol = CHANCE_TOLERANCE * chance
        at = abs(initial - chance) <= tol and abs(current - chance) <= tol
        out.add("loss_at_chance", at, x_start, x_end,
                f"the loss {'sits' if at else 'does not sit'} at chance level ln({num_classes}) = "
                f"{chance:.3f}: {_fmt(initial)} at the start, {_fmt(current)} now")
    return trend


def _tail_k(n: int) -> int:
    """How many of the last points give "now": the last ~5 %, at least 3 (1 for tiny logs)."""
    return 1 if n < 5 else max(3, n // 20)


def _analyze_val(log, out: _Out) -> None:
    s = log.get("val_loss")
    if s is None:
        return
    fin = s.finite_points()
    if not fin:
        out.a.notes.append("every validation-loss value is NaN/Inf")
        return
    xs = [p.x for p in fin]
    ms = [p.mean for p in fin]
    n = len(fin)
    k = _tail_k(n)
    cur = median(ms[-k:])
    out.add("val_loss", cur, xs[-k], xs[-1],
            f"latest validation loss {_fmt(cur)} (median of the last {k} values, "
            f"{out.rng(xs[-k], xs[-1])})")
    if n < 3:
        return
    wv = max(1, n // 40)
    sm = _rolling_median(ms, wv)
    if out.a.curves.get("val_loss"):
        out.a.curves["val_loss"].smooth = sm
    x0, x1 = fin[0].x0, fin[-1].x1
    span = (x1 - x0) or 1.0
    best_i = min(range(n), key=lambda i: (sm[i], ms[i]))  # ties: the lowest raw value
    best = sm[best_i]
    r0, r1 = out.run_range
    bf = min(1.0, max(0.0, (xs[best_i] - r0) / ((r1 - r0) or 1.0)))
    out.add("best_val_fraction", bf, x0, x1,
            f"the best (smoothed) validation loss, {_fmt(best)}, comes at {log.x_label} "
            f"{_fx(xs[best_i])}, {bf:.0%} of the way through the run")
    tail = [i for i, x in enumerate(xs) if x >= x1 - out.p["curves.tail_fraction"] * span] or [n - 1]
    sig = 1.4826 * median(abs(ms[i] - sm[i]) for i in tail)
    mid_x = x0 + 0.5 * span
    idx = _window(xs, mid_x - 0.1 * span, mid_x + 0.1 * span) or \
        [min(range(n), key=lambda i: abs(xs[i] - mid_x))]
    mid = median(sm[i] for i in idx)
    # a rise is a sustained level (the median of the last tenth, at least k_tail values) above the
    # best by more than 10 % and more than twice the scatter of the evaluations since the best (a
    # noisy floor with one or two bad evaluations at the end is not a rise)
    k_rise = max(k, n // 10)
    level = median(ms[-k_rise:])
    after = ms[best_i + 1:]
    drifting = True
    if len(after) >= 5:   # scatter around a wider running median (it follows a real rise, not the noise)
        wide = _rolling_median(after, max(2, len(after) // 6))
        sig_after = 1.4826 * median(abs(a - b) for a, b in zip(after, wide))
    else:
        sig_after = sig
    if len(after) >= 6:
        # a rise keeps rising (or holds): the last third of the evaluations since the best sits
        # above the first third; a noisy floor with a bump after its minimum does not
        third = len(after) // 3
        drifting = median(after[-third:]) >= median(after[:third])
    rise = out.p["curves.val_rise"]
    if level - best > max(rise * abs(best), 2 * max(sig, sig_after)) and n - 1 - best_i >= k_rise and drifting:
        vt = "increasing"
        why = (f"validation loss bottomed at {_fmt(best)} ({log.x_label} {_fx(xs[best_i])}) and "
               f"has risen to {_fmt(level)}")
        a = xs[best_i]
    elif mid - cur > max(out.p["curves.val_fall"] * abs(mid), sig):
        vt = "decreasing"
        why = f"validation loss still falling over the latter half: {_fmt(mid)} -> {_fmt(cur)}"
        a = xs[idx[0]]
    else:
        vt = "flat"
        why = f"validation loss flat over the latter half: {_fmt(mid)} -> {_fmt(cur)}"
        a = xs[idx[0]]
    out.add("val_loss_trend", vt, a, x1, why)


def _analyze_accuracy(log, out: _Out) -> None:
    for role, fact, what in (("accuracy", "train_accuracy", "training"),
                             ("val_accuracy", "val_accuracy", "validation")):
        s = log.get(role)
        if s is None:
            continue
        fin = s.finite_points()
        if not fin:
            continue
        k = _tail_k(len(fin))
        v = min(1.0, max(0.0, median(p.mean for p in fin[-k:])))
        pct = " (logged in percent)" if s.scale_factor != 1.0 else ""
        out.add(fact, v, fin[-k].x, fin[-1].x,
                f"latest {what} accuracy {v:.1%}{pct} (median of the last {k} values)")


def _analyze_lr(log, out: _Out) -> None:
    s = log.get("lr")
    if s is None:
        return
    fin = s.finite_points()
    head = [y for _, y in s.head if math.isfinite(y)]
    if not fin or not head:
        return
    first = head[0]
    peak = s.max
    warm = peak > 1.5 * first
    ref = peak if warm else first
    if ref <= 0:
        return
    last = s.last_value if s.last_value is not None and math.isfinite(s.last_value) else fin[-1].mean
    x0, x1 = s.points[0].x0, s.points[-1].x1
    span = (x1 - x0) or 1.0
    ratio = last / ref
    out.add("lr_final_ratio", ratio, x0, x1,
            f"learning rate {_fmt(ref)} ({'peak after warm-up' if warm else 'initial'}) -> "
            f"{_fmt(last)} now: x{_fmt(ratio)}")
    collapse = out.p["curves.lr_collapse"]
    above = [i for i, p in enumerate(fin) if p.hi >= collapse * ref]
    if above and above[-1] < len(fin) - 1:
        xc = fin[above[-1] + 1].x0
        frac = min(1.0, max(0.0, (xc - x0) / span))
        out.add("lr_collapse_fraction", frac, xc, x1,
                f"the learning rate is below 1% of {_fmt(ref)} from {log.x_label} {_fx(xc)} on, "
                f"{frac:.0%} of the way through the run")
    else:
        out.add("lr_collapse_fraction", 1.0, x0, x1,
                f"the learning rate never stays below 1% of {_fmt(ref)} in this log")
    # the LR-decay question answered by the run itself: the loss levelled off while the LR was
    # near its peak, then the schedule cut the LR 5x or more and the loss stayed flat
    reg = out.a.region
    if reg is not None and reg.label == "plateaued":
        cut = decayed_through_plateau([(p.x, p.mean) for p in fin], reg.start, out.p)
        if cut is not None:
            out.add("lr_decay_helps", False, reg.start, x1,
                    f"the schedule cut the learning rate {_fmt(cut[0])} -> {_fmt(cut[1])} after the "
                    f"loss levelled off at {log.x_label} {_fx(reg.start)}, and the loss did not move")


def decayed_through_plateau(lrs: list, start: float, params=None) -> tuple[float, float] | None:
    """The LR-decay question answered by the run itself. ``lrs``: ``(step, lr)`` in step order
    (every point, or only the changes); ``start``: where the loss plateau began. Returns ``(lr
    at the plateau's start, lr now)`` when the plateau began with the LR at half its peak or
    more and the LR has since fallen 5x or more (the loss stayed flat through a real decay), else
    None. Shared by the live monitor and the log reader."""
    pts = [(x, lr) for x, lr in lrs if lr is not None and math.isfinite(lr)]
    if not pts:
        return None
    peak = max(lr for _, lr in pts)
    at_start = next((lr for x, lr in reversed(pts) if x <= start), pts[0][1])
    now = pts[-1][1]
    p = resolve(params)
    if peak > 0 and at_start >= p["curves.decay_held"] * peak and now <= p["curves.decay_cut"] * at_start:
        return at_start, now
    return None


def _analyze_grad_norm(log, out: _Out) -> None:
    s = log.get("grad_norm")
    if s is None or not s.finite:
        return
    x0, x1 = s.points[0].x0, s.points[-1].x1
    extra = f"; {s.nonfinite} NaN/Inf values" if s.nonfinite else ""
    out.add("grad_norm_max", float(s.max), x0, x1,
            f"largest gradient norm {_fmt(s.max)}{extra}")
    fin = s.finite_points()
    r = _thirds_ratio([p.x for p in fin], [p.mean for p in fin])
    if r is None:
        return
    a, b, ratio = r
    g = out.p["curves.grad_norm_growth"]
    t = "growing" if ratio >= g else "shrinking" if ratio <= 1 / g else "steady"
    out.add("grad_norm_trend", t, x0, x1,
            f"gradient norm median {_fmt(a)} in the first third, {_fmt(b)} in the last ({t})")


def _analyze_step_time(log, out: _Out) -> None:
    s = log.get("step_time")
    if s is None:
        return
    fin = s.finite_points()
    r = _thirds_ratio([p.x for p in fin], [p.mean for p in fin])
    if r is None:
        return
    a, b, ratio = r
    g = out.p["curves.step_time_growth"]
    t = "increasing" if ratio >= g else "decreasing" if ratio <= 1 / g else "steady"
    out.add("step_time_trend", t, fin[0].x0, fin[-1].x1,
            f"time per {log.x_label if log.x_label != 'row' else 'row'}: median {_fmt(a)} s in "
            f"the first third, {_fmt(b)} s in the last ({t})")


def _run_length(log, out: _Out) -> None:
    if not any(s.points for s in log.series.values()):
        return
    a, b = out.run_range
    if float(a).is_integer() and float(b).is_integer():
        length = int(b - a) + 1
    else:
        length = log.rows
    what = {"step": "steps", "epoch": "epochs"}.get(log.x_label, "rows")
    out.add("run_length_steps", length, a, b,
            f"the log covers {length} {what} ({_fx(a)}-{_fx(b)}, {log.rows} rows)")


__all__ = ["analyze", "CurveAnalysis", "Curve", "Event"]
