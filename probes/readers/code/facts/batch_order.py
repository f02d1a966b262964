"""The order manual batches are taken in: whether a permutation reaches the batching loop (``permutes`` of
:class:`DataFacts`), and batch windows cut from a sort order (``idx = order[i * B:(i + 1) * B]`` with
``order = torch.argsort(y)``), which put the rows in sorted order as surely as ``x[order]`` does.

A permutation reaches the loop when it runs in the loop or in the loops around it (a fresh order each
epoch), or before it in the same scope, after any sort of the rows (a shuffle made before the rows were
sorted mixes nothing the batches see), and not inside a function that neither holds the loop nor is
called from it (a random draw in a data generator does not order the batches)."""

from __future__ import annotations

import ast

from ..text import callee_name, snippet

#: the callee endings that draw a random order
_PERMUTERS = ("randperm", "permutation", "shuffle")


def _functions_called(node: ast.AST) -> set:
    """The plain names called anywhere in ``node`` (``make_batches(...)``, ``self.shuffle_rows()``)."""
    return {callee_name(n) for n in ast.walk(node) if isinstance(n, ast.Call)}


def permutation_in_reach(tree: ast.AST, loop: ast.AST, sort_line: int | None) -> int | None:
    """The line of the first permutation that orders the batches of ``loop`` (see the module doc), or None."""
    scope = tree
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(n is loop for n in ast.walk(fn)):
            scope = fn
    enclosing = [n for n in ast.walk(scope) if isinstance(n, (ast.For, ast.While))
                 and any(m is loop for m in ast.walk(n))]
    called = set().union(*(_functions_called(n) for n in enclosing)) if enclosing else _functions_called(loop)
    outside = {id(m) for fn in ast.walk(scope) if fn is not scope
               and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name not in called
               and not any(n is loop for n in ast.walk(fn)) for m in ast.walk(fn)}
    inside = {id(m) for n in enclosing for m in ast.walk(n)}
    for n in ast.walk(scope):
        if isinstance(n, ast.Call) and id(n) not in outside and snippet(n.func).endswith(_PERMUTERS):
            if id(n) in inside or sort_line is None or n.lineno > sort_line:
                return n.lineno
    return None


def window_orders(tree: ast.AST, orders: dict, skip: set) -> dict:
    """``orders`` (names assigned a sort order) with the names assigned a window of one added:
    ``idx = order[i * B:(i + 1) * B]`` (both bounds given, so not a top-k cut ``order[:k]``)."""
    out = dict(orders)
    for n in ast.walk(tree):
        if id(n) in skip or not (isinstance(n, ast.Assign) and len(n.targets) == 1
                                 and isinstance(n.targets[0], ast.Name)):
            continue
        v = n.value
        if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id in orders \
                and isinstance(v.slice, ast.Slice) and v.slice.lower is not None and v.slice.upper is not None:
            out[n.targets[0].id] = orders[v.value.id]
    return out
