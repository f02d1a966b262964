"""An array shuffled in place and then paired, row by row, with an array that was not shuffled with it:
``labels = [c for _, c in rows]; random.shuffle(labels); rows = list(zip(names, labels))``, or
``np.random.shuffle(X); np.random.shuffle(y); TensorDataset(X, y)`` (two shuffles, two orders). Every
example then carries another example's label. Torch-free: read from the syntax tree alone.

``shuffle`` reorders its argument in place (``random.shuffle``, ``np.random.shuffle``, a generator's
``rng.shuffle``); the pairing is a ``zip`` or a ``*Dataset(...)`` constructor called after it in the same
function. Not reported: a partner built after the shuffle from the shuffled array (it follows the new
order), a partner shuffled by a second call after the random state was reset between the two (a
``seed``/``set_state`` call: the same order, the idiom for shuffling arrays in unison), and a partner
that is a call's result (``range(n)``) rather than an array of the script's."""

from __future__ import annotations

import ast

from ..text import snippet

#: characters of the shuffle call quoted in the finding (presentation)
_SNIPPET_CHARS = 60
#: calls that reset a random state, so that two shuffles after them draw the same order
_STATE_RESETS = frozenset({"seed", "manual_seed", "set_state", "setstate", "set_rng_state"})
#: modules whose one-argument functions convert an array (``torch.tensor(X)``), and builtins that copy one
_ARRAY_MODULES = frozenset({"torch", "np", "numpy"})
_CONVERSIONS = frozenset({"list", "tuple"})


def _shuffled_name(n: ast.AST) -> str | None:
    """The array ``n`` shuffles in place when it is a ``shuffle(name)`` statement, else None."""
    if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)):
        return None
    c = n.value
    fn = c.func.attr if isinstance(c.func, ast.Attribute) else c.func.id if isinstance(c.func, ast.Name) else None
    if fn != "shuffle" or len(c.args) != 1 or c.keywords or not isinstance(c.args[0], ast.Name):
        return None
    return c.args[0].id


def _array_name(a: ast.AST) -> str | None:
    """The array an argument of a pairing call carries: a name, a method called on one (``y.long()``), or
    one converted (``torch.tensor(X)``, ``np.asarray(y)``, ``list(labels)``); None for any other call's
    result (``range(n)``)."""
    while isinstance(a, ast.Call):
        f = a.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in _ARRAY_MODULES \
                or isinstance(f, ast.Name) and f.id in _CONVERSIONS:
            if len(a.args) != 1:
                return None
            a = a.args[0]
        elif isinstance(f, ast.Attribute):
            a = f.value
        else:
            return None
    return a.id if isinstance(a, ast.Name) else None


def _pairings(scope: ast.AST) -> list[tuple[int, list[str]]]:
    """(line, array names) of each ``zip(...)`` / ``*Dataset(...)`` call in ``scope``."""
    out = []
    for c in ast.walk(scope):
        if isinstance(c, ast.Call):
            name = snippet(c.func).rsplit(".", 1)[-1]
            if name == "zip" or name.endswith("Dataset"):
                out.append((c.lineno, [n for n in map(_array_name, c.args) if n]))
    return out


def _resets_between(scope: ast.AST, a: int, b: int) -> bool:
    """Whether a call that resets a random state lies between lines ``a`` and ``b`` of ``scope``."""
    lo, hi = min(a, b), max(a, b)
    return any(isinstance(c, ast.Call) and lo < c.lineno < hi
               and snippet(c.func).rsplit(".", 1)[-1] in _STATE_RESETS for c in ast.walk(scope))


def _built_between(scope: ast.AST, name: str, lo: int, hi: int) -> set:
    """Names assigned in ``scope`` after line ``lo`` and before line ``hi`` from ``name`` or from a name so
    built (in line order): arrays made from the shuffled one, which follow its new order."""
    later = sorted((n for n in ast.walk(scope) if isinstance(n, ast.Assign) and lo < n.lineno < hi),
                   key=lambda n: (n.lineno, n.col_offset))
    built = {name}
    for n in later:
        if {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)} & built:
            built |= {x.id for t in n.targets for x in ast.walk(t) if isinstance(x, ast.Name)}
    return built - {name}


def shuffled_alone(tree: ast.AST, scope_of) -> tuple[ast.AST, str, str] | None:
    """(the shuffle statement, its array, the partner left in its order) of the first array ``tree``
    shuffles in place and then pairs, in the same function, with an array not shuffled along with it;
    None when there is none. ``scope_of(node)`` is the innermost function holding ``node`` (else the
    module)."""
    shuffles = [(n, name) for n in ast.walk(tree) if (name := _shuffled_name(n))]
    for node, name in shuffles:
        scope = scope_of(node)
        for line, arrays in _pairings(scope):
            if line <= node.lineno or name not in arrays:
                continue
            built = _built_between(scope, name, node.lineno, line)
            for partner in arrays:
                if partner == name or partner in built:
                    continue
                twins = [m for m, other in shuffles if other == partner and m is not node and scope_of(m) is scope]
                if any(_resets_between(scope, node.lineno, m.lineno) for m in twins):
                    continue
                return node, name, partner
    return None


def add_shuffled_alone(facts) -> None:
    """permuted_alone, added to ``facts`` (the code reader's ``code:data`` findings) for an array shuffled
    in place apart from its partner (:func:`shuffled_alone`); only ever true."""
    hit = shuffled_alone(facts.tree, facts._scope_of)
    if hit is None:
        return
    node, name, partner = hit
    facts.add_finding("permuted_alone", True, node.lineno,
                      f"`{snippet(node, _SNIPPET_CHARS)}` (line {node.lineno}) shuffles {name} in place, and "
                      f"{partner}, which it is paired with afterwards, is not shuffled along with it: features "
                      f"and labels no longer belong to the same rows")
