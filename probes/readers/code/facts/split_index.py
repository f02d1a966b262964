"""A held-out split built with the training split's rows: ``val_x = data[train_idx]`` in a script that
also makes ``val_idx`` (the copy-paste slip of a hand-written split). Part of ``code:data``
(``held_out_from_train_index``, emitted by :class:`DataFacts`); the split words come from the knowledge base
(``logs.split_words``), so a pack that adds a word there is read here too."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from ..text import SNIPPET_CHARS, callee_name, snippet

#: a name's words: snake_case parts, camelCase humps, no digits
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: calls that select rows of their first argument by an index list given as another argument
_ROW_SELECTORS = {"Subset", "index_select", "take", "take_along_axis", "select"}


def _words(name: str) -> list:
    return [w.lower() for w in _WORDS.findall(name)]


def _split_of(name: str, split_words: Mapping) -> set:
    """The splits (train, val, test) a name's words name."""
    return {split_words[w] for w in _words(name) if w in split_words}


def _held_out(name: str, split_words: Mapping) -> bool:
    """Whether a name's words say validation or test, and not train."""
    splits = _split_of(name, split_words)
    return bool(splits & {"val", "test"}) and "train" not in splits


def _stem(name: str, split_words: Mapping) -> tuple:
    """A name's words with its split word taken out: ``train_indices`` and ``val_indices`` share one."""
    return tuple("*" if w in split_words else w for w in _words(name))


def _index_names(value: ast.AST) -> list:
    """The names a value selects rows by: ``x[i]``, ``x[i, :]``, ``df.iloc[i]``, ``Subset(ds, i)``,
    ``x.index_select(0, i)``."""
    out = []
    for n in ast.walk(value):
        if isinstance(n, ast.Subscript):
            s = n.slice.elts[0] if isinstance(n.slice, ast.Tuple) and n.slice.elts else n.slice
            if isinstance(s, ast.Name):
                out.append(s.id)
        elif isinstance(n, ast.Call):
            if callee_name(n) in _ROW_SELECTORS:
                out.extend(a.id for a in n.args[1:] if isinstance(a, ast.Name))
    return out


def _targets(tree: ast.AST) -> list:
    """``(name, value, node)`` for every plain assignment, a tuple assignment element by element."""
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        t = n.targets[0]
        if isinstance(t, ast.Name):
            out.append((t.id, n.value, n))
        elif isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
            out.extend((e.id, v, n) for e, v in zip(t.elts, n.value.elts) if isinstance(e, ast.Name))
    return out


def held_out_from_train_index(tree: ast.AST, split_words: Mapping) -> tuple | None:
    """``(assignment node, held-out name, training index name, held-out index name)`` of the first
    held-out split (a name whose words say val/test and not train) assigned rows selected by a
    training index (a name whose words say train), where the script also assigns the held-out index
    of the same stem (``val_indices`` beside ``train_indices``): the held-out rows were meant to be
    selected by it. None when no such assignment exists."""
    held_out = [(name, value, node) for name, value, node in _targets(tree) if _held_out(name, split_words)]
    stems: dict = {}
    for name, _, _ in held_out:
        stems.setdefault(_stem(name, split_words), name)
    for name, value, node in held_out:
        for idx in _index_names(value):
            if _split_of(idx, split_words) != {"train"}:
                continue
            meant = stems.get(_stem(idx, split_words))
            if meant is not None and meant != idx:
                return node, name, idx, meant
    return None


def held_out_detail(hit: tuple) -> str:
    """The finding's sentence for what :func:`held_out_from_train_index` found."""
    node, name, idx, meant = hit
    return (f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) builds {name} from the rows of {idx}, "
            f"not of {meant}: the held-out split is the training data")
