"""Short quotations of the source for findings' details."""

from __future__ import annotations

import ast
from typing import Any


#: How many characters of code a finding quotes (presentation, not knowledge): a statement or call
#: (``SNIPPET_CHARS``), an expression named inside a sentence (``SHORT_SNIPPET_CHARS``), a loop's or
#: an ``if``'s head (``HEAD_SNIPPET_CHARS``), and ``snippet``'s default.
SNIPPET_CHARS = 60
SHORT_SNIPPET_CHARS = 40
HEAD_SNIPPET_CHARS = 50
_DEFAULT_SNIPPET_CHARS = 80


def callee_name(call: ast.AST) -> str:
    """The last name of a call's callee: ``np.random.shuffle(x)`` -> ``shuffle``, ``nn.Linear(...)`` ->
    ``Linear``, ``f(x)`` -> ``f``; "" for a call of anything else (``fns[0](x)``) or for no call."""
    f = call.func if isinstance(call, ast.Call) else None
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def snippet(node: ast.AST, limit: int = _DEFAULT_SNIPPET_CHARS) -> str:
    try:
        s = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse of odd nodes
        s = type(node).__name__
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def format_number(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v)
