"""Pretrained weights the script starts from (read for ``loads_pretrained``).

A model fine-tuned from pretrained weights is trained at a small learning rate on purpose (AdamW at 2e-5 is
the Hugging Face default): an LR below the range for training from scratch says nothing against it. What
marks such a start: ``from_pretrained(...)``, ``torch.hub.load(...)``, or a constructor given
``pretrained=True`` / ``weights=<not None>`` (torchvision, timm). A reload of the run's own checkpoint
(``load_state_dict(torch.load("best.pt"))``) is not a pretrained start and is not read here.
"""

from __future__ import annotations

import ast

from ..text import SHORT_SNIPPET_CHARS, callee_name, snippet
from .common import falsy_constant
from .set_weights import random_frozen_tables

#: callees that return a model with trained weights
_LOADERS = ("from_pretrained",)


def pretrained_keyword(k: ast.keyword) -> bool:
    """``pretrained=<not False>``, or ``weights=`` naming trained weights (torchvision's
    ``weights="IMAGENET1K_V1"`` / ``ResNet18_Weights.DEFAULT``); a ``weights=`` array (``np.bincount(x,
    weights=y)``) is not one."""
    if k.arg == "pretrained":
        return not falsy_constant(k.value)
    if k.arg != "weights" or falsy_constant(k.value):
        return False
    if isinstance(k.value, ast.Constant):
        return isinstance(k.value.value, str)
    text = snippet(k.value, SHORT_SNIPPET_CHARS)
    return "Weights" in text or "DEFAULT" in text


def pretrained_start(tree: ast.AST) -> tuple[int, str] | None:
    """(line, call text) of the first call that builds a model from pretrained weights, or None."""
    hits = []
    drawn = {ln for ln, _ in random_frozen_tables(tree)}   # a table of random numbers is no trained start
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or n.lineno in drawn:
            continue
        name = callee_name(n)
        base = snippet(n.func.value, SHORT_SNIPPET_CHARS) if isinstance(n.func, ast.Attribute) else ""
        if name in _LOADERS or name == "load" and base.endswith("hub") \
                or any(pretrained_keyword(k) for k in n.keywords):
            hits.append((n.lineno, snippet(n, SHORT_SNIPPET_CHARS)))
    return min(hits) if hits else None
