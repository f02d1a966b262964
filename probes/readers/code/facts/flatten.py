"""A 2-D feature map handed to ``nn.Linear`` without a flatten: ``x = self.avgpool(self.features(x));
x = self.classifier(x)`` where ``features`` ends in a conv or pool layer and ``classifier`` starts with a
Linear, or an ``nn.Sequential`` that puts a Linear straight after a conv or pool layer. nn.Linear multiplies
only the last axis of a (batch, channels, height, width) map, so the first forward crashes ("mat1 and mat2
shapes cannot be multiplied") unless the map's width happens to equal the Linear's in_features. Part of
``code:model`` (``feature_map_into_linear``, emitted by :class:`ModelFacts`): a crash the code alone shows
before the script is run."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..text import SHORT_SNIPPET_CHARS, snippet
from ..torch_api.names import MAP_FUNCS, MAP_LAYERS, SHAPE_KEEPING_FUNCS, SHAPE_KEEPING_LAYERS
from .common import _callee as _called_name

#: Linear layers (their first argument is in_features)
_LINEAR = {"Linear", "LazyLinear"}
#: the adaptive pools, whose first argument fixes the output's (height, width)
_ADAPTIVE = {"AdaptiveAvgPool2d", "AdaptiveMaxPool2d"}
#: the namespaces a layer or functional call is written under (``nn.Linear``, ``F.relu``); a call on
#: another name (``self.fc(x)``, ``x.view(...)``) is no torch-API call here
_NN_NAMESPACES = {"nn", "torch", "F", "functional"}


@dataclass
class _Layer:
    """What one module does to a feature map: ``takes`` in_features of a leading Linear (True when it has one
    whose in_features is not a constant), ``makes`` whether its output is a 2-D map, ``width`` the map's width
    when an adaptive pool fixes it, ``keeps`` whether it keeps its input's shape."""
    takes: object = None
    makes: bool = False
    width: int | None = None
    keeps: bool = False


def _callee(e: ast.AST) -> str | None:
    """The called name of a torch-API call (``nn.Conv2d(...)``, ``F.relu(x)``, ``Linear(...)``), else None."""
    if not isinstance(e, ast.Call):
        return None
    f = e.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in _NN_NAMESPACES:
        return None
    return _called_name(e)


def _const_int(e: ast.AST | None) -> int | None:
    """An integer constant expression (``32 * 7 * 7``), else None."""
    if e is None:
        return None
    try:
        v = ast.literal_eval(e)
    except (ValueError, SyntaxError, TypeError):
        v = None
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Add)):
            a, b = _const_int(e.left), _const_int(e.right)
            if a is not None and b is not None:
                v = a * b if isinstance(e.op, ast.Mult) else a + b
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _arg(call: ast.Call, pos: int, name: str) -> ast.AST | None:
    if len(call.args) > pos:
        return call.args[pos]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _pool_width(call: ast.Call) -> int | None:
    size = _arg(call, 0, "output_size")
    if isinstance(size, (ast.Tuple, ast.List)) and size.elts:
        size = size.elts[-1]
    return _const_int(size)


def _layer(e: ast.AST, hits: list) -> _Layer | None:
    """The _Layer an expression builds, recording in ``hits`` a Sequential that puts a Linear straight
    after a map; None when it builds nothing this module knows."""
    name = _callee(e)
    if name in _LINEAR:
        inf = _const_int(_arg(e, 0, "in_features"))
        return _Layer(takes=inf if inf is not None else True)
    if name in _ADAPTIVE:
        return _Layer(makes=True, width=_pool_width(e))
    if name in MAP_LAYERS:
        return _Layer(makes=True)
    if name in SHAPE_KEEPING_LAYERS:
        return _Layer(keeps=True)
    if name != "Sequential" or any(isinstance(a, ast.Starred) for a in e.args):
        return None
    parts = [_layer(a, hits) for a in e.args]
    if any(p is None for p in parts):
        return None
    out = _Layer(keeps=True)
    for arg, p in zip(e.args, parts):
        if out.makes and p.takes is not None and _mismatch(out, p):
            hits.append(arg)
        if out.keeps and p.takes is not None:
            out.takes = p.takes
        if not p.keeps:
            out.keeps, out.makes, out.width = False, p.makes, p.width
    return out


def _mismatch(made: _Layer, taker: _Layer) -> bool:
    """A map of this width cannot enter a Linear of that in_features (unknown either way counts as a
    mismatch only when the Linear's in_features is known to differ from a known width)."""
    return made.width is None or not isinstance(taker.takes, int) or made.width != taker.takes


def _self_layers(cls: ast.ClassDef, hits: list) -> dict:
    """``self.NAME = <layer>`` assignments of a class's ``__init__``."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    out: dict = {}
    for n in ast.walk(init) if init is not None else ():
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(t := n.targets[0], ast.Attribute) \
                and isinstance(t.value, ast.Name) and t.value.id == "self":
            lay = _layer(n.value, hits)
            if lay is not None:
                out[t.attr] = lay
    return out


class _Flow:
    """Follows which names of a ``forward`` hold a 2-D feature map, statement by statement."""

    def __init__(self, layers: dict):
        self.layers = layers
        self.env: dict = {}
        self.hit: ast.AST | None = None

    def kind(self, e: ast.AST) -> _Layer | None:
        """The map an expression yields (a _Layer with makes=True), else None."""
        if isinstance(e, ast.Name):
            return self.env.get(e.id)
        if not isinstance(e, ast.Call) or not e.args:
            return None
        f = e.func
        inner = self.kind(e.args[0])
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            lay = self.layers.get(f.attr)
            if lay is None:
                return None
            if inner is not None and lay.takes is not None and _mismatch(inner, lay) and self.hit is None:
                self.hit = e
            return lay if lay.makes else (inner if lay.keeps else None)
        name = _callee(e)
        if name in SHAPE_KEEPING_FUNCS:
            return inner
        return _Layer(makes=True) if name in MAP_FUNCS else None

    def run(self, body: list) -> ast.AST | None:
        for st in body:
            if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
                k = self.kind(st.value)
                for t in st.targets:
                    self.env[t.id] = k
            elif isinstance(st, (ast.Return, ast.Expr)) and st.value is not None:
                self.kind(st.value)
            else:
                # a name set inside a branch, a loop or by unpacking may no longer hold the map
                for n in ast.walk(st):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        self.env.pop(n.id, None)
            if self.hit is not None:
                break
        return self.hit


def feature_map_into_linear(tree: ast.AST) -> ast.AST | None:
    """The first call or layer that hands a 2-D feature map to a Linear without a flatten, else None: a
    module's ``forward`` calling a Linear-led layer on what a conv/pool-ended layer returned, with no view,
    flatten, reshape or reduction between; or an ``nn.Sequential`` with a Linear right after a conv or pool
    (only shape-keeping layers between). An adaptive pool whose output width equals the Linear's
    in_features does not count (the product runs, over the width axis)."""
    hits: list = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        layers = _self_layers(cls, hits)
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        if forward is not None and layers:
            hit = _Flow(layers).run(forward.body)
            if hit is not None:
                return hit
    for n in ast.walk(tree):
        if _callee(n) == "Sequential" and not isinstance(n, ast.Starred):
            _layer(n, hits)
    return min(hits, key=lambda h: h.lineno) if hits else None


def feature_map_detail(hit: ast.AST) -> str:
    """The finding's sentence for what :func:`feature_map_into_linear` found."""
    return (f"`{snippet(hit, SHORT_SNIPPET_CHARS)}` (line {hit.lineno}) hands a 2-D feature map (batch, channels, "
            "height, width) from a conv or pool layer to nn.Linear without flattening it: Linear multiplies only "
            "the last axis, so the first forward stops with a shape error (mat1 and mat2 shapes cannot be "
            "multiplied) before any training step")
