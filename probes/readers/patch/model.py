"""Edits to the model: an output squash before a loss that applies its own, frozen or unregistered layers,
dropout and label smoothing, the weights' initialisation."""

from __future__ import annotations

import ast
import re

from .source import (
    _enclosing,
    _fact_number,
    _keyword_on_line,
    _line_of,
    _literal_origin,
    _located_lines,
    _nn_prefix,
    _parents,
    _replace_span,
    _Src,
)

_SQUASH = ("softmax", "log_softmax", "sigmoid")


def _double_softmax(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    if f is None or str(f[0]) not in ("softmax", "sigmoid", "log_softmax"):
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and node.lineno == n and node.end_lineno == n):
            continue
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        text = src.line(n)
        if name in _SQUASH and node.args:
            # torch.softmax(x, dim=1) / F.sigmoid(x) -> x ; x.softmax(dim=1) -> x
            inner = ast.get_source_segment(src.text, node.args[0])
            new = text[: node.col_offset] + inner + text[node.end_col_offset:]
        elif name in _SQUASH and isinstance(fn, ast.Attribute) and not node.args:
            inner = ast.get_source_segment(src.text, fn.value)
            new = text[: node.col_offset] + inner + text[node.end_col_offset:]
        elif name in ("Softmax", "LogSoftmax", "Sigmoid"):
            # an nn.Softmax(...) layer: dropped from its Sequential (with its comma)
            rest = text[node.end_col_offset:]
            m = re.match(r"\s*,\s*", rest)
            if m:
                new = text[: node.col_offset] + rest[m.end():]
            else:
                before = text[: node.col_offset]
                m2 = re.search(r",\s*$", before)
                if not m2:
                    if _drop_layer_uses(src, node, name):
                        return True
                    continue
                new = before[: m2.start()] + rest
            if not new.strip():
                new = ""
        else:
            continue
        src.set_line(n, new, f"line {n}: the {name} before the loss removed (the loss applies its own)")
        return True
    return False


def _drop_layer_uses(src: _Src, node: ast.Call, name: str) -> bool:
    """A squash layer kept as an attribute (``self.softmax = nn.Softmax(dim=1)``) and applied in the
    class's methods (``return self.softmax(x)``): each application in ``forward`` (else in any of the
    class's methods) replaced by its argument, the layer itself left for whoever wants probabilities."""
    parents = _parents(src.tree)
    assign = parents.get(node)
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Attribute)
            and isinstance(assign.targets[0].value, ast.Name) and assign.targets[0].value.id == "self"):
        return False
    attr, cls = assign.targets[0].attr, parents.get(assign)
    while cls is not None and not isinstance(cls, ast.ClassDef):
        cls = parents.get(cls)
    if cls is None:
        return False
    uses = [c for c in ast.walk(cls) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == attr and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"
            and len(c.args) == 1 and not c.keywords and not isinstance(c.args[0], ast.Starred)]
    in_forward = [c for c in uses if _method_of(parents, c) == "forward"]
    done = []
    for use in sorted(in_forward or uses, key=lambda c: (c.lineno, c.col_offset), reverse=True):
        if _replace_span(src, use, src.segment(use.args[0])):
            done.append(use.lineno)
    for n in sorted(set(done)):
        src.changes.append(f"line {n}: the {name} layer (self.{attr}, line {node.lineno}) no longer applied before the "
                           "loss (the loss applies its own)")
    return bool(done)


def _method_of(parents: dict, node: ast.AST) -> str | None:
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = parents.get(node)
    return node.name if node is not None else None


#: the calls whose first argument (or ``p=``) is a dropout probability; any call's ``dropout=`` is one too
_DROPOUT_LAYERS = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")


_DROPOUT_FUNCTIONS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")


def _dropout_args(call: ast.Call) -> list[ast.expr]:
    name = getattr(call.func, "attr", None) or getattr(call.func, "id", None)
    out = [k.value for k in call.keywords if k.arg == "dropout" or (k.arg == "p" and name in
                                                                    _DROPOUT_LAYERS + _DROPOUT_FUNCTIONS)]
    if name in _DROPOUT_LAYERS and call.args:
        out.append(call.args[0])
    elif name in _DROPOUT_FUNCTIONS and len(call.args) > 1:
        out.append(call.args[1])       # F.dropout(x, p)
    return out


def _lower_literals(src: _Src, args, above: float, value: float, what: str) -> bool:
    """Each argument in ``args`` whose number (followed to its literal) is above ``above`` set to ``value``
    (a literal shared by several calls changed once)."""
    done = set()
    for arg in args:
        target = _literal_origin(src, arg)
        if target is None or id(target) in done or isinstance(target.value, bool) or \
                not isinstance(target.value, (int, float)) or not target.value > above:
            continue
        was = src.segment(target)
        if _replace_span(src, target, f"{value:g}"):
            done.add(id(target))
            src.changes.append(f"line {target.lineno}: {what} lowered {was} -> {value:g}")
    return bool(done)


def _dropout(src: _Src, facts, fact, opts) -> bool:
    """Every dropout probability above ``above`` (layers, functional calls, a ``dropout=`` argument)
    set to ``value``, where the code reader found dropout this strong."""
    p = _fact_number(facts, fact)
    if p is None or "above" not in opts or "value" not in opts or not p > float(opts["above"]):
        return False
    args = [a for c in ast.walk(src.tree) if isinstance(c, ast.Call) for a in _dropout_args(c)]
    return _lower_literals(src, args, float(opts["above"]), float(opts["value"]), "dropout")


def _label_smoothing(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None else None
    if n is None or "above" not in opts or "value" not in opts:
        return False
    return _lower_literals(src, [_keyword_on_line(src, n, "label_smoothing")], float(opts["above"]),
                           float(opts["value"]), "label smoothing")


def _unfreeze(src: _Src, facts, fact, opts) -> bool:
    """Each freeze the code reader located set to trainable: ``X.requires_grad = False`` and
    ``X.requires_grad_(False)`` on the located line, or naming (or looping over) what the fact lists;
    ``module.requires_grad = True`` (a plain attribute on a Module) becomes ``module.requires_grad_(True)``."""
    f = facts.get(fact)
    if f is None or not f[0]:
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    if fact == "requires_grad_attr_on_module":
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Assign) and node.lineno == n and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Attribute) and node.targets[0].attr == "requires_grad" \
                    and isinstance(node.value, ast.Constant) and node.value.value is True \
                    and src.starts_its_line(node):
                who = src.segment(node.targets[0].value)
                if who and _replace_span(src, node, f"{who}.requires_grad_(True)"):
                    src.changes.append(f"line {n}: {who}.requires_grad_(True) (setting the attribute on a Module "
                                       "unfreezes nothing)")
                    return True
        return False
    named = {str(v) for v in f[0]} if isinstance(f[0], (list, tuple)) else set()
    loops = {}
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            for inner in ast.walk(node):
                loops.setdefault(id(inner), src.segment(node.iter))
    done = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False \
                and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets):
            target = next(t for t in node.targets if isinstance(t, ast.Attribute))
            flag = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "requires_grad_" and (
                    node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is False
                    or any(k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is False
                           for k in node.keywords)):
            target = node.func
            flag = node.args[0] if node.args else next(k.value for k in node.keywords if k.arg == "requires_grad")
        else:
            continue
        what = src.segment(target.value)
        if node.lineno != n and what not in named and loops.get(id(node)) not in named:
            continue
        if _replace_span(src, flag, "True"):
            done.append(flag.lineno)
    for ln in sorted(set(done)):
        src.changes.append(f"line {ln}: requires_grad set to True (the parameters it froze train again)")
    return bool(done)


def _nn_name(src: _Src) -> str | None:
    """How the script names torch.nn: its alias, or ``torch.nn`` after ``import torch``."""
    plain = False
    for node in src.tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch.nn" and a.asname:
                    return a.asname
                if a.name in ("torch", "torch.nn") and not a.asname:
                    plain = True
        elif isinstance(node, ast.ImportFrom) and node.module == "torch" and node.level == 0:
            for a in node.names:
                if a.name == "nn":
                    return a.asname or "nn"
    return "torch.nn" if plain else None


def _wrap_module_list(src: _Src, facts, fact, opts) -> bool:
    """Layers kept in a plain list / dict attribute (``self.blocks = [...]``): wrapped in
    nn.ModuleList / nn.ModuleDict so that ``model.parameters()`` (and the optimizer) sees them."""
    f = facts.get(fact)
    if f is None or not isinstance(f[0], (list, tuple)):
        return False
    lines = _located_lines([v for v in f[0] if str(v).startswith("layers kept in a plain")])
    nn = _nn_name(src)
    if not lines or nn is None:
        return False
    done = False
    for node in ast.walk(src.tree):
        if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno in lines and node.value is not None):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Attribute) for t in targets):
            continue
        v = node.value
        kind = "ModuleList" if isinstance(v, (ast.List, ast.ListComp)) else \
            "ModuleDict" if isinstance(v, (ast.Dict, ast.DictComp)) else None
        if kind is None:
            continue
        a, b = v.lineno, v.end_lineno
        end_text = src.line(b)
        ec = src.col(b, v.end_col_offset)
        src.lines[b - 1] = end_text[:ec] + ")" + end_text[ec:]
        start_text = src.line(a)
        sc = src.col(a, v.col_offset)
        src.lines[a - 1] = start_text[:sc] + f"{nn}.{kind}(" + start_text[sc:]
        src.changes.append(f"line {a}: the layers wrapped in {nn}.{kind} so that model.parameters() holds them")
        done = True
    return done


def _parameter_loop_guard(src: _Src, call: ast.Call, target: ast.expr) -> str | None:
    """Whether ``target`` is the variable of a ``for`` over a model's ``parameters()`` / ``named_parameters()``
    that ``call`` is in: "guarded" where an ``if`` around the call keeps it to matrices (``p.dim() > 1``,
    ``p.ndim >= 2``), "unguarded" where nothing does, None where ``target`` is no such variable."""
    if not isinstance(target, ast.Name):
        return None
    parents, node, guarded = _parents(src.tree), call, False
    name = re.escape(target.id)
    matrix = re.compile(rf"\b{name}\.(dim\(\)|ndim|ndimension\(\))\s*(>\s*1|>=\s*2)|len\({name}\.shape\)\s*>\s*1")
    while node is not None:
        node = parents.get(node)
        if isinstance(node, ast.If) and matrix.search(ast.unparse(node.test)):
            guarded = True
        if isinstance(node, ast.For):
            names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            it = node.iter
            if target.id in names and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
                    and it.func.attr in ("parameters", "named_parameters"):
                return "guarded" if guarded else "unguarded"
    return None


#: the in-place initialisers a weight can be set with: torch.nn.init functions and tensor methods
_INIT_FUNCTIONS = ("zeros_", "ones_", "constant_", "normal_", "trunc_normal_", "uniform_")


_INIT_METHODS = ("zero_", "fill_", "normal_", "uniform_")


def _init_module_prefix(src: _Src) -> str | None:
    """How the script can name torch.nn.init: its own name for it where it imports it (``from torch.nn import
    init``, ``import torch.nn.init as I``), else through torch.nn (:func:`_nn_prefix`); None without either."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ImportFrom) and node.module == "torch.nn":
            found = next((a.asname or a.name for a in node.names if a.name == "init"), None)
        elif isinstance(node, ast.Import):
            found = next((a.asname for a in node.names if a.name == "torch.nn.init" and a.asname), None)
        else:
            continue
        if found:
            return found
    nn = _nn_prefix(src)
    return f"{nn}.init" if nn else None


def _reinit(src: _Src, facts, fact, opts) -> bool:
    """A weight set to one constant (``init_constant``), or drawn with a std of ``std_large`` or more
    (``init_weight_std``), given PyTorch's own default start for Linear and Conv weights instead:
    ``kaiming_uniform_(W, a=5 ** 0.5)``. Only a weight (a name ending in ``weight``, so never a bias or
    a 1-D gain), set by one single-line call on the located line."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None else None
    if n is None or f[0] is False or f[0] is None:
        return False
    if fact == "init_weight_std" and not ("std_large" in opts and isinstance(f[0], (int, float))
                                          and f[0] >= float(opts["std_large"])):
        return False
    if fact == "init_weight_std" and _drawn_parameters(src, n):
        return True
    for call in ast.walk(src.tree):
        if not (isinstance(call, ast.Call) and call.lineno == n and isinstance(call.func, ast.Attribute)):
            continue
        attr, owner = call.func.attr, call.func.value
        if attr in _INIT_FUNCTIONS and call.args and ast.unparse(owner).split(".")[-1] == "init":
            target, prefix = call.args[0], src.segment(owner)
        elif attr in _INIT_METHODS and not isinstance(owner, ast.Call):
            target, prefix = owner, _init_module_prefix(src)
        else:
            continue
        weight = src.segment(target)
        if prefix is None:
            return False
        default = f"{prefix}.kaiming_uniform_({weight}, a=5 ** 0.5)"
        if not re.search(r"weight\w*(\.data)?$", weight):
            # every parameter of a loop over .parameters(): the matrices (a guard on their dim, or one written
            # here) get the default start, a vector (a bias, a gain) keeps what the line gave it
            how = _parameter_loop_guard(src, call, target)
            if how is None:
                return False
            default = default if how == "guarded" else f"{default} if {weight}.dim() > 1 else {ast.unparse(call)}"
        if not _replace_span(src, call, default):
            return False
        if not re.search(r"weight\w*(\.data)?$", weight):
            weight = f"each matrix among the parameters ({weight})"
        src.changes.append(f"line {n}: {weight} given PyTorch's default start (Kaiming uniform, as nn.Linear "
                           f"and nn.Conv initialise themselves) instead of `{ast.unparse(call)}`")
        return True
    return False


#: the keywords a ``torch.randn`` draw may carry into the ``torch.empty`` the default start fills
_SHAPE_KEYWORDS = ("dtype", "device")


def _drawn_matrix(call) -> bool:
    """``call`` is ``torch.randn(a, b, ...)`` (or ``torch.randn((a, b))``): a standard-normal draw of a matrix
    or a larger block, with no generator (whose stream the default start could not follow)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "randn"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "torch"):
        return False
    dims = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], (ast.Tuple, ast.List)) else call.args
    return len(dims) >= 2 and not any(isinstance(d, ast.Starred) for d in dims) \
        and all(k.arg in _SHAPE_KEYWORDS for k in call.keywords)


def _drawn_parameters(src: _Src, n: int) -> bool:
    """A weight made as ``nn.Parameter(torch.randn(out, in))`` on line ``n`` (a standard deviation of 1, far
    too wide for a layer's fan-in): it, and every other matrix the same function makes that way, given
    PyTorch's default start, ``kaiming_uniform_(torch.empty(out, in), a=5 ** 0.5)`` (a vector, a bias, keeps
    its draw)."""
    prefix = _init_module_prefix(src)
    located = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call) and c.lineno == n
               and getattr(c.func, "attr", getattr(c.func, "id", None)) == "Parameter" and len(c.args) == 1
               and _drawn_matrix(c.args[0])]
    if prefix is None or len(located) != 1:
        return False
    scope = _enclosing(src.parents, located[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)) or src.tree
    draws = [c.args[0] for c in ast.walk(scope) if isinstance(c, ast.Call)
             and getattr(c.func, "attr", getattr(c.func, "id", None)) == "Parameter" and len(c.args) == 1
             and _drawn_matrix(c.args[0]) and c.args[0].lineno == c.args[0].end_lineno]
    done = []
    for d in sorted(draws, key=lambda d: (d.lineno, d.col_offset), reverse=True):
        inner = ", ".join(src.segment(a) for a in d.args) + "".join(f", {src.segment(k)}" for k in d.keywords)
        if _replace_span(src, d, f"{prefix}.kaiming_uniform_(torch.empty({inner}), a=5 ** 0.5)"):
            done.append(d.lineno)
    for ln in sorted(done):
        src.changes.append(f"line {ln}: the weight given PyTorch's default start (Kaiming uniform, as nn.Linear "
                           "initialises itself) instead of a standard-normal draw")
    return bool(done)
