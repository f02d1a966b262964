"""Loss quantities: the loss series against chance, train/val metrics, and what the loss receives.

Sources (kb/sources.yaml): ``probe:loss_vs_chance``, ``probe:train_val_gap``, ``probe:output_squash``.
Every public function takes plain data or tensors and returns plain data (numbers, strings, lists),
never tensors. The series helpers (:func:`trend`, :func:`smooth`) are shared by the other probes; curve shapes
(trend, spikes, noise, validation rise) are read by :func:`curve_analysis`, the log reader's method.
"""

from __future__ import annotations

import math
from statistics import median
from collections.abc import Iterable, Sequence

from traindx.engine.parameters import resolve
from traindx.probes.readers.curves import now_points, start_points

#: Loss names as the fact ``loss_function`` spells them, keyed by a normalised alias
#: (lower case, no underscores, no trailing "loss"): "CrossEntropyLoss", "cross_entropy", "F.nll_loss" ...
LOSS_NAMES = {
    "crossentropy": "cross_entropy", "ce": "cross_entropy",
    "nll": "nll",
    "bce": "bce", "binarycrossentropy": "bce",
    "bcewithlogits": "bce_with_logits", "binarycrossentropywithlogits": "bce_with_logits",
    "mse": "mse", "l2": "mse",
    "l1": "l1", "mae": "l1",
    "smoothl1": "smooth_l1", "huber": "smooth_l1",
    "kldiv": "kl_div", "kl": "kl_div",
    "gaussiannll": "likelihood", "poissonnll": "likelihood",
    "custom": "custom",
}
#: Losses computed element by element between outputs and targets (these broadcast silently).
ELEMENTWISE = {"mse", "l1", "smooth_l1", "bce", "bce_with_logits", "kl_div"}
#: Losses whose outputs are class scores.
CLASSIFICATION = {"cross_entropy", "nll", "bce", "bce_with_logits"}


# --------------------------------------------------------------------------- series helpers
def finite(series: Iterable[float]) -> list[float]:
    """The finite values of a series, in order."""
    return [v for v in series if v is not None and math.isfinite(v)]


def smooth(series: Sequence[float], window: int | None = None) -> list[float]:
    """Centred running median over +-``window`` points (default ``max(2, N // 40)``)."""
    n = len(series)
    if n == 0:
        return []
    w = window if window is not None else max(2, n // 40)
    return [median(series[max(0, i - w): i + w + 1]) for i in range(n)]


def trend(series: Sequence[float], *, ratio: float, min_points: int,
          labels=("growing", "steady", "shrinking")) -> str | None:
    """Compare the median of the last third with the first third of a positive series.

    Returns ``labels[0]`` when it rose more than ``ratio`` times, ``labels[2]`` when it fell below
    ``1/ratio``, else ``labels[1]``; None for fewer than ``min_points`` finite points (the callers
    pass their ``kb/parameters`` values).
    """
    s = finite(series)
    if len(s) < min_points:
        return None
    k = max(2, len(s) // 3)
    a, b = median(s[:k]), median(s[-k:])
    if a <= 0 or b <= 0:
        if a == b:
            return labels[1]
        return labels[0] if b > a else labels[2]
    from traindx.probes.readers.curves import growth_label
    return growth_label(b / a, ratio, labels, strict=True)


# --------------------------------------------------------------------------- loss vs chance
def chance_loss(num_classes: int | None) -> float | None:
    """Cross-entropy of a uniform guess over ``num_classes`` classes: ln(C)."""
    if not num_classes or num_classes < 2:
        return None
    return math.log(num_classes)


def infer_num_classes(output_shape: Sequence[int] | None, loss_name: str | None,
                      max_label: int | None = None) -> int | None:
    """Class count from the output width (dim 1 for cross-entropy/NLL) or else the largest label + 1."""
    if output_shape is not None and loss_name in ("cross_entropy", "nll") and len(output_shape) >= 2:
        c = int(output_shape[1])
        if c >= 2:
            return c
    if output_shape is not None and loss_name in ("bce", "bce_with_logits"):
        return 2 if (len(output_shape) == 1 or output_shape[-1] == 1) else int(output_shape[-1])
    if max_label is not None and max_label >= 1 and loss_name in (None, "cross_entropy", "nll", "custom"):
        return int(max_label) + 1
    return None


def initial_loss(series: Sequence[float], params) -> float | None:
    """Median of the first finite training losses: the log reader's start window
    (:func:`~traindx.probes.readers.curves.start_points`), at least ``curves.start_min_steps`` of
    them (per-step losses are noisy; the log reader, on epoch averages, takes 1). ``params``: the
    knowledge base's parameter values (None: the shipped ones)."""
    s = finite(series)
    P = resolve(params)
    return float(median(s[:start_points(len(s), P, int(P["curves.start_min_steps"]))])) if s else None


def current_loss(series: Sequence[float], params) -> float | None:
    """Median of the last finite training losses: the log reader's "now" window
    (:func:`~traindx.probes.readers.curves.now_points`: the last ~5 % of the run, at least 3)."""
    s = finite(series)
    return float(median(s[-now_points(len(s), resolve(params)):])) if s else None


def loss_decrease_fraction(series: Sequence[float], params) -> float | None:
    """(initial - current) / |initial|: 0 means no progress, 1 means the loss reached 0."""
    a, b = initial_loss(series, params), current_loss(series, params)
    if a is None or b is None or a == 0:
        return None
    return float((a - b) / abs(a))


def loss_has_nonfinite(series: Iterable[float]) -> bool:
    """Whether any loss was NaN or Inf."""
    return any(not math.isfinite(v) for v in series)


def loss_negative(series: Iterable[float], params=None) -> bool:
    """Whether the loss ever went below zero (impossible for CE/NLL/MSE/BCE), by more than float
    rounding (``monitor.negative_loss_tolerance``). ``params``: None for the shipped values."""
    tol = resolve(params)["monitor.negative_loss_tolerance"]
    return any(v < -tol for v in finite(series))


def short_run_trend(series: Sequence[float], params) -> str | None:
    """The only shape a run too short for :func:`curve_analysis` (under ``monitor.curve_min_losses``) can show:
    ``nonfinite`` when the loss ends in NaN/Inf or ``curves.nonfinite_share`` of it is (the log
    reader's cut); else None."""
    vals = list(series)
    share = resolve(params)["curves.nonfinite_share"]
    if vals and (not math.isfinite(vals[-1]) or sum(1 for v in vals if not math.isfinite(v)) >= share * len(vals)):
        return "nonfinite"
    return None


# --------------------------------------------------------------------------- the curve, as the log reader reads it
def curve_analysis(steps: Sequence[int], losses: Sequence[float], val_points: Sequence[tuple] = (),
                   num_classes: int | None = None, params=None):
    """The log reader's curve analysis (:mod:`traindx.probes.readers.curves`) of a live run's losses:
    ``steps``/``losses`` the training loss at each optimizer step, ``val_points`` ``(step,
    validation loss)`` per evaluation. Returns the :class:`~traindx.probes.readers.curves.CurveAnalysis`
    (its ``facts``: ``loss_trend``, ``loss_spikes``, ``loss_noise``, ``oscillation_trend``,
    ``val_loss_trend``, ``best_val_fraction``, ... and a ``findings`` detail for each), so that a
    live run and its log are read by one method; the initial loss is the median of at least
    ``curves.start_min_steps`` per-step losses; ``params``: the knowledge base's parameter values. Fewer losses than
    ``monitor.curve_min_losses`` are left out (no loss trend); None when that leaves nothing."""
    from traindx.probes.readers.curves import analyze
    from traindx.probes.readers.logs import LogData

    enough = len(losses) >= resolve(params)["monitor.curve_min_losses"]
    if not enough and not val_points:
        return None
    log = LogData(path="training run", format="live", x_label="step")
    if enough:
        log._series("loss", "loss").extend([int(x) for x in steps], [float(v) for v in losses])
    if val_points:
        log._series("val_loss", "val_loss").extend([int(x) for x, _ in val_points], [float(v) for _, v in val_points])
    log.rows = len(losses)
    log._finish()
    return analyze(log, num_classes, min_head=int(resolve(params)["curves.start_min_steps"]), params=params)[1]


# --------------------------------------------------------------------------- train / val
def best_val_fraction(val_points: Sequence[tuple[int, float]], total_steps: int) -> float | None:
    """Where in the run (by optimizer step, 0 = start, 1 = end) the lowest smoothed validation loss
    occurred (running median of +-max(1, N // 40) evaluations, as the log reader does)."""
    pts = [(s, v) for s, v in val_points if math.isfinite(v)]
    if len(pts) < 2 or total_steps <= 0:
        return None
    sm = smooth([v for _, v in pts], max(1, len(pts) // 40))
    i_best = min(range(len(sm)), key=sm.__getitem__)
    return float(min(1.0, max(0.0, pts[i_best][0] / total_steps)))


def accuracy(correct: float, total: float) -> float | None:
    """correct / total, or None when nothing was counted."""
    return float(correct / total) if total else None


def _correct_count(outputs, targets, loss_name: str | None):
    """``(correct, counted)`` for a classification loss, or None: ``correct`` a 0-d tensor on the
    outputs' device (so the caller can defer the host sync), ``counted`` an int or a 0-d tensor.
    Class-index targets of more than one dimension (sequences) leave out negative labels
    (``ignore_index``); 1-D class targets are taken as all valid (one op fewer on the hot path)."""
    import torch

    if not (torch.is_tensor(outputs) and torch.is_tensor(targets)) or outputs.numel() == 0:
        return None
    with torch.no_grad():
        if loss_name in ("cross_entropy", "nll"):
            if outputs.dim() < 2:
                return None
            if not targets.is_floating_point() and targets.dim() == outputs.dim() - 1:
                hit = outputs.argmax(1) == targets
                if targets.dim() == 1:
                    return hit.sum(), targets.numel()
                valid = targets >= 0
                return (hit & valid).sum(), valid.sum()
            if targets.shape == outputs.shape and targets.is_floating_point():
                return (outputs.argmax(1) == targets.argmax(1)).sum(), targets.numel() // targets.shape[1]
            return None
        if loss_name in ("bce", "bce_with_logits"):
            if outputs.shape != targets.shape:
                if outputs.numel() != targets.numel():
                    return None
                targets = targets.reshape(outputs.shape)
            thr = 0.0 if loss_name == "bce_with_logits" else 0.5
            return ((outputs > thr) == (targets > 0.5)).sum(), outputs.numel()
    return None


# --------------------------------------------------------------------------- what the loss receives
#: Losses that squash their input themselves, and the squash that, already applied, is done twice.
SELF_SQUASHING = {"cross_entropy": "softmax", "bce_with_logits": "sigmoid"}


def loss_function(loss_name: str | None) -> str | None:
    """The fact value for a loss name ("CrossEntropyLoss", "F.cross_entropy", "mse", ...); ``other`` if unknown."""
    if loss_name is None:
        return None
    key = str(loss_name).lower().rsplit(".", 1)[-1].replace("_", "")
    if key.endswith("loss") and len(key) > len("loss"):
        key = key[:-len("loss")]
    return LOSS_NAMES.get(key, "other")


def custom_loss(loss_name: str | None) -> bool | None:
    """True when the loss is hand-written (name ``custom``), False for a stock loss, None if unknown."""
    name = loss_function(loss_name)
    if name is None:
        return None
    return name == "custom"


def output_activation(outputs, min_values: int, sum_tolerance: float, log_max: float) -> str | None:
    """Squashing already applied to ``outputs``: softmax, log_softmax, sigmoid or none.

    Rows that are non-negative and sum to 1 (over dim 1, within ``sum_tolerance``) -> softmax; all <=
    ``log_max`` (``output_squash.log_softmax_max``) with logsumexp within ``sum_tolerance`` of 0 ->
    log_softmax; every value in [0, 1] -> sigmoid. Needs at least ``min_values`` values
    (``output_squash.min_values``); None for non-tensors.
    """
    import torch

    if not torch.is_tensor(outputs) or not outputs.is_floating_point() or outputs.numel() < min_values:
        return None
    with torch.no_grad():
        o = outputs.detach().float()
        if not bool(torch.isfinite(o).all()):
            return None
        lo, hi = float(o.min()), float(o.max())
        if o.dim() >= 2 and o.shape[1] >= 2:
            if lo >= 0:
                sums = o.sum(1)
                if bool(((sums - 1).abs() < sum_tolerance).all()):
                    return "softmax"
            if hi <= log_max:
                lse = torch.logsumexp(o, dim=1)
                if bool((lse.abs() < sum_tolerance).all()):
                    return "log_softmax"
        if lo >= 0 and hi <= 1 and hi > lo:
            return "sigmoid"
    return "none"


def target_kind(outputs, targets, max_class_index: float | None = None,
                row_tolerance: float | None = None) -> str | None:
    """What the targets look like: class_indices, one_hot (rows summing to 1 within
    ``row_tolerance``: ``output_squash.target_row_tolerance``), multi_hot (0/1 with several 1s in
    some row: a multi-label task), probabilities or continuous (whole numbers above
    ``max_class_index``: ``output_squash.max_class_index``). None for either: the shipped value."""
    import torch

    if max_class_index is None or row_tolerance is None:
        P = resolve(None)
        max_class_index = P["output_squash.max_class_index"] if max_class_index is None else max_class_index
        row_tolerance = P["output_squash.target_row_tolerance"] if row_tolerance is None else row_tolerance

    if not torch.is_tensor(targets) or targets.numel() == 0:
        return None
    with torch.no_grad():
        if not targets.is_floating_point():
            return "class_indices" if targets.dtype != torch.bool else "probabilities"
        t = targets.detach().float()
        if not bool(torch.isfinite(t).all()):
            return "continuous"
        lo, hi = float(t.min()), float(t.max())
        integral = bool((t == t.round()).all())
        if lo >= 0 and hi <= 1:
            if t.dim() >= 2 and t.shape[-1] >= 2 and torch.is_tensor(outputs) and outputs.shape == t.shape:
                rows = t.sum(-1)
                if bool(((rows - 1).abs() < row_tolerance).all()):
                    return "one_hot" if integral else "probabilities"
                if integral and bool((rows > 1.5).any()):
                    return "multi_hot"
            return "probabilities"
        if integral and lo >= 0 and hi <= max_class_index and hi > 1:
            return "class_indices"
        return "continuous"


def loss_shape_mismatch(output_shape: Sequence[int] | None, target_shape: Sequence[int] | None,
                        loss_name: str | None) -> bool | None:
    """True when outputs and targets differ in shape but broadcast (e.g. MSE of (N,1) vs (N,)).

    Applies to element-wise losses (MSE, L1, BCE, ...) and to unknown/custom losses with equal-rank
    or off-by-one-rank shapes; cross-entropy/NLL take (N,C) vs (N,) by design, so they never count.
    """
    if output_shape is None or target_shape is None:
        return None
    name = loss_function(loss_name)
    o, t = tuple(output_shape), tuple(target_shape)
    if name in ("cross_entropy", "nll"):
        return False
    if o == t:
        return False
    if name not in ELEMENTWISE and name not in ("custom", None, "other", "likelihood"):
        return False
    # numpy broadcasting rules
    for a, b in zip(reversed(o), reversed(t)):
        if a != b and a != 1 and b != 1:
            return False  # would raise, not broadcast
    return True


def infer_loss_name(loss, outputs, targets) -> str | None:
    """Which stock loss reproduces ``loss`` from ``outputs`` and ``targets`` (value match): its name,
    ``custom`` when none does, None when several do or it cannot be checked.

    Used once, when a caller hands the loss without naming it. Runs under no_grad; draws no RNG.
    """
    import warnings

    import torch
    import torch.nn.functional as F

    if not (torch.is_tensor(loss) and torch.is_tensor(outputs) and torch.is_tensor(targets)):
        return None
    if loss.numel() != 1 or not outputs.is_floating_point():
        return None
    candidates = []
    if not targets.is_floating_point():
        candidates = [("cross_entropy", F.cross_entropy), ("nll", F.nll_loss)]
    else:
        candidates = [("mse", F.mse_loss), ("l1", F.l1_loss), ("smooth_l1", F.smooth_l1_loss),
                      ("bce_with_logits", F.binary_cross_entropy_with_logits),
                      ("bce", F.binary_cross_entropy), ("cross_entropy", F.cross_entropy)]
    matches = []
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(loss.detach().float())
        if not math.isfinite(want):
            return None
        for name, fn in candidates:
            try:
                got = float(fn(outputs.detach(), targets.detach()).float())
            except Exception:
                continue
            if math.isfinite(got) and abs(got - want) <= 1e-4 * max(1.0, abs(want)):
                matches.append(name)
    if len(matches) == 1:
        return matches[0]
    # several stock losses give the same value (cross-entropy and NLL of log_softmax outputs):
    # the value cannot tell them apart, and guessing would decide a double-softmax diagnosis
    return None if matches else "custom"


#: stock loss name -> the name of its functional in ``torch.nn.functional``
_FUNCTIONALS = {
    "cross_entropy": "cross_entropy", "nll": "nll_loss", "bce": "binary_cross_entropy",
    "bce_with_logits": "binary_cross_entropy_with_logits", "mse": "mse_loss", "l1": "l1_loss",
    "smooth_l1": "smooth_l1_loss",
}


def loss_callable(loss_name: str | None):
    """The torch functional for a stock loss name, or None (used by the overfit probe). Looked up
    at each call: a runner that wraps ``torch.nn.functional``'s losses while a script runs hands out
    its wrapper then, the original after."""
    attr = _FUNCTIONALS.get(loss_function(loss_name) or "")
    if attr is None:
        return None
    import torch.nn.functional as F

    return getattr(F, attr)


#: loss name -> whether :func:`loss_callable` has a functional for it
_STOCK: dict = {}
#: A bound on memory, not knowledge: names remembered (a run uses a handful; beyond this, asked afresh)
_STOCK_KEPT = 256


def is_stock_loss(loss_name: str | None) -> bool:
    """``loss_callable(loss_name) is not None``, remembered per name: the monitor asks at every
    training loss, and the import and the name's normalisation cost ~20 µs a step on the bench's
    cache-cold CPU step (session 18, cost13)."""
    try:
        return _STOCK[loss_name]
    except (KeyError, TypeError):
        pass
    known = (loss_function(loss_name) or "") in _FUNCTIONALS
    if (loss_name is None or isinstance(loss_name, str)) and len(_STOCK) < _STOCK_KEPT:
        _STOCK[loss_name] = known
    return known


# --------------------------------------------------------------------------- the loss's own weights
#: autograd nodes that add the loss's terms: the walk from the loss goes through these only
_SUM_NODES = ("AddBackward0", "SubBackward0")
#: nodes that scale one term by a saved factor (``beta * kl``, ``kl / 4``)
_SCALE_NODES = {"MulBackward0": False, "DivBackward0": True}


def _constant_factor(node):
    """The constant a scaling node multiplies its term by (a 0-dim tensor that needs no gradient:
    a Python number or a ``torch.tensor`` weight), else None."""
    divides = _SCALE_NODES.get(type(node).__name__)
    if divides is None:
        return None
    for attr in ("_saved_other", "_saved_self"):
        try:
            t = getattr(node, attr, None)
        except RuntimeError:      # freed by an earlier backward
            return None
        if (t is not None and getattr(t, "dim", None) is not None and t.dim() == 0 and not t.requires_grad
                and t.device.type == "cpu"):      # a Python number is wrapped on the CPU: no device sync
            v = float(t)
            if divides:
                return (1.0 / v) if attr == "_saved_other" and v != 0 else None
            return v
    return None


def loss_term_weights(loss, max_nodes: int) -> tuple[float, ...]:
    """The constant weights of the loss's terms, in graph order: ``rec + beta * kl`` gives
    ``(beta,)``, ``a + 0.1 * b + c / 4`` gives ``(0.1, 0.25)``. The walk follows only the sums at
    the top of the loss's graph (at most ``max_nodes`` nodes) and never goes inside a term, so a
    constant inside the model is no weight. Plain floats; never raises."""
    try:
        start = getattr(loss, "grad_fn", None)
        out, queue, seen = [], [start], 0
        while queue and seen < max_nodes:
            node = queue.pop(0)
            if node is None:
                continue
            seen += 1
            name = type(node).__name__
            if name in _SUM_NODES:
                queue.extend(nxt for nxt, _ in node.next_functions)
                continue
            w = _constant_factor(node)
            if w is not None and math.isfinite(w):
                out.append(w)
        return tuple(out)
    except Exception:
        return ()


def weights_scheduled(samples: Sequence[tuple[int, tuple]], change: float) -> tuple[int, float, float] | None:
    """The loss's term weights over the run (``(step, weights)`` samples): ``(index, first, last)``
    of the first weight the script schedules: its samples only ever rise or only ever fall, and
    its largest magnitude is ``change`` times its smallest or more (a weight that reaches zero, or
    leaves it, changed). A factor that goes up and down from batch to batch (a normaliser such as
    ``mask.sum()``) is no schedule. Samples whose terms differ in number from the first are
    another loss and are skipped. None when no weight is scheduled."""
    if len(samples) < 2:
        return None
    n = len(samples[0][1])
    rows = [w for _, w in samples if len(w) == n]
    for i in range(n):
        vals = [r[i] for r in rows]
        steps = [b - a for a, b in zip(vals, vals[1:])]
        if not (all(d >= 0 for d in steps) or all(d <= 0 for d in steps)):
            continue
        mags = [abs(v) for v in vals]
        lo, hi = min(mags), max(mags)
        if hi > 0 and (lo == 0 or hi >= change * lo):
            return i, vals[0], vals[-1]
    return None
