"""A loss averaged over its own active terms: ``terms.sum() / (terms > 0).float().sum()``.

A margin loss that keeps only its positive terms (batch-all triplet loss, hinge terms, hard-example
mining) and divides their sum by how many are positive, or takes ``terms[terms > 0].mean()``, reports
the mean of the terms that are still violated. As the model learns, the easy terms drop out and only
the hard ones are averaged: the loss swings, levels off or even rises while fewer and fewer terms are
active. Its level is no measure of progress, and neither is a copy's held-out loss under it.

:func:`active_mean` finds, in the script, a division whose numerator sums a tensor ``T`` and whose
denominator counts ``T``'s elements above a threshold (followed through the names it is built from,
an epsilon added or not), or a mean of ``T`` indexed by a comparison of ``T`` itself.
"""

from __future__ import annotations

import ast

from ..text import SNIPPET_CHARS, snippet

#: how many rounds of "the name is set to" are followed back from a denominator; a bound on work
_MAX_NAME_HOPS = 4
#: the reductions that sum or average a tensor, as methods or torch functions
_SUMS = ("sum",)
_MEANS = ("mean",)
#: comparisons that pick the active (positive) terms
_ABOVE = (ast.Gt, ast.GtE)


def _reduced(node: ast.AST, names: tuple[str, ...]) -> ast.AST | None:
    """``X.sum()`` / ``torch.sum(X)`` (for ``names``) -> X; anything else -> None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in names:
        if isinstance(f.value, ast.Name) and f.value.id in ("torch", "np", "numpy"):
            return node.args[0] if node.args else None
        return f.value
    return None


def _strip(node: ast.AST) -> ast.AST:
    """``X + eps`` -> X; ``X.float()`` / ``X.type(...)`` -> X; ``(X)`` is already X in the AST."""
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.Constant):
            node = node.left
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("float", "double", "type", "to", "detach", "clamp"):
            node = node.func.value
        else:
            return node


def _resolve(node: ast.AST, assigns: dict) -> list[ast.AST]:
    """The expressions a node stands for: itself, and what the names it is set to were set to."""
    seen, todo = [], [_strip(node)]
    for _ in range(_MAX_NAME_HOPS):
        nxt = []
        for n in todo:
            seen.append(n)
            if isinstance(n, ast.Name):
                nxt.extend(_strip(v) for v in assigns.get(n.id, [])[:1])
            else:
                inner = _reduced(n, _SUMS)
                if inner is not None:
                    nxt.append(_strip(inner))
        todo = nxt
    return seen + todo


def _counted(denominator: ast.AST, assigns: dict) -> set[str]:
    """Names T whose elements above a threshold the denominator counts (``(T > c).sum()``)."""
    out = set()
    for n in _resolve(denominator, assigns):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], _ABOVE) \
                and isinstance(n.comparators[0], ast.Constant) and isinstance(n.left, ast.Name):
            out.add(n.left.id)
    return out


def active_mean(tree: ast.AST, assigns: dict) -> tuple[int, str] | None:
    """The first loss averaged over its own active terms, as ``(line, text)``; ``assigns``: every value
    the script assigns to each name (:func:`traindx.probes.readers.code.facts.loss.assigned_values`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            summed = _reduced(_strip(node.left), _SUMS)
            if isinstance(summed, ast.Name) and summed.id in _counted(node.right, assigns):
                return node.lineno, snippet(node, SNIPPET_CHARS)
        mean_of = _reduced(node, _MEANS)
        if isinstance(mean_of, ast.Subscript) and isinstance(mean_of.value, ast.Name):
            picks = _counted(mean_of.slice, assigns)
            if mean_of.value.id in picks:
                return node.lineno, snippet(node, SNIPPET_CHARS)
    return None
