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


#: calls that always build a new object: a shuffle of one reorders something nobody can see afterwards
_FRESH_BUILDERS = frozenset({"list", "sorted", "array", "arange", "copy", "tolist", "concatenate", "stack",
                             "hstack", "vstack", "linspace", "deepcopy"})


def shuffles_a_fresh_copy(call: ast.AST) -> bool:
    """``random.shuffle(list(range(n)))``, ``np.random.shuffle(np.arange(n))``, ``rng.shuffle(x.copy())``:
    an in-place shuffle of an object built in the call itself, so the order it draws is dropped on the
    spot and orders nothing. An argument that shares memory with the data (a plain name, ``t.numpy()``,
    ``x.view(-1)``, a slice) is shuffled for real."""
    if not (isinstance(call, ast.Call) and callee_name(call) == "shuffle" and call.args):
        return False
    arg = call.args[0]
    if isinstance(arg, (ast.List, ast.ListComp)):
        return True
    return isinstance(arg, ast.Call) and callee_name(arg) in _FRESH_BUILDERS


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
        if isinstance(n, ast.Call) and id(n) not in outside and snippet(n.func).endswith(_PERMUTERS) \
                and not shuffles_a_fresh_copy(n):
            if id(n) in inside or sort_line is None or n.lineno > sort_line:
                return n.lineno
    return None


def permuted_window(loop: ast.AST | None, perms: dict) -> int | None:
    """The line of the permutation whose windows the training ``loop`` takes its batches from, or None:
    ``perms`` names the arrays holding a random order (``order = np.random.permutation(n)``, see
    ``data._permutations``) and, in the loop, ``idx = order[pos:pos + B]`` or ``x[order[pos:pos + B]]`` (both
    bounds given). Batches cut from a random order are shuffled, whatever counter walks the windows (a
    running offset, a step number)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        return None
    for n in ast.walk(loop):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in perms \
                and isinstance(n.slice, ast.Slice) and n.slice.lower is not None and n.slice.upper is not None:
            return perms[n.value.id].lineno
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


#: calls that hand on the batches of the iterable they wrap (``enumerate(list(train_batches()))``)
_WRAPPERS = ("enumerate", "list", "iter", "tqdm", "tuple")
#: the arguments of a range over the batch starts, ``range(start, stop, step)`` (structure, not a threshold)
_STEPPED_RANGE_ARGS = 3


def batch_generator(tree: ast.AST, loop: ast.AST) -> ast.FunctionDef | None:
    """The script's own generator function whose batches ``loop`` iterates: called in the loop's iterable
    (through ``enumerate``/``list``/``iter``/``tqdm`` and a name assigned in the same function:
    ``batches = list(train_batches())``), by its own name or as a parameter of the function holding the loop
    that every call of it passes that generator (``run_epochs(model, opt, train_batches)``)."""
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    holder = next((fn for fn in defs.values() if any(n is loop for n in ast.walk(fn))), None)
    expr = loop.iter
    for _ in range(len(_WRAPPERS) + 1):
        if isinstance(expr, ast.Call) and callee_name(expr) in _WRAPPERS and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Name) and holder is not None:
            assigned = [n.value for n in ast.walk(holder) if isinstance(n, ast.Assign) and n.lineno < loop.lineno
                        and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
            if not assigned:
                break
            expr = assigned[-1]
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
        return None
    name = expr.func.id
    params = [a.arg for a in holder.args.args] if holder is not None else []
    if name in params:
        name = _passed_function(tree, holder, params.index(name), name)
    fn = defs.get(name) if name else None
    return fn if fn is not None and any(isinstance(n, ast.Yield) for n in ast.walk(fn)) else None


def _passed_function(tree: ast.AST, holder: ast.FunctionDef, index: int, param: str) -> str | None:
    """The one function name every call of ``holder`` passes as its parameter ``param`` (at ``index``)."""
    passed = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Name) and n.func.id == holder.name):
        kw = next((k.value for k in call.keywords if k.arg == param), None)
        arg = kw if kw is not None else (call.args[index] if index < len(call.args) else None)
        passed.add(arg.id if isinstance(arg, ast.Name) else None)
    return next(iter(passed)) if len(passed) == 1 else None


def generator_shuffle(tree: ast.AST, loop: ast.AST, facts) -> None:
    """shuffle of the batch generator ``loop`` iterates (:func:`batch_generator`) when it cuts its batches by
    slicing in a loop over the batch starts (``for k in range(0, n, B): idx = order[k:k + B]; yield x[idx],
    y[idx]``) or over the batch numbers: a permutation in reach mixes them, else the batches come in the
    rows' own order. ``facts`` is the code reader's :class:`DataFacts` (its slicing tests and findings)."""
    gen = batch_generator(tree, loop)
    for inner in (n for n in ast.walk(gen) if isinstance(n, ast.For)) if gen is not None else ():
        it = inner.iter
        if not (isinstance(it, ast.Call) and callee_name(it) == "range"):
            continue
        if (len(it.args) == _STEPPED_RANGE_ARGS and facts.slices_by(inner)) \
                or (len(it.args) == 1 and slices_by_multiple(inner)):
            perm = facts.permutes(inner)
            if perm:
                facts.add_finding("shuffle", True, perm, f"the data is permuted (line {perm}) before the batches "
                                                         f"`{gen.name}` yields")
            else:
                facts.add_finding("shuffle", False, inner.lineno, f"`{gen.name}` (line {gen.lineno}) yields batches "
                                                                  f"sliced in order at line {inner.lineno} with no "
                                                                  "permutation of the data")
            return


def slices_by_multiple(loop: ast.AST) -> bool:
    """The loop over batch numbers slices the data from a multiple of its variable:
    ``for b in range(len(x) // B): xb = x[b * B:(b + 1) * B]``."""
    tgt = loop.target.id if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) else None
    return tgt is not None and any(
        isinstance(n, ast.Slice) and isinstance(n.lower, ast.BinOp) and isinstance(n.lower.op, ast.Mult)
        and any(isinstance(v, ast.Name) and v.id == tgt for v in (n.lower.left, n.lower.right))
        for n in ast.walk(loop))
