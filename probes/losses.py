"""Loss quantities: the loss series against chance, train/val metrics, and what the loss receives.

Sources (kb/sources.yaml): ``probe:loss_vs_chance``, ``probe:train_val_gap``, ``probe:output_squash``.
Every public function takes plain data or tensors and returns plain data (numbers, strings, lists),
never tensors. The series helpers (:func:`trend`, :func:`smooth`) are shared by the other probes.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Iterable, Sequence

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
    """Running median over ``window`` points (default: about 5% of the series, at least 1)."""
    n = len(series)
    if n == 0:
        return []
    w = window or max(1, min(25, n // 20))
    return [median(series[max(0, i - w + 1): i + 1]) for i in range(n)]


def trend(series: Sequence[float], *, ratio: float = 2.0, labels=("growing", "steady", "shrinking")) -> str | None:
    """Compare the median of the last third with the first third of a positive series.

    Returns ``labels[0]`` when it rose more than ``ratio`` times, ``labels[2]`` when it fell below
    ``1/ratio``, else ``labels[1]``; None for fewer than 6 finite points.
    """
    s = finite(series)
    if len(s) < 6:
        return None
    k = max(2, len(s) // 3)
    a, b = median(s[:k]), median(s[-k:])
    if a <= 0 or b <= 0:
        if a == b:
            return labels[1]
        return labels[0] if b > a else labels[2]
    r = b / a
    if r > ratio:
        return labels[0]
    if r < 1.0 / ratio:
        return labels[2]
    return labels[1]


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


def initial_loss(series: Sequence[float]) -> float | None:
    """Median of the first three finite training losses."""
    s = finite(series)
    return float(median(s[:3])) if s else None


def current_loss(series: Sequence[float]) -> float | None:
    """Median of the latest finite training losses (the last 5% of the run, 1 to 20 points)."""
    s = finite(series)
    if not s:
        return None
    w = max(1, min(20, len(s) // 20))
    return float(median(s[-w:]))


def loss_decrease_fraction(series: Sequence[float]) -> float | None:
    """(initial - current) / |initial|: 0 means no progress, 1 means the loss reached 0."""
    a, b = initial_loss(series), current_loss(series)
    if a is None or b is None or a == 0:
        return None
    return float((a - b) / abs(a))


def loss_has_nonfinite(series: Iterable[float]) -> bool:
    """Whether any loss was NaN or Inf."""
    return any(not math.isfinite(v) for v in series)


def loss_negative(series: Iterable[float]) -> bool:
    """Whether the loss ever went below zero (impossible for CE/NLL/MSE/BCE)."""
    return any(v < -1e-6 for v in finite(series))


def relative_noise(series: Sequence[float]) -> float | None:
    """Std of the step-to-step differences over the latest window, relative to the loss level."""
    s = finite(series)[-100:]
    if len(s) < 8:
        return None
    d = [b - a for a, b in zip(s, s[1:])]
    m = sum(d) / len(d)
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / len(d)) / math.sqrt(2)
    level = abs(median(s)) or 1.0
    return sd / level


def loss_trend(series: Sequence[float]) -> str | None:
    """Shape of the training-loss curve: flat, decreasing, plateaued, oscillating, diverging or nonfinite.

    Needs at least 8 points. ``flat``: the smoothed loss moved less than 5% from its start.
    ``diverging``: it ended 50% above its start (or above its minimum by 2x). ``decreasing``: it fell
    and the last third still falls by more than 5% of the drop. ``plateaued``: it fell, then stopped.
    ``oscillating``: no clear direction and step-to-step noise above 30% of the level.
    """
    if loss_has_nonfinite(series):
        return "nonfinite"
    s = finite(series)
    if len(s) < 8:
        return None
    sm = smooth(s)
    start, end, low = sm[0], sm[-1], min(sm)
    scale = abs(start) or 1.0
    noise = relative_noise(s) or 0.0
    if end > start + 0.5 * scale or (low > 0 and end > 2 * low and end > start):
        return "diverging"
    drop = (start - end) / scale
    if abs(drop) < 0.05:
        return "oscillating" if noise > 0.3 else "flat"
    if drop < 0:
        return "oscillating" if noise > 0.3 else "flat"
    k = max(2, len(sm) // 3)
    late = sm[-k:]
    late_drop = (late[0] - late[-1])
    if late_drop > 0.05 * (start - end):
        return "decreasing"
    if noise > 0.3:
        return "oscillating"
    return "plateaued"


# --------------------------------------------------------------------------- train / val
def val_loss_trend(val_losses: Sequence[float]) -> str | None:
    """Validation loss over the latter part of training: decreasing, flat or increasing.

    Compares the best value of the latter half with its last value; needs 3 evaluations.
    """
    s = finite(val_losses)
    if len(s) < 3:
        return None
    half = s[len(s) // 2 - (1 if len(s) % 2 == 0 else 0):]
    first, last, best = half[0], half[-1], min(s)
    scale = abs(first) or 1.0
    if last > best * 1.05 and last > first + 0.02 * scale:
        return "increasing"
    if last < first - 0.02 * scale:
        return "decreasing"
    return "flat"


def best_val_fraction(val_points: Sequence[tuple[int, float]], total_steps: int) -> float | None:
    """Where in the run (by optimizer step, 0 = start, 1 = end) the lowest validation loss occurred."""
    pts = [(s, v) for s, v in val_points if math.isfinite(v)]
    if len(pts) < 2 or total_steps <= 0:
        return None
    s_best = min(pts, key=lambda sv: sv[1])[0]
    return float(min(1.0, max(0.0, s_best / total_steps)))


def accuracy(correct: float, total: float) -> float | None:
    """correct / total, or None when nothing was counted."""
    return float(correct / total) if total else None


def _correct_count(outputs, targets, loss_name: str | None):
    """(correct, counted) as 0-d tensors for a classification loss, or None. Private: returns tensors."""
    import torch

    if not (torch.is_tensor(outputs) and torch.is_tensor(targets)) or outputs.numel() == 0:
        return None
    with torch.no_grad():
        if loss_name in ("cross_entropy", "nll"):
            if outputs.dim() < 2:
                return None
            if targets.dtype in (torch.long, torch.int, torch.int16, torch.int8, torch.uint8) and \
                    targets.dim() == outputs.dim() - 1:
                pred = outputs.argmax(1)
                valid = targets >= 0
                return ((pred == targets) & valid).sum(), valid.sum()
            if targets.shape == outputs.shape and targets.is_floating_point():
                return (outputs.argmax(1) == targets.argmax(1)).sum(), torch.tensor(targets.numel() // targets.shape[1])
            return None
        if loss_name in ("bce", "bce_with_logits"):
            if outputs.shape != targets.shape:
                if outputs.numel() != targets.numel():
                    return None
                targets = targets.reshape(outputs.shape)
            thr = 0.0 if loss_name == "bce_with_logits" else 0.5
            pred = outputs > thr
            return (pred == (targets > 0.5)).sum(), torch.tensor(outputs.numel())
    return None


# --------------------------------------------------------------------------- what the loss receives
def loss_function(loss_name: str | None) -> str | None:
    """The fact value for a loss name ("CrossEntropyLoss", "F.cross_entropy", "mse", ...); ``other`` if unknown."""
    if loss_name is None:
        return None
    key = str(loss_name).lower().rsplit(".", 1)[-1].replace("_", "")
    if key.endswith("loss") and len(key) > 4:
        key = key[:-4]
    return LOSS_NAMES.get(key, "other")


def custom_loss(loss_name: str | None) -> bool | None:
    """True when the loss is hand-written (name ``custom``), False for a stock loss, None if unknown."""
    name = loss_function(loss_name)
    if name is None:
        return None
    return name == "custom"


def output_activation(outputs) -> str | None:
    """Squashing already applied to ``outputs``: softmax, log_softmax, sigmoid or none.

    Rows that are non-negative and sum to 1 (over dim 1) -> softmax; all <= 0 with logsumexp ~ 0 ->
    log_softmax; every value in [0, 1] -> sigmoid. Needs at least 8 values; None for non-tensors.
    """
    import torch

    if not torch.is_tensor(outputs) or not outputs.is_floating_point() or outputs.numel() < 8:
        return None
    with torch.no_grad():
        o = outputs.detach().float()
        if not bool(torch.isfinite(o).all()):
            return None
        lo, hi = float(o.min()), float(o.max())
        if o.dim() >= 2 and o.shape[1] >= 2:
            if lo >= 0:
                sums = o.sum(1)
                if bool(((sums - 1).abs() < 1e-3).all()):
                    return "softmax"
            if hi <= 1e-6:
                lse = torch.logsumexp(o, dim=1)
                if bool((lse.abs() < 1e-3).all()):
                    return "log_softmax"
        if lo >= 0 and hi <= 1 and hi > lo:
            return "sigmoid"
    return "none"


def target_kind(outputs, targets) -> str | None:
    """What the targets look like: class_indices, one_hot, probabilities or continuous."""
    import torch

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
                rows = t.sum(1)
                if bool(((rows - 1).abs() < 1e-4).all()):
                    return "one_hot" if integral else "probabilities"
            return "probabilities"
        if integral and lo >= 0 and hi <= 10000 and hi > 1:
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
    if name not in ELEMENTWISE and name not in ("custom", None, "other"):
        return False
    # numpy broadcasting rules
    for a, b in zip(reversed(o), reversed(t)):
        if a != b and a != 1 and b != 1:
            return False  # would raise, not broadcast
    return True


def infer_loss_name(loss, outputs, targets) -> str | None:
    """Which stock loss reproduces ``loss`` from ``outputs`` and ``targets`` (value match), or None.

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
                return name
    return "custom"


def loss_callable(loss_name: str | None):
    """The torch functional for a stock loss name, or None (used by the overfit probe)."""
    import torch.nn.functional as F

    return {
        "cross_entropy": F.cross_entropy, "nll": F.nll_loss, "bce": F.binary_cross_entropy,
        "bce_with_logits": F.binary_cross_entropy_with_logits, "mse": F.mse_loss, "l1": F.l1_loss,
        "smooth_l1": F.smooth_l1_loss,
    }.get(loss_function(loss_name) or "")
