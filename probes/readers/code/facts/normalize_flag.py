"""A rescaling of the data the script switches off itself (read for ``inputs_normalized``).

Scripts often keep their input normalisation behind a switch: ``NORMALIZE = False`` at the top and
``if NORMALIZE: x = x / torch.tensor([640.0, 480.0, ...])`` or ``x = (x - mu) / sd`` further down. With
the switch off, the inputs reach the network in their raw units, whatever their scale: the branch the
script wrote to rescale them never runs. What marks it: a module-level name bound once to a false
constant (``False``, ``0``, ``None``), and an ``if`` on that name alone whose body rebinds a variable to
itself divided by something (``x = x / s``, ``x = (x - m) / s``, ``a, b = a / s, b / s``) or passed
through a scaler (``x = scaler.fit_transform(x)``). The switch's name is not read: the body says what
it does.
"""

from __future__ import annotations

import ast

from ..text import SHORT_SNIPPET_CHARS, callee_name, snippet
from .common import bound_once, falsy_constant

#: calls that rescale the data passed to them (scikit-learn scalers, torchvision/F.normalize)
_RESCALERS = {"fit_transform", "transform", "normalize", "scale", "minmax_scale", "robust_scale"}


def _false_switches(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound exactly once in the whole script, to a false constant: name -> line."""
    return {k: st.lineno for k, (v, st) in bound_once(tree).items() if st in tree.body and falsy_constant(v)}


def _names(node: ast.AST) -> set:
    return {e.id for e in ast.walk(node) if isinstance(e, ast.Name)}


def _rescales(target: ast.AST, value: ast.AST) -> bool:
    """``x = x / s`` or ``x = (x - m) / s`` (the target read back on the right of a division), or
    ``x = scaler.fit_transform(x)``."""
    if not isinstance(target, ast.Name):
        return False
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return target.id in _names(value.left)
    if isinstance(value, ast.Call) and callee_name(value) in _RESCALERS:
        return any(target.id in _names(a) for a in value.args)
    return False


def _rescaling_in(body: list) -> ast.Assign | None:
    """The first assignment in ``body`` (not nested deeper) that rescales a variable by itself."""
    for st in body:
        if not isinstance(st, ast.Assign) or len(st.targets) != 1:
            continue
        t, v = st.targets[0], st.value
        if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
            if any(_rescales(a, b) for a, b in zip(t.elts, v.elts)):
                return st
        elif _rescales(t, v):
            return st
    return None


def switched_off_rescaling(tree: ast.Module) -> tuple[int, str, int, str] | None:
    """(line, text) of the rescaling that never runs and (line, name) of the switch bound to a false
    constant that keeps it from running, or None."""
    switches = _false_switches(tree)
    if not switches:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id in switches:
            st = _rescaling_in(n.body)
            if st is not None:
                return st.lineno, snippet(st, SHORT_SNIPPET_CHARS), switches[n.test.id], n.test.id
    return None
