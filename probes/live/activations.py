"""Activation quantities (costly: only while the monitor is armed): dead ReLU units, saturated
tanh/sigmoid units, activation scale and gradient scale through depth.

Source (kb/sources.yaml): ``probe:activations``.

:class:`ActivationHooks` registers forward hooks on the model's ReLU/Tanh/Sigmoid and Linear/Conv
modules (never on anything else), computes a few reductions per hooked output without a host sync,
and :meth:`ActivationHooks.collect` turns them into plain per-layer numbers with one ``.tolist()``.
The hooks return None (outputs untouched) and :meth:`ActivationHooks.remove` removes every handle.
ReLUs applied functionally (``F.relu``) are seen at the input of the next Linear/Conv layer when the
model has no ReLU modules at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from traindx.probes.live.hooks import CopyInert


def _types():
    import torch.nn as nn

    relu = (nn.ReLU, nn.ReLU6)
    sat = (nn.Tanh, nn.Sigmoid, nn.Hardtanh, nn.Hardsigmoid)
    act = relu + sat + (nn.LeakyReLU, nn.GELU, nn.SiLU, nn.ELU, nn.Softplus, nn.Mish)
    lin = (nn.Linear, nn.modules.conv._ConvNd)
    return relu, sat, act, lin


def _unit_dims(t):
    """Dimensions reduced over to get one value per unit: all but dim 1 (features / channels)."""
    return [0] + list(range(2, t.dim()))


def _dead(t):
    """Fraction of units (dim 1) that are <= 0 for every sample of the batch (0-d tensor)."""
    return (t.amax(dim=_unit_dims(t)) <= 0).float().mean()


def _saturated(t, kind: str, cut: float = 0.99):
    """Fraction of outputs in saturation: |tanh| > ``cut``, a sigmoid outside [1 - cut, cut]
    (``activations.saturation_cut``), a hardtanh at its bound."""
    if kind == "tanh":
        return (t.abs() > cut).float().mean()
    if kind == "hardtanh":
        return (t.abs() >= 1.0).float().mean()
    return ((t < 1.0 - cut) | (t > cut)).float().mean()


def _rms(t):
    return t.float().pow(2).mean().sqrt()


class ActivationHooks:
    """Forward hooks that measure activations; one instance per armed period."""

    def __init__(self, model, params=None):
        import torch

        from traindx.engine.parameters import resolve

        self._torch = torch
        self._cut = float(resolve(params)["activations.saturation_cut"])
        relu, sat, act, lin = _types()
        self.handles = []
        self.pending: list[tuple[str, str, object]] = []
        self.order: list[str] = []          # activation-module names in execution order
        self.lin_order: list[str] = []      # linear/conv module names in execution order
        self._seen: set[str] = set()
        self._lin_seen: set[str] = set()
        has_relu_modules = any(isinstance(m, relu) for m in model.modules())
        for name, m in model.named_modules():
            if isinstance(m, relu):
                self.handles.append(m.register_forward_hook(CopyInert(self._hook(name, "relu"))))
            elif isinstance(m, sat):
                kind = {"Tanh": "tanh", "Hardtanh": "hardtanh"}.get(type(m).__name__, "sigmoid")
                self.handles.append(m.register_forward_hook(CopyInert(self._hook(name, kind))))
            elif isinstance(m, act):
                self.handles.append(m.register_forward_hook(CopyInert(self._hook(name, "act"))))
            elif isinstance(m, lin):
                self.handles.append(m.register_forward_hook(CopyInert(self._lin_hook(name, not has_relu_modules))))

    def _hook(self, name, kind):
        def hook(module, args, output):
            t = output
            if not self._torch.is_tensor(t) or not t.is_floating_point() or t.dim() < 2 or t.numel() == 0:
                return None
            with self._torch.no_grad():
                t = t.detach()
                if name not in self._seen:
                    self._seen.add(name)
                    self.order.append(name)
                if kind == "relu":
                    self.pending.append((name, "dead", _dead(t)))
                elif kind in ("tanh", "sigmoid", "hardtanh"):
                    self.pending.append((name, "saturated", _saturated(t, kind, self._cut)))
                self.pending.append((name, "scale", _rms(t)))
            return None

        return hook

    def _lin_hook(self, name, functional_relu: bool):
        def hook(module, args, output):
            torch = self._torch
            with torch.no_grad():
                if name not in self._lin_seen:
                    self._lin_seen.add(name)
                    self.lin_order.append(name)
                if torch.is_tensor(output) and output.is_floating_point() and output.numel():
                    self.pending.append((name, "lin_scale", _rms(output.detach())))
                x = args[0] if args else None
                if functional_relu and torch.is_tensor(x) and x.is_floating_point() and x.dim() >= 2 and x.numel():
                    x = x.detach()
                    self.pending.append((name, "in_min", x.min().float()))
                    self.pending.append((name, "in_dead", _dead(x)))
            return None

        return hook

    def collect(self) -> dict[str, dict[str, float]]:
        """Resolve the pending reductions: ``{layer: {quantity: value}}`` averaged over the forwards
        since the last call (one host sync)."""
        torch = self._torch
        if not self.pending:
            return {}
        items, self.pending = self.pending, []
        by_dev: dict = {}
        for i, (_, _, t) in enumerate(items):
            by_dev.setdefault(t.device, []).append(i)
        vals = [0.0] * len(items)
        for _, idx in by_dev.items():
            for i, v in zip(idx, torch.stack([items[i][2].float() for i in idx]).tolist()):
                vals[i] = v
        acc: dict[str, dict[str, list[float]]] = {}
        for (name, q, _), v in zip(items, vals):
            acc.setdefault(name, {}).setdefault(q, []).append(v)
        out: dict[str, dict[str, float]] = {}
        for name, qs in acc.items():
            out[name] = {q: (min(v) if q == "in_min" else sum(v) / len(v)) for q, v in qs.items()}
        return out

    def remove(self) -> None:
        """Remove every hook handle (idempotent)."""
        for h in self.handles:
            h.remove()
        self.handles = []
        self.pending = []


def dead_relu_fraction(layers: dict[str, dict[str, float]], lin_order: Sequence[str] = ()) -> float | None:
    """Largest per-layer fraction of ReLU units that are 0 for every input of a batch.

    Uses ReLU modules; without any, the non-negative inputs of Linear/Conv layers after the first.
    """
    vals = [q["dead"] for q in layers.values() if "dead" in q]
    if not vals:
        for name in list(lin_order)[1:]:
            q = layers.get(name, {})
            if "in_dead" in q and q.get("in_min", -1) >= 0:
                vals.append(q["in_dead"])
    return float(max(vals)) if vals else None


def saturated_fraction(layers: dict[str, dict[str, float]]) -> float | None:
    """Largest per-layer fraction of tanh/sigmoid outputs in saturation (|tanh| above
    ``activations.saturation_cut``, 0.99; a sigmoid outside [0.01, 0.99])."""
    vals = [q["saturated"] for q in layers.values() if "saturated" in q]
    return float(max(vals)) if vals else None


def activation_depth_ratio(layers: dict[str, dict[str, float]], act_order: Sequence[str],
                           lin_order: Sequence[str]) -> float | None:
    """RMS activation at the last hidden layer / at the first: activation-module outputs in execution
    order when there are at least two, else Linear/Conv outputs without the final (output) layer."""
    scales = [layers[n]["scale"] for n in act_order if n in layers and "scale" in layers[n]]
    if len(scales) < 2:
        scales = [layers[n]["lin_scale"] for n in list(lin_order)[:-1] if n in layers and "lin_scale" in layers[n]]
    scales = [s for s in scales if math.isfinite(s)]
    if len(scales) < 2 or scales[0] <= 0:
        return None
    return float(scales[-1] / scales[0])
