"""Configuration read from the live model and optimizer: regularization, optimizer coverage,
train/eval mode, initial weights.

Sources (kb/sources.yaml): ``probe:regularization``, ``probe:optimizer_coverage``, ``probe:mode``,
``probe:init``. Everything here only reads attributes and weights; it returns plain data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from traindx.engine.parameters import resolve


def _dropout_types():
    import torch.nn as nn

    return tuple(t for t in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
                             nn.FeatureAlphaDropout) if isinstance(t, type))


def _bn_types():
    import torch.nn as nn

    return (nn.modules.batchnorm._BatchNorm, nn.SyncBatchNorm)


def dropout_p(model) -> float | None:
    """Largest dropout probability among the model's Dropout modules (0.0 if none)."""
    if model is None:
        return None
    ps = [float(m.p) for m in model.modules() if isinstance(m, _dropout_types())]
    # attention dropout and similar attributes named "dropout" as a float
    for m in model.modules():
        v = getattr(m, "dropout", None)
        if isinstance(v, float) and 0 <= v <= 1:
            ps.append(v)
    return max(ps) if ps else 0.0


def has_batchnorm(model) -> bool:
    """The model contains a BatchNorm layer."""
    return model is not None and any(isinstance(m, _bn_types()) for m in model.modules())


def model_has_dropout_or_bn(model) -> bool | None:
    """The model has Dropout (p > 0) or BatchNorm layers, whose behaviour depends on train/eval."""
    if model is None:
        return None
    return bool((dropout_p(model) or 0) > 0 or has_batchnorm(model))


def weight_decay(optimizer) -> float | None:
    """Largest weight decay over the optimizer's param groups (0.0 if none)."""
    if optimizer is None:
        return None
    vals = [float(g.get("weight_decay", 0.0) or 0.0) for g in optimizer.param_groups]
    return max(vals) if vals else 0.0


def regularization(model, optimizer, *, label_smoothing: float | None = None) -> list[str]:
    """Regularization in use, read from the objects: dropout, batchnorm, weight_decay, label_smoothing."""
    out = []
    if model is not None and (dropout_p(model) or 0) > 0:
        out.append("dropout")
    if has_batchnorm(model):
        out.append("batchnorm")
    if optimizer is not None and (weight_decay(optimizer) or 0) > 0:
        out.append("weight_decay")
    if label_smoothing:
        out.append("label_smoothing")
    return out


def hidden_params(model) -> list[tuple[str, object]]:
    """Trainable tensors the model holds but ``model.parameters()`` does not list: modules or
    parameters kept in a plain Python list/tuple/dict attribute (instead of ``nn.ModuleList`` /
    ``ParameterList``), and leaf tensors with ``requires_grad`` kept as plain attributes. Tensors
    that are also registered elsewhere in the model are left out."""
    import torch
    import torch.nn as nn

    if model is None:
        return []
    registered = {id(p) for p in model.parameters()}
    seen = set(registered)
    out = []

    def take(name, t):
        if id(t) not in seen and torch.is_tensor(t) and t.requires_grad and t.is_leaf:
            seen.add(id(t))
            out.append((name, t))

    for path, m in model.named_modules():
        prefix = f"{path}." if path else ""
        for attr, v in vars(m).items():
            if attr.startswith("_") or isinstance(v, (nn.ModuleList, nn.ModuleDict, nn.ParameterList,
                                                      nn.ParameterDict)):
                continue
            if isinstance(v, (list, tuple)):
                items = [(f"{attr}[{i}]", x) for i, x in enumerate(v)]
            elif isinstance(v, dict):
                items = [(f"{attr}[{k!r}]", x) for k, x in v.items()]
            else:
                items = [(attr, v)]
            for key, x in items:
                if isinstance(x, nn.Module):
                    for n, p in x.named_parameters():
                        take(f"{prefix}{key}.{n}", p)
                elif torch.is_tensor(x):
                    take(f"{prefix}{key}", x)
    return out


def params_not_in_optimizer(model, optimizer) -> list[str]:
    """Names of trainable model parameters that are in no optimizer param group -- including
    trainable tensors hidden from ``model.parameters()`` (see :func:`hidden_params`)."""
    if model is None or optimizer is None:
        return []
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    out = [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
    return out + [n for n, p in hidden_params(model) if id(p) not in held]


def unheld_with_grad(modules, optimizers) -> list[tuple[str, int]]:
    """Parameters of other top-level modules the training step runs (besides the bound model) that
    the loss's backward reached (their ``.grad`` is set) while no optimizer the script made holds
    them: a head or an embedding built beside the model and never handed to an optimizer. A frozen
    encoder run under ``no_grad`` or with ``requires_grad=False`` has no gradient; a GAN's other
    half is held by its own optimizer. ``(name, elements)`` pairs, names as ``Class.param``."""
    held = {id(p) for o in optimizers or () if o is not None for g in o.param_groups for p in g["params"]}
    out = []
    for mod in modules or ():
        if mod is None:
            continue
        for n, p in mod.named_parameters():
            if p.requires_grad and p.grad is not None and id(p) not in held:
                out.append((f"{type(mod).__name__}.{n}", p.numel()))
    return out


def share_not_in_optimizer(model, optimizer) -> float | None:
    """The fraction of the model's trainable weights (elements, hidden ones included) that are in
    no optimizer param group: 1.0 when nothing the model holds is trained. None without both."""
    if model is None or optimizer is None:
        return None
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    params = [p for p in model.parameters() if p.requires_grad] + [p for _, p in hidden_params(model)]
    total = sum(p.numel() for p in params)
    if not total:
        return None
    return sum(p.numel() for p in params if id(p) not in held) / total


def optimizer_name(optimizer) -> str | None:
    """The optimizer class, lower-case: sgd, adam, adamw, ..."""
    return None if optimizer is None else type(optimizer).__name__.lower()


def learning_rate(optimizer) -> float | None:
    """The first param group's initial learning rate (``initial_lr`` once a scheduler set it)."""
    if optimizer is None or not optimizer.param_groups:
        return None
    g = optimizer.param_groups[0]
    v = g.get("initial_lr", g.get("lr"))
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def group_setting(optimizer, key: str) -> float | None:
    """The first param group's numeric ``key`` (``momentum``, ``eps``), else None (absent or not a number)."""
    if optimizer is None or not optimizer.param_groups:
        return None
    v = optimizer.param_groups[0].get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def adam_family(optimizer) -> bool:
    """Whether the optimizer keeps Adam's two moment estimates (its param groups hold ``betas``): the
    ``eps`` the adam_eps fact reports (RMSprop and Adagrad have an eps of their own, read by no rule)."""
    return bool(optimizer is not None and optimizer.param_groups) and "betas" in optimizer.param_groups[0]


def majority_mode(trainings: Sequence[bool]) -> str | None:
    """``train`` or ``eval``: the mode the model was in at most of the given forwards."""
    if not trainings:
        return None
    return "train" if sum(1 for t in trainings if t) * 2 >= len(trainings) else "eval"


# --------------------------------------------------------------------------- initialisation
def _init_layers(model, params=None):
    """Linear/bilinear/conv weights with at least ``init.min_weight_values`` values (a smaller one
    has too few values for its spread or sameness to say anything)."""
    import torch.nn as nn

    least = resolve(params)["init.min_weight_values"]
    for name, m in model.named_modules():
        if isinstance(m, (nn.Linear, nn.Bilinear, nn.modules.conv._ConvNd)):
            w = getattr(m, "weight", None)
            if w is not None and w.dim() >= 2 and w.numel() >= least:
                yield (f"{name}.weight" if name else "weight"), w


def _is_constant(w) -> bool:
    flat = w.detach().reshape(-1)
    return bool((flat == flat[0]).all())


def zero_start_layers(names: Sequence[str], constant: set) -> set:
    """The constant weights among ``names`` (weight layers in registration order) that close a block
    whose other layers are random: the last weight layer of a block (of the model, when nothing follows
    it) while some earlier layer of that block is not constant. That is an identity or uniform start
    (Glow/RealNVP couplings, zero-gamma residual branches, a new classifier head started at uniform
    predictions, as the code reader reads ``zeros_`` on a block's last layer): nothing after it reads
    its units as alike, each output gets its own gradient from the loss, so no symmetry is kept."""
    out = set()
    for n in names:
        if n not in constant:
            continue
        parts = n.split(".")[:-1]          # the module path of the weight
        for depth in range(len(parts) - 1, -1, -1):
            prefix = ".".join(parts[:depth])
            block = [m for m in names if not prefix or m.startswith(prefix + ".")]
            if block[-1] != n:
                break                      # a layer of the block comes after it: it is hidden
            if any(m not in constant for m in block):
                out.add(n)
                break
    return out


def init_constant(model, params=None) -> list[str]:
    """Trainable Linear/conv weights that are all zero or one constant (every unit identical:
    symmetry that training never breaks). A frozen constant weight is left out: it is never
    updated, so what matters about it is that it is frozen (``frozen_params``), not its init. A
    constant layer that closes a block of random layers is a deliberate start, not a fault
    (:func:`zero_start_layers`)."""
    import torch

    if model is None:
        return []
    with torch.no_grad():
        layers = list(_init_layers(model, params))
        const = {n for n, w in layers if _is_constant(w)}
    skip = zero_start_layers([n for n, _ in layers], const)
    return [n for n, w in layers if w.requires_grad and n in const and n not in skip]


def kaiming_uniform_std(fan_in: int) -> float:
    """Std of PyTorch's default Linear/Conv init (kaiming_uniform_ with a=sqrt(5)): 1/sqrt(3 fan_in)."""
    return 1.0 / math.sqrt(3.0 * max(1, fan_in))


def init_scale_ratios(model, params=None) -> dict[str, float]:
    """Per linear/conv weight: its std / the default PyTorch std for its fan-in."""
    import torch

    out = {}
    if model is None:
        return out
    with torch.no_grad():
        layers = list(_init_layers(model, params))
        skip = zero_start_layers([n for n, _ in layers], {n for n, w in layers if _is_constant(w)})
        for n, w in layers:
            if n in skip:                  # a deliberate zero start has no scale to compare
                continue
            fan_in = w.shape[1] * (w[0][0].numel() if w.dim() > 2 else 1)
            std = float(w.detach().float().std())
            out[n] = std / kaiming_uniform_std(fan_in)
    return out


def init_scale_ratio(ratios: dict[str, float]) -> tuple[float, str] | None:
    """The ratio furthest from 1 (in log scale) and its layer: one badly scaled layer is enough."""
    items = [(n, r) for n, r in ratios.items() if r > 0 and math.isfinite(r)]
    zero = [n for n, r in ratios.items() if r == 0]
    if zero:
        return 0.0, zero[0]
    if not items:
        return None
    n, r = max(items, key=lambda nr: abs(math.log(nr[1])))
    return float(r), n


# --------------------------------------------------------------------------- the first weights
def start_state(model, params=None) -> dict | None:
    """A CPU copy of ``model``'s parameters and buffers (its state dict), or None when they take more
    than ``experiments.start_state_bytes``: what an experiment starts from when the run went NaN/Inf
    at its first steps (the run's own weights are non-finite by then)."""
    if model is None:
        return None
    sd = model.state_dict()
    size = sum(t.numel() * t.element_size() for t in sd.values() if hasattr(t, "element_size"))
    if size > resolve(params)["experiments.start_state_bytes"]:
        return None
    return {k: (t.detach().to("cpu", copy=True) if hasattr(t, "detach") else t) for k, t in sd.items()}


def weights_finite(model) -> bool:
    """Whether every floating parameter of ``model`` is finite."""
    import torch

    with torch.no_grad():
        return all(bool(torch.isfinite(p).all()) for p in model.parameters() if p.is_floating_point())
