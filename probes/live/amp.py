"""Mixed-precision quantities: autocast state, parameter dtype, GradScaler scale and skipped steps.

Source (kb/sources.yaml): ``probe:amp``.

GradScaler is observed by wrapping ``torch.amp.GradScaler.step`` and ``.update`` (the class
attributes; ``torch.cuda.amp.GradScaler`` inherits them) while at least one monitor is attached.
The wrappers call the originals with the same arguments and return their results unchanged; the
originals are put back when the last monitor detaches. A step counts as skipped when
``GradScaler.step`` returned without the optimizer's step hooks having run.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence


def autocast_state(device_type: str) -> tuple[bool, str | None]:
    """(autocast enabled, its dtype name) for a device type ("cpu", "cuda", ...), now."""
    import torch

    try:
        on = bool(torch.is_autocast_enabled(device_type))
    except TypeError:  # torch < 2.4: no device argument
        on = bool(torch.is_autocast_enabled()) if device_type == "cuda" else bool(torch.is_autocast_cpu_enabled())
    if not on:
        return False, None
    try:
        dt = torch.get_autocast_dtype(device_type)
    except Exception:
        dt = torch.get_autocast_gpu_dtype() if device_type == "cuda" else torch.get_autocast_cpu_dtype()
    return True, str(dt).replace("torch.", "")


def param_dtype(model) -> str | None:
    """The floating dtype most of the model's parameters have."""
    if model is None:
        return None
    counts: dict[str, int] = {}
    for p in model.parameters():
        if p.is_floating_point():
            k = str(p.dtype).replace("torch.", "")
            counts[k] = counts.get(k, 0) + p.numel()
    return max(counts, key=counts.get) if counts else None


def uses_amp(autocast_seen: bool, model_dtype: str | None, scaler_used: bool) -> bool:
    """Mixed/low precision in use: autocast at a forward, half/bfloat16 weights, or a GradScaler."""
    return bool(autocast_seen or scaler_used or model_dtype in ("float16", "bfloat16"))


def amp_dtype(autocast_dtypes: Sequence[str], model_dtype: str | None) -> str:
    """float16 / bfloat16 / float32: the low-precision dtype in use."""
    for d in ("float16", "bfloat16"):
        if d in autocast_dtypes or model_dtype == d:
            return d
    return "float32"


def skipped_step_fraction(scaler_steps: int, skipped: int) -> float | None:
    """Share of ``GradScaler.step`` calls that skipped the optimizer step (Inf/NaN gradients)."""
    return float(skipped / scaler_steps) if scaler_steps else None


_LOCK = threading.Lock()
_LISTENERS: list = []
_SAVED: dict = {}


def _grad_scaler_class():
    try:
        from torch.amp.grad_scaler import GradScaler
    except Exception:  # pragma: no cover - very old torch
        from torch.cuda.amp import GradScaler
    return GradScaler


def _wrap_step(original):
    @functools.wraps(original)
    def step(self, optimizer, *args, **kwargs):
        listeners = list(_LISTENERS)
        tokens = []
        for fn in listeners:
            try:
                tokens.append(fn.scaler_step_begin(self, optimizer))
            except Exception:  # a probe never breaks the user's step
                tokens.append(None)
        out = original(self, optimizer, *args, **kwargs)
        for fn, tok in zip(listeners, tokens):
            try:
                fn.scaler_step_end(self, optimizer, tok)
            except Exception:
                pass
        return out

    step.__traindx_wrapper__ = True
    return step


def _wrap_update(original):
    @functools.wraps(original)
    def update(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        for fn in list(_LISTENERS):
            try:
                fn.scaler_update(self)
            except Exception:
                pass
        return out

    update.__traindx_wrapper__ = True
    return update


def install_scaler_listener(listener) -> None:
    """Route GradScaler.step/update to ``listener.scaler_step_begin/scaler_step_end/scaler_update``."""
    cls = _grad_scaler_class()
    with _LOCK:
        if not _LISTENERS:
            _SAVED["step"] = cls.__dict__["step"]
            _SAVED["update"] = cls.__dict__["update"]
            _SAVED["wrap_step"] = _wrap_step(_SAVED["step"])
            _SAVED["wrap_update"] = _wrap_update(_SAVED["update"])
            cls.step = _SAVED["wrap_step"]
            cls.update = _SAVED["wrap_update"]
        _LISTENERS.append(listener)


def uninstall_scaler_listener(listener) -> None:
    """Remove ``listener``; the last removal restores ``GradScaler.step`` and ``.update``."""
    cls = _grad_scaler_class()
    with _LOCK:
        if listener in _LISTENERS:
            _LISTENERS.remove(listener)
        if _LISTENERS or "step" not in _SAVED:
            return
        if cls.__dict__.get("step") is _SAVED["wrap_step"]:
            cls.step = _SAVED["step"]
        if cls.__dict__.get("update") is _SAVED["wrap_update"]:
            cls.update = _SAVED["update"]
        _SAVED.clear()
