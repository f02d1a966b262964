"""Short quotations of the source for findings' details."""

from __future__ import annotations

import ast
from typing import Any


def snippet(node: ast.AST, limit: int = 80) -> str:
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
