"""A shuffle that shuffles a copy nobody keeps: ``random.shuffle(list(range(n)))``,
``np.random.shuffle(np.arange(n))``, ``rng.shuffle(indices.copy())``. ``shuffle`` reorders its argument
in place and returns None; when the argument is a fresh object made in the call (a list, an array, a
copy), the shuffled order is dropped on the spot and the data keeps the order it had — often the order
the files were listed in, class by class. Torch-free: read from the syntax tree alone.

An argument that shares memory with the data (``t.numpy()``, ``x.view(-1)``, ``a[:, 0]``, a plain name)
is shuffled for real and is never reported."""

from __future__ import annotations

import ast

from ..text import snippet
from .batch_order import shuffles_a_fresh_copy

#: characters of the shuffle call quoted in the finding (presentation)
_SNIPPET_CHARS = 70


def discarded_shuffles(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every in-place shuffle call made on a fresh object (:func:`.batch_order.shuffles_a_fresh_copy`),
    as a statement of its own."""
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)):
            continue
        if shuffles_a_fresh_copy(n.value):
            out.append((n.value.lineno, snippet(n.value, _SNIPPET_CHARS)))
    return out
