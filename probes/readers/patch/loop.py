"""Edits to the training loop: zeroing the gradients, the model's train/eval mode, when the scheduler steps."""

from __future__ import annotations

import ast
import math

from .source import (
    _calls,
    _config_key,
    _fact_number,
    _indent,
    _line_of,
    _literal_origin,
    _replace_span,
    _loops_with_backward,
    _parents,
    _reindented,
    _Src,
    _statement_at,
    _step_receiver,
)


def _zero_grad(src: _Src, facts, fact, opts) -> bool:
    pairs = _loops_with_backward(src.tree)
    if not pairs:
        return _zero_grad_in_a_step_function(src)
    # the innermost loop holding the backward
    loop, stmt = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    opt = _step_receiver(loop)
    if opt is None:
        return False
    if _calls(loop, "zero_grad"):
        return False
    # at the top of the loop body: before this step's forward and backward
    at = loop.body[0].lineno
    src.insert(at, f"{_indent(src.line(at))}{opt}.zero_grad()\n",
               f"line {at}: {opt}.zero_grad() before each step's gradients are computed")
    return True


def _steps_without_zeroing(fn) -> str | None:
    """The optimizer a function computes gradients for and steps (it never zeroes them: the caller checked)."""
    backward = _calls(fn, "backward")
    return _step_receiver(fn) if backward else None


def _handed_on(src: _Src, fn) -> bool:
    """Function ``fn`` is given by name to another call (``run_epochs(model, opt, step_fn)``), which runs it."""
    return any(isinstance(c, ast.Call) and any(isinstance(a, ast.Name) and a.id == fn.name
                                               for a in [*c.args, *(k.value for k in c.keywords)])
               for c in ast.walk(src.tree))


def _zero_grad_in_a_step_function(src: _Src) -> bool:
    """No loop computes the gradients itself: a step function does (``def step_fn(batch): ... loss.backward();
    opt.step()``), run from a loop or handed to a loop helper. Its gradients are zeroed as its first statement.
    Only where the script zeroes no gradients anywhere: a script that does is accumulating on purpose or
    zeroing them elsewhere, and the edit would be a guess."""
    if _calls(src.tree, "zero_grad"):
        return False
    for fn in ast.walk(src.tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        opt = _steps_without_zeroing(fn)
        if opt is None or not (_called_in_a_loop(src, fn) or _handed_on(src, fn)):
            continue
        body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
        if not body or body[0].lineno == fn.lineno:   # a one-line def: nowhere to put a statement
            continue
        at = body[0].lineno
        src.insert(at, f"{_indent(src.line(at))}{opt}.zero_grad()\n",
                   f"line {at}: {opt}.zero_grad() first in {fn.name}(), before each step's gradients are computed")
        return True
    return False


def _train_mode(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    if f is None or f[0] != "eval":
        return False
    pairs = _loops_with_backward(src.tree)
    if not pairs:
        return False
    loop, _ = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    model = None
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "eval" \
                and isinstance(node.func.value, ast.Name) and not node.args:
            model = node.func.value.id
    if model is None:
        return False
    first = loop.body[0]
    at = first.lineno
    src.insert(at, f"{_indent(src.line(at))}{model}.train()\n",
               f"line {at}: {model}.train() at the start of each training step")
    return True


def _has_mode_call(node, receiver: str | None = None, modes=("train", "eval")) -> bool:
    """``node`` calls ``.train()`` / ``.eval()`` (on ``receiver`` when given)."""
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in modes
               and (receiver is None or ast.unparse(c.func.value) == receiver) for c in ast.walk(node))


def _model_called_on(src: _Src, n: int) -> str | None:
    """The model whose forward runs on line ``n``: a call there of something whose ``.parameters()``,
    ``.train()`` or ``.eval()`` the script uses elsewhere."""
    models = _models(src)
    for c in ast.walk(src.tree):
        if isinstance(c, ast.Call) and c.lineno == n and isinstance(c.func, (ast.Name, ast.Attribute)) and \
                ast.unparse(c.func) in models:
            return ast.unparse(c.func)
    passed = _model_passed_in(src, n, models)
    return passed[0] if passed else None


def _models(src: _Src) -> set:
    """What the script calls ``.parameters()``, ``.train()`` or ``.eval()`` on: its models, as written."""
    return {ast.unparse(c.func.value) for c in ast.walk(src.tree) if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Attribute) and c.func.attr in ("parameters", "train", "eval")}


def _model_passed_in(src: _Src, n: int, models: set | None = None) -> tuple[str, str] | None:
    """The forward on line ``n`` calls a parameter of its function (``def val(net, loader): ... net(xb)``)
    that the script's calls of the function fill with one of ``models`` (``val(model, val_loader)``): the
    parameter's name, which is the model inside the function, and the name the call passes."""
    models = _models(src) if models is None else models
    for fn in ast.walk(src.tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.lineno <= n <= fn.end_lineno:
            continue
        names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        called = [c.func.id for c in ast.walk(fn) if isinstance(c, ast.Call) and c.lineno == n
                  and isinstance(c.func, ast.Name) and c.func.id in names]
        for param in called:
            for given in _passed_as(src, fn.name, names.index(param), param):
                if ast.unparse(given) in models:
                    return param, ast.unparse(given)
    return None


def _passed_as(src: _Src, fn: str, i: int, param: str) -> list:
    """What the script's calls of function ``fn`` pass as its ``i``-th parameter ``param`` (positional or by name)."""
    out = []
    for call in ast.walk(src.tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == fn:
            given = call.args[i] if i < len(call.args) and not isinstance(call.args[i], ast.Starred) else next(
                (k.value for k in call.keywords if k.arg == param), None)
            if given is not None:
                out.append(given)
    return out


def _train_mode_restored(loop, anchor, fn, model: str, parents: dict) -> bool:
    """Training mode is set again before the training step of ``loop`` that follows the validation at
    ``anchor``: the loop's own body sets it, or a loop around it does at each pass while the validation
    (``anchor``, in function ``fn`` when it is one) runs outside the step loop."""
    if any(_has_mode_call(st, model, ("train",)) for st in loop.body):
        return True
    inside = loop.lineno <= anchor.lineno <= loop.end_lineno or (
        isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(c, ast.Call) and getattr(c.func, "id", getattr(c.func, "attr", None)) == fn.name
            for c in ast.walk(loop)))
    if inside:
        return False
    outer = parents.get(loop)
    while outer is not None:
        if isinstance(outer, (ast.For, ast.While)) and any(
                _has_mode_call(st, model, ("train",)) for st in outer.body if st.lineno < loop.lineno):
            return True
        outer = parents.get(outer)
    return False


def _eval_mode(src: _Src, facts, fact, opts) -> bool:
    """Validation that runs in training mode. ``model.eval`` written without its call gets the call;
    else ``model.eval()`` goes right before the validation (the statement holding its forward, in its
    function or in the training loop), and ``model.train()`` at the start of each training step unless
    that loop already sets it. Validation that sets a mode itself (MC dropout) is left alone."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None and f[0] == "train" else None
    if n is None:
        return False
    bare = [e for e in ast.walk(src.tree) if isinstance(e, ast.Expr) and isinstance(e.value, ast.Attribute)
            and e.value.attr == "eval" and e.lineno == e.end_lineno]
    for e in bare:
        text = src.line(e.lineno)
        end = src.col(e.lineno, e.value.end_col_offset)
        src.lines[e.lineno - 1] = text[:end] + "()" + text[end:]
        src.changes.append(f"line {e.lineno}: {ast.unparse(e.value)}() called (without the parentheses it did "
                           "nothing)")
    if bare:
        return True
    model = _model_called_on(src, n)
    pairs = _loops_with_backward(src.tree)
    if model is None or not pairs:
        return False
    parents = _parents(src.tree)
    node = next((s for s in ast.walk(src.tree) if isinstance(s, ast.stmt) and s.lineno == n), None)
    anchor = node
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(node, (ast.For, ast.While)) and any(loop is node for loop, _ in pairs):
            break
        if isinstance(node, ast.stmt):
            anchor = node
        node = parents.get(node)
    while isinstance(anchor, ast.If):        # validation every N steps: inside the branch that runs it
        anchor = next((st for st in anchor.body + anchor.orelse if st.lineno <= n <= st.end_lineno), None)
    if anchor is None or _has_mode_call(anchor, model) or not src.starts_its_line(anchor):
        return False
    at = anchor.lineno
    src.insert(at, f"{_indent(src.line(at))}{model}.eval()\n",
               f"line {at}: {model}.eval() before the validation (Dropout off, BatchNorm on its running statistics)")
    loop, _ = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    passed = _model_passed_in(src, n)              # the loop knows the model by the name it passes in
    outside = passed[1] if passed and passed[0] == model else model
    if not _train_mode_restored(loop, anchor, node, outside, parents):
        first = loop.body[0].lineno
        src.insert(first, f"{_indent(src.line(first))}{outside}.train()\n",
                   f"line {first}: {outside}.train() at the start of each training step (the validation leaves "
                   "it in eval mode)")
    return True


def _called_in_a_loop(src: _Src, fn) -> bool:
    """Function ``fn`` is called from inside a for/while loop of the script (once per epoch, say)."""
    return any(isinstance(c, ast.Call) and getattr(c.func, "id", getattr(c.func, "attr", None)) == fn.name
               for loop in ast.walk(src.tree) if isinstance(loop, (ast.For, ast.While)) for c in ast.walk(loop))


def _step_per_epoch(src: _Src, facts, fact, opts) -> bool:
    """An epoch-counted scheduler stepped in the batch loop: its ``step()`` moved out of that loop, to
    right after it at the loop's own indentation, so it runs once per pass of the loop around it (an epoch
    loop, or a loop that calls the function the batch loop is in). Refused where the step is under a
    condition, where no loop runs the batch loop again, or where the batch loop has an ``else:``."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None and f[0] is True else None
    found = _statement_at(src, n) if n is not None else None
    if found is None:
        return False
    st, scopes = found
    call = st.value if isinstance(st, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "step") \
            or call.args or call.keywords:      # step(metric): a plateau scheduler, whose metric is a choice
        return False
    parents = _parents(src.tree)
    loop = parents.get(st)
    if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)) and st in loop.body:
        return _step_out_of_a_batch_helper(src, st, call, loop)
    if not isinstance(loop, (ast.For, ast.While)) or st not in loop.body or loop.orelse:
        return False
    outer = _runs_again(src, loop, parents)
    if outer is None:
        return False
    moved = _reindented(src, st, _indent(src.line(loop.lineno)))
    if moved is None:
        return False
    name = src.segment(call.func.value)
    keep = _indent(src.line(st.lineno))
    for i in range(st.lineno, st.end_lineno + 1):
        src.lines[i - 1] = f"{keep}pass\n" if i == st.lineno and len(loop.body) == 1 else ""
    if isinstance(call.func.value, ast.Name) and _steps_outside(outer, loop, name):
        src.changes.append(f"line {st.lineno}: {name}.step() removed from the batch loop (line {loop.lineno}): the "
                           "epoch loop already steps it once per epoch")
        return True
    src.insert_after(loop.end_lineno, moved,
                     f"line {st.lineno}: {name}.step() moved out of the batch loop (line {loop.lineno}) to after "
                     f"it, so the schedule advances once per epoch")
    return True


def _runs_again(src: _Src, loop, parents: dict):
    """What runs the batch ``loop`` again: the loop around it (an epoch loop), or the function it is in
    where that function is called in a loop; None where nothing does (the loop runs once)."""
    outer = parents.get(loop)
    while outer is not None and not isinstance(outer, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
        outer = parents.get(outer)
    if outer is None or (not isinstance(outer, (ast.For, ast.While)) and not _called_in_a_loop(src, outer)):
        return None
    return outer


def _step_out_of_a_batch_helper(src: _Src, st: ast.stmt, call: ast.Call, fn) -> bool:
    """The scheduler steps in a function that does one batch (``train_batch()``), called from the batch
    loop: the step moved out of the function to right after that loop, so it runs once per epoch. Only
    where the function is called in one place, that loop runs again inside an epoch loop (or a function
    called in a loop), and the scheduler is a module-level name the caller does not bind itself."""
    name = call.func.value
    if not isinstance(name, ast.Name) or len(fn.body) < 2 or not _module_binds(src, name.id):
        return False
    parents = _parents(src.tree)
    sites = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == fn.name]
    if len(sites) != 1:
        return False
    loop = parents.get(sites[0])
    while loop is not None and not isinstance(loop, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
        loop = parents.get(loop)
    if not isinstance(loop, (ast.For, ast.While)) or loop.orelse:
        return False
    outer = _runs_again(src, loop, parents)
    if outer is None:
        return False
    if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) and _binds(outer, name.id):
        return False
    moved = _reindented(src, st, _indent(src.line(loop.lineno)))
    if moved is None:
        return False
    for i in range(st.lineno, st.end_lineno + 1):
        src.lines[i - 1] = ""
    where = f"{fn.name}(), which the batch loop (line {loop.lineno}) calls once per batch"
    if _steps_outside(outer, loop, name.id):
        src.changes.append(f"line {st.lineno}: {name.id}.step() removed from {where}: the epoch loop already "
                           "steps it once per epoch")
        return True
    src.insert_after(loop.end_lineno, moved,
                     f"line {st.lineno}: {name.id}.step() moved out of {where}, to after that loop, so the schedule "
                     "advances once per epoch")
    return True


def _steps_outside(outer, loop, name: str) -> bool:
    """``outer`` (the epoch loop, or the function around the batch loop) calls ``name.step()`` outside the
    batch ``loop``: the schedule already advances once per epoch."""
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(c, ast.Call) and id(c) not in inside and isinstance(c.func, ast.Attribute)
               and c.func.attr == "step" and isinstance(c.func.value, ast.Name) and c.func.value.id == name
               for c in ast.walk(outer))


def _binds(scope, name: str) -> bool:
    """``name`` is assigned somewhere in ``scope`` (an assignment target)."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(scope))


def _module_binds(src: _Src, name: str) -> bool:
    """``name`` is assigned by a statement at the module's top level."""
    return any(isinstance(st, (ast.Assign, ast.AnnAssign)) and _binds(st, name) for st in src.tree.body)


#: where each stock decaying schedule takes its length and its factor: (argument, position after the optimizer)
#: (a cosine whose T_max ends before the run restarts its cycle rather than collapsing: not edited)
_SCHEDULE_ARGS = {"StepLR": (("step_size", 1), ("gamma", 2)), "ExponentialLR": (("gamma", 1),)}


def _schedule_call(src: _Src, n: int) -> tuple[str, ast.Call] | None:
    """The stock decaying scheduler built by a call spanning line ``n`` (``StepLR(opt, ...)``)."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and node.lineno <= n <= (node.end_lineno or node.lineno):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in _SCHEDULE_ARGS:
                return name, node
    return None


def _schedule_arg(call: ast.Call, name: str, pos: int) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), call.args[pos] if len(call.args) > pos else None)


def _lengthen_schedule(src: _Src, facts, fact, opts) -> bool:
    """A stock schedule stepped once per epoch whose LR collapses within the run (``fact``, the fraction
    of the run after which the LR stays under the collapse cut, below 1): stretched over the
    ``scheduler_steps`` the run takes it through. StepLR: ``step_size`` a ``phases``-th of them and ``gamma``
    at least ``gamma_min`` (the run in ``phases`` LR levels, as 30/60/90 epochs at 0.1); ExponentialLR:
    ``gamma`` that ends the run where those levels would. Each number is edited where the script writes it
    (a literal, a constant, a dict entry, an argparse default). Refused where the scheduler steps every
    batch (that is the step's place, not the schedule's length: ``step_scheduler_per_epoch``) or a number
    is not written as a literal."""
    frac, steps = _fact_number(facts, fact), _fact_number(facts, "scheduler_steps")
    per_batch = facts.get("scheduler_step_per_batch")
    if frac is None or steps is None or steps < 2 or frac >= 1 \
            or (per_batch is not None and per_batch[0] is True):     # 1: the LR never collapses
        return False
    n = _line_of(facts[fact][1])
    found = _schedule_call(src, n) if n is not None else None
    if found is None:
        return False
    kind, call = found
    phases, gamma_min = int(opts["phases"]), float(opts["gamma_min"])
    if kind == "StepLR":
        moves = [("step_size", 1, lambda old: max(old, math.ceil(steps / phases)), int),
                 ("gamma", 2, lambda old: max(old, gamma_min), float)]
    else:
        moves = [("gamma", 1, lambda old: max(old, gamma_min ** ((phases - 1) / steps)), float)]
    edits, in_config = [], []
    for name, pos, move, kind_of in moves:
        expr = _schedule_arg(call, name, pos)
        if expr is None and name == "gamma":        # torch's default gamma (0.1) is no collapse by itself
            continue
        target = _literal_origin(src, expr)
        key = _config_key(src, expr) if target is None else None
        if key is not None:
            in_config.append((key, lambda old, m=move, k=kind_of: k(m(old)),
                              f"{kind} {name}, so the schedule spans the run's {int(steps)} scheduler steps"))
            continue
        if target is None:
            return False
        new = move(target.value)
        if new != target.value:
            edits.append((target, name, kind_of(new)))
    if in_config:       # the schedule's numbers live in a config file: all of them edited there, or none
        if not edits:
            src.config_moves.extend(in_config)
        return False
    if not edits:
        return False
    for target, name, new in edits:
        at, was = target.lineno, src.segment(target)
        text = str(new) if isinstance(new, int) else f"{new:.4g}"
        if not _replace_span(src, target, text):
            return False
        src.changes.append(f"line {at}: {kind} {name} {was} -> {text}, so the schedule spans the run's "
                           f"{int(steps)} scheduler steps")
    return True
