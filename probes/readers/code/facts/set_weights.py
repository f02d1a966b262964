"""Frozen parameters that hold values the script chose (read for ``frozen_weights``).

A layer that freezes its own parameters right after writing fixed values into them is an operator,
not a layer left untrained: a mean shift (``self.weight.data = torch.eye(3).view(3, 3, 1, 1)``), a Sobel
or Gaussian kernel (``self.conv.weight.copy_(kernel)``), a constant table. Its freeze is the point. What
tells it from a freeze at random init is the write itself: in the function that freezes, a weight or
bias (or its ``.data``) is assigned, copied into or filled with values that draw no random numbers.
"""

from __future__ import annotations

import ast

from ..text import callee_name

#: in-place calls that write a tensor's values
_WRITES = {"copy_", "fill_", "zero_"}
#: ``nn.init`` functions that set chosen values rather than draw them
_SET_INITS = {"constant_", "ones_", "zeros_", "eye_", "dirac_"}
#: callees that draw random numbers (a write of their result keeps a random start)
_RANDOM = {"randn", "rand", "randint", "randn_like", "rand_like", "normal", "normal_", "uniform_",
           "bernoulli", "multinomial", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "trunc_normal_", "sparse_", "randperm"}


def _draws(e: ast.AST | None) -> bool:
    return e is not None and any(isinstance(n, ast.Call) and callee_name(n) in _RANDOM for n in ast.walk(e))


def _weightish(e: ast.AST) -> bool:
    """``x.weight``, ``x.bias``, ``x.weight.data``, ``self.kernel.data``: a tensor attribute, by its name or
    through ``.data``."""
    while isinstance(e, ast.Attribute) and e.attr == "data":
        e = e.value
        if isinstance(e, ast.Attribute):
            return True
    return isinstance(e, ast.Attribute) and e.attr in ("weight", "bias")


def _chosen_write(n: ast.AST) -> bool:
    """Whether statement-level node ``n`` writes chosen (non-random) values into a weight."""
    if isinstance(n, ast.Assign):
        return any(isinstance(t, ast.Attribute) and t.attr == "data" and _weightish(t) for t in n.targets) \
            and not _draws(n.value)
    if not isinstance(n, ast.Call):
        return False
    name = callee_name(n)
    if name in _WRITES and isinstance(n.func, ast.Attribute) and _weightish(n.func.value):
        return not any(_draws(a) for a in n.args)
    return name in _SET_INITS and bool(n.args) and _weightish(n.args[0])


def _enclosing_function(tree: ast.AST, line: int) -> ast.AST | None:
    """The innermost function whose lines hold ``line``."""
    best = None
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= line <= (n.end_lineno or n.lineno):
            if best is None or n.lineno >= best.lineno:
                best = n
    return best


def _owner(e: ast.AST) -> str:
    """The module a weight write concerns: ``self.conv.weight.data`` -> ``self.conv``."""
    while isinstance(e, ast.Attribute) and e.attr == "data":
        e = e.value
    if isinstance(e, ast.Attribute) and e.attr in ("weight", "bias"):
        e = e.value
    return ast.unparse(e)


def _written_owners(fn: ast.AST) -> list[tuple[int, str]]:
    out = []
    for n in ast.walk(fn):
        if not _chosen_write(n):
            continue
        if isinstance(n, ast.Assign):
            target = next(t for t in n.targets if isinstance(t, ast.Attribute) and t.attr == "data")
        elif callee_name(n) in _WRITES:
            target = n.func.value
        else:
            target = n.args[0]
        out.append((n.lineno, _owner(target)))
    return out


def _frozen_base(text: str) -> str:
    """What a freeze record names: ``self.parameters()`` -> ``self``, ``self.enc.parameters()`` -> ``self.enc``,
    ``model.fc.weight`` -> ``model.fc``."""
    text = text.split(" (if ", 1)[0].strip()
    for tail in (".parameters()", ".weight", ".bias"):
        if text.endswith(tail):
            return text[: -len(tail)]
    return text


def set_values_line(tree: ast.AST, frozen: list[tuple[int, str]]) -> int | None:
    """The line of a chosen-value write beside every freeze in ``frozen`` ((line, what it freezes)): each
    freeze sits in a function that also writes fixed values into a weight of what it freezes (or of a
    layer inside it). None when any freeze has no such write, or sits at module level."""
    found = None
    for line, text in frozen:
        fn = _enclosing_function(tree, line)
        if fn is None:
            return None
        base = _frozen_base(text)
        writes = [ln for ln, owner in _written_owners(fn) if owner == base or owner.startswith(base + ".")]
        if not writes:
            return None
        found = found or min(writes)
    return found


def _frozen_table_call(n: ast.AST) -> bool:
    """``nn.Embedding.from_pretrained(t)`` / ``EmbeddingBag.from_pretrained(t)`` without ``freeze=False``:
    PyTorch's default ``freeze=True`` turns the table's gradient off."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "from_pretrained"
            and isinstance(n.func.value, (ast.Name, ast.Attribute)) and n.args):
        return False
    owner = n.func.value.attr if isinstance(n.func.value, ast.Attribute) else n.func.value.id
    freeze = next((k.value for k in n.keywords if k.arg == "freeze"), None)
    return owner in ("Embedding", "EmbeddingBag") and not (
        isinstance(freeze, ast.Constant) and freeze.value in (False, 0))


def random_frozen_tables(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, call text) of each embedding table built by ``from_pretrained`` from numbers the script draws
    at random (``Embedding.from_pretrained(0.1 * torch.randn(n, d))``, or a name assigned such a draw) and
    left at the default ``freeze=True``: nothing pretrained is loaded, the table keeps its random start for
    the whole run. A table loaded from trained vectors (``np.load``, a word2vec file) is frozen on purpose
    and is not one."""
    drawn = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and _draws(n.value)
             for t in n.targets if isinstance(t, ast.Name)}
    out = []
    for n in ast.walk(tree):
        if _frozen_table_call(n):
            arg = n.args[0]
            if _draws(arg) or isinstance(arg, ast.Name) and arg.id in drawn:
                out.append((n.lineno, f"{ast.unparse(n)} (freeze=True by default)"))
    return sorted(out)
