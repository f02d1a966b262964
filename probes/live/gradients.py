"""Gradient quantities: flow (which parameters get a gradient), norms over steps, accumulation.

Sources (kb/sources.yaml): ``probe:grad_flow``, ``probe:grad_norms``, ``probe:grad_accumulation``.
Public functions return plain data. Norms are computed with one batched reduction
(``torch._foreach_norm`` then one ``.tolist()``), never one ``.item()`` per parameter. Nothing here
writes ``.grad``.
"""

from __future__ import annotations

import math
from statistics import median
from collections.abc import Iterable, Sequence

from traindx.engine.parameters import resolve
from traindx.probes.live.losses import finite, trend


def param_names(model=None, optimizer=None) -> dict[int, str]:
    """``id(param) -> name``: the model's names, then ``group{g}.param{i}`` for optimizer-only params."""
    names: dict[int, str] = {}
    if model is not None:
        for n, p in model.named_parameters():
            names.setdefault(id(p), n)
    if optimizer is not None:
        for g, group in enumerate(optimizer.param_groups):
            for i, p in enumerate(group["params"]):
                names.setdefault(id(p), f"optimizer.group{g}.param{i}")
    return names


def frozen_params(model) -> list[str]:
    """Names of the model's parameters with ``requires_grad=False``."""
    if model is None:
        return []
    return [n for n, p in model.named_parameters() if not p.requires_grad]


def frozen_since(model, earlier: dict) -> list[str]:
    """Names of the model's frozen parameters built after an earlier training phase: not among
    ``earlier`` (id -> weakref of the parameters that phase's model held) and no copy of one of
    them (a new head initialised from a trained one holds trained values). Such a parameter was
    never trained by this run and, frozen, keeps its initialisation."""
    import torch

    olds = [p for p in (r() for r in earlier.values()) if p is not None]
    out = []
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.requires_grad or id(p) in earlier:
                continue
            if any(o.shape == p.shape and o.device == p.device and o.dtype == p.dtype and torch.equal(o, p)
                   for o in olds):
                continue
            out.append(n)
    return out


def norms_of(tensors: Sequence) -> list[float]:
    """The L2 norm of each tensor, as floats, with one reduction per device and one host sync."""
    import torch

    if not tensors:
        return []
    # a sparse gradient (nn.Embedding(sparse=True), SparseAdam) has the norm of its coalesced values
    tensors = [t.coalesce().values() if getattr(t, "is_sparse", False) else t for t in tensors]
    by_dev: dict = {}
    for i, t in enumerate(tensors):
        by_dev.setdefault(t.device, []).append(i)
    out = [0.0] * len(tensors)
    with torch.no_grad():
        for _dev, idx in by_dev.items():
            ts = [tensors[i] for i in idx]
            # float32 accumulation widens half and bfloat16; a float64 (or complex) tensor cannot be
            # narrowed by the reduction's dtype: its norm is taken in its own precision, then cast
            wide = any(t.dtype.itemsize > torch.float32.itemsize or not t.is_floating_point() for t in ts)
            if not wide:
                try:
                    ns = torch._foreach_norm(ts, 2, dtype=torch.float32)
                except (TypeError, RuntimeError):
                    wide = True
            if wide:
                ns = [_norm_float32(torch, t) for t in ts]
            for i, v in zip(idx, torch.stack(ns).tolist()):
                out[i] = v
    return out


def _norm_float32(torch, t):
    """One tensor's L2 norm as a float32 scalar: accumulated in float32 where that widens it (half,
    bfloat16, float32), in the tensor's own precision where float32 would narrow it (float64, complex)."""
    if t.is_floating_point() and t.dtype.itemsize <= torch.float32.itemsize:
        return torch.linalg.vector_norm(t, dtype=torch.float32)
    return torch.linalg.vector_norm(t).float()


def grad_norms(named_params: Iterable[tuple[str, object]]) -> dict[str, float | None]:
    """Per-parameter gradient norm after backward; None for a parameter whose ``.grad`` is None."""
    items = list(named_params)
    with_grad = [(n, p.grad) for n, p in items if p.grad is not None]
    vals = norms_of([g for _, g in with_grad])
    out: dict[str, float | None] = {n: None for n, _ in items}
    out.update({n: v for (n, _), v in zip(with_grad, vals)})
    return out


def total_norm(norms: Iterable[float | None]) -> float:
    """sqrt(sum of squares) of per-parameter norms (the norm ``clip_grad_norm_`` computes)."""
    return math.sqrt(sum(v * v for v in norms if v is not None))


def params_without_grad(trainable: Iterable[str], ever_had_grad: set[str]) -> list[str]:
    """Trainable parameters that never had a ``.grad`` at any observed step."""
    return [n for n in trainable if n not in ever_had_grad]


def grads_all_zero(totals: Sequence[float], params=None) -> bool | None:
    """Every gradient numerically zero (a total norm under ``grad_flow.zero_norm``) at each of the
    latest ``grad_flow.zero_recent_samples`` observed steps (None: nothing seen). ``params``: the
    knowledge base's parameter values (None: the shipped ones)."""
    P = resolve(params)
    recent = totals[-int(P["grad_flow.zero_recent_samples"]):]
    s = [v for v in recent if v is not None and math.isfinite(v)]
    if not s:
        return None
    return all(v < P["grad_flow.zero_norm"] for v in s)


def nan_grad_params(norms: dict[str, float | None]) -> list[str]:
    """Parameters whose gradient norm is NaN/Inf, i.e. whose gradient contains NaN/Inf."""
    return [n for n, v in norms.items() if v is not None and not math.isfinite(v)]


def grad_norm_max(series: Sequence[float]) -> float | None:
    """Largest finite total gradient norm seen."""
    s = finite(series)
    return float(max(s)) if s else None


def grad_norm_blowup(series: Sequence[float], first: int) -> float | None:
    """The largest finite total gradient norm after the first ``first`` sampled steps, over the
    median of those first ones (the run's starting gradient scale). None with too few samples or
    a zero start."""
    s = list(series)
    head = finite(s[:first])
    tail = finite(s[first:])
    if len(head) < max(1, first // 2) or not tail:
        return None
    base = float(median(head))
    return float(max(tail)) / base if base > 0 else None


def grad_norm_median(series: Sequence[float]) -> float | None:
    """Median finite total gradient norm."""
    s = finite(series)
    return float(median(s)) if s else None


def grad_norm_trend(series: Sequence[float], params=None) -> str | None:
    """growing / steady / shrinking: last third vs first third of the total-norm series
    (``grad_norms.trend_ratio`` either way, from ``trends.min_points`` finite norms)."""
    P = resolve(params)
    return trend(series, ratio=P["grad_norms.trend_ratio"], min_points=P["trends.min_points"])


def grad_depth_ratio(norms: dict[str, float | None], layer_order: Sequence[str]) -> float | None:
    """Gradient norm of the first (input-side) layer's weight / that of the last layer's weight.

    ``layer_order`` lists weight names from input to output (forward execution order).
    """
    vals = [norms.get(n) for n in layer_order]
    vals = [v for v in vals if v is not None and math.isfinite(v)]
    if len(vals) < 2 or vals[-1] <= 0:
        return None
    return float(vals[0] / vals[-1])


def pick_sentinel(norms: dict[str, float | None], numel: dict[str, int]) -> str | None:
    """The parameter used to watch ``.grad`` across steps: the smallest one with a non-zero gradient."""
    cands = [(numel[n], n) for n, v in norms.items() if v and math.isfinite(v) and n in numel]
    return min(cands)[1] if cands else None


def _grad_carried(grad):
    """At the first backward of a step: a 0-d bool tensor, True if ``grad`` still holds a non-zero
    gradient from the previous step (was not cleared); None when ``grad`` is None (cleared).
    Private: returns a tensor so the caller can defer the host sync."""
    import torch

    if grad is None:
        return None
    with torch.no_grad():
        return (grad != 0).any()


def grad_accumulates(carried: Sequence[bool], params) -> bool | None:
    """True when, at more than ``grad_clear.carried_share`` of the observed steps (most of them),
    ``.grad`` still held the previous step's gradient at the first backward of the next step
    (nothing cleared it). ``params``: the knowledge base's parameter values (None: the shipped ones)."""
    if not carried:
        return None
    return sum(bool(c) for c in carried) > resolve(params)["grad_clear.carried_share"] * len(carried)


def zero_grad_called(carried: Sequence[bool], params) -> bool | None:
    """True when gradients were cleared (None or all zero) before the first backward of most steps."""
    acc = grad_accumulates(carried, params)
    return None if acc is None else not acc
