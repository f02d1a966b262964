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
   curve -- *and* by more than 25 % of the progress made up to it (the highest running median so
   far, capped at the first loss and, given the number of classes, at chance ln(C), minus the
   running median there): a run whose loss fell from 1.6
   to 0.003 and shows a batch at 0.17 has given back a tenth of what it learned, not been knocked
   off course (a warm-up bump, a hard batch at a loss near zero); a spike back towards where the
   run started still counts.
   Adjacent spike points make one spike event.
   Spikes -- and the points that pass the first two tests but not the third -- are then left out
   of the level statistics below (and the curve is re-smoothed), so a single 60 000 in a loss of 2
   does not move "initial" or "current", and the noise is measured as without the third test.
4. **Initial and current loss.** ``initial_loss`` is the median of the first ``k_head`` values
   (``k_head``: ``curves.start_share`` of the points, 2 %, between 1 and
   ``curves.start_max_points``, 25: an epoch log's first epoch is already an average, a per-step
   log needs a few values); a long log uses its first raw rows, which are kept verbatim.
   ``current_loss`` is the median of the last ``k_tail`` points (``curves.now_share`` of them,
   the last ~5 % of the run, at least ``curves.now_min_points``, 3; the last value for a log of
   under ``curves.tail_min_points``, 5, where noise, oscillation and plateau are not judged at all).
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
import statistics
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

from .loss_scale import scale_fall_findings

#: How _fmt prints a number in a finding's text (scientific outside [_SCI_LOW, _SCI_HIGH), one
#: decimal from _ONE_DECIMAL_FROM): presentation, not knowledge.
_SCI_LOW, _SCI_HIGH, _ONE_DECIMAL_FROM = 1e-3, 1e5, 100
#: Float arithmetic, not knowledge: a level this close to zero is zero (no fraction of it is
#: taken), and a value within _ROUNDING of a whole number of percent was printed to two decimals.
_TINY = 1e-12
_ROUNDING = 1e-6
#: two printed values are "one and the same number" within float rounding of their size: a rounding
#: tolerance, not a threshold (a frozen validation value, a training loss repeating one number)
_SAME_NUMBER = 1e-9
#: Statistics, not knowledge: the MAD of a Gaussian times _MAD_TO_SD is its standard deviation, its
#: mean absolute deviation times _MEAN_AD_TO_SD (sqrt(pi/2)) too, and a median's standard error is
#: _MEDIAN_SE times a mean's (its asymptotic efficiency).
_MAD_TO_SD, _MEAN_AD_TO_SD, _MEDIAN_SE = 1.4826, 1.2533, 1.25
#: The method's unit of comparison is a third of a curve (the first against the last; the findings'
#: texts say "third"): structure of the method, not a cut.
_THIRDS = 3
#: The running-mean test compares an epoch's first quarter with its last (the parameter's text says
#: "quarter"): structure of the method, not a cut.
_QUARTERS = 4
#: A fact's number carries 4 decimals: the precision of a reported value, far finer than any cut.
_FACT_DECIMALS = 4
#: A validation accuracy is thrown back and forth when its steps reverse direction this many times or
#: more (up, down, up): the definition of a swing, not a cut; a curve that turns once drifts and turns
_BACK_AND_FORTH = 2

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
    if a >= _SCI_HIGH or a < _SCI_LOW:
        return f"{v:.3g}"
    if a >= _ONE_DECIMAL_FROM:
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


def growth_label(ratio: float, cut: float, labels=("growing", "steady", "shrinking"), *,
                 strict: bool = False) -> str:
    """The trend of a positive series from its last-third / first-third ratio -- one idea for the
    log reader (grad_norm_trend, step_time_trend from a log) and the live probes
    (:func:`traindx.probes.live.losses.trend`): ``labels[0]`` at or above ``cut``, ``labels[2]`` at
    or below ``1 / cut``, else ``labels[1]``. ``strict``: above / below (the live probes' reading).
    The cuts are two parameters each (``curves.grad_norm_growth`` / ``grad_norms.trend_ratio``,
    ``curves.step_time_growth`` / ``data_timing.step_time_ratio``): see their descriptions."""
    if strict:
        return labels[0] if ratio > cut else labels[2] if ratio < 1.0 / cut else labels[1]
    return labels[0] if ratio >= cut else labels[2] if ratio <= 1 / cut else labels[1]


def _thirds_ratio(xs: list, ys: list, min_points: int) -> tuple[float, float, float] | None:
    """(median of the first third, of the last third, ratio) by step position; None with fewer
    than ``min_points`` points."""
    if len(ys) < min_points:
        return None
    x0, x1 = xs[0], xs[-1]
    span = x1 - x0
    if span <= 0:
        return None
    first = [y for x, y in zip(xs, ys) if x <= x0 + span / _THIRDS]
    last = [y for x, y in zip(xs, ys) if x >= x1 - span / _THIRDS]
    if len(first) < 2 or len(last) < 2:
        k = max(2, len(ys) // _THIRDS)
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
    _val_shape(log, out)
    _accuracy_trend(log, out, loss is None)
    _analyze_lr(log, out)
    _analyze_grad_norm(log, out)
    _analyze_step_time(log, out)
    _speed_apart(log, out)
    _run_length(log, out)
    _logged_lr(log, out)
    an.loss_trend = loss
    _loss_scale(log, an, params)
    return an.findings, an


class _LossCurve:
    """The training loss's working state, filled in by the steps of :func:`_analyze_loss` in order.

    ``fin``: the finite points; ``xs``/``means``: their steps and values; ``level``/``sig``/``sds``:
    running median, noise band and within-bucket sd (steps 1-2 of the method); ``spike``/``spikes``:
    the spike mask and its runs (step 3); ``cx``/``cm``/``csd``/``sm``: steps, values, sds and
    running median without the spikes; then the levels (step 4), the recent noise (step 5) and the
    shape tests the trend is decided from (step 6).
    """

    def __init__(self, s, fin: list, P):
        pts = s.points
        self.x_start, self.x_end = pts[0].x0, pts[-1].x1
        self.span = (self.x_end - self.x_start) or 1.0
        self.fin = fin
        self.xs = [p.x for p in fin]
        self.means = [p.mean for p in fin]
        self.n = len(fin)
        self.w = max(int(P["curves.min_window"]), self.n // int(P["curves.smooth_points_per_window"]))
        self.chance = math.inf     # ln(C) for a classifier of C classes (set by the caller)


def _analyze_loss(log, out: _Out, num_classes, min_head: int = 1) -> str | None:
    """The training loss: finiteness, spikes, levels, trend, noise and chance facts (steps 1-7, 10)."""
    s = log.get("loss")
    if s is None:
        out.a.notes.append("no training-loss column: no loss trend")
        return None
    _loss_finiteness(log, s, out)
    fin = [p for p in s.points if p.n]
    if not fin:
        return _loss_all_nonfinite(log, s, out)
    c = _LossCurve(s, fin, out.p)
    c.chance = math.log(num_classes) if num_classes and num_classes >= 2 else math.inf
    _loss_spikes(c, out)
    _loss_levels(c, s, min_head, out.p)
    _loss_shape(c, out.p)
    trend, region, why = _loss_trend(c, s, log, out)
    out.add("loss_trend", trend, c.x_start, c.x_end, why)
    if trend == "plateaued" and region is not None:
        share = (region[1] - region[0]) / c.span
        out.add("loss_flat_share", round(share, _FACT_DECIMALS), region[0], region[1],
                f"the training loss has been flat for the last {share:.0%} of what the log shows "
                f"({out.rng(region[0], region[1])})")
    if region is not None:
        out.a.region = Event("symptom", region[0], region[1], trend)
        out.a.events.append(out.a.region)
    _loss_level_facts(c, s, log, out)
    _loss_oscillation_trend(c, trend, out)
    _loss_epoch_cycle(c, s, log, out)
    _loss_at_chance(c, num_classes, out)
    return trend


def _loss_finiteness(log, s, out: _Out) -> None:
    """``loss_has_nonfinite``, ``nan_first_step`` (and its event), ``loss_negative``."""
    out.add("loss_has_nonfinite", s.nonfinite > 0, s.first_x, s.last_x,
            f"{s.nonfinite} of {s.rows} training-loss values are NaN/Inf"
            if s.nonfinite else f"all {s.rows} training-loss values are finite")
    if s.nonfinite:
        first_nan = s.nonfinite_steps[0]
        out.add("nan_first_step", int(first_nan) if float(first_nan).is_integer() else first_nan,
                first_nan, first_nan,
                f"the training loss is first NaN/Inf at {log.x_label} {_fx(first_nan)}")
        out.a.events.append(Event("nan", first_nan, first_nan,
                                  f"first NaN/Inf at {log.x_label} {_fx(first_nan)}"))
    if s.finite:
        out.add("loss_negative", s.min < 0, s.first_x, s.last_x,
                f"the training loss goes down to {_fmt(s.min)}, below zero" if s.min < 0
                else f"the training loss stays at or above zero (lowest {_fmt(s.min)})")


def _loss_all_nonfinite(log, s, out: _Out) -> str:
    """Every training-loss value is NaN/Inf: the trend is ``nonfinite`` over the whole log."""
    x_start, x_end = s.points[0].x0, s.points[-1].x1
    trend = "nonfinite"
    start = s.nonfinite_steps[0] if s.nonfinite_steps else x_start
    out.add("loss_trend", trend, x_start, x_end,
            f"every training-loss value is NaN/Inf ({log.x_label}s {_fx(x_start)}-{_fx(x_end)})")
    out.a.region = Event("symptom", start, x_end, "loss NaN/Inf")
    out.a.events.append(out.a.region)
    return trend


def _spike_mask(c: _LossCurve, P) -> list[bool]:
    """Step 3: which points jump up from both the running median and the last non-spike value.

    Three yardsticks, the largest wins: the local noise band, a share of the level, and a share of
    the progress made so far (the highest running median up to the point minus the running median
    at it). The last one keeps a loss near zero from turning hard batches into "spikes": at a level
    of 0.003 a batch at 0.17 is fifty times the level, yet it gives back a tenth of what a run that
    started at 1.6 learned and is gone at the next step (a warm-up bump, one misfit example)."""
    return _jumps(c, P, P["curves.spike_progress_share"])


def _jumps(c: _LossCurve, P, spike_progress: float) -> list[bool]:
    """The points that jump up from both the running median and the last point that did not, by
    the largest of the three yardsticks of :func:`_spike_mask` (``spike_progress`` 0: the first two
    only, the outliers left out of the level statistics)."""
    spike_bands, spike_rel = P["curves.spike_bands"], P["curves.spike_rel"]
    spike = [False] * c.n
    if c.n >= P["curves.noise_min_points"]:
        prev = c.means[0]  # the last non-spike value: a spike is a jump *up* from it
        # where the run started from: the highest running median so far, but never above the first
        # loss nor, for a classifier, the chance level ln(C) (a blow-up in the first steps, or a
        # first loss in the thousands from unscaled inputs, is itself the trouble, not the start
        # to measure progress from)
        top = c.level[0]
        start = min(c.means[0], c.chance)
        for i in range(1, c.n):
            p = c.fin[i]
            top = max(top, c.level[i])
            band = math.hypot(c.sig[i], c.sds[i])
            thr = max(spike_bands * band, spike_rel * abs(c.level[i]),
                      spike_progress * (min(top, start) - c.level[i]))
            if p.hi - c.level[i] > thr and p.hi - prev > thr:
                spike[i] = True
            else:
                prev = p.mean
    return spike


def _loss_spikes(c: _LossCurve, out: _Out) -> None:
    """Steps 1-3: smoothing, noise band, spikes (``loss_spikes`` and spike events), then the curve
    without its spikes, re-smoothed."""
    an, n, w, fin, means = out.a, c.n, c.w, c.fin, c.means
    c.level = _rolling_median(means, w)
    c.resid = [m - l for m, l in zip(means, c.level)]
    wide = max(int(out.p["curves.min_window"]), 2 * w)
    c.sig = [_MAD_TO_SD * v for v in _rolling_median([abs(r) for r in c.resid], wide)]
    c.sds = _rolling_median([p.sd for p in fin], wide)
    spike = c.spike = _spike_mask(c, out.p)
    # the level statistics leave out every point far outside the noise, spike or not: a hard batch
    # at a loss near zero is no spike event, and no part of the level either (so the noise and the
    # levels read as they did before the progress yardstick)
    outlier = [a or b for a, b in zip(spike, _jumps(c, out.p, 0.0))]
    spikes: list[tuple[int, int]] = []
    for i in range(n):
        if spike[i]:
            if spikes and spikes[-1][1] == i - 1:
                spikes[-1] = (spikes[-1][0], i)
            else:
                spikes.append((i, i))
    c.spikes = spikes
    c.spike_points = sum(spike)
    for a, b in spikes:
        peak = max(fin[k].hi for k in range(a, b + 1))
        an.events.append(Event("spike", fin[a].x0, fin[b].x1, f"spike to {_fmt(peak)}"))
    out.add("loss_spikes", len(spikes), c.x_start, c.x_end,
            (f"{len(spikes)} sudden upward spike(s) in the training loss, highest "
             f"{_fmt(max(p.hi for p, f in zip(fin, spike) if f))} against a level of "
             f"{_fmt(median(means))}") if spikes else
            "no sudden upward spikes in the training loss")

    blowups = []
    for a, b in spikes:
        ref = c.level[a - 1] if a > 0 else c.level[a]
        if ref > 0:
            blowups.append((max(fin[k].hi for k in range(a, b + 1)) / ref, a, b, ref))
    if blowups:
        # the largest jump over the level just before it: a blow-up the run came back from (or not)
        ratio, a, b, ref = max(blowups)
        out.add("loss_blowup", ratio, fin[a].x0, fin[b].x1,
                f"the training loss jumped to {_fmt(ratio * ref)} from a level of {_fmt(ref)} "
                f"(x{_fmt(ratio)}) at {out.rng(fin[a].x0, fin[b].x1)}")
    if spikes and spikes[-1][1] == n - 1 and c.level[spikes[-1][0]] > 0:
        # the log ends on the jump: nothing after it shows the loss coming back
        a, _ = spikes[-1]
        ref = c.level[a - 1] if a > 0 else c.level[a]
        peak = max(fin[k].hi for k in range(a, n))
        if ref > 0:
            out.add("loss_final_jump", peak / ref, fin[a].x0, fin[-1].x1,
                    f"the log ends on a jump to {_fmt(peak)} from a level of {_fmt(ref)} "
                    f"(x{_fmt(peak / ref)}), with nothing after it")
    keep = [i for i in range(n) if not outlier[i]] or list(range(n))
    c.cx = [c.xs[i] for i in keep]
    c.cm = [means[i] for i in keep]
    c.csd = [fin[i].sd for i in keep]
    c.nc = len(c.cm)
    c.sm = _rolling_median(c.cm, w)
    if an.curves.get("loss"):
        an.curves["loss"].smooth = _rolling_median(means, w)


def _loss_levels(c: _LossCurve, s, min_head: int, P) -> None:
    """Step 4: initial and current loss, their step ranges and the decrease fraction."""
    nc, cm, cx = c.nc, c.cm, c.cx
    if s.rows_per_point == 1 or not s.head:
        c.k_head = min(nc, start_points(nc, P, min_head))
        c.initial = median(cm[:c.k_head])
        c.ia, c.ib = cx[0], cx[c.k_head - 1]
    else:
        head = [(x, y) for x, y in s.head if math.isfinite(y)][:int(P["curves.start_max_points"])]
        c.initial = median(y for _, y in head)
        c.ia, c.ib = head[0][0], head[-1][0]
        c.k_head = len(head)
    c.k_tail = _tail_k(nc, P)
    c.current = median(cm[-c.k_tail:])
    c.ta, c.tb = cx[-c.k_tail], cx[-1]
    initial, current = c.initial, c.current
    if abs(initial) > _TINY:
        c.frac = (initial - current) / abs(initial)
    else:
        c.frac = 0.0 if abs(current) <= _TINY else (-1.0 if current > 0 else 1.0)


def _loss_shape(c: _LossCurve, P) -> None:
    """Steps 5-6's inputs: recent noise, best level, wandering, still falling, blips and spikiness."""
    nc, cx, cm, sm, span, x_end = c.nc, c.cx, c.cm, c.sm, c.span, c.x_end
    tail_fraction = P["curves.tail_fraction"]
    # recent noise (last 30 % of the run)
    tail_idx = [i for i, x in enumerate(cx) if x >= x_end - tail_fraction * span]
    least = int(P["curves.noise_tail_min_points"])
    if len(tail_idx) < min(least, nc):
        tail_idx = list(range(max(0, nc - least), nc))
    c.tail_idx = tail_idx
    res_tail = [abs(cm[i] - sm[i]) for i in tail_idx]
    scale = _MAD_TO_SD * median(res_tail)
    if scale == 0 and _moves_beyond_print(cm, tail_idx):
        # a few tail points, most of them on their running median: the median residual says 0,
        # yet the values move; their mean residual (x1.2533, the mean absolute deviation of a
        # Gaussian) does not claim a frozen loss
        scale = _MEAN_AD_TO_SD * sum(res_tail) / len(res_tail)
    c.sig_tail = math.hypot(scale, median(c.csd[i] for i in tail_idx))
    denom = max(abs(c.current), P["curves.noise_floor_of_initial"] * abs(c.initial), _TINY)
    c.noise = c.sig_tail / denom
    best_i = min(range(nc), key=lambda i: sm[i])
    c.best = sm[best_i]
    # wandering: over the last 70 % the smoothed loss climbs back from a low by at least the
    # current level (it doubles) while it makes no net progress over that stretch
    late = c.late = [v for x, v in zip(cx, sm) if x >= c.x_start + (1 - P["curves.wander_tail"]) * span]
    rebound, low = 0.0, math.inf
    for v in late:
        low = min(low, v)
        rebound = max(rebound, v - low)
    c.rebound = rebound
    # climb back: the furthest the smoothed loss ever climbs from its running low, as a share of
    # the whole improvement (start to best); a loss that overfits keeps its low, an unstable one
    # gives back much of what it learned
    low_all, climb = math.inf, 0.0
    for v in sm:
        low_all = min(low_all, v)
        climb = max(climb, v - low_all)
    c.climb_back = climb / (c.initial - c.best) if c.initial > c.best else None
    late_range = (max(late) - min(late)) if late else 0.0
    c.wander = (len(late) >= P["curves.wander_min_points"] and c.current > 0
                and rebound >= P["curves.wander_rebound"] * c.current
                and (late[0] - c.current) < P["curves.wander_net_progress"] * late_range)

    # still falling: the median around the 70 % mark against the current level (also the plateau
    # test's reference), with the standard error of that difference of two window medians
    # (1.25: a median's efficiency)
    x70 = x_end - tail_fraction * span
    half = P["curves.tail_ref_halfwidth"] * span
    idx70 = _window(cx, x70 - half, x70 + half) or \
        [min(range(nc), key=lambda i: abs(cx[i] - x70))]
    tail_ref = median(cm[i] for i in idx70)
    c.drop = tail_ref - c.current
    c.se = _MEDIAN_SE * _MAD_TO_SD * median(res_tail) * math.sqrt(1 / c.k_tail + 1 / len(idx70))
    still_falling = (c.frac >= P["curves.still_falling_total"]
                     and c.drop >= P["curves.still_falling_rel"] * abs(c.current)
                     and c.drop >= P["curves.still_falling_se"] * c.se)
    # hard batches, not instability: while the loss is still clearly falling, "spikes" that are
    # single points (the loss is back in its band at the next point) are the heavy upper tail of
    # per-batch losses (a few badly fitted examples in a batch), not a run being knocked off course
    # -- and so are a few of them in a long run (under one point in 200): a run that "keeps
    # spiking" does so more often, or takes more than one point to recover
    spikes = c.spikes
    c.blips = (bool(spikes) and c.spike_points <= P["curves.blip_points"] * len(spikes)
               and (still_falling or len(spikes) < P["curves.rare_spikes"] * c.n))
    c.spiky = (len(spikes) >= P["curves.spiky_events"]
               or (len(spikes) >= P["curves.spiky_min_covering"]
                   and c.spike_points >= P["curves.spiky_coverage"] * c.n)) and not c.blips


def _tail_moves(c: _LossCurve) -> float:
    """The largest move of the loss from one record to the next over the last stretch (a loss that
    toggles between two values, 0.9512 and 0.9487, moves by 0.0025 however small its robust noise)."""
    tail = [c.cm[i] for i in c.tail_idx]
    return max((abs(b - a) for a, b in zip(tail, tail[1:])), default=0.0)


def _print_step(cm: list) -> float:
    """The print's resolution: the smallest difference between two distinct values (0 without)."""
    vals = sorted(set(cm))
    return min((b - a for a, b in zip(vals, vals[1:]) if b > a), default=0.0)


def _moves_beyond_print(cm: list, idx: list) -> bool:
    """The values at ``idx`` spread over more than two steps of the print's resolution (the
    smallest difference between any two values of the curve): 2.3030, 2.3029, 2.3028 or 16.8,
    16.9 are a loss frozen to the digits printed; 1.343, 1.710, 1.531 move."""
    vals = sorted(set(cm))
    steps = [b - a for a, b in zip(vals, vals[1:]) if b > a]
    tail = [cm[i] for i in idx]
    spread = max(tail) - min(tail)
    return bool(steps) and spread > 2 * min(steps) * (1 + _SAME_NUMBER)


def _loss_trend(c: _LossCurve, s, log, out: _Out) -> tuple[str, tuple | None, str]:
    """Step 6: ``(trend, symptom region or None, why)``; the first trend whose test holds wins."""
    P = out.p
    initial, current = c.initial, c.current
    if s.trailing_nonfinite > 0 or s.nonfinite >= P["curves.nonfinite_share"] * s.rows:
        start = s.trailing_nonfinite_x if s.trailing_nonfinite else s.nonfinite_steps[0]
        return "nonfinite", (start, c.x_end), (
            f"the training loss turns NaN/Inf at {log.x_label} {_fx(start)} and stays so "
            f"to the end ({s.nonfinite} of {s.rows} values non-finite)")
    magnitude = P["curves.diverge_magnitude"]
    # under 5 points there is no noise band to clear (step 4: noise is not judged there)
    band = 2 * c.sig_tail if c.n >= P["curves.noise_min_points"] else 0.0
    # below zero, a loss whose magnitude grew is diverging only while it still runs off: a negative
    # loss that levelled off (a Gaussian or flow NLL, an ELBO term) is bounded and falling is progress
    runs_off = current >= 0 or c.drop >= P["curves.negative_runaway_rel"] * abs(current)
    # a negative loss that falls at every record has no swings to clear: its growing steps are the
    # run-off itself (the residuals around a running median of an accelerating curve are not noise);
    # so has a loss grown tenfold whose recent stretch rises at every record (0.06 -> 5e19 -> 4e20 -> 2e21)
    run_band = 0.0 if ((current < 0 and all(b <= a for a, b in zip(c.means, c.means[1:])))
                       or (current > 0 and _rises_every_record(c))) else band
    if (current - initial > max(P["curves.diverge_rise"] * abs(initial), band)
            or (abs(current) > magnitude * abs(initial) and abs(current) - abs(initial) > run_band
                and runs_off)
            or (c.best < initial and current - c.best >= P["curves.diverge_climb_back"] * (initial - c.best)
                and current - c.best > max(P["curves.diverge_above_best"] * abs(c.best), band))):
        return ("diverging",) + _diverging_why(c, log, out)
    if ((c.n >= P["curves.noise_min_points"] and c.noise >= P["curves.osc_noise"]
         and c.sig_tail >= P["curves.osc_progress_share"] * max(initial - current, 0.0))
            or c.spiky or c.wander):
        trend, region, why = ("oscillating",) + _oscillating_why(c, out)
    elif c.frac < P["curves.flat_fraction"] and not _fell_then_flat(c, out) and not _never_rises(c, out):
        trend = "flat"
        region = (c.x_start, c.x_end)
        why = (f"the training loss stays flat: {_fmt(initial)} -> {_fmt(current)} "
               f"(a change of {-c.frac:+.1%}) over {out.rng(c.x_start, c.x_end)}")
    else:
        trend, region, why = _plateau_or_decreasing(c, out)
    if c.blips and len(c.spikes) >= P["curves.blip_note_min_spikes"] and trend in ("decreasing", "plateaued", "flat"):
        why += (f"; its {len(c.spikes)} one-point spikes in {c.n} points fall back at once "
                f"(hard batches, not instability)")
    return trend, region, why


def _rises_every_record(c: _LossCurve) -> bool:
    """The recent stretch (the points ``loss_noise`` is measured on) climbs at every record, two
    records or more: an accelerating run-off, whose residuals around the running median are the
    climb itself, not swings."""
    tail = [c.cm[i] for i in c.tail_idx]
    return len(tail) >= 2 and all(b > a for a, b in zip(tail, tail[1:]))


def _never_rises(c: _LossCurve, out: _Out) -> bool:
    """An excerpt whose loss never goes up from one record to the next and falls by
    ``curves.plateau_min_fall`` or more over it (``curves.never_rises_min_points`` records or more) is
    learning, however short: a loss that is not learning wanders both ways. Only below
    ``pace.creep_min_points`` records: from there on a slow fall is the pace reader's
    (``loss_creeping``), which also asks whether
    validation falls with it (a model memorising meaningless labels creeps on training alone)."""
    cm = c.cm
    return (out.p["curves.never_rises_min_points"] <= len(cm) < out.p["pace.creep_min_points"]
            and c.frac >= out.p["curves.plateau_min_fall"]
            and all(b <= a for a, b in zip(cm, cm[1:])))


def _fell_then_flat(c: _LossCurve, out: _Out) -> bool:
    """A small fall that is real and over: the loss took ``curves.plateau_min_fall`` or more of
    its level off, by ``curves.plateau_fall_bands`` noise bands or more, and has been flat since
    for ``curves.plateau_min_flat_share`` of the run or more (the plateau test of step 6). A loss
    that moved that little is flat by the 10 % rule, but a quiet curve that dropped and then
    levelled (0.558, 0.526, 0.518, 0.517, 0.514, ...) learned and stopped: a plateau, not a run
    that never started. A fall under ``curves.plateau_min_fall`` of the level is real too when it
    is ``curves.plateau_sure_bands`` noise bands (printed digits, and moves of the last stretch)
    or more: a nearly noiseless
    loss whose level is mostly an offset (a summed regression loss, 2349.7 -> 2311.6 with noise in
    the fourth decimal) fell and levelled."""
    P = out.p
    fall = c.initial - c.current
    if c.n < P["curves.noise_min_points"] or fall <= 0:
        return False
    if c.frac < P["curves.plateau_min_fall"] and fall < P["curves.plateau_sure_bands"] * max(
            c.sig_tail, _print_step(c.cm), _tail_moves(c)):
        return False
    if fall < P["curves.plateau_fall_bands"] * c.sig_tail:
        return False
    trend, region, _ = _plateau_or_decreasing(c, out)
    return trend == "plateaued" and (region[1] - region[0]) >= P["curves.plateau_min_flat_share"] * c.span


def _diverging_why(c: _LossCurve, log, out: _Out) -> tuple[tuple, str]:
    """A diverging loss's region and sentence: below zero, climbing back from a low, or rising."""
    initial, current, cm, cx, x_start, x_end = c.initial, c.current, c.cm, c.cx, c.x_start, c.x_end
    low = min(range(c.nc), key=lambda i: cm[i])
    if abs(current) > out.p["curves.diverge_magnitude"] * abs(initial) and current < 0:
        return (x_start, x_end), (
            f"the training loss runs away below zero, {_fmt(initial)} -> {_fmt(current)}, "
            f"over {out.rng(x_start, x_end)}")
    if c.best < initial and current > c.best:
        return (cx[low], x_end), (
            f"the training loss went {_fmt(initial)} -> {_fmt(current)} over "
            f"{out.rng(x_start, x_end)}, climbing from a low of {_fmt(cm[low])} at "
            f"{log.x_label} {_fx(cx[low])}")
    return (x_start, x_end), (f"the training loss rose {_fmt(initial)} -> {_fmt(current)} over "
                              f"{out.rng(x_start, x_end)}")


def _oscillating_why(c: _LossCurve, out: _Out) -> tuple[tuple, str]:
    """An oscillating loss's region and sentence: wandering, spiking, or swinging around its level."""
    P, x_end, current, late = out.p, c.x_end, c.current, c.late
    if c.wander and not c.spiky:
        return (c.cx[-len(late)], x_end), (
            f"the training loss wanders between {_fmt(min(late))} and {_fmt(max(late))} "
            f"(smoothed) over the last {P['curves.wander_tail']:.0%} of the run without net progress: "
            f"it climbed back {_fmt(c.rebound)} from a low, against a level of {_fmt(current)}")
    if c.spikes:
        return (c.fin[c.spikes[0][0]].x0, c.fin[c.spikes[-1][1]].x1), (
            f"the training loss keeps jumping: {len(c.spikes)} spikes up to "
            f"{_fmt(max(p.hi for p, f in zip(c.fin, c.spike) if f))} around a level of "
            f"{_fmt(current)} over {out.rng(c.x_start, x_end)}")
    n, osc_noise = c.n, P["curves.osc_noise"]
    rel = [math.hypot(c.sig[i], c.sds[i]) / max(abs(c.level[i]), _TINY) for i in range(n)]
    first = next((i for i in range(n) if rel[i] >= osc_noise), 0)
    return (c.xs[first], x_end), (
        f"the training loss swings by about {_fmt(c.sig_tail)} (±{c.noise:.0%}) around "
        f"{_fmt(current)} over the last {P['curves.tail_fraction']:.0%} of the run, against a total "
        f"change of {_fmt(c.initial - current)}")


def _plateau_or_decreasing(c: _LossCurve, out: _Out) -> tuple[str, tuple | None, str]:
    """A loss that fell: ``plateaued`` (with where the plateau starts) when the last 30 % no longer
    takes anything off beyond noise, else ``decreasing``."""
    P, initial, current, nc, drop = out.p, c.initial, c.current, c.nc, c.drop
    share = drop / (initial - current)
    rel = drop / max(abs(current), _TINY)
    # a short, quiet log whose last 30 % falls at every point, by more than plateau_rel of its
    # level, is still falling: the window medians of a few points lag a steady decline
    tail = [c.cm[i] for i in c.tail_idx]
    falling = (len(tail) >= P["curves.falling_tail_min_points"] and all(b < a for a, b in zip(tail, tail[1:]))
               and tail[0] - tail[-1] > P["curves.plateau_rel"] * abs(tail[-1]))
    if nc >= P["curves.noise_min_points"] and not falling and (
            (share < P["curves.plateau_share"] and rel < P["curves.plateau_rel"])
            or drop < P["curves.plateau_drop_se"] * c.se):
        flat_level = median(c.cm[i] for i in c.tail_idx)
        delta = max(2 * c.sig_tail, P["curves.plateau_band"] * abs(flat_level))
        j = nc
        while j > 0 and c.sm[j - 1] <= flat_level + delta:
            j -= 1
        j = max(1, min(j, nc - 1)) if nc > 1 else 0
        flat_for = (c.x_end - c.cx[j]) / c.span
        return "plateaued", (c.cx[j], c.x_end), (
            f"the training loss fell {_fmt(initial)} -> {_fmt(current)} over "
            f"{out.rng(c.x_start, c.cx[j])}, then flat for the last {flat_for:.0%}")
    return "decreasing", None, (f"the training loss fell {_fmt(initial)} -> {_fmt(current)} "
                                f"({c.frac:.0%}) over {out.rng(c.x_start, c.x_end)} and is still going down")


def _loss_level_facts(c: _LossCurve, s, log, out: _Out) -> None:
    """``initial_loss``, ``current_loss``, ``train_loss``, ``loss_decrease_fraction``, ``loss_noise``."""
    initial, current, ta, tb = c.initial, c.current, c.ta, c.tb
    out.add("initial_loss", initial, c.ia, c.ib,
            f"training loss at the start: {_fmt(initial)}"
            + (f" (median of the first {c.k_head} values)" if c.k_head > 1 else ""))
    out.add("current_loss", current, ta, tb,
            f"training loss now: {_fmt(current)} (median of the last {c.k_tail} "
            f"{'values' if s.rows_per_point == 1 else 'buckets'}, {out.rng(ta, tb)})")
    out.add("train_loss", current, ta, tb,
            f"latest training loss {_fmt(current)} ({log.columns.get('loss', 'loss')}, "
            f"median of {out.rng(ta, tb)})")
    out.add("loss_decrease_fraction", c.frac, c.x_start, c.x_end,
            f"the training loss went {_fmt(initial)} -> {_fmt(current)}: "
            f"{'a fall' if c.frac >= 0 else 'a rise'} of {abs(c.frac):.0%}")
    later = c.means[1:]
    if len(later) >= out.p["curves.frozen_min_points"]:
        mid = sorted(later)[len(later) // 2]
        spread = (max(later) - min(later)) / abs(mid) if mid else math.inf
        frozen = spread <= out.p["curves.frozen_rel_range"]
        out.add("loss_frozen", frozen, c.fin[1].x, c.x_end,
                f"after its first record the training loss {'stays' if frozen else 'moves'} "
                f"within {spread:.2%} of {_fmt(mid)} over {len(later)} points"
                + (f" (the first record: {_fmt(c.means[0])})" if frozen else ""))
    if s.rows_per_point == 1 and c.n >= out.p["curves.recur_min_points"]:
        _loss_recurring(c, out)
    _loss_fell_to_zero(c, out)
    if c.climb_back is not None and c.n >= out.p["curves.noise_min_points"]:
        out.add("loss_climb_back", round(c.climb_back, _FACT_DECIMALS), c.x_start, c.x_end,
                f"the smoothed training loss fell {_fmt(c.initial)} -> {_fmt(c.best)} at best and "
                f"climbed back {c.climb_back:.0%} of that fall from a low at some point")
    if c.n >= out.p["curves.noise_min_points"]:  # fewer points say nothing about noise
        out.add("loss_noise", c.noise, c.cx[c.tail_idx[0]], c.x_end,
                f"step-to-step noise over the last {out.p['curves.tail_fraction']:.0%} is about "
                f"{_fmt(c.sig_tail)} on a level of {_fmt(current)} ({c.noise:.0%})")


def _loss_fell_to_zero(c: _LossCurve, out: _Out) -> None:
    """``loss_fell_to_zero``: the training loss ends on at least ``curves.zero_fall_min_records``
    records at zero (at most ``curves.zero_loss_floor``: 0, or float32's epsilon a clipped probability
    leaves), and the record before them was an ordinary loss (``curves.zero_fall_from`` or more): it
    dropped there in one record. False when the loss does not end at zero."""
    ms, floor = c.means, out.p["curves.zero_loss_floor"]
    k = 0
    while k < len(ms) and abs(ms[-1 - k]) <= floor:
        k += 1
    if len(ms) < 2:
        return
    fell = k < len(ms) and k >= out.p["curves.zero_fall_min_records"] and ms[-1 - k] >= out.p["curves.zero_fall_from"]
    out.add("loss_fell_to_zero", fell, c.xs[-1 - k] if fell else c.x_start, c.x_end,
            f"the training loss drops from {_fmt(ms[-1 - k])} to {_fmt(ms[-1])} in one record and stays "
            f"there for {k} records: learning does not take a loss to zero in one step" if fell
            else "the training loss does not drop to zero in one record and stay there")


def _on_half_grid(v: float, mantissas) -> bool:
    """``v``, as printed (its shortest repr), is a number of a half-precision format (bfloat16,
    float16: ``mantissas`` bits) rounded to the printed decimals: such losses repeat by coarseness."""
    if v == 0 or not math.isfinite(v):
        return True
    text = repr(abs(v))
    if "e" in text:
        return False
    decimals = len(text.split(".")[1]) if "." in text else 0
    unit = 10.0 ** -decimals
    for bits in mantissas:
        spacing = 2.0 ** (math.floor(math.log2(abs(v))) - int(bits))
        if spacing >= unit and abs(round(abs(v) / spacing) * spacing - abs(v)) <= unit / 2:
            return True
    return False


def _loss_recurring(c: _LossCurve, out: _Out) -> None:
    """``loss_values_recur``: the training-loss values (one per record, a value printed again right
    after itself counted once) come back exactly to values printed before more often than a
    spread of values does by chance: the pairs of equal values, less the pairs one printed unit
    apart (a smooth spread gives about twice as many of those as equal pairs), are at least
    ``curves.recur_share`` of the values — the same batches giving the same losses, so the weights
    do not change between them. Values on a half-precision grid (``curves.half_mantissa_bits``)
    repeat by coarseness and are not read (``curves.half_grid_share`` of them or more); a frozen
    loss is loss_frozen's."""
    vs = c.means
    mant = out.p["curves.half_mantissa_bits"]
    if len(set(vs)) < 2 or sum(_on_half_grid(v, mant) for v in vs) >= out.p["curves.half_grid_share"] * len(vs):
        return
    decimals = max((len(t.split(".")[1]) for t in map(repr, vs) if "." in t and "e" not in t), default=0)
    scale = 10 ** decimals
    units = [round(v * scale) for v in vs]
    kept = [units[0]] + [u for u, prev in zip(units[1:], units) if u != prev]
    count: dict = {}
    for u in kept:
        count[u] = count.get(u, 0) + 1
    equal = sum(k * (k - 1) // 2 for k in count.values())
    apart = sum(k * count.get(u + 1, 0) for u, k in count.items())
    share = (equal - apart) / len(kept)
    out.add("loss_values_recur", share >= out.p["curves.recur_share"], c.x_start, c.x_end,
            f"{equal} pair(s) of the {len(kept)} training-loss values are exactly equal, against "
            f"{apart} pair(s) one printed unit apart: the same values come back")


def _loss_oscillation_trend(c: _LossCurve, trend: str, out: _Out) -> None:
    """Step 7: ``oscillation_trend``, the swings of the last third against the first."""
    if not ((trend in ("oscillating", "diverging") or c.spikes or c.noise >= out.p["curves.noisy"])
            and c.n >= out.p["curves.oscillation_min_points"]):
        return
    growth = out.p["curves.oscillation_growth"]
    n, xs, x_start, x_end = c.n, c.xs, c.x_start, c.x_end
    amp = [abs(r) + (p.sd or 0.0) for r, p in zip(c.resid, c.fin)]
    third = c.span / _THIRDS
    a1 = [a for a, x in zip(amp, xs) if x <= x_start + third] or amp[: n // _THIRDS]
    a3 = [a for a, x in zip(amp, xs) if x >= x_end - third] or amp[-(n // _THIRDS):]
    m1, m3 = sum(a1) / len(a1), sum(a3) / len(a3)
    ratio = (m3 / m1) if m1 > 0 else (math.inf if m3 > 0 else 1.0)
    ot = "growing" if ratio >= growth else "shrinking" if ratio <= 1 / growth else "steady"
    out.add("oscillation_trend", ot, x_start, x_end,
            f"the loss swings average {_fmt(m1)} in the first third and {_fmt(m3)} in the "
            f"last third of the run ({ot})")


def _loss_epoch_cycle(c: _LossCurve, s, log, out: _Out) -> None:
    """``oscillation_pattern = periodic``: the per-step loss repeats one shape with the position in
    the epoch. Only for a log that says where each epoch starts (``epoch_starts``) and keeps every
    record. Each point is taken relative to the mean over the one-epoch window centred on it (which
    removes a smooth learning trend and keeps a cycle one epoch long); the share of what is left
    that the position in the epoch explains (eta squared, on the swings ranked within each epoch)
    and the size of that cycle (median swing by position) against the loss level decide it."""
    import bisect
    P = out.p
    starts = list(getattr(log, "epoch_starts", None) or [])
    if (len(starts) < P["curves.cycle_min_epochs"] + 1 or s.rows_per_point != 1
            or c.n < P["curves.cycle_min_points"]):
        return
    lengths = sorted(b - a for a, b in zip(starts, starts[1:]))
    per = lengths[len(lengths) // 2]
    if per <= 1:
        return
    xs, ys = c.xs, c.means
    if getattr(log, "epoch_mean_bar", False) or _epoch_running_mean(xs, ys, starts, P):
        return   # the average's restart each epoch is the saw-tooth, not the order of the data
    half = per / 2.0
    npos = int(P["curves.cycle_positions"])
    by_pos: dict = {}
    by_epoch: dict = {}
    epochs = set()
    j0 = 0
    for x, y in zip(xs, ys):
        e = bisect.bisect_right(starts, x) - 1
        if e < 0 or e + 1 >= len(starts) or x - half < xs[0] or x + half > xs[-1]:
            continue   # before the first start, in the last (maybe partial) epoch, or no full window
        while xs[j0] < x - half:
            j0 += 1
        j, tot, k = j0, 0.0, 0
        while j < len(xs) and xs[j] <= x + half:
            tot += ys[j]
            k += 1
            j += 1
        if k < P["curves.cycle_window_min_points"]:
            continue
        ln = starts[e + 1] - starts[e]
        pos = min(npos - 1, int((x - starts[e]) / ln * npos))
        by_epoch.setdefault(e, []).append((pos, y - tot / k))
    # within each epoch the swings are ranked (0..1), so that one wild epoch (a blow-up in the
    # first) weighs no more than a quiet one; the cycle's size is read from the raw swings
    for e, rows in by_epoch.items():
        if len(rows) < P["curves.cycle_epoch_min_points"]:
            continue
        epochs.add(e)
        order = sorted(range(len(rows)), key=lambda i: rows[i][1])
        for r, i in enumerate(order):
            by_pos.setdefault(rows[i][0], []).append((r / (len(rows) - 1), rows[i][1]))
    groups = [v for v in by_pos.values() if len(v) >= 2]
    if len(epochs) < P["curves.cycle_min_epochs"] or len(groups) < 2:
        return
    allr = [r for v in groups for r, _ in v]
    grand = sum(allr) / len(allr)
    ss_tot = sum((r - grand) ** 2 for r in allr)
    means = [sum(r for r, _ in v) / len(v) for v in groups]
    ss_between = sum(len(v) * (m - grand) ** 2 for v, m in zip(groups, means))
    level = abs(sorted(ys)[len(ys) // 2]) or _TINY
    eta2 = ss_between / ss_tot if ss_tot > 0 else 0.0
    raw = [sorted(d for _, d in v)[len(v) // 2] for v in groups]
    amp = (max(raw) - min(raw)) / level
    if eta2 >= P["curves.cycle_eta2"] and amp >= P["curves.cycle_amplitude"]:
        out.add("oscillation_pattern", "periodic", c.x_start, c.x_end,
                f"the per-step loss cycles with the position in the epoch: the position explains "
                f"{eta2:.0%} of its swings around the trend, which span {amp:.0%} of the loss "
                f"level, over {len(epochs)} epochs")


def _epoch_running_mean(xs, ys, starts, P) -> bool:
    """Whether the per-step loss is each epoch's running mean (a progress bar's postfix): its
    step-to-step changes shrink through every epoch, the median over the epochs holding
    curves.running_mean_min_points points of (mean change in the first quarter) / (in the last)
    reaching curves.running_mean_decay."""
    by_epoch: dict = {}
    for x, y in zip(xs, ys):
        by_epoch.setdefault(bisect.bisect_right(starts, x) - 1, []).append(y)
    ratios = []
    for vals in by_epoch.values():
        d = [abs(b - a) for a, b in zip(vals, vals[1:])]
        if len(d) < P["curves.running_mean_min_points"]:
            continue
        q = len(d) // _QUARTERS
        first, last = sum(d[:q]) / q, sum(d[-q:]) / q
        ratios.append(first / last if last > 0 else math.inf if first > 0 else 1.0)
    if not ratios:
        return False
    ratios.sort()
    return ratios[len(ratios) // 2] >= P["curves.running_mean_decay"]


def _loss_at_chance(c: _LossCurve, num_classes, out: _Out) -> None:
    """Step 10: ``loss_at_chance``, both the initial and the current loss near ln(C)."""
    if num_classes is None or num_classes < 2:
        return
    chance = math.log(num_classes)
    tol = out.p["curves.chance_tolerance"] * chance
    at = abs(c.initial - chance) <= tol and abs(c.current - chance) <= tol
    out.add("loss_at_chance", at, c.x_start, c.x_end,
            f"the loss {'sits' if at else 'does not sit'} at chance level ln({num_classes}) = "
            f"{chance:.3f}: {_fmt(c.initial)} at the start, {_fmt(c.current)} now")


def now_points(n: int, P) -> int:
    """How many of the last of ``n`` points give "now": the last ``curves.now_share`` of them, at
    least ``curves.now_min_points``. The one definition of the window, read by this reader and by
    the live loss probes (:func:`traindx.probes.live.losses.current_loss`)."""
    return max(int(P["curves.now_min_points"]), int(n * P["curves.now_share"]))


def start_points(n: int, P, least: int) -> int:
    """How many of the first of ``n`` points give the start: ``curves.start_share`` of them, at most
    ``curves.start_max_points``, at least ``least`` (the caller's minimum: 1 for a log's rows,
    ``curves.start_min_steps`` for per-step losses). Read by this reader and the live loss probes."""
    return min(int(P["curves.start_max_points"]), max(least, int(n * P["curves.start_share"])))


def _tail_k(n: int, P) -> int:
    """How many of the last points give "now": :func:`now_points` (1 for logs under
    ``curves.tail_min_points``)."""
    return 1 if n < P["curves.tail_min_points"] else now_points(n, P)


def _best_said_before(log, ms: list) -> str | None:
    """How the run said that its validation loss's best came before every evaluation shown
    (``from 0.266``, ``in 5 evaluations``), or None: its callback's last verdict was no improvement
    (``LogData.verdicts``), from a stated best below every value shown, or, with no best stated,
    over at least as many evaluations as are shown."""
    v = getattr(log, "verdicts", {}).get("val_loss")
    if v is None or v[1] <= 0:
        return None
    best, stale, _line = v
    if best is not None:
        return f"from {_fmt(best)}" if best < min(ms) else None
    return f"in {stale} evaluations" if stale >= len(ms) else None


def _add_best_val_fraction(log, out: _Out, ms: list, xs: tuple, best: float) -> None:
    """``best_val_fraction``: where the smoothed minimum ``best`` (at ``xs[2]``) lies in the run, or
    0 when the run said its best came before the evaluations shown (:func:`_best_said_before`)."""
    x0, x1, xb = xs
    r0, r1 = out.run_range
    said = _best_said_before(log, ms)
    if said is not None:
        out.add("best_val_fraction", 0.0, x0, x1,
                f"the run says its validation loss has not improved {said}: its best came before "
                f"the evaluations shown ({out.rng(x0, x1)})")
        return
    bf = min(1.0, max(0.0, (xb - r0) / ((r1 - r0) or 1.0)))
    out.add("best_val_fraction", bf, x0, x1,
            f"the best (smoothed) validation loss, {_fmt(best)}, comes at {log.x_label} "
            f"{_fx(xb)}, {bf:.0%} of the way through the run")


def _val_nonfinite(log, s, out: _Out) -> None:
    """``val_loss_nonfinite``: the validation loss ends in NaN/Inf values (false: its latest is finite)."""
    if s.rows:
        out.add("val_loss_nonfinite", s.trailing_nonfinite > 0, s.first_x, s.last_x,
                f"the validation loss ends in {s.trailing_nonfinite} NaN/Inf value(s) "
                f"(from {log.x_label} {_fx(s.trailing_nonfinite_x)})" if s.trailing_nonfinite
                else "the latest validation loss is finite")


def _analyze_val(log, out: _Out) -> None:
    s = log.get("val_loss")
    if s is None:
        return
    _val_nonfinite(log, s, out)
    fin = s.finite_points()
    if not fin:
        out.a.notes.append("every validation-loss value is NaN/Inf")
        return
    xs = [p.x for p in fin]
    ms = [p.mean for p in fin]
    n = len(fin)
    k = _tail_k(n, out.p)
    cur = median(ms[-k:])
    out.add("val_loss", cur, xs[-k], xs[-1],
            f"latest validation loss {_fmt(cur)} (median of the last {k} values, "
            f"{out.rng(xs[-k], xs[-1])})")
    if n < out.p["curves.val_min_points"]:
        return
    wv = max(1, n // int(out.p["curves.smooth_points_per_window"]))
    sm = _rolling_median(ms, wv)
    if out.a.curves.get("val_loss"):
        out.a.curves["val_loss"].smooth = sm
    x0, x1 = fin[0].x0, fin[-1].x1
    span = (x1 - x0) or 1.0
    best_i = min(range(n), key=lambda i: (sm[i], ms[i]))  # ties: the lowest raw value
    best = sm[best_i]
    _add_best_val_fraction(log, out, ms, (x0, x1, xs[best_i]), best)
    tail = [i for i, x in enumerate(xs) if x >= x1 - out.p["curves.tail_fraction"] * span] or [n - 1]
    sig = _MAD_TO_SD * median(abs(ms[i] - sm[i]) for i in tail)
    mid_x = x0 + 0.5 * span
    half = out.p["curves.val_mid_halfwidth"] * span
    idx = _window(xs, mid_x - half, mid_x + half) or \
        [min(range(n), key=lambda i: abs(xs[i] - mid_x))]
    mid = median(sm[i] for i in idx)
    # a rise is a sustained level (the median of the last tenth, at least k_tail values) above the
    # best by more than 10 % and more than twice the scatter of the evaluations since the best (a
    # noisy floor with one or two bad evaluations at the end is not a rise)
    k_rise = max(k, n // int(out.p["curves.val_rise_tail_parts"]))
    level = median(ms[-k_rise:])
    after = ms[best_i + 1:]
    drifting = True
    sig_after = _scatter_after(after, sig, out)
    if len(after) >= out.p["curves.val_drift_min_points"]:
        # a rise keeps rising (or holds): the last third of the evaluations since the best sits
        # above the first third; a noisy floor with a bump after its minimum does not
        third = len(after) // _THIRDS
        drifting = median(after[-third:]) >= median(after[:third])
    # a climb at every evaluation since the best: its last value is where it has got to (the median
    # of the last few lags behind a rise that does not pause)
    if len(after) >= out.p["curves.val_climb_min_evals"] and all(b > a for a, b in zip(after, after[1:])):
        level = max(level, after[-1])
    rise = out.p["curves.val_rise"]
    climb = _short_climb(ms, out)
    if climb is not None:
        best_i, best, level = climb
    if climb is not None or (level - best > max(rise * abs(best), out.p["curves.val_rise_noise"] * max(sig, sig_after))
                             and n - 1 - best_i >= k_rise and drifting
                             and not _slight_val_rise(out, sm[0], best, level)):
        shared = _rise_shared(log, out, (xs[best_i], xs[-k_rise]), best, level)
        vt = "increasing"
        why = (f"validation loss bottomed at {_fmt(best)} ({log.x_label} {_fx(xs[best_i])}) and "
               f"has risen to {_fmt(level)}")
        a = xs[best_i]
        if shared is not None:
            out.add("val_rise_shared", True, a, x1, why + shared)
            _val_at_best(ms, xs, k, out)   # a floor both losses wander on: is validation still at its best?
    elif mid - cur > max(out.p["curves.val_fall"] * abs(mid), sig):
        vt = "decreasing"
        why = f"validation loss still falling over the latter half: {_fmt(mid)} -> {_fmt(cur)}"
        a = xs[idx[0]]
    else:
        vt = "flat"
        why = f"validation loss flat over the latter half: {_fmt(mid)} -> {_fmt(cur)}"
        a = xs[idx[0]]
    out.add("val_loss_trend", vt, a, x1, why)
    if vt != "increasing":
        _val_at_best(ms, xs, k, out)


def _val_at_best(ms: list, xs: list, k: int, out: _Out) -> None:
    """``val_at_best``: the validation loss's latest level (the median of its last ``k`` values) lies
    within ``curves.val_best_steps`` of its own typical move from one evaluation to the next (the
    median |v[i+1] - v[i]| over the latter half of the evaluations) of the best value it ever
    printed. The minimum of a noisy level sits below that level by itself, wherever along the flat
    stretch it happens to fall; a validation loss that settled is at its best within its own noise
    even when that minimum came at 60 % of the run, and one that turned is not."""
    n = len(ms)
    if n < out.p["curves.val_best_min_evals"]:
        return
    half = ms[n // 2:]
    moves = [abs(b - a) for a, b in zip(half, half[1:])]
    if not moves:
        return
    step = median(moves)
    level = median(ms[-k:])
    best = min(ms)
    if level - best <= out.p["curves.val_best_steps"] * step:
        out.add("val_at_best", True, xs[n // 2], xs[-1],
                f"the validation loss ends at {_fmt(level)}, within {out.p['curves.val_best_steps']:g} of its "
                f"typical moves between evaluations ({_fmt(step)}) of its best, {_fmt(best)}")


def _rise_shared(log, out: _Out, xs: tuple, best: float, level: float) -> str | None:
    """A validation loss that rose from its best while the training loss rose with it, by at least
    ``curves.val_rise_shared`` of validation's rise (each relative to its own level at the best), opened
    no gap between them: the two drift together at a noise floor or under the same step noise, not the
    model memorising its training set (whose training loss keeps its low). ``xs``: the x of the best
    and the x from which ``level`` (the recent validation level) is taken. The clause said after the
    rise when shared, else None; None too without a training loss beside the evaluations."""
    s = log.get("loss")
    if s is None or best <= 0:
        return None
    pts = s.finite_points()
    xb, x_now = xs
    at_best = [p.mean for p in pts if p.x <= xb][-_tail_k(len(pts), out.p):]
    now = [p.mean for p in pts if p.x >= x_now]
    if not at_best or not now:
        return None
    t0, t1 = median(at_best), median(now)
    if t0 <= 0 or (t1 - t0) / t0 < out.p["curves.val_rise_shared"] * (level - best) / best:
        return None
    return (f", and the training loss rose with it ({_fmt(t0)} -> {_fmt(t1)}): no gap opened between "
            "them, the two drift up together")


def _scatter_after(after: list, sig: float, out: _Out) -> float:
    """The scatter of the validation losses since the best, around a wider running median (it
    follows a real rise, not the noise), from curves.val_scatter_min_points of them on; with fewer,
    ``sig``, the scatter of the run's tail."""
    if len(after) < out.p["curves.val_scatter_min_points"]:
        return sig
    wide = _rolling_median(after, max(2, len(after) // int(out.p["curves.val_scatter_window_parts"])))
    return _MAD_TO_SD * median(abs(a - b) for a, b in zip(after, wide))


def _short_climb(ms: list, out: _Out) -> tuple | None:
    """A validation loss with too few evaluations for its running median to tell a rise from
    scatter (at most curves.val_short_climb_max_points) that climbs at every evaluation since its
    lowest, curves.val_short_climb_min_rises times or more, to more than curves.val_rise above it,
    while the training loss falls: no evaluation since the lowest came back down, so the climb is
    no scatter, though the smoothing swallows the lowest (a single low evaluation) or counts the
    last rise as the tail's noise. ``(index of the lowest, the lowest, the last)``, else None."""
    n = len(ms)
    if n > out.p["curves.val_short_climb_max_points"] or out.a.facts.get("loss_trend") != "decreasing":
        return None
    lo = min(range(n), key=ms.__getitem__)
    since = ms[lo:]
    if len(since) - 1 < out.p["curves.val_short_climb_min_rises"] or any(b <= a for a, b in zip(since, since[1:])):
        return None
    if since[-1] - ms[lo] <= out.p["curves.val_rise"] * abs(ms[lo]):
        return None
    return lo, ms[lo], since[-1]


def _slight_val_rise(out: _Out, first: float, best: float, level: float) -> bool:
    """A small rise that gives back only a sliver of what validation gained since the run started
    (the training loss's start is where validation started too) is the scatter of a floor reached
    with noisy steps, not the model turning to memorise: the minimum of noisy evaluations sits below
    their level by itself. A live run reads its evaluations without the training loss: then
    validation's own start, its first smoothed value ``first``, is where it started."""
    start = out.a.facts.get("initial_loss")
    if not (isinstance(start, (int, float)) and math.isfinite(start)):
        start = first
    if not math.isfinite(start) or start - best <= 0:
        return False
    return (level - best < out.p["curves.val_slight_rise"] * out.p["curves.val_rise"] * abs(best)
            and level - best < out.p["curves.val_rise_giveback"] * (start - best))


def _analyze_accuracy(log, out: _Out) -> None:
    for role, fact, what in (("accuracy", "train_accuracy", "training"),
                             ("val_accuracy", "val_accuracy", "validation")):
        s = log.get(role)
        if s is None:
            continue
        fin = s.finite_points()
        if not fin:
            continue
        k = _tail_k(len(fin), out.p)
        v = min(1.0, max(0.0, median(p.mean for p in fin[-k:])))
        pct = " (logged in percent)" if s.scale_factor != 1.0 else ""
        out.add(fact, v, fin[-k].x, fin[-1].x,
                f"latest {what} accuracy {v:.1%}{pct} (median of the last {k} values)")
        if role == "val_accuracy":
            best = min(1.0, max(0.0, max(p.mean for p in fin)))
            out.add("val_accuracy_best", best, fin[0].x0, fin[-1].x1,
                    f"best validation accuracy {best:.1%} over its {len(fin)} evaluation(s)")
            _half_chance_score(s, best, fin, out)
        _accuracy_collapsed(fin, what, out)
        if "accuracy_all_zero" not in out.a.facts and s.rows >= out.p["curves.zero_accuracy_min_records"] \
                and s.max is not None and s.max <= out.p["curves.zero_accuracy_max"] and not s.nonfinite:
            out.add("accuracy_all_zero", True, fin[0].x0, fin[-1].x1,
                    f"the {what} accuracy is at most {s.max:.2%} at every one of its {s.rows} records: "
                    "no prediction is ever right beyond chance over thousands of answers")


def _accuracy_collapsed(fin: list, what: str, out: _Out) -> None:
    """``accuracy_collapsed``: the accuracy reached a learned level (``curves.collapse_accuracy_from`` or
    more) and ends on at least ``curves.zero_fall_min_records`` records at a small share of its best
    (``curves.accuracy_collapse_share`` or less) or at zero (``curves.zero_accuracy_max``), where it
    still held ``curves.collapse_sudden_share`` of its best within as many records before them. A model
    that learned and then gets next to nothing right has not unlearned by degrees: its outputs went NaN
    (every comparison with a label false) or were thrown to one value whatever the input. Read only
    where it holds (True)."""
    if "accuracy_collapsed" in out.a.facts or not fin:
        return
    best = max(p.mean for p in fin)
    low = max(out.p["curves.zero_accuracy_max"], out.p["curves.accuracy_collapse_share"] * best)
    k = 0
    while k < len(fin) and fin[-1 - k].mean <= low:
        k += 1
    n = int(out.p["curves.zero_fall_min_records"])
    if k < n or k == len(fin) or best < out.p["curves.collapse_accuracy_from"]:
        return
    # sudden: within those records before it the accuracy still held its share of the best (a slow slide
    # to chance over epochs, beside a loss climbing to chance, is lost skill: instability)
    if max(p.mean for p in fin[max(0, len(fin) - k - n):len(fin) - k]) < out.p["curves.collapse_sudden_share"] * best:
        return
    out.add("accuracy_collapsed", True, fin[-1 - k].x0, fin[-1].x1,
            f"the {what} accuracy reached {best:.1%} and then ends on {k} records at {fin[-1].mean:.1%}, "
            f"{fin[-1].mean / best:.0%} of its best: next to nothing right, where it had learned")


def _half_chance_score(s, best: float, fin: list, out: _Out) -> None:
    """``val_auc_best``: the best held-out score over the run when the validation accuracy the log
    gives is a ranking score printed in its place (an AUC, ``console.half_chance_score_names``: the
    last word of its printed name). Its chance level is 0.5 whatever the number of classes and their
    balance, so, unlike an accuracy, its value alone says whether the model ranks better than a
    guess."""
    words = [w for w in "".join(c.lower() if c.isalnum() else " " for c in str(s.column)).split() if w]
    names = {str(w).lower() for w in out.p["console.half_chance_score_names"]}
    if not words or words[-1] not in names:
        return
    out.add("val_auc_best", best, fin[0].x0, fin[-1].x1,
            f"the validation score printed as {s.column!r} is an area under the ROC curve (0.5 at chance): "
            f"best {best:.4g} over its {len(fin)} evaluation(s)")


def _val_shape(log, out: _Out) -> None:
    """What the evaluations alone say, read off a short excerpt as well as a whole run:

    - ``val_frozen``: the last ``curves.frozen_val_min_evals`` validation values (loss, else
      accuracy) are one and the same number while the training side moved (or printed nothing):
      the model gives the same answers on held-out data whatever the training does — a constant
      output. A converged run's evaluations still move in their last digits.
    - ``run_frozen``: the same validation value at every evaluation of the log, and the
      training loss repeating one number over the last of them too: a model whose weights do not
      change (no step is taken, a learning rate of zero, a network dead everywhere); a converged
      run still moves in its last digits.
    - ``val_still_improving``: two or more validation losses (else accuracies), each better than
      every one before it: the model still generalises better at every evaluation.
    - ``val_loss_swing``: the median factor, as ``|ln(v[i+1] / v[i]) - drift|``, by which the
      validation loss changes from one evaluation to the next beyond its drift (the mean of those
      logs: a loss that climbs by a factor at every evaluation drifts, it is not thrown around; nor is
      one that jumps once and holds a level: at most the median move itself)
      (``curves.val_swing_min_evals`` or more, all positive; or ``curves.val_swing_few_evals``
      that each jump by ``curves.val_swing_few_evals_min`` or more, both ways): a validation loss thrown around
      from one evaluation to the next."""
    p = out.p
    _val_evaluations(log, out)
    _val_mirrors_train(log, out)
    _val_tracks_train(log, out)
    for role, better in (("val_loss", -1.0), ("val_accuracy", 1.0)):
        s = log.get(role)
        fin = s.finite_points() if s is not None else []
        if len(fin) < 2:
            continue
        vs = [q.mean for q in fin]
        what = "validation loss" if role == "val_loss" else "validation accuracy"
        k = int(p["curves.frozen_val_min_evals"])
        if "val_frozen" not in out.a.facts and len(vs) >= k:
            tail = vs[-k:]
            # an accuracy printed to two decimals (0.80) repeats by coarseness; 0.7188 does not
            coarse = role == "val_accuracy" and abs(tail[-1] * 100 - round(tail[-1] * 100)) < _ROUNDING
            same = _one_number(tail) and not coarse
            if same and role == "val_accuracy" and _val_loss_moved(log, k) \
                    and len(vs) > k and tail[-1] > statistics.median(vs[:-k]):
                # an accuracy that rose above its earlier level and repeats there while the held-out
                # loss still moves: the outputs change, only the decisions of a settled model stay put
                # (a few hundred examples) - no constant output (one repeating from the start, or
                # fallen back to a lower value, still is)
                same = False
            if same and _train_moved(log, fin[-k].x0, p):
                out.add("val_frozen", True, fin[-k].x0, fin[-1].x1,
                        f"the {what} is {tail[-1]:.6g} at each of the last {k} evaluations while "
                        "the training moved: the same answers on held-out data")
            elif same and "run_frozen" not in out.a.facts and _one_number(vs) \
                    and _train_loss_still(log, fin[-k].x0):
                # frozen from the log's first evaluation on: a run that moved and then froze (an LR
                # decayed to nothing, a converged model printed to few digits) learned, and stopped
                out.add("run_frozen", True, fin[0].x0, fin[-1].x1,
                        f"the {what} is {tail[-1]:.6g} at each of the log's {len(vs)} evaluations and "
                        "the training loss repeats one number over the last of them too: nothing in the "
                        "model changes")
        if "val_still_improving" not in out.a.facts:
            steps = [better * (b - a) for a, b in zip(vs, vs[1:])]
            if all(d > 0 for d in steps):
                out.add("val_still_improving", True, fin[0].x0, fin[-1].x1,
                        f"the {what} improves at each of its {len(vs)} evaluations: "
                        f"{_fmt(vs[0])} -> {_fmt(vs[-1])}")
        if len(vs) >= p["curves.val_swing_min_evals"] or (
                role == "val_loss" and len(vs) >= p["curves.val_swing_few_evals"]
                and _thrown_both_ways(vs, p["curves.val_swing_few_evals_min"])):
            _val_swing(role, vs, fin, out)


def _one_number(vs: list) -> bool:
    """Whether the values ``vs`` are one and the same number (within float rounding of their size)."""
    return max(vs) - min(vs) <= _SAME_NUMBER * (max(abs(v) for v in vs) or 1.0)


def _val_mirrors_train(log, out: _Out) -> None:
    """``val_mirrors_train``: at every evaluation the log prints, the validation loss (else accuracy)
    is the very number the training side prints on the same row, over ``curves.mirror_min_evals``
    evaluations or more that take ``curves.mirror_min_distinct`` values or more (a frozen run
    repeats one number on both sides; that is ``run_frozen``). Two different data sets give the
    same figure to every printed digit once by chance, not at every evaluation while both fall: the
    "validation" pass scores the training data (a validation loader left pointing at the training
    set, a split never made)."""
    k = int(out.p["curves.mirror_min_evals"])
    for train_role, val_role in (("loss", "val_loss"), ("accuracy", "val_accuracy")):
        tr, va = log.get(train_role), log.get(val_role)
        if tr is None or va is None or tr.column == va.column:
            continue
        single = {q.x: q.mean for q in tr.finite_points() if q.n == 1 and q.x0 == q.x1}
        evals = [q for q in va.finite_points() if q.n == 1 and q.x0 == q.x1]
        pairs = [(single[q.x], q.mean) for q in evals if q.x in single]
        if len(pairs) < k or len(pairs) < len(va.finite_points()) \
                or len({v for _, v in pairs}) < out.p["curves.mirror_min_distinct"]:
            continue
        if all(_one_number([a, b]) for a, b in pairs):
            what = "loss" if val_role == "val_loss" else "accuracy"
            out.add("val_mirrors_train", True, evals[0].x0, evals[-1].x1,
                    f"the validation {what} equals the training {what} printed beside it at each of its "
                    f"{len(pairs)} evaluations ({_fmt(pairs[0][1])} -> {_fmt(pairs[-1][1])}): the validation "
                    "pass scores the training data")
            return


def _val_tracks_train(log, out: _Out) -> None:
    """``val_tracks_train``: at each of the last ``curves.tracks_evals`` evaluations the log prints, the
    validation loss is at most ``curves.tracks_ratio`` times the training loss printed at or before it
    (true), or the latest is above that (false). Both figures come from one print statement's scale, so
    a loss summed over time steps or a batch compares like with like."""
    tr, va = log.get("loss"), log.get("val_loss")
    if tr is None or va is None or tr.column == va.column:
        return
    train = [(q.x, q.mean) for q in tr.finite_points()]
    evals = va.finite_points()
    k = int(out.p["curves.tracks_evals"])
    if not train or len(evals) < k:
        return
    xs = [x for x, _ in train]
    pairs = []
    for q in evals[-k:]:
        i = bisect.bisect_right(xs, q.x) - 1
        if i < 0 or train[i][1] <= 0:
            return
        pairs.append((train[i][1], q.mean))
    ratio = out.p["curves.tracks_ratio"]
    if all(v <= ratio * a for a, v in pairs):
        out.add("val_tracks_train", True, evals[-k].x0, evals[-1].x1,
                f"at each of the last {k} evaluations the validation loss is within {ratio:g}x of the training "
                f"loss printed with it ({_fmt(pairs[-1][1])} against {_fmt(pairs[-1][0])})")
    elif pairs[-1][1] > ratio * pairs[-1][0]:
        out.add("val_tracks_train", False, evals[-1].x0, evals[-1].x1,
                f"the latest validation loss {_fmt(pairs[-1][1])} is over {ratio:g}x the training loss "
                f"{_fmt(pairs[-1][0])}")


def _val_loss_moved(log, k: int) -> bool:
    """Whether the log prints a validation loss over at least its last ``k`` evaluations and those
    values are not one and the same number."""
    s = log.get("val_loss")
    vs = [q.mean for q in s.finite_points()] if s is not None else []
    if len(vs) < k:
        return False
    tail = vs[-k:]
    return not _one_number(tail)


def _val_evaluations(log, out: _Out) -> None:
    """``val_evaluations``: how many finite validation losses (else accuracies, whichever the log
    prints more of) it shows. One evaluation is a level, not a course: it cannot show validation
    improving or stalling."""
    counts = [(len(s.finite_points()), s) for s in (log.get("val_loss"), log.get("val_accuracy")) if s is not None]
    counts = [(n, s) for n, s in counts if n]
    if not counts:
        return
    n, s = max(counts, key=lambda c: c[0])
    fin = s.finite_points()
    out.add("val_evaluations", n, fin[0].x0, fin[-1].x1,
            f"{n} validation evaluation{'s' if n != 1 else ''} in the log")


def _log_steps(vs: list) -> list | None:
    """The log of each factor by which a positive series ``vs`` moves from one value to the next;
    None when a value is not positive (no factor between them)."""
    if min(vs) <= 0:
        return None
    return [math.log(b / a) for a, b in zip(vs, vs[1:])]


def _thrown_both_ways(vs: list, least: float) -> bool:
    """Whether a short validation history ``vs`` jumps at each evaluation by a factor of e^``least``
    or more, and both ways (one fall and a level after it is no swing, nor a steady climb)."""
    steps = _log_steps(vs)
    return steps is not None and min(abs(d) for d in steps) >= least and min(steps) < 0 < max(steps)


def _loss_swing(vs: list) -> float | None:
    """The median factor, as a log, by which a validation loss ``vs`` jumps between evaluations
    around its drift; None when a value is not positive (no factor between them)."""
    steps = _log_steps(vs)
    if steps is None:
        return None
    drift = sum(steps) / len(steps)
    swing = median(abs(d - drift) for d in steps)
    # nor is one jump and a level after it (0.72, 0.71, 3.9, 7.1, 7.7, 7.0): the median step is no move,
    # as for an accuracy (``_val_swing``); a jump at the last evaluation has no level after it yet
    if max(range(len(steps)), key=lambda i: abs(steps[i])) < len(steps) - 1:
        swing = min(swing, median(abs(d) for d in steps))
    return swing


def _val_swing(role: str, vs: list, fin: list, out: _Out) -> None:
    """``val_loss_swing`` (the median factor, as a log, by which the validation loss jumps between
    evaluations) and ``val_accuracy_swing`` (the median jump of the validation accuracy, in
    accuracy points), each around its drift: a curve that climbs (or falls) by large steps at every
    evaluation drifts, it is not thrown back and forth; nor is an accuracy whose steps reverse
    direction fewer than ``_BACK_AND_FORTH`` times (its swing is then the median of the reversals)."""
    if role == "val_loss":
        swing = _loss_swing(vs)
        if swing is None:
            return
    else:
        steps = [b - a for a, b in zip(vs, vs[1:])]
        drift = sum(steps) / len(steps)
        swing = median(abs(d - drift) for d in steps)
        # nor is one jump and a level after it (0.57, 0.36, 0.36, ...): the median step is no move
        swing = min(swing, median(abs(d) for d in steps))
        if sum(1 for a, b in zip(steps, steps[1:]) if a * b < 0) < _BACK_AND_FORTH:
            # nor a curve that turns once (0.45, 0.55, 0.60, 0.62, 0.53: a rise and one fall): a step
            # the next one does not reverse throws nothing back, only a reversal does
            swing = min(swing, median(min(abs(a), abs(b)) if a * b < 0 else 0.0 for a, b in zip(steps, steps[1:]))
                        if len(steps) > 1 else 0.0)
    if role == "val_loss":
        out.add("val_loss_swing", round(swing, _FACT_DECIMALS), fin[0].x0, fin[-1].x1,
                f"from one evaluation to the next the validation loss changes by a median "
                f"factor of {math.exp(swing):.2f} ({_fmt(min(vs))}-{_fmt(max(vs))})")
    else:
        out.add("val_accuracy_swing", round(swing, _FACT_DECIMALS), fin[0].x0, fin[-1].x1,
                f"from one evaluation to the next the validation accuracy moves by a median "
                f"{swing:.1%} ({min(vs):.1%}-{max(vs):.1%})")


def _train_loss_still(log, x0: float) -> bool:
    """The training loss printed since ``x0`` (two values or more) is one and the same number."""
    vs = _values_since(log, "loss", x0)
    return len(vs) >= 2 and _one_number(vs)


def _values_since(log, role: str, x0: float) -> list:
    """The finite values of ``role``'s curve printed since ``x0`` (none when the log has no such curve)."""
    s = log.get(role)
    return [q.mean for q in (s.finite_points() if s is not None else []) if q.x1 >= x0]


def _train_moved(log, x0: float, p) -> bool:
    """The training loss (else accuracy) moved since ``x0``, or the log prints neither."""
    for role in ("loss", "accuracy"):
        vs = _values_since(log, role, x0)
        if len(vs) >= 2:
            return max(vs) - min(vs) > p["curves.frozen_val_train_move"] * (max(abs(v) for v in vs) or 1.0)
    return log.get("loss") is None and log.get("accuracy") is None


def _thirds_trend(s, p):
    """``(trend, first-third median, last-third median, points)`` of an accuracy series (rising,
    flat, falling by ``curves.accuracy_flat_points``), or None with fewer than
    ``curves.accuracy_trend_min_points`` finite values."""
    fin = s.finite_points() if s is not None else []
    if len(fin) < p["curves.accuracy_trend_min_points"]:
        return None
    k = max(1, len(fin) // _THIRDS)
    a, b = median(q.mean for q in fin[:k]), median(q.mean for q in fin[-k:])
    flat = p["curves.accuracy_flat_points"]
    return ("rising" if b - a >= flat else "falling" if a - b >= flat else "flat"), a, b, fin


def _accuracy_trend(log, out: _Out, no_loss: bool) -> None:
    """A log that prints an accuracy: ``accuracy_trend`` (rising, flat, falling) from the median of
    its first third to that of its last third, the training accuracy first
    (``curves.accuracy_flat_points`` decides flat); with a training accuracy, the validation
    accuracy's own trend too (``val_accuracy_trend``). Without a training loss they are what the
    log says of learning; beside one, whether the task's own measure moves while the loss does."""
    first = True
    for role in ("accuracy", "val_accuracy"):
        res = _thirds_trend(log.get(role), out.p)
        if res is None:
            continue
        t, a, b, fin = res
        what = "training" if role == "accuracy" else "validation"
        fact = "accuracy_trend" if first else "val_accuracy_trend"
        out.add(fact, t, fin[0].x0, fin[-1].x1,
                ("no training loss printed; " if no_loss else "") + f"the {what} accuracy goes {a:.1%} -> {b:.1%} "
                f"(first third to last third of {len(fin)} values: {t})")
        if role == "val_accuracy" or not first:
            return
        first = False


def _analyze_lr(log, out: _Out) -> None:
    s = log.get("lr")
    if s is None:
        return
    fin = s.finite_points()
    head = [y for _, y in s.head if math.isfinite(y)]
    # one record of the LR (a header's lr=...) is where it started, not a course
    if len(fin) < out.p["curves.lr_course_min_records"] or not head:
        return
    first = head[0]
    peak = s.max
    warm = peak > out.p["curves.lr_warmup_peak"] * first
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
    _lr_rising(fin, out, x0, x1)
    collapse = out.p["curves.lr_collapse"]
    k = collapsed_from([p.hi for p in fin], collapse * ref)
    if k:
        xc = fin[k].x0
        frac = min(1.0, max(0.0, (xc - x0) / span))
        out.add("lr_collapse_fraction", frac, xc, x1,
                f"the learning rate is at or below {collapse:.0%} of {_fmt(ref)} from {log.x_label} {_fx(xc)} on, "
                f"{frac:.0%} of the way through the run")
    else:
        out.add("lr_collapse_fraction", 1.0, x0, x1,
                f"the learning rate never stays at or below {collapse:.0%} of {_fmt(ref)} in this log")
    # the LR-decay question answered by the run itself: the loss levelled off while the LR was
    # near its peak, then the schedule cut the LR 5x or more and the loss stayed flat
    reg = out.a.region
    if reg is not None and reg.label == "plateaued":
        cut = decayed_through_plateau([(p.x, p.mean) for p in fin], reg.start, out.p, end=reg.end)
        if cut is not None:
            out.add("lr_decay_helps", False, reg.start, x1,
                    f"the schedule cut the learning rate {_fmt(cut[0])} -> {_fmt(cut[1])} after the "
                    f"loss levelled off at {log.x_label} {_fx(reg.start)}, and the loss did not move")


def _logged_lr(log, out: _Out) -> None:
    """``learning_rate``: the LR the log records, when every record lies within
    ``curves.logged_lr_steady_ratio`` of the others: one steady LR, the rate the run was set to,
    even in an excerpt from mid-run. A schedule that moves further is not read: its peak need not be
    the LR the run was given (a StepLR stepped before the first print, a warm-up cut before its top,
    an excerpt from a decay's tail), so the question stays open and a code's or config's LR stands.
    What ran outranks what the code or config intended (``engine.source_rank.log``)."""
    s = log.get("lr")
    if s is None or not s.finite:
        return
    fin = s.finite_points()
    lo, hi = min(p.lo for p in fin), max(p.hi for p in fin)
    if lo <= 0 or hi > lo * out.p["curves.logged_lr_steady_ratio"]:
        return
    what = _fmt(hi) if math.isclose(lo, hi) else f"{_fmt(lo)}-{_fmt(hi)}, read as its highest"
    out.add("learning_rate", hi, fin[0].x0, fin[-1].x1,
            f"the log records the learning rate the run used: {what}")


def _lr_rising(fin: list, out: _Out, x0: float, x1: float) -> None:
    """``lr_rising``: the printed learning rate never falls from one record to the next and ends
    ``curves.lr_rising_min`` or more above its first value, at its highest: a warm-up still under
    way over the whole log (the run has not yet reached the rate it will train at)."""
    lrs = [p.mean for p in fin]
    if len(lrs) < 2 or lrs[0] <= 0:
        return
    rising = all(b >= a for a, b in zip(lrs, lrs[1:])) and lrs[-1] >= (1 + out.p["curves.lr_rising_min"]) * lrs[0]
    out.add("lr_rising", rising, x0, x1,
            f"the learning rate {'rises' if rising else 'does not rise'} over the whole log "
            f"({_fmt(lrs[0])} -> {_fmt(lrs[-1])} over {len(lrs)} records)"
            + (": a warm-up still under way" if rising else ""))


def decayed_through_plateau(lrs: list, start: float, params=None,
                            end: float | None = None) -> tuple[float, float] | None:
    """The LR-decay question answered by the run itself. ``lrs``: ``(step, lr)`` in step order
    (every point, or only the changes); ``start``: where the loss plateau began; ``end``: the last
    step read. Returns ``(lr at the plateau's start, lr now)`` when the plateau began with the LR at
    ``curves.decay_held`` of its peak or more and the LR has since fallen to ``curves.decay_cut`` of
    that or less (the loss stayed flat through a real decay), else None. With ``end``, the loss must
    also have been flat under the held LR for ``curves.decay_held_share`` of the plateau before the
    cut: a plateau read to begin a few steps before the cut is the cut's own doing (a loss still
    falling when the schedule took its LR away), not a floor the loss had reached first. Shared by
    the live monitor and the log reader."""
    pts = [(x, lr) for x, lr in lrs if lr is not None and math.isfinite(lr)]
    if not pts:
        return None
    peak = max(lr for _, lr in pts)
    at_start = next((lr for x, lr in reversed(pts) if x <= start), pts[0][1])
    now = pts[-1][1]
    p = resolve(params)
    if not (peak > 0 and at_start >= p["curves.decay_held"] * peak and now <= p["curves.decay_cut"] * at_start):
        return None
    if end is not None and end > start:
        cut = next((x for x, lr in pts if x > start and lr <= p["curves.decay_cut"] * at_start), end)
        if cut - start < p["curves.decay_held_share"] * (end - start):
            return None
    return at_start, now


def plateau_at_lr_collapse(lrs: list, start: float, end: float, params=None) -> bool | None:
    """Did the loss level off where the schedule collapsed the LR? ``lrs``: ``(step, lr)`` in step
    order (every point, or only the changes); ``start``/``end``: the loss plateau's first and last
    step. True when the LR fell to ``curves.lr_collapse`` of its peak or below and stayed there, and
    the plateau began no earlier than ``curves.decay_held_share`` of its length before that step (the
    loss was still falling when the LR was taken away); False when it began earlier, under an LR not
    yet collapsed (a floor reached first); None when the LR never collapsed."""
    pts = [(x, lr) for x, lr in lrs if lr is not None and math.isfinite(lr)]
    if not pts or end <= start:
        return None
    p = resolve(params)
    floor = p["curves.lr_collapse"] * max(lr for _, lr in pts)
    k = collapsed_from([lr for _, lr in pts], floor)
    if k is None or floor <= 0:
        return None
    return start >= pts[k][0] - p["curves.decay_held_share"] * (end - start)


#: "at or below the cut" allows the float error of a product that lands exactly on it (StepLR's
#: gamma=0.01 gives 1% of the LR, the usual collapse cut): a rounding tolerance, not a threshold
_ON_THE_CUT = 1e-9


def collapsed_from(lrs: list[float], cut: float) -> int | None:
    """The index from which every LR in ``lrs`` stays at or below ``cut`` (0: all of them); None when
    the last one is above it. One reading of "the schedule collapsed the LR for good" for the curve
    reader (a logged LR), the live LR-decay probe and the code reader (a stock scheduler's course)."""
    above = [i for i, lr in enumerate(lrs) if lr > cut * (1 + _ON_THE_CUT)]
    if not above:
        return 0
    return above[-1] + 1 if above[-1] < len(lrs) - 1 else None


def _loss_scale(log, an: CurveAnalysis, params) -> None:
    """A structured log's loss-scale column fallen to a fraction of 1 (:mod:`.loss_scale`, the
    derivation the console reader uses): ``loss_scale_collapsed`` and ``grads_have_nan``."""
    for f in scale_fall_findings(log, params):   # the curves derive neither fact otherwise
        an.facts[f.fact] = f.value
        an.findings.append(f)


def _analyze_grad_norm(log, out: _Out) -> None:
    s = log.get("grad_norm")
    if s is None or not s.finite:
        return
    x0, x1 = s.points[0].x0, s.points[-1].x1
    extra = f"; {s.nonfinite} NaN/Inf values" if s.nonfinite else ""
    out.add("grad_norm_max", float(s.max), x0, x1,
            f"largest gradient norm {_fmt(s.max)}{extra}")
    _grad_overflow_first(log, s, out)
    fin = s.finite_points()
    if len(fin) >= out.p["curves.noise_min_points"]:
        # the largest norm after the first record against the median: the start's large
        # gradients are where a run begins, not a spike
        level = median(p.mean for p in fin)
        peak = max(fin[1:], key=lambda p: p.hi)
        if level > 0:
            out.add("grad_norm_spike", peak.hi / level, peak.x0, peak.x1,
                    f"largest gradient norm after the first record {_fmt(peak.hi)}, "
                    f"x{_fmt(peak.hi / level)} its median {_fmt(level)}")
    _grad_norm_blowup(fin, out)
    r = _thirds_ratio([p.x for p in fin], [p.mean for p in fin], out.p["curves.thirds_min_points"])
    if r is None:
        return
    a, b, ratio = r
    t = growth_label(ratio, out.p["curves.grad_norm_growth"])
    out.add("grad_norm_trend", t, x0, x1,
            f"gradient norm median {_fmt(a)} in the first third, {_fmt(b)} in the last ({t})")


def _grad_norm_blowup(fin: list, out: _Out) -> None:
    """``grad_norm_blowup`` from a printed gradient norm: where it is now (the median of the last
    :func:`now_points` records) over where it started (the median of the first
    :func:`start_points`), both windows inside their own third of the records: a norm that grew
    and stays grown, not one spike (``grad_norm_spike``)."""
    P, n = out.p, len(fin)
    if n < P["curves.thirds_min_points"]:
        return
    k0 = min(n // _THIRDS, start_points(n, P, 1))
    k1 = min(n // _THIRDS, now_points(n, P))
    base = median(p.mean for p in fin[:k0])
    now = median(p.mean for p in fin[-k1:])
    if base > 0:
        out.add("grad_norm_blowup", round(now / base, 2), fin[0].x0, fin[-1].x1,
                f"the gradient norm is now {_fmt(now)} (median of the last {k1} records), "
                f"x{_fmt(now / base)} the {_fmt(base)} it started from (first {k0})")


def _grad_overflow_first(log, s, out: _Out) -> None:
    """``grad_norm_nonfinite_first``: the gradient norm turns Inf/NaN at a step where the training
    loss is still finite (or before any loss is). The backward pass overflowed: NaN inputs or a
    NaN in the forward make the loss non-finite at the same step, never after its gradient."""
    if not s.nonfinite_steps:
        return
    g0 = s.nonfinite_steps[0]
    loss = log.get("loss")
    if loss is None:
        return
    l0 = loss.nonfinite_steps[0] if loss.nonfinite_steps else None
    first = l0 is None or g0 < l0
    out.add("grad_norm_nonfinite_first", first, g0, g0,
            f"the gradient norm is first Inf/NaN at {log.x_label} {_fx(g0)}"
            + (f", the training loss only at {_fx(l0)}" if first and l0 is not None else
               ", while the training loss stays finite" if first else
               f", where the training loss already is (from {_fx(l0)})"))


def _analyze_step_time(log, out: _Out) -> None:
    s = log.get("step_time")
    if s is None:
        return
    fin = s.finite_points()
    if fin and not any(log.get(r) is not None for r in ("loss", "val_loss", "accuracy", "val_accuracy")):
        out.add("speed_only", True, fin[0].x0, fin[-1].x1,
                f"the log prints a speed ({len(fin)} record(s), median {_fmt(median(p.mean for p in fin))} s "
                "per step) and no loss or accuracy: what it shows is how fast the run goes")
    _step_time_stalls(log, fin, out)
    _step_time_slowdown(log, fin, out)
    r = _thirds_ratio([p.x for p in fin], [p.mean for p in fin], out.p["curves.thirds_min_points"])
    if r is None:
        return
    a, b, ratio = r
    t = growth_label(ratio, out.p["curves.step_time_growth"], ("increasing", "steady", "decreasing"))
    out.add("step_time_trend", t, fin[0].x0, fin[-1].x1,
            f"time per {log.x_label if log.x_label != 'row' else 'row'}: median {_fmt(a)} s in "
            f"the first third, {_fmt(b)} s in the last ({t})")


def _speed_apart(log, out: _Out) -> None:
    """speed_lines_apart: how many lines print a speed and no metric in a console text whose metric
    lines print no time per step (``ConsoleLog.speed_apart``, kept apart from the metrics' curve) - a
    pasted excerpt of progress bars or throughput lines beside a loss printed once shows how fast the
    run goes more than what it learns."""
    apart = getattr(log, "speed_apart", None)
    if not apart or log.get("step_time") is not None:
        return
    n, med = apart
    xs = [(p.x0, p.x1) for r in log.series.values() for p in r.finite_points()]
    a, b = (min(x for x, _ in xs), max(x for _, x in xs)) if xs else (0, 0)
    out.add("speed_lines_apart", n, a, b,
            f"{n} line(s) print a speed and no metric (median {_fmt(med)} s per step), apart from the "
            "metrics' records")


def _step_time_stalls(log, fin: list, out: _Out) -> None:
    """step_time_stalls: the share of the records after the first (the first is warm-up: allocations,
    compilation, the loader's first fill) whose step time is ``curves.step_stall_ratio`` times their
    median or more - a run that stops again and again (a loader running dry, a synchronous checkpoint
    or summary write), which an average hides; fewer than ``curves.step_stall_min_count`` stalls count
    as none, and so does a record shorter than ``curves.step_stall_min_seconds`` (a millisecond step
    that waits on a shared host now and then). A rate printed instead of a time counts by its inverse.
    A record that also ran an evaluation is timed with it: where enough records only train, the stalls
    are counted over those."""
    body = fin[1:]
    n_min = out.p["curves.step_stall_min_points"]
    evals = [(p.x0, p.x1) for r in ("val_loss", "val_accuracy") if log.get(r) is not None
             for p in log.get(r).finite_points()]
    train_only = [p for p in body if not any(a <= p.x1 and p.x0 <= b for a, b in evals)]
    if len(train_only) >= n_min:
        body = train_only
    if len(body) < n_min:
        return
    med = median(p.mean for p in body)
    if not med > 0:
        return
    # a stall is both several typical steps long and long enough to lose time a user notices: a
    # millisecond step that waits on a shared host's scheduler now and then is no stalled loader
    cut = max(out.p["curves.step_stall_ratio"] * med, out.p["curves.step_stall_min_seconds"])
    stalls = [p for p in body if p.mean >= cut]
    if len(stalls) < out.p["curves.step_stall_min_count"]:
        stalls = []   # a one-off: a checkpoint, an evaluation the axis does not show, a hiccup
    detail = (f"{len(stalls)} of {len(body)} records after the first take {_fmt(out.p['curves.step_stall_ratio'])}x "
              f"the median time per {log.x_label} ({_fmt(med)} s) or more"
              + (f", the longest {_fmt(max(p.mean for p in stalls))} s" if stalls else ""))
    out.add("step_time_stalls", len(stalls) / len(body), body[0].x0, body[-1].x1, detail)


def _step_time_slowdown(log, fin: list, out: _Out) -> None:
    """step_time_slowdown: the step time's last-third median over its first-third median (by step
    position), given only where the step time outgrows the axis itself - by
    ``curves.step_time_clock_margin`` times the axis' own last-third / first-third growth or more. An
    elapsed clock printed on each line (``time: 12`` seconds since the start, or since the epoch
    began) grows with the step counter that it times, so it never outgrows it by that margin; a run
    that slows down partway (a step at 1 s, then 70 s; a throughput falling from 1500 to 490 samples
    per second within a few records) does. An axis that starts at zero has no growth to compare, and
    one that repeats a step (two ranks, or a restart, printing the same counter) times no single run.
    A step time slower at every record than at the one before (a steady climb over a short excerpt,
    where a third is one or two records) is measured from its first record to its last."""
    xs = [p.x for p in fin]
    if len(fin) < out.p["curves.slowdown_min_points"] or any(b <= a for a, b in zip(xs, xs[1:])):
        return
    ys = [p.mean for p in fin]
    climbs = all(b > a for a, b in zip(ys, ys[1:]))
    if climbs:   # slower at every record: no scatter to be robust to, so measured end to end
        r = (ys[0], ys[-1], ys[-1] / ys[0] if ys[0] > 0 else math.inf)
        ax = (xs[0], xs[-1], xs[-1] / xs[0] if xs[0] > 0 else math.inf)
    else:
        r = _thirds_ratio(xs, ys, out.p["curves.slowdown_min_points"])
        ax = _thirds_ratio(xs, xs, out.p["curves.slowdown_min_points"])
    if r is None or ax is None or not (r[0] > 0 and ax[0] > 0) or not math.isfinite(r[2]):
        return
    a, b, ratio = r
    if ratio < out.p["curves.step_time_clock_margin"] * ax[2]:
        return
    where = ("at the first record", "at the last") if climbs else ("median in the first third", "in the last")
    out.add("step_time_slowdown", ratio, fin[0].x0, fin[-1].x1,
            f"time per {log.x_label}: {where[0]} {_fmt(a)} s, {where[1]} {_fmt(b)} s "
            f"({_fmt(ratio)}x, while the {log.x_label} counter grew {_fmt(ax[2])}x)")


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
    # an excerpt: the run began long before its first record (more unseen than shown), so a flat
    # stretch in it is a run that stopped improving, not one that never started
    ratio = out.p["curves.mid_run_start_ratio"]
    # a whole step or epoch counts from 1 (epoch 1 is the start); a fraction of an epoch (a trainer's
    # ``'epoch': 0.38``) counts from 0, so any part of an epoch before the first record is unseen run
    fractional = log.x_label == "epoch" and not float(a).is_integer()
    mid = (a > 1 or fractional) and a >= ratio * max(b - a, 0)
    # steps counted within the excerpt (a progress counter, or rows printed under one epoch number)
    # hide where the run was: the epoch number printed beside them does not (``Epoch 145/150`` over five epochs of bars)
    first_epoch, epochs = getattr(log, "first_epoch", None), getattr(log, "epochs", 0)
    if not mid and log.x_label in ("step", "row") and first_epoch is not None and epochs and first_epoch > 1:
        mid = first_epoch - 1 >= ratio * epochs
        if mid:
            out.add("log_starts_mid_run", True, a, b,
                    f"the log starts at epoch {_fx(first_epoch)}, after more of the run than it shows "
                    f"({epochs} epoch{'s' if epochs != 1 else ''})")
            return
    out.add("log_starts_mid_run", bool(mid), a, b,
            f"the log starts at {what[:-1]} {_fx(a)}, " + (
                f"after more of the run than it shows ({_fx(b - a)} {what})" if mid
                else "at or near the run's start"))


__all__ = ["analyze", "CurveAnalysis", "Curve", "Event"]
