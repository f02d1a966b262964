"""The learning-rate multiplier of torch's stock decaying schedulers after ``k`` of their steps, from the
numbers the script gives them (torch's defaults, from the knowledge base, where it gives none):
what lets the code reader tell how far a schedule has taken the LR by the end of the loop that steps it.
"""

from __future__ import annotations

import math

from traindx.probes.readers.curves import collapsed_from

from ..values import Const, ListVal

#: each scheduler's arguments after the optimizer, in torch's order (positional or by keyword)
SIGNATURES = {"steplr": ("step_size", "gamma"), "multisteplr": ("milestones", "gamma"),
              "exponentiallr": ("gamma",), "cosineannealinglr": ("T_max", "eta_min")}
#: the arguments torch gives a default (its value is the knowledge base's ``code.default_<arg>.<kind>``)
DEFAULTED = {"steplr": ("gamma",), "multisteplr": ("gamma",), "cosineannealinglr": ("eta_min",)}


def _number(v) -> float | list | None:
    if isinstance(v, Const) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return float(v.value)
    if isinstance(v, ListVal) and v.kind in ("list", "tuple") and not v.comp and v.items:
        nums = [_number(x) for x in v.items]
        return nums if all(isinstance(n, float) for n in nums) else None
    return None


def decay_arguments(kind: str, args: list, kwargs: dict, params) -> dict | None:
    """The numbers of a decaying scheduler's call (``StepLR(opt, step_size=1, gamma=0.1)``, values read
    from constants or a config), torch's defaults filled in; None when one is not known."""
    names = SIGNATURES.get(kind)
    if names is None:
        return None
    out: dict = {}
    for i, name in enumerate(names, start=1):
        v = kwargs.get(name, args[i] if len(args) > i else None)
        if v is None and name in DEFAULTED.get(kind, ()):
            out[name] = float(params[f"code.default_{name}.{kind}"])
            continue
        n = _number(v)
        if n is None:
            return None
        out[name] = n
    return out


def multiplier(kind: str, numbers: dict, k: int, lr0: float | None) -> float | None:
    """The LR after ``k`` scheduler steps as a fraction of its start (None when it depends on an unknown:
    a cosine schedule's floor ``eta_min`` against an unknown initial LR)."""
    if kind == "steplr":
        size = numbers["step_size"]
        return numbers["gamma"] ** (k // size) if size >= 1 else None
    if kind == "multisteplr":
        return numbers["gamma"] ** sum(1 for m in numbers["milestones"] if m <= k)
    if kind == "exponentiallr":
        return numbers["gamma"] ** k
    if kind == "cosineannealinglr":
        t_max, floor = numbers["T_max"], numbers["eta_min"]
        if t_max <= 0 or (floor and not lr0):
            return None
        low = floor / lr0 if floor else 0.0
        return low + (1 - low) * (1 + math.cos(math.pi * k / t_max)) / 2
    return None


def trajectory(kind: str, numbers: dict, steps: int, lr0: float | None) -> list[float] | None:
    """The multiplier in force during each of ``steps`` scheduler periods (before the first step: 1)."""
    out = [multiplier(kind, numbers, k, lr0) for k in range(steps)]
    return None if any(m is None for m in out) else out


def collapse_point(lrs: list[float], cut: float) -> int | None:
    """The first period from which the LR stays at or below ``cut`` of its start; None when it never does
    (the curve reader's reading of a logged LR, :func:`~traindx.probes.readers.curves.collapsed_from`)."""
    return collapsed_from(lrs, cut)
