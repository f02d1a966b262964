"""Read the metrics log a user already has: CSV, JSON lines, JSON documents, TensorBoard events.

Entry points
------------
``read_log(path, column_map=None) -> LogData``
    Stream the file once and reduce it to bounded per-metric summaries (see *Streaming*).
``analyze_log(path, num_classes=None, column_map=None) -> (list[Finding], CurveAnalysis)``
    ``read_log`` followed by :func:`traindx.probes.readers.curves.analyze`; the findings are facts of the
    ``log:curves`` evidence source (``kb/sources.yaml``).

Formats
-------
- **CSV** (also tab- or semicolon-separated): one header row, then one row per logged step. Empty
  cells, ``NA``, ``null``, ``None`` are missing values; ``nan``/``inf`` are real non-finite values.
  Lines starting with ``#`` and a repeated header row (a run appended to the same file) are skipped.
  Cells written as ``str(tensor)`` (``tensor(0.51, grad_fn=...)``) are read as the number.
- **JSON lines** (``.jsonl``): one object per line; nested objects are flattened with ``/``
  (``{"train": {"loss": 1}}`` is the column ``train/loss``). Keys may differ between lines
  (Hugging Face ``Trainer`` writes ``loss`` lines and ``eval_loss`` lines).
- **JSON document**: a list of such objects, Hugging Face ``trainer_state.json``
  (``log_history``), or a Keras ``History.history`` dict of equal-length lists.
- **TensorBoard**: an ``events.out.tfevents.*`` file or a folder searched recursively, read with
  the ``tensorboard`` package's own ``EventFileLoader`` (``pip install traindx[tensorboard]``;
  imported only for this format). Scalar tags play the role of columns; a sub-folder written by
  ``SummaryWriter.add_scalars("Loss", {"val": ...})`` reads as ``Loss_val/Loss``. Wall times of
  the loss events give the time per step. A record cut off at the end of a file still being
  written is ignored, as TensorBoard itself does.

Column names
------------
Each column (or tag) is given a *role*: ``loss`` (training loss), ``val_loss``, ``accuracy``
(training), ``val_accuracy``, ``lr``, ``grad_norm``, ``step_time``, ``time`` and the x axis
``step`` or ``epoch`` (``step`` wins when both exist; without either the row number is the step).
Names are compared lower-cased with every run of non-alphanumerics turned into ``_`` (so
``train/loss``, ``Loss/train`` and ``train-loss`` all work). :data:`ALIASES` lists the known
spellings, best first; in addition any name made only of ``loss``/``acc``/``accuracy``, a split
word (``train``, ``val``, ``valid``, ``validation``, ``eval``, ``test``, ``dev``) and filler words
(``avg``, ``mean``, ``epoch``, ``step``, ...) is recognised, so ``avg_val_loss`` is ``val_loss``
but ``loss_scale`` and ``kd_loss`` are left alone. Accuracies logged as percentages are converted
to fractions: a series whose largest value is above 1 (a fraction cannot be) is divided by 100 —
so 1.02 % at chance on 100 classes is caught, not only values above 1.5.

Other names are mapped with ``column_map`` — a dict ``{role: column}`` or the command-line string
form ``"loss=my_loss,val_loss=vloss,step=it"`` (see :func:`parse_column_map`). A mapped column
that is not in the log is an error.

Streaming
---------
Nothing keeps all rows. CSV is read in ~64 KiB blocks and each needed column is converted with
C-level ``map(float, ...)``; each metric feeds a :class:`Series`, which keeps

- running statistics over every row: count, non-finite count and the steps of the first 100
  non-finite values, min/max, the last value and the length of a trailing non-finite run;
- the first :data:`HEAD_ROWS` raw values (the true start of the curve);
- a downsampled curve of at most :data:`MAX_POINTS` buckets of equal row count: each bucket holds
  step range, count, sum, sum of squares, min and max. When the buckets fill up, neighbours are
  merged pairwise and the bucket size doubles, so memory is O(MAX_POINTS) whatever the length,
  and a log shorter than MAX_POINTS rows is kept exactly (one row per bucket).

Restarts (the step goes back, as when a job resumes from a checkpoint) truncate the curve to the
steps before the new start and go on from there; the all-rows statistics still include the
discarded rows, and the restart is listed in ``LogData.restarts``. Rows at unequal step intervals
are fine: the analysis works in steps, not in row numbers.

Errors
------
Everything wrong with the file — missing, empty, binary, not UTF-8, malformed, a cut-off last
line, no recognised column, a non-number in a metric column — raises
:class:`~traindx.engine.errors.InputError` naming the file and, where it applies, the line.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from collections import namedtuple
from dataclasses import dataclass, field
from operator import add, itemgetter, le, mul, sub, truediv
from typing import Any
from collections.abc import Iterable

from traindx.engine import bounded
from traindx.engine.errors import InputError, RLLogError  # RLLogError: re-exported, its home is engine.errors
from traindx.engine.parameters import resolve

from .loss_scale import ROLE as LOSS_SCALE
from .words import CAMEL_HUMP, LogWords, log_words, normalize_name  # noqa: F401 (CAMEL_HUMP: re-exported)

#: The evidence source (``kb/sources.yaml``) this module implements.
SOURCE_ID = "log:curves"

#: Facts this reader can produce (the ``log:curves`` entry of ``kb/sources.yaml``).
FACTS = (
    "loss_trend", "initial_loss", "current_loss", "loss_decrease_fraction", "loss_has_nonfinite",
    "nan_first_step", "loss_spikes", "loss_noise", "oscillation_trend", "train_accuracy",
    "val_accuracy", "val_accuracy_best", "val_auc_best", "loss_shape_mismatch", "loss_broadcast_expands",
    "train_loss", "val_loss", "val_loss_trend", "best_val_fraction",
    "step_time_trend", "learning_rate", "lr_final_ratio", "lr_collapse_fraction", "lr_rising", "grad_norm_max",
    "grad_norm_trend", "loss_negative", "run_length_steps", "loss_at_chance", "lr_decay_helps",
    # the pace reader (pace.py), a console log's held-out test, and where the log starts
    "loss_pace", "test_accuracy", "test_loss", "log_starts_mid_run", "loss_creeping", "loss_frozen",
    "loss_late_drift",
    "oscillation_pattern",
    # a console log: a loss clamped at the float floor, data-loading time beside the step time
    "loss_at_float_floor", "data_time_fraction", "accuracy_trend", "val_accuracy_trend",
    # what the evaluations alone say (a short excerpt too)
    "val_frozen", "val_still_improving", "val_loss_swing", "val_accuracy_swing", "val_at_best", "run_frozen",
    "val_mirrors_train", "val_tracks_train",
    "loss_values_recur", "loss_final_jump", "loss_blowup", "grad_norm_spike", "accuracy_all_zero",
    # how far the loss climbs back from its low; a gradient norm that overflows before the loss
    "loss_climb_back", "grad_norm_nonfinite_first", "grad_norm_blowup", "speed_only",
    # a console log's loss scaler settling
    "loss_scale_warmup", "loss_scale_collapsed",
    # a validation rise the training loss shares (no overfitting); a validation loss that ends NaN/Inf
    "val_rise_shared", "val_loss_nonfinite",
    # a loss that drops from an ordinary value straight to zero and stays there
    "loss_fell_to_zero",
    # an accuracy that had learned and ends at zero (no answer right: NaN outputs)
    "accuracy_collapsed",
    # a console log's Cohen's kappa (0: chance agreement)
    "kappa_best",
    # the best score of a detector's evaluation summaries (0: it finds nothing)
    "detection_score_best",
    # how much of the shown run a levelled-off loss has been flat for
    "loss_flat_share",
    # how many validation evaluations the log shows (one is a level, not a course)
    "val_evaluations",
    # how often the step time stalls at several times its median
    "step_time_stalls",
    # how much slower the step grew than its counter (a run that slows down partway)
    "step_time_slowdown",
    # lines of a console text that print a speed apart from its metrics
    "speed_lines_apart",
    # NumPy's warning that a line of the script made NaN in an array (console text)
    "script_made_nan",
)

#: At most this many buckets per metric (the downsampled curve).
MAX_POINTS = 2048
#: Raw values kept from the start of each metric.
HEAD_ROWS = 64
#: Steps of non-finite values remembered per metric (the count is always exact).
MAX_NONFINITE_STEPS = 100

_CSV_BLOCK = 1 << 16  # bytes per CSV read: small blocks keep the parser's lists in cache

#: Metric and axis roles, and the names the user may use for them in ``column_map``.
ROLES = ("loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm", "step_time", "time",
         "step", "epoch")
_ROLE_ALIASES = {
    "train_loss": "loss", "training_loss": "loss",
    "acc": "accuracy", "train_acc": "accuracy", "train_accuracy": "accuracy",
    "val_acc": "val_accuracy",
    "learning_rate": "lr",
    "global_step": "step", "iteration": "step", "iter": "step",
    "gradient_norm": "grad_norm",
}
_X_ROLES = ("step", "epoch")
#: the metrics a log must hold to be judged (curves), and what makes a record a metric record, not settings
_CURVE_ROLES = ("loss", "val_loss", "accuracy", "val_accuracy")
_METRIC_ROLES = (*_CURVE_ROLES, "lr", "grad_norm", "step_time",
                 "time", LOSS_SCALE)
_PERCENT_ROLES = ("accuracy", "val_accuracy")
#: An accuracy series whose largest value exceeds this is in percent (a fraction cannot pass 1).
_PERCENT_THRESHOLD = 1.001

#: How many names an error message lists (the rest are counted, not shown): presentation.
_SHOWN_NAMES = 30
_SHOWN_MISSING = 20
_SHOWN_RL_NAMES = 6
_SHOWN_TIES = 5
#: How much of a file is read to tell its format (64 KiB), and how large a block of JSON lines is
#: read at once (256 KiB): bounds on work, not knowledge.
_SNIFF_BYTES = 1 << 16
_JSONL_BLOCK_BYTES = 1 << 18
_MISSING = {"", "na", "n/a", "null", "none", "nil", "-", "--", "?", "missing"}
_TENSOR_RE = re.compile(r"^\s*tensor\(\s*\[?\s*([-+]?(?:[0-9.]+(?:[eE][-+]?[0-9]+)?|nan|inf))",
                        re.IGNORECASE)

#: a terminal escape sequence (CSI colour/cursor codes, OSC titles/links): text, not binary data
_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z])")
Point = namedtuple("Point", "x0 x1 x n nonfinite mean lo hi sd")
Point.__doc__ = """One bucket of the downsampled curve: rows at steps ``x0..x1`` (``x`` = middle),
``n`` finite values with ``mean``/``lo``/``hi``/``sd`` (``sd`` = within-bucket standard deviation,
0 for a one-row bucket) and ``nonfinite`` NaN/Inf values. ``mean`` is None when ``n == 0``."""


def parse_column_map(spec: str | dict | None) -> dict[str, str]:
    """Normalise a column map: ``{"loss": "my_loss"}`` or the CLI string ``"loss=my_loss,step=it"``.

    Keys are roles (:data:`ROLES`; ``train_loss``, ``acc``, ``val_acc``, ``learning_rate``,
    ``global_step`` ... are accepted for them); values are column or tag names exactly as in the
    log. Raises InputError for an unknown role or a malformed string.
    """
    if spec is None:
        return {}
    if isinstance(spec, str):
        pairs = {}
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            if "=" not in part:
                raise InputError(f"column map entry {part!r} is not ROLE=COLUMN",
                                 hint="write it like loss=my_loss,val_loss=vloss")
            role, col = (s.strip() for s in part.split("=", 1))
            if not role or not col:
                raise InputError(f"column map entry {part!r} is not ROLE=COLUMN",
                                 hint="write it like loss=my_loss,val_loss=vloss")
            pairs[role] = col
        spec = pairs
    if not isinstance(spec, dict):
        raise InputError(f"column map must be a dict or a ROLE=COLUMN,... string, not {type(spec).__name__}")
    out: dict[str, str] = {}
    for role, col in spec.items():
        key = normalize_name(role)
        key = _ROLE_ALIASES.get(key, key)
        if key not in ROLES:
            raise InputError(f"unknown role {role!r} in column map",
                             hint="roles: " + ", ".join(ROLES))
        out[key] = str(col)
    return out


def _fmt_x(x: float | int | None) -> str:
    if x is None:
        return "?"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


class _BadValue(ValueError):
    pass


def _to_float(s: Any) -> float | None:
    """A cell or JSON value as float; None when missing; _BadValue when it is not a number."""
    if type(s) is not str:
        if isinstance(s, float):
            return s
        if s is None:
            return None
        if isinstance(s, int) and not isinstance(s, bool):
            try:
                return float(s)
            except OverflowError:            # past float range, as the text "1e400" reads: an infinity
                return math.inf if s > 0 else -math.inf
        raise _BadValue(s)
    try:
        return float(s)
    except ValueError:
        t = s.strip().lower()
        if t in _MISSING:
            return None
        m = _TENSOR_RE.match(s)
        if m:
            return float(m.group(1))
        raise _BadValue(s) from None


# --------------------------------------------------------------------------------------------
# The bounded per-metric summary
# --------------------------------------------------------------------------------------------

#: Readers buffer this many raw values of a metric before handing them to Series.extend (one call,
#: not one per row): a bound on memory and call overhead, not knowledge.
FLUSH_ROWS = 4096


class Series:
    """One metric of a log, reduced as it streams by (see the module docstring, *Streaming*).

    Read it with :attr:`points` (the downsampled curve), :attr:`head` (first raw values) and the
    running statistics: ``rows``, ``finite``, ``nonfinite``, ``nonfinite_steps`` (first 100),
    ``min``/``max`` (finite values of every row), ``last_value``/``last_x``, ``first_x``,
    ``trailing_nonfinite`` (length of the non-finite run the series ends with) and
    ``trailing_nonfinite_x`` (its first step), ``rows_per_point``, ``restarts`` ([(from, to)]).
    """

    def __init__(self, role: str, column: str, want_sq: bool = True):
        self.role = role
        self.column = column
        self._want_sq = want_sq
        self.rows = 0
        self.finite = 0
        self.nonfinite = 0
        self.nonfinite_steps: list = []
        self.min = math.inf
        self.max = -math.inf
        self.first_x = None
        self.last_x = None
        self.last_value = None
        self.trailing_nonfinite = 0
        self.trailing_nonfinite_x = None
        self.head: list[tuple] = []
        self.restarts: list[tuple] = []
        self.scale_factor = 1.0
        self.rows_per_point = 1
        # closed buckets, as parallel lists
        self._x0: list = []
        self._x1: list = []
        self._n: list = []
        self._nf: list = []
        self._sum: list = []
        self._sq: list = []
        self._lo: list = []
        self._hi: list = []
        self._open_reset()
        self._points = None

    # -- feeding ---------------------------------------------------------------------------
    def _open_reset(self):
        self._ox0 = None
        self._ox1 = None
        self._orows = 0
        self._on = 0
        self._onf = 0
        self._osum = 0.0
        self._osq = 0.0
        self._olo = math.inf
        self._ohi = -math.inf

    def extend(self, xs: list, ys: list, monotonic: bool = False) -> None:
        """Add values ``ys`` at steps ``xs`` (same length). A step going back is a restart.
        ``monotonic=True`` promises that ``xs`` never goes back (skips the check)."""
        if not ys:
            return
        self._points = None
        start = 0
        if (self.last_x is not None and xs[0] < self.last_x) or (
                not monotonic and not all(map(le, xs, xs[1:]))):
            prev = self.last_x
            for i, x in enumerate(xs):
                if prev is not None and x < prev:
                    if i > start:
                        self._extend_mono(xs[start:i], ys[start:i])
                    self._restart(x)
                    start = i
                prev = x
        if start:
            xs, ys = xs[start:], ys[start:]
        self._extend_mono(xs, ys)

    def restart_from(self, x) -> None:
        """A restart whose new start ``x`` lies at or before the last step (a run begun again whose first
        record fell past an earlier run's last one): the curve keeps only the steps before ``x``."""
        if self.last_x is not None and x <= self.last_x:
            self._restart(x)

    def _restart(self, x) -> None:
        self.restarts.append((self.last_x, x))
        while self._x0 and self._x0[-1] >= x:
            for lst in (self._x0, self._x1, self._n, self._nf, self._sum, self._sq, self._lo,
                        self._hi):
                lst.pop()
        if self._ox0 is not None and self._ox0 >= x:
            self._open_reset()
        self.head = [(hx, hy) for hx, hy in self.head if hx < x]
        self.trailing_nonfinite = 0
        self.trailing_nonfinite_x = None
        self.last_x = None

    def _extend_mono(self, xs: list, ys: list) -> None:
        n = len(ys)
        if self.first_x is None:
            self.first_x = xs[0]
        if len(self.head) < HEAD_ROWS:
            k = HEAD_ROWS - len(self.head)
            self.head.extend(zip(xs[:k], ys[:k]))
        self.rows += n
        isfinite = math.isfinite
        i = 0
        while i < n:
            take = min(self.rows_per_point - self._orows, n - i)
            sl = ys[i:i + take]
            if self._ox0 is None:
                self._ox0 = xs[i]
            self._ox1 = xs[i + take - 1]
            s = sum(sl)
            if isfinite(s):
                fin = sl
            else:
                fin = [v for v in sl if isfinite(v)]
                bad = take - len(fin)
                self._onf += bad
                self.nonfinite += bad
                room = MAX_NONFINITE_STEPS - len(self.nonfinite_steps)
                if room > 0:
                    self.nonfinite_steps.extend(
                        [xs[i + k] for k, v in enumerate(sl) if not isfinite(v)][:room])
                s = sum(fin)
            if fin:
                self._on += len(fin)
                self.finite += len(fin)
                self._osum += s
                if self._want_sq:
                    self._osq += sum(map(mul, fin, fin))
                lo, hi = min(fin), max(fin)
                if lo < self._olo:
                    self._olo = lo
                    if lo < self.min:
                        self.min = lo
                if hi > self._ohi:
                    self._ohi = hi
                    if hi > self.max:
                        self.max = hi
            self._orows += take
            i += take
            if self._orows >= self.rows_per_point:
                self._close()
        # trailing non-finite run
        last = ys[-1]
        if isfinite(last):
            self.trailing_nonfinite = 0
            self.trailing_nonfinite_x = None
        else:
            k = n - 1
            while k > 0 and not isfinite(ys[k - 1]):
                k -= 1
            run = n - k
            if k == 0 and self.trailing_nonfinite:
                self.trailing_nonfinite += run
            else:
                self.trailing_nonfinite = run
                self.trailing_nonfinite_x = xs[k]
        self.last_value = last
        self.last_x = xs[-1]

    def _close(self) -> None:
        self._x0.append(self._ox0)
        self._x1.append(self._ox1)
        self._n.append(self._on)
        self._nf.append(self._onf)
        self._sum.append(self._osum)
        self._sq.append(self._osq)
        self._lo.append(self._olo)
        self._hi.append(self._ohi)
        self._open_reset()
        if len(self._x0) >= MAX_POINTS:
            self._merge_pairs()

    def _merge_pairs(self) -> None:
        def pair(lst, f):
            out = [f(lst[k], lst[k + 1]) for k in range(0, len(lst) - 1, 2)]
            if len(lst) % 2:
                out.append(lst[-1])
            return out
        self._x0 = self._x0[::2]
        self._x1 = self._x1[1::2] + ([self._x1[-1]] if len(self._x1) % 2 else [])
        self._n = pair(self._n, add)
        self._nf = pair(self._nf, add)
        self._sum = pair(self._sum, add)
        self._sq = pair(self._sq, add)
        self._lo = pair(self._lo, min)
        self._hi = pair(self._hi, max)
        self.rows_per_point *= 2

    def scale(self, factor: float) -> None:
        """Multiply every stored value by ``factor`` (percent -> fraction)."""
        self._points = None
        self.scale_factor *= factor
        f2 = factor * factor
        self._sum = [v * factor for v in self._sum]
        self._sq = [v * f2 for v in self._sq]
        lo = [v * factor for v in self._lo]
        hi = [v * factor for v in self._hi]
        self._lo, self._hi = (lo, hi) if factor > 0 else (hi, lo)
        self._osum *= factor
        self._osq *= f2
        self._olo, self._ohi = self._olo * factor, self._ohi * factor
        if factor < 0:
            self._olo, self._ohi = self._ohi, self._olo
        self.min, self.max = self.min * factor, self.max * factor
        if factor < 0:
            self.min, self.max = self.max, self.min
        self.head = [(x, y * factor) for x, y in self.head]
        if self.last_value is not None:
            self.last_value *= factor

    # -- reading -----------------------------------------------------------------------------
    @property
    def points(self) -> list[Point]:
        """The downsampled curve: at most :data:`MAX_POINTS` :class:`Point` s in step order."""
        if self._points is None:
            x0, x1, n, nf = list(self._x0), list(self._x1), list(self._n), list(self._nf)
            sm, sq, lo, hi = list(self._sum), list(self._sq), list(self._lo), list(self._hi)
            if self._orows:
                x0.append(self._ox0)
                x1.append(self._ox1)
                n.append(self._on)
                nf.append(self._onf)
                sm.append(self._osum)
                sq.append(self._osq)
                lo.append(self._olo)
                hi.append(self._ohi)
            pts = []
            for a, b, c, d, s, q, l, h in zip(x0, x1, n, nf, sm, sq, lo, hi):
                if c:
                    mean = s / c
                    var = q / c - mean * mean if c > 1 and self._want_sq else 0.0
                    sd = math.sqrt(var) if var > 0 else 0.0
                    pts.append(Point(a, b, (a + b) / 2 if a != b else a, c, d, mean, l, h, sd))
                else:
                    pts.append(Point(a, b, (a + b) / 2 if a != b else a, 0, d, None, None, None,
                                     None))
            self._points = pts
        return self._points

    def finite_points(self) -> list[Point]:
        return [p for p in self.points if p.n]

    def __repr__(self) -> str:
        return (f"Series({self.role!r} from {self.column!r}: {self.rows} rows, "
                f"{self.nonfinite} non-finite, {len(self.points)} points)")


class StepTimer:
    """Time stamps (cumulative) -> time per step, as a Series of ``dt / dstep``."""

    def __init__(self, column: str):
        self.column = column
        self.prev: tuple | None = None
        self.pairs = 0
        self.decreases = 0
        self.series = Series("step_time", f"{column} (differences)", want_sq=False)

    def feed(self, xs: list, ts: list) -> None:
        if not ts:
            return
        if self.prev is not None:
            xs = [self.prev[0]] + list(xs)
            ts = [self.prev[1]] + list(ts)
        dts = list(map(sub, ts[1:], ts[:-1]))
        dxs = list(map(sub, xs[1:], xs[:-1]))
        if dts and min(dts) > 0 and min(dxs) > 0 and math.isfinite(sum(dts)):
            ox, oy = xs[1:], list(map(truediv, dts, dxs))
        else:
            ox, oy = [], []
            for x1, dx, dt in zip(xs[1:], dxs, dts):
                if dt < 0:
                    self.decreases += 1
                if dx > 0 and dt > 0 and math.isfinite(dt):
                    ox.append(x1)
                    oy.append(dt / dx)
        self.pairs += len(xs) - 1
        self.series.extend(ox, oy)
        self.prev = (xs[-1], ts[-1])

    def looks_cumulative(self, params=None) -> bool:
        """Time stamps only go back at restarts; per-step durations go up and down. A column that goes
        back between at most ``logs.time_stamp_back_share`` of its consecutive rows is time stamps."""
        share = resolve(params)["logs.time_stamp_back_share"]
        return self.series.rows > 0 and self.decreases <= share * self.pairs


# --------------------------------------------------------------------------------------------
# LogData
# --------------------------------------------------------------------------------------------

@dataclass
class LogData:
    """What :func:`read_log` returns: the file's metrics, reduced.

    ``series[role]`` is a :class:`Series` for each role found (``loss``, ``val_loss``,
    ``accuracy``, ``val_accuracy``, ``lr``, ``grad_norm``, ``step_time``); ``columns[role]`` is the
    column or tag it came from; ``x_label`` is ``"step"``, ``"epoch"`` or ``"row"``; ``rows`` is
    the number of data rows (scalar events for TensorBoard); ``notes`` are one-line remarks for
    the user (percent accuracies converted, restarts); ``restarts`` lists ``(from, to)`` steps.
    A ``time`` column of time stamps becomes ``step_time`` (differences per step); one that goes
    up and down is taken as a duration per row (``time_kind`` says which).
    """

    path: str
    format: str
    x_label: str = "row"
    x_column: str | None = None
    rows: int = 0
    series: dict = field(default_factory=dict)
    columns: dict = field(default_factory=dict)
    ignored_columns: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    restarts: list = field(default_factory=list)
    time_kind: str | None = None
    #: what the run itself said about its validation metrics (a checkpoint callback's "val_loss
    #: did not improve from 0.266"): ``{role: (stated best or None, evaluations without
    #: improvement since the last improvement, line)}``; empty for a table of numbers
    verdicts: dict = field(default_factory=dict)
    _timer: Any = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.path))

    @property
    def roles(self) -> list[str]:
        return list(self.series)

    def __contains__(self, role: str) -> bool:
        return role in self.series

    def __getitem__(self, role: str) -> Series:
        return self.series[role]

    def get(self, role: str) -> Series | None:
        return self.series.get(role)

    # -- building (readers) ------------------------------------------------------------------
    def _series(self, role: str, column: str) -> Series:
        s = self.series.get(role)
        if s is None:
            s = self.series[role] = Series(role, column, want_sq=role in ("loss", "val_loss"))
            self.columns[role] = column
        return s

    def _feed_time(self, xs: list, ts: list) -> None:
        if self._timer is None:
            self._timer = StepTimer(self.columns.get("time", "time"))
        self._timer.feed(xs, ts)

    def _finish(self, params=None) -> None:
        for role in _PERCENT_ROLES:
            s = self.series.get(role)
            if s is not None and _PERCENT_THRESHOLD < s.max <= 100.0:
                s.scale(0.01)
                self.notes.append(f"{role} ({s.column}) looks like percent; read as fractions")
        t = self.series.pop("time", None)
        self.columns.pop("time", None)
        if "step_time" not in self.series:
            timer = self._timer
            if timer is not None and timer.looks_cumulative(params):
                self.series["step_time"] = timer.series
                self.columns["step_time"] = timer.series.column
                self.time_kind = "cumulative"
            elif t is not None:
                t.role = "step_time"
                self.series["step_time"] = t
                self.columns["step_time"] = t.column
                self.time_kind = "duration"
        seen = set()  # one restart per step it went back from (metrics share the x column)
        for role, s in self.series.items():
            if role == "step_time" and self.time_kind == "cumulative":
                continue  # derived from another column: its restarts are that column's
            for a, b in s.restarts:
                if a not in seen:
                    seen.add(a)
                    self.restarts.append((a, b))
        self.restarts.sort(key=lambda r: r[0] if r[0] is not None else -math.inf)
        for a, b in self.restarts:
            self.notes.append(f"{self.x_label} goes back from {_fmt_x(a)} to {_fmt_x(b)} "
                              f"(a restart): the curve continues from the new start")
        for role in [r for r, s in self.series.items() if s.rows == 0]:
            del self.series[role]
            self.columns.pop(role, None)


# --------------------------------------------------------------------------------------------
# Column binding shared by the readers
# --------------------------------------------------------------------------------------------

def _bind_columns(names: Iterable[str], column_map: dict[str, str], path: str,
                  line: int | None = None, strict_map: bool = True, *, words: LogWords) -> tuple[dict, list]:
    """{role: column} for the best column of each role, and the unused names (``words``: the
    knowledge base's vocabulary, :func:`~traindx.probes.readers.words.log_words`)."""
    names = list(names)
    best: dict[str, tuple] = {}
    for role, col in column_map.items():
        if col in names:
            best[role] = (-1, col)
        elif strict_map:
            raise InputError(f"mapped column {col!r} (for {role}) is not in the log; it has: "
                             + ", ".join(repr(n) for n in names[:_SHOWN_NAMES]), path, line)
    mapped_cols = {c for _, c in best.values()}
    for name in names:
        if name in mapped_cols:
            continue
        if LOSS_SCALE not in best and words.names_a_loss_scale(name):
            best[LOSS_SCALE] = (0, name)   # a mixed-precision loss scale (fp16), never a loss
            continue
        m = words.match_role(name)
        if m is None:
            continue
        role, rank = m
        if role not in best or rank < best[role][0]:
            best[role] = (rank, name)
    if not best.keys() & set(_CURVE_ROLES):   # else: no metric at all
        named = _named_loss(names, mapped_cols, words)
        if named is not None:
            best[named[0]] = (words.last_resort_rank, named[1])
    bound = {role: col for role, (_, col) in best.items()}
    used = set(bound.values())
    return bound, [n for n in names if n not in used]


def _named_loss(names, skip, words: LogWords) -> tuple[str, str] | None:
    """(role, column) of the first column whose name holds a loss word with a qualifier of its
    own (``meta_loss``, ``val_recon_loss``): read as the loss when no column is plainly a loss or
    an accuracy (the log would otherwise have no metric at all). A
    train-side one wins over a validation one; None when there is none, or when the names are a
    reinforcement-learning run's (its policy and value losses are no supervised loss)."""
    if rl_metric_names(names, words):
        return None
    found = {}
    for name in names:
        if name in skip:
            continue
        role = words.names_a_loss(name)
        if role is not None:
            found.setdefault(role, name)
    for role in ("loss", "val_loss"):
        if role in found:
            return role, found[role]
    return None


def _x_role(bound: dict) -> str | None:
    for r in _X_ROLES:
        if r in bound:
            return r
    return None


#: a printed name followed by its number (``Last reward: 20``, ``episode 3``, ``epsilon=0.1``, a dict's
#: ``'reward': 1.7``)
#: (a name starts at a word's start and its parts are bounded: linear time on any text, even one
#: unbroken run of letters)
_NAME_BEFORE_NUMBER = re.compile(r"(?<![A-Za-z0-9_/.])([A-Za-z][A-Za-z0-9_/.]{0,47}"
                                 r"(?:[ _-][A-Za-z][A-Za-z0-9_]{0,31}){0,2})"
                                 r"['\"]?[ \t]{0,40}(?:[:=|][ \t]{0,40}|[ \t])[-+]?(?:\d|nan\b|inf\b)",
                                 re.IGNORECASE)


def rl_metric_names(names: Iterable[str], words: LogWords | None = None) -> list[str]:
    """:meth:`LogWords.rl_names` of ``words`` (None: the shipped knowledge base's vocabulary): the
    names that say the run is reinforcement learning, empty when they do not."""
    return (words or log_words()).rl_names(names)


def rl_names_in_text(text: str, words: LogWords | None = None) -> list[str]:
    """:func:`rl_metric_names` of the names printed before numbers in ``text`` (the head of a
    console log: an RL run prints its rewards from its first episode)."""
    return rl_metric_names((m.group(1).strip() for m in _NAME_BEFORE_NUMBER.finditer(text)), words)


def reward_names_in_text(text: str, words: LogWords | None = None) -> list[str]:
    """The names printed before numbers in ``text`` that name an agent's reward on their own
    (:meth:`LogWords.reward_alone_names`): a console log that prints nothing else is an RL run's."""
    return (words or log_words()).reward_alone_names(m.group(1).strip() for m in _NAME_BEFORE_NUMBER.finditer(text))


def _no_metric_error(names, path, words: LogWords, line=None) -> InputError:
    shown = ", ".join(repr(n) for n in list(names)[:_SHOWN_MISSING])
    rl = rl_metric_names(names, words)
    if rl:
        return RLLogError(f"the log records rewards ({', '.join(repr(n) for n in rl[:_SHOWN_RL_NAMES])}), "
                          "not a supervised loss: a reinforcement-learning run", path, line, rl)
    return InputError(f"no loss, accuracy or other known metric among the columns ({shown})",
                      path, line,
                      hint="name yours with a column map, e.g. loss=my_loss,val_loss=my_val")


# --------------------------------------------------------------------------------------------
# Format detection and text checks
# --------------------------------------------------------------------------------------------

def _first_bad_utf8_line(path: str) -> tuple[int, str]:
    with open(path, "rb") as f:
        for i, raw in enumerate(f, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return i, f"byte 0x{raw[e.start]:02x}"
    return 0, "?"


def _not_utf8(path: str) -> InputError:
    line, what = _first_bad_utf8_line(path)
    return InputError(f"not UTF-8 text ({what}); a metrics log must be UTF-8", path, line or None,
                      hint="re-save the file as UTF-8")


def _sniff(path: str, lim: bounded.Limits, words: LogWords) -> str:
    """'csv', 'jsonl', 'json' or 'tensorboard'; InputError for empty/binary/non-UTF-8 files."""
    lim = lim or bounded.limits()
    if os.path.isdir(path):
        return "tensorboard"
    base = os.path.basename(path)
    if "tfevents" in base:
        return "tensorboard"
    with open(path, "rb") as f:
        sample = f.read(_SNIFF_BYTES)
    if not sample.strip():
        n = sample.count(b"\n") + (1 if sample and not sample.endswith(b"\n") else 0)
        raise InputError("empty log file (0 lines: no header, no rows)" if not n else
                         f"empty log file: {n:,} blank line(s) (lines 1-{n:,}), no header, no rows", path)
    if b"\x00" in sample:
        raise InputError("binary data (a NUL byte), not a CSV, JSON-lines or TensorBoard log", path,
                         sample[: sample.index(b"\x00")].count(b"\n") + 1,
                         hint="pass a TensorBoard log as its events.out.tfevents.* file or folder")
    cut = sample if len(sample) < (1 << 16) else sample[: sample.rfind(b"\n") + 1] or sample
    try:
        text, lossy = cut.decode("utf-8"), False
    except UnicodeDecodeError:
        # console output is a byte stream: a character cut in two (``tail -c``, a copy taken while
        # the run was still writing) or a legacy code page's byte must not cost the whole run; the
        # console reader replaces such bytes. Tables and JSON stay strict (their readers say where).
        text, lossy = cut.decode("utf-8", errors="replace"), True
    kind = _sniff_text(text.lstrip("\ufeff"), path, base, len(sample) >= (1 << 16), lim, words)
    if lossy and kind != "console":
        raise _not_utf8(path)
    return kind


def _sniff_text(text: str, path: str, base: str, partial: bool, lim: bounded.Limits, words: LogWords) -> str:
    """The format of a log from the decoded start of it (``partial``: the file goes on)."""
    # ASCII control characters, not counting terminal colour/cursor escapes (a coloured console log)
    bad = sum(1 for ch in _ANSI_ESCAPE.sub("", text) if ch < " " and ch not in "\t\r\n\f")
    if bad > max(2, len(text) // 100):
        raise InputError("binary data (control characters), not a CSV or JSON-lines log", path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        first = stripped.split("\n", 1)[0].strip()
        if first == "[" or re.match(r"\[\s*[{\[]", first):
            return "json"
        if bounded.json_depth(stripped, lim.max_depth) > lim.max_depth:
            return "json"   # the JSON reader refuses it with its line, before json.loads recurses
        try:
            json.loads(stripped)
            return "json"
        except ValueError:
            return "console"  # "[2024-05-01 12:00:00 INFO] step 100 ..."
    if stripped.startswith("{"):
        first = stripped.split("\n", 1)[0].strip()
        try:
            if bounded.json_depth(first, lim.max_depth) > lim.max_depth:
                raise ValueError("too deep")   # the reader says so, with the line
            rec = json.loads(first)
            if isinstance(rec, dict):
                columnar = rec and all(isinstance(v, list) for v in rec.values())
                return "json" if columnar or "log_history" in rec else "jsonl"
        except ValueError:
            pass
        if base.endswith((".jsonl", ".ndjson")):
            return "jsonl"
        if bounded.json_depth(text, lim.max_depth) > lim.max_depth:
            return "json"   # the JSON reader refuses it with its line, before json.loads recurses
        try:
            json.loads(text)
            return "json"
        except ValueError:
            if _concatenated_dicts(text, words, partial=partial) is not None:
                return "json"   # metrics dicts printed with indent=, one after another
            return "console"  # printed dicts ({'loss': 1.2, ...}) or a truncated sample
    if not _looks_csv(text):
        return "console"
    return "console" if _printed_beside_rows(text) else "csv"


#: a name starts where a run of name characters starts: a 64 KB line of letters (a sniffed sample)
#: is searched in linear time, not the quadratic time an unanchored ``[A-Za-z_][\w.]*`` costs
_PRINTED_PAIR = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*\s*[=:]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.IGNORECASE)


def _printed_beside_rows(text: str) -> bool:
    """A CSV-shaped console output that also prints metrics outside its table (``# test_loss=0.27
    test_acc=0.885`` after the last epoch, a ``Final: acc: 0.91`` line): the console reader reads the
    same table and those lines too; the CSV reader would skip them."""
    rows = [ln for ln in text.splitlines() if ln.strip()]
    head = next((ln for ln in rows if not ln.lstrip().startswith("#")), "")
    delim, width = _delimiter(head)
    return any(ln.count(delim) != width and _PRINTED_PAIR.search(ln) for ln in rows)


def _delimiter(head: str) -> tuple[str, int]:
    """The header line's delimiter (the commonest of ``,``, tab, ``;``) and how often it occurs."""
    counts = {d: head.count(d) for d in (",", "\t", ";")}
    delim = max(counts, key=counts.get)
    return delim, counts[delim]


def _looks_csv(text: str) -> bool:
    """The first content line is a delimited header of names and the next has as many fields."""
    rows = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")][:2]
    if not rows:
        return False
    head = rows[0]
    delim, width = _delimiter(head)
    if not width:
        return False
    cells = [c.strip() for c in head.split(delim)]
    if all(_is_number(c) for c in cells if c):
        return True  # numbers only: the CSV reader says the header is missing
    cells = [c[1:-1] if len(c) > 1 and c[0] == c[-1] == '"' else c for c in cells]
    if not all(re.fullmatch(r"[A-Za-z_%#(\[][\w.\-/()%@#\[\]]*(?: [\w.\-/()%@#\[\]]+){0,3}", c)
               or not c for c in cells):
        return False
    if len(rows) > 1 and rows[1].count(delim) != head.count(delim):
        return False
    return True


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

def _read_csv(path: str, column_map: dict, lim: bounded.Limits, words: LogWords) -> LogData:
    log = LogData(path=path, format="csv")
    try:
        f = open(path, encoding="utf-8-sig", newline="")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    with f:
        try:
            _read_csv_stream(f, path, column_map, log, lim, words)
        except UnicodeDecodeError:
            raise _not_utf8(path) from None
    return log


def _read_csv_stream(f, path: str, column_map: dict, log: LogData, lim: bounded.Limits, words: LogWords) -> None:
    header_line, line_no = _csv_header_line(f, path, lim)
    header, delim = _csv_header(header_line, path, line_no, lim)
    ncols = len(header)
    bound, unused = _bind_columns(header, column_map, path, line_no, words=words)
    xrole = _x_role(bound)
    metrics = {r: c for r, c in bound.items() if r in _METRIC_ROLES}
    if not any(r in metrics for r in _CURVE_ROLES):
        raise _no_metric_error(header, path, words, line_no)
    log.ignored_columns = unused
    if xrole:
        log.x_label, log.x_column = xrole, bound[xrole]
        xidx = header.index(bound[xrole])
    else:
        xidx = None
    cols = {r: header.index(c) for r, c in metrics.items()}
    series = {r: log._series(r, c) for r, c in metrics.items()}
    header_key = [h.strip() for h in header]
    rows_total = 0
    last_x = None
    last_before = None

    for start, lines in bounded.iter_line_blocks(f, path, lim, _CSV_BLOCK, line_no + 1):
        line_no += len(lines)
        cut = not lines[-1].endswith(("\n", "\r"))
        reader = csv.reader(lines, delimiter=delim)
        try:
            rows = list(reader)
        except csv.Error as e:
            raise InputError(f"malformed CSV: {e}", path, start + reader.line_num - 1) from None
        if delim != "," and any("," in ln for ln in lines):
            rows = _decimal_points(rows)
        row_lines = None
        if len(rows) != len(lines) or set(map(len, rows)) != {ncols}:
            rows, row_lines = _clean_rows(rows, lines, start, ncols, header_key, cut, path)
            if not rows:
                continue
        xs, colvals, cols = _convert_csv_block(rows, row_lines, start, cut, xidx, cols, rows_total, last_x,
                                               header, log, path)
        if not rows:  # the block held only repeated headers
            continue
        rows_total += len(rows)
        last_x = xs[-1]
        mono = (last_before is None or xs[0] >= last_before) and all(map(le, xs, xs[1:]))
        last_before = xs[-1]
        for role, (present, vals) in colvals.items():
            rx = xs if present is None else list(map(xs.__getitem__, present))
            if role == "time":
                log._feed_time(rx, vals)
            series[role].extend(rx, vals, monotonic=mono)
    if rows_total == 0:
        raise InputError("the log has a header but no data rows", path, line_no)
    log.rows = rows_total


#: a number written with a decimal comma (``14,119561``), as a European locale's spreadsheet or
#: ``df.to_csv(sep=";", decimal=",")`` writes it beside a ``;`` or tab delimiter
_DECIMAL_COMMA_CELL = re.compile(r"\s*[-+]?\d+,\d+(?:[eE][-+]?\d+)?\s*")


def _decimal_points(rows: list) -> list:
    """Rows of a ``;``- or tab-delimited file with each decimal-comma number written with a point
    (a comma there cannot be the delimiter, so ``0,200000`` is 0.2, never two cells)."""
    full = _DECIMAL_COMMA_CELL.fullmatch
    return [[c.replace(",", ".") if "," in c and full(c) else c for c in row] for row in rows]


def _csv_header_line(f, path: str, lim: bounded.Limits) -> tuple[str, int]:
    """The first line that is neither blank nor a # comment, and its line number."""
    line_no = 0
    while True:
        header_line = f.readline(lim.max_line_chars + 1)
        if not header_line:
            raise InputError("empty log file (no header, no rows)", path)
        line_no += 1
        if len(header_line) > lim.max_line_chars:
            raise InputError(f"line longer than {lim.max_line_chars} characters", path, line_no,
                             hint="limits.max_line_chars in kb/parameters/limits.yaml")
        if header_line.strip() and not header_line.lstrip().startswith("#"):
            return header_line, line_no


def _csv_header(header_line: str, path: str, line_no: int, lim: bounded.Limits) -> tuple[list, str]:
    """The column names (unnamed ones numbered) and the delimiter (the most frequent of , tab ;)."""
    counts = {d: header_line.count(d) for d in (",", "\t", ";")}
    delim = max(counts, key=counts.get) if any(counts.values()) else ","
    try:
        header = [h.strip() for h in next(csv.reader([header_line], delimiter=delim))]
    except (csv.Error, StopIteration) as e:
        raise InputError(f"unreadable CSV header: {e}", path, line_no) from None
    if all(_is_number(h) for h in header if h):
        raise InputError("no header row: the first line is numbers", path, line_no,
                         hint="add a header naming the columns, e.g. step,loss,val_loss")
    header = [h or f"column{i + 1}" for i, h in enumerate(header)]
    if len(header) > lim.max_columns:
        raise InputError(f"{len(header)} columns, over the {lim.max_columns}-column limit", path, line_no,
                         hint="limits.max_columns in kb/parameters/limits.yaml")
    return header, delim


def _convert_csv_block(rows: list, row_lines, start: int, cut: bool, xidx, cols: dict, rows_total: int,
                       last_x, header: list, log: LogData, path: str):
    """Convert one block of rows to numbers: a time column that is no time stamp is dropped (with
    a note), a repeated header (a run appended) is removed from ``rows`` in place, any other cell
    that is no number is one clear error naming its line. Returns (xs, column values, cols)."""
    header_key = [h.strip() for h in header]
    while True:
        try:
            xs, colvals = _convert_block(rows, xidx, cols, rows_total, last_x)
            return xs, colvals, cols
        except _BadCell as bad:
            if bad.row < 0:  # a time column that is neither numbers nor ISO dates: skip it
                cols = {r: j for r, j in cols.items() if j != bad.col}
                log.series.pop("time", None)
                log.columns.pop("time", None)
                log.notes.append(f"column {header[bad.col]!r} is not a time stamp; ignored")
                continue
            i = bad.row
            ln = row_lines[i] if row_lines else start + i
            if [c.strip() for c in rows[i]] == header_key:  # a run appended: header again
                del rows[i]
                if row_lines:
                    del row_lines[i]
                else:
                    row_lines = [start + k for k in range(len(rows) + 1)]
                    del row_lines[i]
                continue
            name = header[bad.col]
            msg = f"column {name!r} has {bad.value!r}, not a number"
            if cut and i == len(rows) - 1:
                msg += " (the last line is cut off; was the file still being written?)"
            raise InputError(msg, path, ln) from None


class _BadCell(Exception):
    def __init__(self, row: int, col: int, value: Any):
        super().__init__(value)
        self.row, self.col, self.value = row, col, value


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _clean_rows(rows, lines, start, ncols, header_key, cut, path):
    """Drop blank/comment rows, trim empty trailing cells, reject rows of the wrong width."""
    aligned = len(rows) == len(lines)
    out, out_lines = [], []
    for i, r in enumerate(rows):
        ln = start + i if aligned else None
        if not r or (len(r) == 1 and not r[0].strip()):
            continue
        if r[0].lstrip().startswith("#"):
            continue
        if len(r) != ncols:
            if len(r) > ncols and not any(c.strip() for c in r[ncols:]):
                r = r[:ncols]
            elif [c.strip() for c in r] == header_key:
                continue
            else:
                last = i == len(rows) - 1
                if last and cut and len(r) < ncols:
                    raise InputError(f"the last line is cut off: {len(r)} of {ncols} fields "
                                     "(was the file still being written?)", path, ln,
                                     hint="wait for the run to flush, or delete the partial line")
                raise InputError(f"{len(r)} fields where the header has {ncols}", path, ln)
        out.append(r)
        out_lines.append(ln)
    return out, out_lines


def _convert_column(strs: list) -> tuple[list | None, list]:
    """Cells -> ``(present, floats)``: ``present`` is None when every cell has a value, else the
    indices of the cells that do. _BadValue for garbage. Fast paths first: a full column, then
    one whose only gaps are empty cells (a sparse validation column)."""
    try:
        return None, list(map(float, strs))
    except ValueError:
        pass
    try:
        idx = [i for i, v in enumerate(strs) if v]
        return idx, list(map(float, map(strs.__getitem__, idx)))
    except ValueError:
        vals = list(map(_to_float, strs))
        idx = [i for i, v in enumerate(vals) if v is not None]
        return idx, [vals[i] for i in idx]


def _convert_block(rows, xidx, cols, rows_before, last_x):
    """Convert the needed columns of a block: ``(xs, {role: (present, floats)})``; _BadCell on
    garbage. Rows without a step take the previous row's step."""
    colvals = {}
    for role, j in cols.items():
        strs = list(map(itemgetter(j), rows))
        try:
            colvals[role] = _convert_column(strs)
        except _BadValue:
            if role == "time":  # wall-clock stamps written as dates
                try:
                    vals = [_to_float(s) if _is_number(s) or not s.strip() else _iso_seconds(s)
                            for s in strs]
                except ValueError:
                    raise _BadCell(-1, j, None) from None
                idx = [i for i, v in enumerate(vals) if v is not None]
                colvals[role] = (idx, [vals[i] for i in idx])
                continue
            for i, s in enumerate(strs):
                try:
                    _to_float(s)
                except _BadValue:
                    raise _BadCell(i, j, s) from None
    if xidx is None:
        xs = list(range(rows_before, rows_before + len(rows)))
    else:
        strs = list(map(itemgetter(xidx), rows))
        try:
            present, xs = _convert_column(strs)
        except _BadValue:
            for i, s in enumerate(strs):
                try:
                    _to_float(s)
                except _BadValue:
                    raise _BadCell(i, xidx, s) from None
        if present is not None:
            full = [None] * len(strs)
            for i, x in zip(present, xs):
                full[i] = x
            xs = full
        if present is not None or not math.isfinite(sum(xs)):
            xs = _carry_forward(xs, last_x)
    return xs, colvals


def _iso_seconds(s: str) -> float:
    """``2024-05-01 12:00:03.5`` (ISO 8601) -> POSIX seconds; ValueError otherwise."""
    from datetime import datetime

    return datetime.fromisoformat(s.strip().replace("Z", "+00:00")).timestamp()


def _carry_forward(xs: list, last) -> list:
    out = []
    for x in xs:
        if x is None or not math.isfinite(x):
            x = last if last is not None else 0.0
        out.append(x)
        last = x
    return out


# --------------------------------------------------------------------------------------------
# JSON lines and JSON documents
# --------------------------------------------------------------------------------------------

def _flatten(rec: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in rec.items():
        key = f"{prefix}/{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out


class _RecordSink:
    """Feeds dict records (JSON lines / documents) into a LogData, binding keys as they appear."""

    def __init__(self, log: LogData, path: str, column_map: dict, words: LogWords):
        self.log = log
        self.words = words
        self.path = path
        self.column_map = column_map
        self.seen: set = set()
        self.bound: dict = {}  # role -> key
        self.xkey = None
        self.rows = 0
        self.last_x = None
        self.buf: dict = {}
        self.last_epoch = None   # the epoch of the last record, when an epoch key is bound beside the step
        self.step_offset = 0.0   # where a step that counts within each epoch continues from
        self.header_keys: set = set()   # keys of the settings records before the first metric (_header)

    def _bind(self, keys: list, line) -> None:
        new = [k for k in keys if k not in self.seen]
        self.seen.update(new)
        cmap = {r: c for r, c in self.column_map.items() if c in new}
        bound, _ = _bind_columns(new, cmap, self.path, line, strict_map=False, words=self.words)
        for role, key in bound.items():
            if role in self.bound:
                if role in cmap:  # a mapped key always wins
                    self.bound[role] = key
                continue
            if role in _X_ROLES:
                if self.xkey is None or (role == "step" and self.log.x_label == "epoch"
                                         and self.rows == 0):
                    self.xkey = key
                    self.log.x_label, self.log.x_column = role, key
                self.bound[role] = key
                continue
            self.bound[role] = key
            self.log._series(role, key)
            self.buf[role] = ([], [])

    def add(self, rec: Any, line) -> None:
        if not isinstance(rec, dict):
            raise InputError(f"expected a JSON object per line, got {type(rec).__name__}",
                             self.path, line)
        if any(isinstance(v, dict) for v in rec.values()):
            rec = _flatten(rec)
        if self._header(rec, line):
            return
        if not self.seen.issuperset(rec):
            self._bind(list(rec), line)
        x = None
        if self.xkey is not None:
            try:
                x = _to_float(rec.get(self.xkey))
            except _BadValue:
                raise InputError(f"{self.xkey!r} is {rec.get(self.xkey)!r}, not a number",
                                 self.path, line) from None
            if x is not None and not math.isfinite(x):
                x = None
        if x is None:
            x = self.last_x if self.xkey is not None and self.last_x is not None else (
                float(self.rows) if self.xkey is None else 0.0)
        else:
            x = self._in_epoch(x, rec)
        self.last_x = x
        self.rows += 1
        for role, (bx, by) in self.buf.items():
            v = rec.get(self.bound[role])
            if v is None:
                continue
            try:
                v = _to_float(v)
            except _BadValue:
                if role != "time":
                    raise InputError(f"{self.bound[role]!r} is {v!r}, not a number", self.path,
                                     line) from None
                try:
                    v = _iso_seconds(str(v))
                except ValueError:
                    v = None
            if v is None:
                continue
            bx.append(x)
            by.append(v)

    def _header(self, rec: dict, line) -> bool:
        """Whether ``rec`` is a settings record printed before any metric (``{"event": "start", "lr":
        0.001, "batch": 32, "epochs": 20}``, a nested config dump): it holds no metric, so its keys are
        settings, not columns. Binding them would make the configured epoch count or batch size the
        x axis (every later row landing on that one x) and the configured LR the LR trace; they are
        kept only for the message when no record holds a metric."""
        if self.rows:
            return False
        cmap = {r: c for r, c in self.column_map.items() if c in rec}
        bound, _ = _bind_columns(list(rec), cmap, self.path, line, strict_map=False, words=self.words)
        if any(r in bound for r in _CURVE_ROLES):
            return False
        self.header_keys.update(rec)
        return True

    def _in_epoch(self, x: float, rec: dict) -> float:
        """A step that counts within each epoch (mmcv's ``{"epoch": 2, "iter": 5, ...}``, the same
        ``iter`` every epoch): when it does not move on while the epoch does, it continues past the
        previous epoch's last step instead of landing on it again."""
        ekey = self.bound.get("epoch")
        if self.log.x_label != "step" or ekey is None or ekey == self.xkey:
            return x
        try:
            epoch = _to_float(rec.get(ekey))
        except _BadValue:
            epoch = None
        before, self.last_epoch = self.last_epoch, epoch if epoch is not None else self.last_epoch
        if self.last_x is not None and x + self.step_offset <= self.last_x and epoch is not None \
                and before is not None and epoch > before:
            self.step_offset = self.last_x
        return x + self.step_offset

    def flush(self) -> None:
        for role, (bx, by) in self.buf.items():
            if by:
                if role == "time":
                    self.log._feed_time(bx, by)
                self.log.series[role].extend(bx, by)
                bx.clear()
                by.clear()

    def finish(self, line=None) -> None:
        self.flush()
        for role, col in self.column_map.items():
            if col not in self.seen:
                raise InputError(f"mapped column {col!r} (for {role}) is not in the log; it has: "
                                 + ", ".join(repr(k) for k in sorted(self.seen)[:_SHOWN_NAMES]), self.path)
        if self.rows == 0 and self.header_keys:
            raise _no_metric_error(sorted(self.header_keys), self.path, self.words)
        if self.rows == 0:
            raise InputError("no records in the log", self.path)
        if not any(r in self.log.series for r in _CURVE_ROLES):
            raise _no_metric_error(sorted(self.seen), self.path, self.words)
        self.log.rows = self.rows
        self.log.ignored_columns = sorted(self.seen - set(self.bound.values()))


def _read_jsonl(path: str, column_map: dict, lim: bounded.Limits, words: LogWords) -> LogData:
    log = LogData(path=path, format="jsonl")
    sink = _RecordSink(log, path, column_map, words)
    line_no = 0
    try:
        f = open(path, encoding="utf-8-sig", newline=None)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    with f:
        try:
            deep = lim.max_depth
            for start, lines in bounded.iter_line_blocks(f, path, lim, _JSONL_BLOCK_BYTES):
                line_no = start + len(lines) - 1
                body = [(start + i, s) for i, s in enumerate(lines) if s.strip()]
                for ln, s in body:   # json.loads recurses once per level: check the depth first
                    if s.count("[") + s.count("{") > deep and bounded.json_depth(s, deep) > deep:
                        bounded.loads_json(s, path, lim, line=ln)   # raises: nested too deep
                try:
                    recs = json.loads("[" + ",".join(s for _, s in body) + "]")
                    if len(recs) != len(body):
                        raise ValueError("record count")
                except ValueError:
                    recs = []
                    for ln, s in body:
                        try:
                            recs.append(json.loads(s))
                        except ValueError as e:
                            msg = f"not valid JSON: {getattr(e, 'msg', e)}"
                            if ln == line_no and not s.endswith("\n"):
                                msg += " (the last line is cut off; was the file still being written?)"
                            raise InputError(msg, path, ln, getattr(e, "colno", None)) from None
                for (ln, _), rec in zip(body, recs):
                    sink.add(rec, ln)
                sink.flush()
        except UnicodeDecodeError:
            raise _not_utf8(path) from None
    sink.finish()
    return log


def _read_json_doc(path: str, column_map: dict, lim: bounded.Limits, words: LogWords) -> LogData:
    log = LogData(path=path, format="json")
    try:
        text = bounded.read_bytes(path, lim.max_json_doc_bytes, "JSON log").decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _not_utf8(path) from None
    try:
        doc = bounded.loads_json(text, path, lim, prefix="not valid JSON")
    except InputError:
        # pretty-printed records one after another; never past the depth limit (loads_json's
        # refusal of a too-deep document stands)
        deep = bounded.json_depth(text, lim.max_depth) > lim.max_depth
        doc = None if deep or not text.lstrip().startswith("{") else _concatenated_dicts(text, words)
        if doc is None:
            raise
    del text
    records = None
    if isinstance(doc, list):
        records = doc
    elif isinstance(doc, dict) and _is_record(doc, words):
        records = [doc]   # one metrics dict (a trainer's json.dumps(metrics, indent=...) print)
    elif isinstance(doc, dict):
        for key in ("log_history", "history", "logs", "records", "metrics", "log"):
            if isinstance(doc.get(key), list):
                records = doc[key]
                break
        else:
            lists = {k: v for k, v in doc.items() if isinstance(v, list) and v}
            if lists and len({len(v) for v in lists.values()}) == 1:  # Keras History.history
                n = len(next(iter(lists.values())))
                records = [{k: v[i] for k, v in lists.items()} for i in range(n)]
                if not any(words.match_role(k) and words.match_role(k)[0] in _X_ROLES for k in lists):
                    records = [dict(r, epoch=i + 1) for i, r in enumerate(records)]
    if records is None:
        raise InputError("JSON document holds no list of per-step records", path,
                         hint="expected JSON lines, a list of objects, a trainer_state.json or "
                              "a Keras history dict")
    sink = _RecordSink(log, path, column_map, words)
    for rec in records:
        sink.add(rec, None)
    sink.finish()
    return log


def _is_record(doc: dict, words: LogWords) -> bool:
    """A dict that is itself one per-step record: scalar values only (no lists or nested dicts)
    and at least one key the reader knows as a metric (loss, accuracy, ...)."""
    if not doc or any(isinstance(v, (list, dict)) for v in doc.values()):
        return False
    return any(words.match_role(k) and words.match_role(k)[0] not in _X_ROLES for k in doc)


def _concatenated_dicts(text: str, words: LogWords, partial: bool = False) -> list | None:
    """Several JSON objects one after another (each printed with ``indent=``, or one per line
    among blank lines): the list of them, or None when the text is anything else. ``partial``: the
    text is the head of a file, so an object cut off at its end is allowed. The caller has
    already checked the nesting depth (``bounded.loads_json`` or :func:`_sniff` checks it first)."""
    dec = json.JSONDecoder()
    out, i, n = [], 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n:
            break
        try:
            obj, i = dec.raw_decode(text, i)
        except ValueError:
            if partial and out:
                break
            return None
        if not isinstance(obj, dict):
            return None
        out.append(obj)
    return out if len(out) >= 2 and all(_is_record(o, words) for o in out) else None


# --------------------------------------------------------------------------------------------
# TensorBoard
# --------------------------------------------------------------------------------------------

def _event_files(path: str) -> list[str]:
    if os.path.isfile(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for fn in sorted(files):
            # a dangling link or a named pipe is no event file (a pipe would block the loader)
            if "tfevents" in fn and os.path.isfile(os.path.join(root, fn)):
                found.append(os.path.join(root, fn))
    return found


def _read_tensorboard(path: str, column_map: dict, lim: bounded.Limits, words: LogWords) -> LogData:
    try:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
        from tensorboard.util import tensor_util
    except ImportError:
        raise InputError("reading TensorBoard logs needs the tensorboard package", path,
                         hint="pip install traindx[tensorboard]") from None
    files = _event_files(path)
    if not files:
        raise InputError("no TensorBoard event files (events.out.tfevents.*) here", path)
    if len(files) > lim.max_event_files:
        raise InputError(f"{len(files)} TensorBoard event files, over the {lim.max_event_files}-file limit",
                         path, hint="pass one run's folder")
    for fname in files:
        bounded.check_size(fname, lim.max_log_bytes, "TensorBoard event file")
    log = LogData(path=path, format="tensorboard", x_label="step", x_column="step")
    scan = _TagScan(column_map, path if os.path.isdir(path) else os.path.dirname(path), words)
    for fname in files:
        try:
            scan.read_file(fname, EventFileLoader(fname).Load(), tensor_util)
        except InputError:
            raise
        except Exception as e:  # a corrupt record or protobuf: the file's fault, not ours
            raise InputError(f"unreadable TensorBoard event file ({type(e).__name__}: {e})",
                             fname) from None
    if scan.events == 0:
        raise InputError("no events could be read: not a TensorBoard event file, or corrupt",
                         path)
    _choose_tags(log, scan, column_map, path)
    return log


class _TagScan:
    """One pass over TensorBoard events. A tag is a candidate when its name (qualified by its
    sub-folder, as add_scalars writes them) matches a role; each candidate streams into its own
    bounded Series, and the best candidate per role is chosen at the end (_choose_tags)."""

    def __init__(self, column_map: dict, top: str, words: LogWords):
        self.top = top
        self.words = words
        self.mapped = {c: r for r, c in column_map.items()}
        self.cands: dict[tuple, dict] = {}  # (subdir, tag) -> {role, rank, name, series, timer, bufs}
        self.skipped: dict[tuple, None] = {}
        self.events = 0
        self.scalars = 0

    @staticmethod
    def flush(c):
        bx, by, bt = c["bufs"]
        c["series"].extend(bx, by)
        c["timer"].feed(bx, bt)
        bx.clear()
        by.clear()
        bt.clear()

    def read_file(self, fname: str, events, tensor_util) -> None:
        sub = os.path.relpath(os.path.dirname(fname), self.top)
        sub = "" if sub == "." else sub.replace(os.sep, "/")
        is_scalar: dict[str, bool] = {}
        for ev in events:
            self.events += 1
            for v in ev.summary.value:
                plugin = v.metadata.plugin_data.plugin_name
                if plugin:
                    is_scalar[v.tag] = plugin == "scalars"
                if not is_scalar.get(v.tag, False):
                    continue
                c = self.candidate(sub, v.tag)
                if c is None:
                    continue
                val = self.value(v, tensor_util)
                if val is None:
                    continue
                self.scalars += 1
                bx, by, bt = c["bufs"]
                bx.append(ev.step)
                by.append(val)
                bt.append(ev.wall_time)
                if len(by) >= FLUSH_ROWS:
                    self.flush(c)

    def candidate(self, sub: str, tag: str) -> dict | None:
        """The candidate series of a scalar tag, created on its first value; None for a tag that
        names no role (remembered as skipped)."""
        key = (sub, tag)
        c = self.cands.get(key)
        if c is not None or key in self.skipped:
            return c
        name = f"{sub}/{tag}" if sub else tag
        if name in self.mapped or tag in self.mapped:
            role, rank = self.mapped.get(name) or self.mapped[tag], -1
        else:
            match_role = self.words.match_role
            m = (LOSS_SCALE, 0) if self.words.names_a_loss_scale(tag) else \
                (match_role(f"{os.path.basename(sub)}/{tag}") if sub else None) or match_role(tag)
            if m is None or m[0] in _X_ROLES:
                self.skipped[key] = None
                return None
            role, rank = m
        c = self.cands[key] = {"role": role, "rank": rank, "name": name,
                               "series": Series(role, name, role in ("loss", "val_loss")),
                               "timer": StepTimer("wall_time"), "bufs": ([], [], [])}
        return c

    @staticmethod
    def value(v, tensor_util) -> float | None:
        """A summary value's scalar; None for a tensor of more than one element."""
        if v.HasField("tensor"):
            arr = tensor_util.make_ndarray(v.tensor)
            if arr.size != 1:
                return None
            return float(arr.reshape(-1)[0])
        return float(v.simple_value)


def _choose_tags(log: LogData, scan: _TagScan, column_map: dict, path: str) -> None:
    """Check the column map against the tags found and fill ``log`` with the best-ranked tag per
    role, noting ties (several runs under one folder)."""
    cands = scan.cands
    names = [c["name"] for c in cands.values()] + [f"{s}/{t}" if s else t for s, t in scan.skipped]
    for role, col in column_map.items():
        if col not in names and not any(n.endswith("/" + col) for n in names):
            raise InputError(f"mapped tag {col!r} (for {role}) is not in the log; it has: "
                             + ", ".join(repr(n) for n in names[:_SHOWN_NAMES]), path)
    if not names:
        raise InputError("no scalar summaries (add_scalar) in the TensorBoard log", path)
    best: dict[str, dict] = {}
    for c in cands.values():
        scan.flush(c)
        if c["role"] not in best or c["rank"] < best[c["role"]]["rank"]:
            best[c["role"]] = c
    if not any(r in best for r in _CURVE_ROLES):
        raise _no_metric_error(names, path, scan.words)
    for role, c in best.items():
        ties = [o["name"] for o in cands.values()
                if o["role"] == role and o is not c and o["rank"] == c["rank"]]
        if ties:  # e.g. several runs (version_0/, version_1/) under one folder
            log.notes.append(f"{role}: read {c['name']!r}; also found "
                             + ", ".join(repr(t) for t in ties[:_SHOWN_TIES])
                             + " (pass one run's folder, or a column map, to choose)")
        log.series[role] = c["series"]
        log.columns[role] = c["name"]
    timed = best.get("loss") or next(iter(best.values()))
    log._timer = timed["timer"]
    log.rows = scan.scalars
    log.ignored_columns = [n for n in names if n not in set(log.columns.values())]


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------

def read_log(path: str | os.PathLike, column_map: dict | str | None = None, params=None) -> LogData:
    """Read a metrics log (CSV, JSON lines, JSON, TensorBoard file/folder) into a :class:`LogData`.

    ``column_map`` maps roles to column names the reader would not recognise: a dict
    ``{"loss": "my_loss"}`` or the string ``"loss=my_loss,val_loss=vloss"``. Raises
    :class:`InputError` (file, line, reason) for anything wrong with the file. Read within the
    ``limits.*`` parameters of ``params`` (file size, line length, nesting depth, columns).
    """
    path = os.fspath(path)
    cmap = parse_column_map(column_map)
    lim = bounded.limits(params)
    words = log_words(params)
    if not os.path.exists(path):
        raise InputError(bounded.missing(path, "log").replace("log not found", "no such file or folder"), path)
    if os.path.isfile(path):
        bounded.check_size(path, lim.max_log_bytes, "log")
    from .rawtext import materialized, relocated
    with materialized(path, lim) as (readable, note):
        if readable == path:
            return _read_log(path, cmap, lim, params, words)
        try:   # UTF-16 text or a pipe, read from a UTF-8 copy: every message names the user's file
            log = _read_log(readable, cmap, lim, params, words)
        except InputError as err:
            raise relocated(err, readable, path) from None
    log.path = path
    log.notes = [n.replace(readable, path) for n in log.notes] + ([note] if note else [])
    return log


def _read_log(path: str, cmap: dict, lim: bounded.Limits, params, words: LogWords) -> LogData:
    try:
        kind = _sniff(path, lim, words)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    if kind == "tensorboard":
        log = _read_tensorboard(path, cmap, lim, words)
    elif kind == "console":
        from .console import read_console
        return read_console(path, column_map=cmap, params=params)  # finished there
    elif kind == "jsonl":
        try:
            log = _read_jsonl(path, cmap, lim, words)
        except InputError as err:  # JSON lines among printed text: read it as console output
            if path.endswith((".jsonl", ".ndjson")):
                raise  # a file that says it is JSON lines must be
            from .console import read_console
            try:
                return read_console(path, column_map=cmap, params=params)
            except InputError:
                raise err from None
    elif kind == "json":
        log = _read_json_doc(path, cmap, lim, words)
    else:
        try:
            log = _read_csv(path, cmap, lim, words)
        except InputError as err:  # delimited lines among printed text, in a file not named .csv
            if path.lower().endswith((".csv", ".tsv")):
                raise
            from .console import read_console
            try:
                return read_console(path, column_map=cmap, params=params)
            except InputError:
                raise err from None
    log._finish(params)
    if not any(r in log.series for r in _CURVE_ROLES):
        raise InputError("no metric values in the log (every loss/accuracy cell is empty)", path)
    return log


def analyze_log(path: str | os.PathLike, num_classes: int | None = None,
                column_map: dict | str | None = None, params=None):
    """Read a log and analyse its curves: ``(findings, analysis)``.

    ``findings`` are :class:`~traindx.engine.evidence.Finding` objects for the ``log:curves``
    facts; ``analysis`` is a :class:`~traindx.probes.readers.curves.CurveAnalysis` (smoothed curves,
    symptom region, events) for :func:`traindx.probes.readers.plot.plot_curves`. ``params``: the
    knowledge base's parameter values (None: the shipped ones).
    """
    from traindx.probes.readers.curves import analyze

    log = read_log(path, column_map=column_map, params=params)
    if hasattr(log, "evidence"):  # console output: its tracebacks and warnings are evidence too
        from traindx.probes.readers.console import analyze_console
        return analyze_console(log, num_classes=num_classes, params=params)
    return analyze(log, num_classes=num_classes, params=params)


__all__ = ["read_log", "analyze_log", "parse_column_map", "normalize_name",
           "rl_metric_names", "rl_names_in_text", "reward_names_in_text", "RLLogError",
           "LogData", "Series", "Point", "ROLES", "FACTS", "SOURCE_ID"]
