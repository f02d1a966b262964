"""Edits to the data: the order batches come in, NaN written into the inputs, a division by a spread
without epsilon."""

from __future__ import annotations

import ast

from .loop import _models
from .source import (
    _assigned,
    _calls,
    _entry,
    _fmt_lr,
    _indent,
    _line_of,
    _loops_with_backward,
    _replace_span,
    _Src,
    _statement_at,
)


def _shuffle(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    if f is None or f[0] is not False:
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    calls = [node for node in ast.walk(src.tree) if isinstance(node, ast.Call) and node.lineno == n]
    for node in calls:
        if (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "DataLoader":
            return _loader_shuffles(src, node)
    for node in calls:      # the script's own batching helper called with shuffle=False
        if any(k.arg == "shuffle" for k in node.keywords):
            return _loader_shuffles(src, node, add=False)
    return _permute_order(src, n) or _permute_sliced(src, n)


def _loader_shuffles(src: _Src, call: ast.Call, add: bool = True) -> bool:
    """``shuffle=True`` on the DataLoader ``call`` (on one line or several): a ``shuffle=False`` turned
    where it is written (in the call, or in the dict literal a ``**params`` names), or (``add``) the keyword
    added before its closing parenthesis where it has none. A sampler or another value is left alone."""
    kw = next((k for k in call.keywords if k.arg == "shuffle"), None)
    splat = [k.value for k in call.keywords if k.arg is None]
    value = kw.value if kw is not None else _entry(_module_value(src, splat[0]), "shuffle") if len(splat) == 1 \
        else None
    if value is not None:
        if not (isinstance(value, ast.Constant) and value.value is False) or not _replace_span(src, value, "True"):
            return False
        src.changes.append(f"line {value.lineno}: shuffle=True on the training batches")
        return True
    # a ``**params`` is safe to add beside only where it is a dict literal of the script without the key
    given = [k.arg for k in call.keywords if k.arg is not None]
    for holder in (_module_value(src, v) for v in splat):
        if not isinstance(holder, ast.Dict) or any(not isinstance(k, ast.Constant) for k in holder.keys):
            return False
        given += [k.value for k in holder.keys]
    if not add or any(k in ("sampler", "batch_sampler") for k in given):
        return False
    why = f"line {call.lineno}: shuffle=True on the training DataLoader"
    end = call.end_lineno
    text = src.line(end)
    close = src.col(end, call.end_col_offset) - 1
    if close < 0 or text[close] != ")":
        return False
    prior = ("".join(src.line(i) for i in range(call.lineno, end)) + text[:close]).rstrip()
    if prior.endswith(",") and not text[:close].strip():     # the parenthesis on its own line, after a comma
        src.insert(end, f"{_indent(src.line(end - 1))}shuffle=True,\n", why)
        return True
    glue = ("" if text[:close].endswith(" ") else " ") if prior.endswith(",") else ", "
    src.set_line(end, text[:close] + glue + "shuffle=True" + text[close:], why)
    return True


def _module_value(src: _Src, expr: ast.expr) -> ast.expr | None:
    """The value of the last module-level assignment to the name ``expr`` (None for anything else)."""
    if not isinstance(expr, ast.Name):
        return None
    return next((_assigned(t, node.value, expr.id) for node in reversed(src.tree.body) if isinstance(node, ast.Assign)
                 for t in node.targets if _assigned(t, node.value, expr.id) is not None), None)


#: an index order in file order, and the call that gives a fresh random order of the same length
_IN_ORDER = {("torch", "arange"): "torch.randperm", ("np", "arange"): "np.random.permutation",
             ("numpy", "arange"): "numpy.random.permutation"}
#: an index order sorted by a key (the labels), and the random order of the same length
_SORTED = {("torch", "argsort"): "torch.randperm", ("np", "argsort"): "np.random.permutation",
           ("numpy", "argsort"): "numpy.random.permutation"}


def _permute_order(src: _Src, n: int) -> bool:
    """A loop on line ``n`` that batches by an index built in file order (``perm = torch.arange(N)``;
    ``idx = perm[i * B:(i + 1) * B]``): the index built as a random permutation instead."""
    loop = next((node for node in ast.walk(src.tree) if isinstance(node, (ast.For, ast.While)) and node.lineno == n),
                None)
    if loop is None:
        return False
    used = {node.value.id for node in ast.walk(loop) if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice)}
    made = [node for node in ast.walk(src.tree) if isinstance(node, ast.Assign) and node.lineno < n
            and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id in used]
    for node in sorted(made, key=lambda a: -a.lineno)[:1]:
        call = node.value
        func = call.func if isinstance(call, ast.Call) else None
        key = (getattr(func.value, "id", None), func.attr) if isinstance(func, ast.Attribute) else None
        if key in _SORTED and call.args and not isinstance(call.args[0], ast.Starred):
            # an order sorted by the labels (``torch.argsort(y)``): a random order of as many rows
            new = f"{_SORTED[key]}(len({src.segment(call.args[0])}))"
            if not _replace_span(src, call, new):
                return False
            src.changes.append(f"line {call.lineno}: the batches drawn in a random order ({new}) instead of "
                               f"sorted by {src.segment(call.args[0])}")
            return True
        if key not in _IN_ORDER or len(call.args) != 1 or call.keywords or func.lineno != func.end_lineno:
            return False
        at = func.lineno
        text = src.line(at)
        a, b = src.col(at, func.col_offset), src.col(at, func.end_col_offset)
        src.set_line(at, text[:a] + _IN_ORDER[key] + text[b:],
                     f"line {at}: the batches drawn in a random order ({_IN_ORDER[key]})")
        return True
    return False


def _permute_sliced(src: _Src, n: int) -> bool:
    """A loop on line ``n`` that batches by slicing the data itself (``X[k:k + 64], Y[k:k + 64]``) with no
    index to permute: right before the loop, one random permutation applied to every array it slices, so
    each pass draws the batches in a new order and every row keeps its label. Only in a script that
    imports torch (``torch.randperm`` indexes tensors and NumPy arrays alike), and never for data the
    script builds as a Python list (which a permutation cannot index)."""
    loop = next((node for node in ast.walk(src.tree) if isinstance(node, (ast.For, ast.While)) and node.lineno == n),
                None)
    if loop is None or not src.starts_its_line(loop) or not any(
            isinstance(node, ast.Import) and any(a.name == "torch" and a.asname is None for a in node.names)
            for node in src.tree.body):
        return False
    names = sorted({node.value.id for node in ast.walk(loop) if isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice)})
    rebound = {name.id for node in ast.walk(loop) if isinstance(node, (ast.Assign, ast.AugAssign))
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
               for name in ast.walk(target) if isinstance(name, ast.Name)}
    if not names or len(names) > _MAX_SLICED or rebound & set(names) or any(_built_as_list(src, x) for x in names):
        return False
    taken = {node.id for node in ast.walk(src.tree) if isinstance(node, ast.Name)}
    perm = next(x for x in ("perm", "order", "shuffled", "_perm") if x not in taken)
    indent = _indent(src.line(n))
    src.insert(n, f"{indent}{perm} = torch.randperm(len({names[0]}))\n"
                  f"{indent}{', '.join(names)} = {', '.join(f'{x}[{perm}]' for x in names)}\n",
               f"line {n}: {', '.join(names)} drawn in a new random order before each pass of the batch loop")
    return True


#: arrays one batch loop slices together (inputs, labels, weights, masks...): more is not a data set
_MAX_SLICED = 4


def _built_as_list(src: _Src, name: str) -> bool:
    """The script assigns ``name`` a Python list somewhere (a literal, a comprehension, ``list(...)``, lists
    joined by ``+``)."""
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            if _a_list(_assigned(t, node.value, name)):
                return True
    return False


def _a_list(v) -> bool:
    return isinstance(v, (ast.List, ast.ListComp)) \
        or (isinstance(v, ast.Call) and getattr(v.func, "id", "") == "list") \
        or (isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and (_a_list(v.left) or _a_list(v.right)))


def _built_as_array(src: _Src, name: str, modules: set) -> bool:
    """Every assignment of ``name`` in the script is a call made through torch or NumPy (``torch.tensor(y)``,
    ``np.array(...)``, ``torch.cat(...).float()``): a tensor or array, which a list of row indices indexes."""
    found = [v for node in ast.walk(src.tree) if isinstance(node, ast.Assign) for t in node.targets
             if (v := _assigned(t, node.value, name)) is not None]
    return bool(found) and all(_root(v) in modules for v in found)


def _root(v) -> str | None:
    """The name a chain of calls, attributes and subscripts starts from (``np`` of ``np.array(x).astype(f)``)."""
    while isinstance(v, (ast.Call, ast.Attribute, ast.Subscript)):
        v = v.func if isinstance(v, ast.Call) else v.value
    return v.id if isinstance(v, ast.Name) else None


def _shuffle_before_split(src: _Src, facts, fact, opts) -> bool:
    """Rows stored in label order cut into two parts with nothing mixing them first (``split_in_label_order``):
    right before the located cut, one random permutation applied to every array it slices, so both parts hold
    every class and each row keeps its label. Python lists are reordered by a comprehension, tensors and
    arrays by indexing; anything else (a DataFrame, an unknown value) is left alone."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None and f[0] is True else None
    at = _statement_at(src, n) if n is not None else None
    modules = _array_modules(src)
    if at is None or not modules:
        return False
    st = at[0]
    names = sorted({x.value.id for x in ast.walk(st) if isinstance(x, ast.Subscript)
                    and isinstance(x.value, ast.Name) and isinstance(x.slice, ast.Slice)})
    if not names or len(names) > _MAX_SLICED:
        return False
    lists = {x for x in names if _built_as_list(src, x)}
    if any(x not in lists and not _built_as_array(src, x, set(modules)) for x in names):
        return False
    taken = {x.id for x in ast.walk(src.tree) if isinstance(x, ast.Name)}
    perm = next(x for x in ("perm", "order", "shuffled", "_perm") if x not in taken)
    make = f"torch.randperm(len({names[0]})).tolist()" if "torch" in modules else \
        f"{modules[0]}.random.permutation(len({names[0]})).tolist()"
    indent = _indent(src.line(st.lineno))
    new = ", ".join(f"[{x}[i] for i in {perm}]" if x in lists else f"{x}[{perm}]" for x in names)
    src.insert(st.lineno, f"{indent}{perm} = {make}\n{indent}{', '.join(names)} = {new}\n",
               f"line {st.lineno}: {', '.join(names)} put in a random order before they are cut into parts (the "
               "rows were stored class by class)")
    return True


def _array_modules(src: _Src) -> list[str]:
    """The names torch and NumPy are imported under (plain ``import torch`` first)."""
    out = []
    for node in src.tree.body:
        if isinstance(node, ast.Import):
            out += [a.asname or a.name for a in node.names if a.name in ("torch", "numpy")]
    return sorted(out, key=lambda m: m != "torch")


def _fill_nan_after_write(src: _Src, facts, fact, opts) -> bool:
    """Right after the statement that writes NaN into the data, the NaN replaced by ``fill``
    (``X[X != X] = 0.0``: NaN is the one value not equal to itself; NumPy arrays, tensors and
    DataFrames all take it)."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None and f[0] else None
    if n is None:
        return False
    fill = opts.get("fill", 0.0)
    for node in ast.walk(src.tree):
        if not (isinstance(node, (ast.Assign, ast.AugAssign)) and node.lineno == n and src.starts_its_line(node)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        sub = next((t for t in targets if isinstance(t, ast.Subscript)), None)
        if sub is None:
            continue
        root = sub
        while isinstance(root, ast.Subscript):
            root = root.value
        if not isinstance(root, (ast.Name, ast.Attribute)) or (
                isinstance(root, ast.Attribute) and root.attr in ("loc", "iloc", "at", "iat", "values", "data")):
            return False
        name = src.segment(root)
        indent = _indent(src.line(n))
        src.insert_after(node.end_lineno, f"{indent}{name}[{name} != {name}] = {fill!r}  # NaN != NaN: no NaN "
                                          f"reaches the model\n",
                         f"line {node.end_lineno + 1}: the NaN written into {name} replaced by {fill!r} "
                         "before training")
        return True
    return False


def _guard_spread(src: _Src, facts, fact, opts) -> bool:
    """A division by a spread of the data (a standard deviation, a max - min range) the code reader
    located with no epsilon: ``eps`` added to the divisor, so a slice with no spread divides by eps
    instead of by zero."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None and f[0] is True else None
    if n is None or "eps" not in opts:
        return False
    eps = _fmt_lr(float(opts["eps"]))
    divs = [d for d in ast.walk(src.tree) if isinstance(d, ast.BinOp) and isinstance(d.op, ast.Div)
            and d.lineno == n and d.right.lineno == d.right.end_lineno and not isinstance(d.right, ast.Constant)]
    if not divs:
        return False
    d = min(divs, key=lambda x: x.col_offset)
    seg = src.segment(d.right)
    text = src.line(n)
    a, b = src.col(n, d.right.col_offset), src.col(n, d.right.end_col_offset)
    inside = text[:a].rstrip().endswith("(") and text[b:].lstrip().startswith(")")   # `/ (max - min)`
    new = f"{seg} + {eps}" if inside else f"({seg} + {eps})"
    if not _replace_span(src, d.right, new):
        return False
    src.changes.append(f"line {n}: {eps} added to the divisor {seg} (a slice with no spread no longer "
                       "divides by zero)")
    return True


#: what a non-finite input value becomes: 0, the mean of a standardised feature (the experiment that zeroes
#: non-finite inputs on a copy makes the same change, so the patch is the fix the experiment tried)
_NAN_TO_NUM = "nan=0.0, posinf=0.0, neginf=0.0"


def _zero_nonfinite_inputs(src: _Src, facts, fact, opts) -> bool:
    """Non-finite values in the inputs, not written by the script itself: each training batch's inputs
    zeroed where they are NaN or infinite, where the batch is made (``torch.nan_to_num``). The inputs are the
    first argument of the model's forward in the training loop (the innermost loop holding the backward, or
    the step function holding it): a name bound in that block is cleaned right after it is bound (so a
    target that is the input too, as in an autoencoder, is clean as well), an expression (``X[idx]``) where
    it is passed. Refused where the facts it is given say the inputs are finite (``fact`` False), the script
    cleans non-finite values itself (``nan_to_num``), or the training forwards take different inputs."""
    f = facts.get(fact)
    if (f is not None and f[0] is False) or not _imports_torch(src) or any(
            isinstance(c, ast.Attribute) and c.attr in ("nan_to_num", "nan_to_num_") for c in ast.walk(src.tree)):
        return False
    block = _training_block(src)
    models = _models(src)
    # the forwards up to the backward: a validation later in the same block is not the training batch
    upto = [st for st in block.body if st.lineno <= _backward_line(block)] if block is not None else []
    forwards = [c for st in upto for c in ast.walk(st) if isinstance(c, ast.Call) and ast.unparse(c.func) in models
                and c.args and not isinstance(c.args[0], ast.Starred)]
    if not forwards or len({ast.unparse(c.args[0]) for c in forwards}) != 1:
        return False
    arg = min(forwards, key=lambda c: (c.lineno, c.col_offset)).args[0]
    if isinstance(arg, ast.Name):
        return _clean_where_bound(src, block, arg.id)
    if len([c for c in forwards if c.args[0].lineno == c.args[0].end_lineno]) != len(forwards):
        return False
    for c in sorted(forwards, key=lambda c: (c.lineno, c.col_offset), reverse=True):
        _replace_span(src, c.args[0], f"torch.nan_to_num({src.segment(c.args[0])}, {_NAN_TO_NUM})")
    src.changes.append(f"line {arg.lineno}: the inputs' NaN and infinite values zeroed before the model sees them "
                       f"(torch.nan_to_num on {src.segment(arg)})")
    return True


def _imports_torch(src: _Src) -> bool:
    return any(isinstance(n, ast.Import) and any(a.name == "torch" and a.asname is None for a in n.names)
               for n in src.tree.body)


def _backward_line(block) -> int:
    """The last line of the first statement of ``block``'s body that calls ``.backward()``."""
    return next((st.end_lineno for st in block.body if _calls(st, "backward")), 0)


def _training_block(src: _Src):
    """The innermost loop holding a backward, else the one function that computes gradients and steps."""
    pairs = _loops_with_backward(src.tree)
    if pairs:
        return min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))[0]
    fns = [fn for fn in ast.walk(src.tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
           and _calls(fn, "backward")]
    return fns[0] if len(fns) == 1 else None


def _clean_where_bound(src: _Src, block, name: str) -> bool:
    """``name = torch.nan_to_num(name, ...)`` right where ``block`` binds ``name``: first in the loop's body
    when the loop's own variable (or a function's parameter) is it, else right after the one plain statement
    of the body that assigns it, alone on its line."""
    line = f"{name} = torch.nan_to_num({name}, {_NAN_TO_NUM})\n"
    why = f"the inputs' NaN and infinite values in {name} zeroed before the model sees them"
    own = block.target if isinstance(block, ast.For) else None
    params = [a.arg for a in block.args.args] if isinstance(block, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    body = block.body[1:] if params and ast.get_docstring(block) is not None else block.body
    binds = [st for st in body if isinstance(st, ast.Assign) and any(
        isinstance(n, ast.Name) and n.id == name for t in st.targets for n in ast.walk(t))]
    if (own is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(own))) or name in params:
        if binds or not body or body[0].lineno == block.lineno:
            return False
        at = body[0].lineno
        src.insert(at, _indent(src.line(at)) + line, f"line {at}: {why}")
        return True
    if len(binds) != 1 or not src.starts_its_line(binds[0]) or any(
            st is not binds[0] and st.lineno <= binds[0].end_lineno <= st.end_lineno for st in body):
        return False
    st = binds[0]
    src.insert_after(st.end_lineno, _indent(src.line(st.lineno)) + line, f"line {st.end_lineno + 1}: {why}")
    return True
