"""NaN/Inf tracing: the first step with a non-finite loss, its inputs, labels and outputs, and the
first module whose output turned non-finite.

Source (kb/sources.yaml): ``probe:nan_trace``.

The module search replays the forward that produced the first non-finite loss on a hook-free deep
copy of the model (so BatchNorm running statistics and hooks of the user's model are untouched),
with the RNG states saved and restored around it, and only while the copy's parameters are still
finite (otherwise every module after the first would be blamed). It runs at most once per run.
"""

from __future__ import annotations

import contextlib
import math

from traindx.probes.live.data import inputs_have_nan, preserved_rng, tensors_in

__all__ = ["nonfinite", "inputs_have_nan", "output_range_max", "label_range", "params_finite",
           "first_nonfinite_module"]


def nonfinite(t) -> bool:
    """Whether a tensor (or a number) holds NaN/Inf."""
    import torch

    if torch.is_tensor(t):
        if not (t.is_floating_point() or t.is_complex()):
            return False
        with torch.no_grad():
            return not bool(torch.isfinite(t).all())
    try:
        return not math.isfinite(float(t))
    except (TypeError, ValueError):
        return False


def _absmax(outputs):
    """Largest finite |value| over the floating tensors in ``outputs`` as a 0-d float tensor, or None.
    Private: returns a tensor so the caller can defer the host sync."""
    import torch

    ts = [t for t in tensors_in(outputs) if t.is_floating_point() and t.numel()]
    if not ts:
        return None
    with torch.no_grad():
        ms = []
        for t in ts:
            a = torch.nan_to_num(t.detach().abs(), nan=0.0, posinf=0.0)   # finite values only
            ms.append(a.max().float())
        return ms[0] if len(ms) == 1 else torch.stack([m.to(ms[0].device) for m in ms]).max()


def output_range_max(outputs) -> float | None:
    """Largest finite |output| (logit) in a model output."""
    m = _absmax(outputs)
    return None if m is None else float(m)


def label_range(targets) -> list[float] | None:
    """[min, max] of the labels/targets of a batch."""
    import torch

    if not torch.is_tensor(targets) or targets.numel() == 0:
        return None
    with torch.no_grad():
        t = targets.detach()
        if t.is_floating_point():
            t = t[torch.isfinite(t)]
            if t.numel() == 0:
                return None
        return [float(t.min()), float(t.max())]


def params_finite(model) -> bool:
    """Whether every parameter of the model is finite (one batched reduction)."""
    from traindx.probes.live.gradients import norms_of

    ps = [p.detach() for p in model.parameters() if p.is_floating_point()]
    return all(math.isfinite(v) for v in norms_of(ps))


def first_nonfinite_module(model, args, kwargs=None, *, autocast: tuple | None = None,
                           all_finite: str | None = None, max_output: float | None = None) -> str | None:
    """Replay ``model(*args, **kwargs)`` on a hook-free copy and return the name of the first module
    (in the order their forwards finish) whose output holds NaN/Inf; ``""`` for the root module;
    ``all_finite`` when the replay ran to the end and every module's output was finite (and the
    model's output within ``max_output`` in magnitude, when given); None when the replay is not
    possible or its output is finite but larger.

    ``autocast``: ``(device_type, dtype)`` when the original forward ran under autocast.
    """
    import torch

    from traindx.probes.live.overfit import clean_copy

    copy = clean_copy(model)
    if copy is None:
        return None
    names = {id(m): n for n, m in copy.named_modules()}
    found: list[str] = []

    def hook(module, inp, out):
        if found:
            return None
        for t in tensors_in(out):
            if (t.is_floating_point() or t.is_complex()) and not bool(torch.isfinite(t).all()):
                found.append(names.get(id(module), "?"))
                break
        return None

    handles = [m.register_forward_hook(hook) for m in copy.modules()]
    ctx = torch.autocast(device_type=autocast[0], dtype=getattr(torch,
                                                                autocast[1])) if autocast else contextlib.nullcontext()
    try:
        with preserved_rng(), torch.no_grad(), ctx:
            out = copy(*args, **(kwargs or {}))
    except Exception:
        return found[0] if found else None
    finally:
        for h in handles:
            h.remove()
    if found:
        return found[0]
    if all_finite is not None and max_output is not None:
        big = [t for t in tensors_in(out) if t.is_floating_point() and t.numel()]
        if any(float(t.detach().abs().max()) > max_output for t in big):
            return None
    return all_finite
