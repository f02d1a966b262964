"""Update quantities: |update| / |weight| per step, the learning-rate trace, gradient clipping.

Sources (kb/sources.yaml): ``probe:update_ratio``, ``probe:lr_trace``, ``probe:clipping``.

Clipping is observed by wrapping ``torch.nn.utils.clip_grad_norm_`` (and its home
``torch.nn.utils.clip_grad.clip_grad_norm_``) while at least one monitor is attached: the wrapper
calls the original with the same arguments and returns its result unchanged. The original is put
back when the last monitor detaches. Code that bound the function to a local name before the
monitor attached (``from torch.nn.utils import clip_grad_norm_``) is not seen.
"""

from __future__ import annotations

import functools
import math
import threading
from statistics import median
from collections.abc import Sequence

from traindx.engine.parameters import resolve


# --------------------------------------------------------------------------- update ratio
#: At most this many elements of each parameter are kept for the update ratio: a fixed strided
#: subsample (the ratio of two norms over the same uniform subsample estimates the full ratio).
SNAPSHOT_ELEMENTS = 4096


def _sample_view(p):
    flat = p.detach().reshape(-1)
    n = flat.numel()
    if n <= SNAPSHOT_ELEMENTS:
        return flat
    return flat[:: -(-n // SNAPSHOT_ELEMENTS)]


def snapshot(params: Sequence):
    """Copies of (a strided subsample of at most :data:`SNAPSHOT_ELEMENTS` elements of) each
    parameter, taken in the step pre-hook on sampled steps. Private use: returns tensors; the
    caller drops them after :func:`update_ratios`."""
    import torch

    with torch.no_grad():
        return [_sample_view(p).clone() for p in params]


def update_ratios(params: Sequence, before: Sequence) -> list[float]:
    """|w_after - w_before| / |w_before| per parameter (over the snapshot's elements; NaN where
    |w_before| is 0)."""
    import torch

    from traindx.probes.live.gradients import norms_of

    if not params:
        return []
    with torch.no_grad():
        after = [_sample_view(p) for p in params]
        try:
            deltas = torch._foreach_sub(after, list(before))
        except (TypeError, RuntimeError):
            deltas = [a - b for a, b in zip(after, before)]
        vals = norms_of(list(deltas) + list(before))
    k = len(params)
    return [d / w if w > 0 else math.nan for d, w in zip(vals[:k], vals[k:])]


def weight_norm(before: Sequence) -> float | None:
    """The norm of a snapshot's elements taken together (the same strided subsample at every
    sampled step, so two of them compare like for like): how large the weights are."""
    from traindx.probes.live.gradients import norms_of

    if not before:
        return None
    vals = norms_of(list(before))
    tot = math.sqrt(sum(v * v for v in vals if math.isfinite(v)))
    return float(tot) if tot > 0 else None


def weight_norm_ratio(norms: Sequence[tuple[int, int, float]], min_step: int) -> tuple[float, int] | None:
    """|weights| at the latest sampled step / at the first one, and that step: how far the weights
    have grown (> 1) or shrunk toward zero (< 1). ``norms``: (step, number of parameters, norm) per
    sampled step; only snapshots of as many parameters as the first compare. None before
    ``min_step`` optimizer steps."""
    if not norms:
        return None
    step0, k0, n0 = norms[0]
    same = [(s, n) for s, k, n in norms[1:] if k == k0 and n is not None]
    if not same or n0 is None or n0 <= 0 or same[-1][0] < min_step:
        return None
    return float(same[-1][1] / n0), same[-1][0]


def step_update_ratio(ratios: Sequence[float]) -> float | None:
    """Median over layers of one step's |update| / |weight| (layers with zero weight left out)."""
    s = [r for r in ratios if math.isfinite(r)]
    return float(median(s)) if s else None


def update_ratio(per_step: Sequence[float], recent: int) -> float | None:
    """Median of the latest ``recent`` (``update_ratio.recent_samples``) sampled steps' update
    ratios (healthy is about 1e-3)."""
    s = [r for r in per_step if r is not None and math.isfinite(r)]
    return float(median(s[-recent:])) if s else None


# --------------------------------------------------------------------------- learning-rate trace
def current_lr(optimizer) -> float | None:
    """The first param group's learning rate now (a float even when it is a tensor)."""
    try:
        return float(optimizer.param_groups[0]["lr"])
    except Exception:
        return None


def lr_final_ratio(lr_changes: Sequence[tuple[int, float]]) -> float | None:
    """Learning rate at the latest step / the initial one. ``lr_changes``: (step, lr) at each change."""
    if not lr_changes or lr_changes[0][1] <= 0:
        return None
    return float(lr_changes[-1][1] / lr_changes[0][1])


def lr_peak_ratio(lr_changes: Sequence[tuple[int, float]]) -> float | None:
    """The highest learning rate so far / the initial one (above 1 after a warm-up)."""
    if not lr_changes or lr_changes[0][1] <= 0:
        return None
    return float(max(lr for _, lr in lr_changes) / lr_changes[0][1])


def lr_base_ratio(lr_changes: Sequence[tuple[int, float]], optimizer) -> float | None:
    """The highest learning rate the run stepped with / the rate its scheduler scales (the
    ``initial_lr`` an LR scheduler records in group 0 when it is built): far below 1 for the whole
    run when a schedule held the rate at a sliver of the configured one from the first step seen (a
    warm-up never stepped, a decay already spent on resume). None without a scheduler's record."""
    if not lr_changes or optimizer is None:
        return None
    try:
        base = optimizer.param_groups[0].get("initial_lr")
    except (AttributeError, IndexError, TypeError):
        return None
    if not isinstance(base, (int, float)) or not base > 0:
        return None
    return float(max(lr for _, lr in lr_changes) / base)


def lr_collapse_fraction(lr_changes: Sequence[tuple[int, float]], total_steps: int,
                         params=None) -> float | None:
    """Fraction of the observed run after which the LR stays below ``curves.lr_collapse`` (1%) of
    its peak so far (1.0 when it never does). The peak is the initial LR unless a warm-up raised it:
    the same idea, and the same parameter, as the curve reader's ``lr_collapse_fraction``."""
    if not lr_changes or total_steps <= 0:
        return None
    collapsed = resolve(params)["curves.lr_collapse"]
    peak = 0.0
    collapse = None
    for step, lr in lr_changes:
        if lr > peak:
            peak = lr
            collapse = None
        elif peak > 0 and lr < collapsed * peak:
            if collapse is None:
                collapse = step
        else:
            collapse = None   # back above the cut (a warm restart): the LR did not stay collapsed
    if collapse is None:
        return 1.0
    return float(min(1.0, max(0.0, collapse / total_steps)))


# --------------------------------------------------------------------------- clipping
def clip_shrink(total_norm: float, max_norm: float) -> float | None:
    """How much ``clip_grad_norm_`` scaled the gradients: min(1, max_norm / (total + 1e-6))."""
    if not (math.isfinite(total_norm) and math.isfinite(max_norm)) or total_norm < 0:
        return None
    return float(min(1.0, max_norm / (total_norm + 1e-6)))


def clip_shrink_ratio(shrinks: Sequence[float]) -> float | None:
    """Median clipped / unclipped norm over observed clipping calls (1 = clipping inactive)."""
    s = [v for v in shrinks if v is not None]
    return float(median(s)) if s else None


_LOCK = threading.Lock()
_CLIP_LISTENERS: list = []
_CLIP_SAVED: dict = {}


def _make_clip_wrapper(original):
    @functools.wraps(original)
    def clip_grad_norm_(*args, **kwargs):
        total = original(*args, **kwargs)
        if _CLIP_LISTENERS:
            mx = args[1] if len(args) > 1 else kwargs.get("max_norm")      # the max_norm argument
            for fn in tuple(_CLIP_LISTENERS):
                try:
                    fn(total, mx)
                except Exception:  # a probe never breaks the user's step
                    pass
        return total

    clip_grad_norm_.__traindx_wrapper__ = True
    return clip_grad_norm_


def install_clip_listener(fn) -> None:
    """Call ``fn(total_norm_tensor, max_norm)`` after every ``clip_grad_norm_`` while installed."""
    import torch.nn.utils as U
    import torch.nn.utils.clip_grad as C

    with _LOCK:
        if not _CLIP_LISTENERS:
            orig = C.clip_grad_norm_
            wrapper = _make_clip_wrapper(orig)
            for mod in (C, U):
                _CLIP_SAVED[mod] = mod.clip_grad_norm_
                mod.clip_grad_norm_ = wrapper
            _CLIP_SAVED["wrapper"] = wrapper
        _CLIP_LISTENERS.append(fn)


def uninstall_clip_listener(fn) -> None:
    """Remove ``fn``; the last removal puts the original ``clip_grad_norm_`` back (unless someone
    wrapped it again on top of ours: then ours stays as a pass-through)."""
    with _LOCK:
        if fn in _CLIP_LISTENERS:
            _CLIP_LISTENERS.remove(fn)
        if _CLIP_LISTENERS or "wrapper" not in _CLIP_SAVED:
            return
        wrapper = _CLIP_SAVED.pop("wrapper")
        for mod in list(_CLIP_SAVED):
            orig = _CLIP_SAVED.pop(mod)
            if getattr(mod, "clip_grad_norm_", None) is wrapper:
                mod.clip_grad_norm_ = orig


# --------------------------------------------------------------------------- scheduler steps
_SCHED_LISTENERS: list = []
_SCHED_SAVED: dict = {}
_SCHED_CLASSES: list = []      # [(module id, its attribute count), the classes found]
_TLS = threading.local()


def _scheduler_classes():
    from torch.optim import lr_scheduler as S

    key = (id(S), len(vars(S)))
    if _SCHED_CLASSES and _SCHED_CLASSES[0] == key:    # looked up at every attach: dir() once
        return list(_SCHED_CLASSES[1])
    base = S.LRScheduler
    out = []
    for name in dir(S):
        c = getattr(S, name)
        if isinstance(c, type) and issubclass(c, base) and "step" in c.__dict__:
            out.append(c)
    _SCHED_CLASSES[:] = [key, tuple(out)]
    return out


def _wrap_sched_step(original):
    @functools.wraps(original)
    def step(self, *args, **kwargs):
        depth = getattr(_TLS, "depth", 0)
        _TLS.depth = depth + 1
        try:
            return original(self, *args, **kwargs)
        finally:
            _TLS.depth = depth
            if depth == 0:          # SequentialLR / ChainedScheduler stepping their children: once
                for fn in list(_SCHED_LISTENERS):
                    try:
                        fn(self)
                    except Exception:
                        pass

    step.__traindx_wrapper__ = True
    return step


def install_scheduler_listener(fn) -> None:
    """Call ``fn(scheduler)`` after every (outermost) ``LRScheduler.step()`` while installed: the
    ``step`` of every scheduler class that defines one is wrapped; the originals come back when the
    last listener is removed."""
    with _LOCK:
        if not _SCHED_LISTENERS:
            for cls in _scheduler_classes():
                orig = cls.__dict__["step"]
                wrapper = _wrap_sched_step(orig)
                _SCHED_SAVED[cls] = (orig, wrapper)
                cls.step = wrapper
        _SCHED_LISTENERS.append(fn)


def uninstall_scheduler_listener(fn) -> None:
    """Remove ``fn``; the last removal restores every scheduler class's ``step``."""
    with _LOCK:
        if fn in _SCHED_LISTENERS:
            _SCHED_LISTENERS.remove(fn)
        if _SCHED_LISTENERS:
            return
        for cls, (orig, wrapper) in list(_SCHED_SAVED.items()):
            if cls.__dict__.get("step") is wrapper:
                cls.step = orig
        _SCHED_SAVED.clear()


def scheduler_steps_per_batch(scheduler_steps: int, optimizer_steps: int, params=None) -> bool | None:
    """``scheduler.step()`` runs about once per optimizer step (True: at least ``lr_trace.per_batch_share``
    of them) or far less often (False: at most ``lr_trace.per_epoch_share``); None before
    ``lr_trace.min_steps`` optimizer steps or with no scheduler call seen."""
    P = resolve(params)
    if optimizer_steps < P["lr_trace.min_steps"] or scheduler_steps <= 0:
        return None
    r = scheduler_steps / optimizer_steps
    if r >= P["lr_trace.per_batch_share"]:
        return True
    if r <= P["lr_trace.per_epoch_share"]:
        return False
    return None
