"""A training feature computed from the training labels (target leakage): the script gives its training
inputs a column derived from their own labels (``x_train[..., -1] = y_train / 3``, a target encoding
averaged over the training labels, a "click-through rate" joined from the judgements) while the held-out
inputs get that column without their labels (a constant, the training statistic). The model learns to
read the label off the column: the training loss falls to nothing and validation, which lacks it, falls
behind. Part of ``code:data`` (``train_features_from_labels``, emitted by :class:`DataFacts`).

Read from the straight-line data preparation of each scope (the module and each function body, not
loops): labels are the last name of a tuple unpacked from a call (``x_train, y_train = make(n)``) and the
names sharing its stem across splits; split words come from the knowledge base (``logs.split_words``).
A column both splits take from their own labels (teacher forcing, a conditioning one-hot) is symmetric
and not read as a leak."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from ..text import SNIPPET_CHARS, callee_name, snippet
from ..torch_api.names import SCALAR_REDUCTIONS, SHAPE_ONLY_ATTRS, SHAPE_ONLY_CALLS
from .split_index import _split_of, _stem


def _value_refs(n: ast.AST) -> set:
    """The names a value takes values from: not a name read only for its shape (``len(y)``, ``y.shape``,
    ``torch.zeros_like(y)``) or reduced to one number (``y.mean()``)."""
    if isinstance(n, ast.Name):
        return {n.id}
    if isinstance(n, ast.Attribute):
        return set() if n.attr in SHAPE_ONLY_ATTRS else _value_refs(n.value)
    if isinstance(n, ast.Subscript):  # rows picked or reordered by an index keep the array's own values
        return _value_refs(n.value)
    if isinstance(n, ast.Call):
        f, callee = n.func, callee_name(n)
        if callee in SHAPE_ONLY_CALLS or (isinstance(f, ast.Attribute) and callee in SCALAR_REDUCTIONS
                                          and not n.args and not n.keywords):
            return set()
        args = n.args[1:] if callee.endswith("_like") else n.args
        out = _value_refs(f.value) if isinstance(f, ast.Attribute) else set()
        for a in list(args) + [k.value for k in n.keywords]:
            out |= _value_refs(a)
        return out
    out = set()
    for c in ast.iter_child_nodes(n):
        out |= _value_refs(c)
    return out


def _root(t: ast.AST) -> str | None:
    """The name an assignment target writes: ``x`` of ``x``, ``x[..., -1]``, ``x.data``."""
    while isinstance(t, (ast.Subscript, ast.Attribute)):
        t = t.value
    return t.id if isinstance(t, ast.Name) else None


def _straight_line(body: list) -> list:
    """The assignments of a body in order, into ``if``/``with`` blocks, not into loops or definitions."""
    out = []
    for s in body:
        if isinstance(s, (ast.Assign, ast.AugAssign)):
            out.append(s)
        elif isinstance(s, (ast.If, ast.With)):
            out.extend(_straight_line(s.body) + _straight_line(getattr(s, "orelse", [])))
    return out


def _roles(stmts: list, split_words: Mapping) -> tuple:
    """``(labels, features)``: names unpacked together from a call, the last the labels, and what they
    are cut into (``y_tr, x_tr = y_all[:n], x_all[:n]``, ``y_tr = y_all[:n]``)."""
    labels: set = set()
    features: set = set()
    for s in stmts:
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            continue
        t, v = s.targets[0], s.value
        if isinstance(t, ast.Tuple) and len(t.elts) >= 2 and all(isinstance(e, ast.Name) for e in t.elts):
            names = [e.id for e in t.elts]
            if isinstance(v, ast.Call):
                stem = _stem(names[-1], split_words)
                labels |= {x for x in names if _stem(x, split_words) == stem}
                features |= {x for x in names if _stem(x, split_words) != stem}
            elif isinstance(v, ast.Tuple) and len(v.elts) == len(names):
                for x, e in zip(names, v.elts):
                    src = _root(e)
                    labels |= {x} if src in labels else set()
                    features |= {x} if src in features else set()
        elif isinstance(t, ast.Name) and _root(v) in labels | features and isinstance(v, (ast.Subscript, ast.Name)):
            (labels if _root(v) in labels else features).add(t.id)
    return labels, features - labels


def _writes(stmts: list, labels: set, features: set) -> list:
    """``(node, feature, label)`` for each write into a feature of values derived from a label of the
    same split (through the names computed from it in between)."""
    derived = {x: x for x in labels}
    out = []
    for s in stmts:
        pairs = _pairs(s)
        if any(_root(t) in labels for t, _ in pairs):
            continue  # features and labels taken, reordered or shuffled together
        for t, v in pairs:
            src = next((derived[r] for r in sorted(_value_refs(v)) if r in derived), None)
            name = _root(t)
            if src is None or name is None:
                continue
            if name in features:
                out.append((s, name, src))
            else:
                derived[name] = src
    return out


def _pairs(s: ast.AST) -> list:
    """``(target, value)`` of an assignment, element by element for ``a, b = v, w``; every target of
    ``a, b = f(...)`` paired with the whole value."""
    targets = s.targets if isinstance(s, ast.Assign) else [s.target]
    out = []
    for t in targets:
        if isinstance(t, ast.Tuple) and isinstance(s.value, ast.Tuple) and len(t.elts) == len(s.value.elts):
            out.extend(zip(t.elts, s.value.elts))
        else:
            out.extend((e, s.value) for e in (t.elts if isinstance(t, ast.Tuple) else [t]))
    return out


def train_features_from_labels(tree: ast.AST, split_words: Mapping) -> tuple | None:
    """``(node, feature, label)`` of the first training feature written from the training labels in a
    scope whose held-out features of the same stem are never written from their own labels. None when no
    such write exists."""
    scopes = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for body in scopes:
        stmts = _straight_line(body)
        labels, features = _roles(stmts, split_words)
        if not labels or not features:
            continue
        writes = _writes(stmts, labels, features)
        held = {_stem(f, split_words) for _, f, lab in writes
                if _split_of(f, split_words) & {"val", "test"} and _split_of(lab, split_words) & {"val", "test"}}
        held_features = {_stem(f, split_words) for f in features if _split_of(f, split_words) & {"val", "test"}}
        for node, feat, lab in writes:
            stem = _stem(feat, split_words)
            if _split_of(feat, split_words) == {"train"} and _split_of(lab, split_words) == {"train"} \
                    and stem in held_features and stem not in held:
                return node, feat, lab
    return None


def label_feature_detail(hit: tuple) -> str:
    """The finding's sentence for what :func:`train_features_from_labels` found."""
    node, feat, lab = hit
    return (f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) writes into {feat} values computed from "
            f"the training labels {lab}, and the held-out inputs get that column without their own labels: "
            f"the model can read the label off its input in training only")
