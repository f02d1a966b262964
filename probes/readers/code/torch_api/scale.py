"""The scale of data a script makes itself: a bound on the magnitude of its values (|mean| + std)
followed from random draws and constants through simple arithmetic, so that synthetic inputs put on
raw scales (``2048 + 900 * x``, ``x * units + units``) are seen for what they are. Anything the
reader does not follow (a matrix product, a mean, a division by a tensor: a normalisation) makes the
scale unknown; an unknown scale is never a fact.
"""

from __future__ import annotations

import ast

from ..values import Const, ListVal, TensorVal, Val

#: logspace's end is folded only below this power (a float overflows near 10**308): arithmetic,
#: not knowledge.
_MAX_POWER = 300

#: torch / numpy random draws with a standard spread (|mean| + std of order 1)
UNIT_DRAWS = {"randn", "rand", "randn_like", "rand_like", "standard_normal", "random", "random_sample",
              "bernoulli", "zeros", "ones", "zeros_like", "ones_like", "eye", "empty"}
#: functions whose output keeps the magnitude of their (data) input
KEEPS_SCALE = {"view", "reshape", "squeeze", "unsqueeze", "flatten", "permute", "transpose", "contiguous",
               "float", "double", "half", "bfloat16", "to", "cuda", "cpu", "clone", "expand", "expand_as",
               "narrow", "t", "type", "type_as", "repeat", "tile", "roll", "flip", "astype", "movedim",
               "swapaxes", "stack", "cat", "concat", "concatenate", "vstack", "hstack", "abs", "neg",
               "detach", "numpy", "copy", "tensor", "as_tensor", "from_numpy", "asarray", "array",
               "Tensor", "FloatTensor",
               # rounding moves a value by under one unit: raw intensities rounded to integers stay raw
               "round", "floor", "ceil", "trunc", "rint", "fix", "around", "round_", "floor_", "ceil_",
               "trunc_", "abs_", "neg_"}
#: functions bounded by 1 whatever their input
BOUNDED = {"sin", "cos", "tanh"}


#: functions that hold their input between two limits: ``np.clip(x, lo, hi)``, ``torch.clamp(x, min, max)``
CLIPS = {"clip", "clamp", "clip_", "clamp_"}
#: the keyword names of the lower and the upper limit (numpy, torch)
_LIMIT_KEYWORDS = (("a_min", "min"), ("a_max", "max"))


def clip_scale(args: list, kwargs: dict) -> float | None:
    """The scale of ``clip(x, lo, hi)`` (``x.clip(lo, hi)`` comes as ``[x, lo, hi]``) when the scale of
    ``x`` is followed: no more than the larger |limit| when both limits are numbers, else that of ``x``."""
    x = args[0] if args else None
    if not isinstance(x, TensorVal) or x.scale is None:
        return None
    limits = []
    for i, keys in enumerate(_LIMIT_KEYWORDS, start=1):
        v = args[i] if len(args) > i else next((kwargs[k] for k in keys if k in kwargs), None)
        limits.append(number(v) if v is not None else None)
    if any(lim is None for lim in limits):
        return x.scale
    return min(x.scale, max(abs(lim) for lim in limits))


def select_scale(args: list, method: bool) -> float | None:
    """The scale of ``where(cond, a, b)`` (``a.where(cond, b)`` as a method): each element is one of the
    two branches, so the larger of their scales when both are followed (a tensor or a number)."""
    branches = (args[0], args[2]) if method else tuple(args[1:3])
    if len(branches) != 2:
        return None
    scales = [b.scale if isinstance(b, TensorVal) else number(b) for b in branches]
    if any(s is None for s in scales):
        return None
    return max(abs(s) for s in scales)


def number(v: Val) -> float | None:
    if isinstance(v, Const) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return float(v.value)
    return None


def literal_scale(v: Val) -> float | None:
    """The largest |number| of a (nested) literal list of numbers or tensors of known scale; None
    when any item is neither."""
    if isinstance(v, ListVal) and v.items and not v.comp and v.kind in ("list", "tuple"):
        parts = [literal_scale(x) if isinstance(x, ListVal) else x.scale if isinstance(x, TensorVal)
                 else number(x) for x in v.items]
        if all(p is not None for p in parts):
            return max(abs(p) for p in parts)
    return None


def draw_scale(name: str, args: list, kwargs: dict) -> float | None:
    """The scale of a fresh random draw or constant tensor ``name(*args, **kwargs)``."""
    if name in UNIT_DRAWS:
        return 1.0
    if name == "normal":   # torch.normal(mean, std, size) / numpy normal(loc, scale, size)
        loc = kwargs.get("loc", kwargs.get("mean", args[0] if args else Const(0.0)))
        sd = kwargs.get("scale", kwargs.get("std", args[1] if len(args) > 1 else Const(1.0)))
        a, b = number(loc), number(sd)
        return abs(a) + abs(b) if a is not None and b is not None else None
    if name == "uniform":  # numpy uniform(low, high, size)
        lo = number(kwargs.get("low", args[0] if args else Const(0.0)))
        hi = number(kwargs.get("high", args[1] if len(args) > 1 else Const(1.0)))
        return max(abs(lo), abs(hi)) if lo is not None and hi is not None else None
    if name in ("linspace", "logspace") and len(args) >= 2:   # (start, end, steps[, base])
        a, b = number(args[0]), number(args[1])
        if a is None or b is None:
            return None
        if name == "linspace":
            return max(abs(a), abs(b))
        base = number(kwargs.get("base", args[3] if len(args) > 3 else Const(10.0)))
        return abs(base) ** max(a, b) if base is not None and max(a, b) < _MAX_POWER else None
    if name == "full" and len(args) > 1:
        v = number(args[1])
        return abs(v) if v is not None else None
    return None


def function_scale(name: str, x: Val) -> float | None:
    """The scale of ``name(x, ...)`` for a function of the data ``x``."""
    if name in BOUNDED:
        return 1.0
    if name in KEEPS_SCALE:
        if isinstance(x, TensorVal):
            return x.scale
        return literal_scale(x)
    return None


def binop_scale(op: ast.operator, a: Val, b: Val) -> float | None:
    """The scale of ``a op b`` when both sides are followed (a tensor of known scale or a number)."""
    sa = a.scale if isinstance(a, TensorVal) else number(a)
    sb = b.scale if isinstance(b, TensorVal) else number(b)
    if sa is None or sb is None:
        return None
    sa, sb = abs(sa), abs(sb)
    if isinstance(op, (ast.Add, ast.Sub)):
        return sa + sb
    if isinstance(op, ast.Mult):
        return sa * sb
    if isinstance(op, ast.Div) and isinstance(b, Const) and sb > 0:
        return sa / sb
    return None
