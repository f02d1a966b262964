"""Weight matrices a hand-written network draws itself and trains (read for ``init_stack_std``).

A script that writes its layers by hand (numpy, or raw torch tensors) draws each weight matrix as a
scaled unit normal, ``s * rng.randn(fan_in, fan_out)`` or ``torch.randn(a, b) * s``, and updates it
itself (``W -= lr * dW``, ``weights[i] -= lr * dw``) or hands it to an optimizer / autograd
(``requires_grad=True``, ``.requires_grad_()``). Each such draw with a known factor is one layer's
scale; a list comprehension of draws (``[s * randn(a, b) for a, b in zip(sizes[:-1], sizes[1:])]``)
is a stack of them. Only draws of two or more sizes count (a matrix, not a bias or a noise vector),
and only scales: a draw with something added (an identity plus noise) has no std of its own.
"""
import ast

from ..text import SNIPPET_CHARS, callee_name, snippet
from .common import numbers_bound_once, stated_number

#: a stack is two layers or more (what "through a stack" means, not a tuned cut): one drawn matrix is one
#: layer, whose small scale the next layer's default init does not multiply
STACK = 2
#: matrices a comprehension of draws stands for: a stack
COMPREHENSION_MATRICES = STACK
#: unit-normal draws: numpy's and torch's
_UNIT_NORMALS = {"randn", "standard_normal"}


def _number(v: ast.AST, consts: dict) -> float | None:
    """The number ``v`` states: a literal (or literals' arithmetic), a name bound once to one, ``1 / x`` of one."""
    if isinstance(v, ast.Name):
        return consts.get(v.id)
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Div):
        a, b = _number(v.left, consts), _number(v.right, consts)
        return a / b if a is not None and b else None
    return stated_number(v)


def _scaled_draw(v: ast.AST, consts: dict) -> tuple | None:
    """(std, draw call) of ``s * randn(a, b, ...)`` / ``randn(a, b) * s`` / ``randn(a, b) / k``."""
    if not (isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Mult, ast.Div))):
        return None
    for draw, factor in ((v.left, v.right), (v.right, v.left)):
        if isinstance(v.op, ast.Div) and draw is v.right:
            continue
        if isinstance(draw, ast.Call) and callee_name(draw) in _UNIT_NORMALS and _matrix_sizes(draw):
            s = _number(factor, consts)
            if s is not None and s > 0:
                return (1 / s if isinstance(v.op, ast.Div) else s), draw
    return None


def _matrix_sizes(draw: ast.Call) -> bool:
    """The draw has two or more sizes: ``randn(a, b)``, ``randn((a, b))``, ``standard_normal((a, b))``."""
    args = draw.args
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return len(args[0].elts) >= 2
    size = next((k.value for k in draw.keywords if k.arg == "size"), None)
    if isinstance(size, (ast.Tuple, ast.List)):
        return len(size.elts) >= 2
    return len(args) >= 2


def _trained_names(tree: ast.AST) -> set:
    """Names the script updates itself (``W -= ...``, ``W[i] -= ...``) or makes require grad."""
    out: set = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub):
            t = n.target.value if isinstance(n.target, ast.Subscript) else n.target
            if isinstance(t, ast.Name):
                out.add(t.id)
        elif isinstance(n, ast.Call) and callee_name(n) == "requires_grad_" and isinstance(n.func, ast.Attribute) \
                and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
    return out


#: method calls that keep a drawn tensor's values: a device, a dtype, autograd switched on
_KEEPERS = {"to", "cuda", "float", "double", "requires_grad_", "astype"}


def _unwrapped(v: ast.AST) -> tuple:
    """(the draw inside ``(s * randn(a, b)).to(dev).requires_grad_()``, whether autograd was switched on)."""
    grad = False
    while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and callee_name(v) in _KEEPERS:
        grad = grad or callee_name(v) == "requires_grad_"
        v = v.func.value
    return v, grad


def drawn_weight_stack(tree: ast.AST) -> tuple | None:
    """(line, largest std, matrices, text) of the weight matrices the script draws and trains itself,
    when they are two or more (one comprehension of draws counts as several); None otherwise."""
    consts = numbers_bound_once(tree)
    trained = _trained_names(tree)
    found = []   # (line, std, several, text)
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v, several = n.value, False
        if isinstance(v, ast.ListComp):
            v, several = v.elt, True
        v, grad = _unwrapped(v)
        hit = _scaled_draw(v, consts)
        if hit is None:
            continue
        grad = grad or any(k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
                           for k in hit[1].keywords)
        if grad or n.targets[0].id in trained:
            found.append((n.lineno, hit[0], several, snippet(n, SNIPPET_CHARS)))
    count = sum(COMPREHENSION_MATRICES if f[2] else 1 for f in found)
    if count < STACK:
        return None
    top = max(found, key=lambda f: f[1])
    return top[0], top[1], count, top[3]
