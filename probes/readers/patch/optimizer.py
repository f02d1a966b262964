"""Edits to what the optimizer is given and how it steps: the learning rate, the weight decay, gradient
clipping, and the parameters it holds."""

from __future__ import annotations

import ast
import re

from .source import (
    _ORIGIN_DEPTH,
    _calls,
    _fact_number,
    _fmt_lr,
    _indent,
    _keyword_on_line,
    _line_of,
    _literal_origin,
    _loops_with_backward,
    _module_binding,
    _parameter_given,
    _nn_prefix,
    _params_arg,
    _reindented,
    _replace_span,
    _same_number,
    _Src,
    _statement_at,
    _target_name,
)


def _new_lr(facts, fact, opts) -> tuple[float, float] | None:
    """(old, new) learning rate for a set_learning_rate edit: ``factor`` up/down, to at least / at most
    the optimizer family's usual value; None when the rate or the family is unknown."""
    old = _fact_number(facts, fact)
    opt = str(facts.get("optimizer", ("", ""))[0] or "").lower()
    typical = (opts.get("typical") or {}).get(opt)
    if old is None or typical is None or old <= 0:
        return None
    factor = float(opts.get("factor", 10))
    return old, (max(old * factor, typical) if opts.get("direction") == "up" else min(old / factor, typical))


def _lr(src: _Src, facts, fact, opts) -> bool:
    moved = _new_lr(facts, fact, opts)
    n = _line_of(facts[fact][1]) if moved else None
    if n is None:
        return False
    old, new = moved
    target = _literal_origin(src, _keyword_on_line(src, n, "lr"))
    if target is None or not _same_number(target.value, old):
        return False
    at = target.lineno
    was = src.segment(target)
    if not _replace_span(src, target, _fmt_lr(new)):
        return False
    word = "raised" if new > old else "lowered"
    src.changes.append(f"line {at}: learning rate {word} {was} -> {_fmt_lr(new)}")
    return True


def _new_weight_decay(facts, fact, opts) -> tuple[float, float] | None:
    """(old, new) weight decay: the optimizer family's usual value (``typical``, else its ``default``),
    only where the run's is above it."""
    old = _fact_number(facts, fact)
    typical = opts.get("typical") or {}
    opt = str(facts.get("optimizer", ("", ""))[0] or "").lower()
    usual = typical.get(opt, typical.get("default"))
    if old is None or usual is None or not old > float(usual):
        return None
    return old, float(usual)


def _weight_decay(src: _Src, facts, fact, opts) -> bool:
    moved = _new_weight_decay(facts, fact, opts)
    n = _line_of(facts[fact][1]) if moved else None
    if n is None:
        return False
    given = _keyword_on_line(src, n, "weight_decay")
    target = _literal_origin(src, given) if given is not None else _penalty_coefficient(src, n, moved[0])
    if target is None or not _same_number(target.value, moved[0]):
        return False
    was = src.segment(target)
    if not _replace_span(src, target, _fmt_lr(moved[1])):
        return False
    src.changes.append(f"line {target.lineno}: weight decay lowered {was} -> {_fmt_lr(moved[1])}")
    return True


def _penalty_coefficient(src: _Src, n: int, value: float) -> ast.Constant | None:
    """The literal an L2 penalty written into the loss on line ``n`` takes its strength from
    (``reg_loss = 0.5 * reg * (W * W).sum()`` with ``reg = 0.1``): the one literal that the names and numbers
    of the statement there lead to and that holds ``value``; None where none or several do."""
    stmts = [st for st in ast.walk(src.tree) if isinstance(st, (ast.Assign, ast.AugAssign, ast.Expr))
             and st.lineno == n]
    found = {}
    for st in stmts[:1]:
        for node in ast.walk(st.value):
            if isinstance(node, (ast.Name, ast.Constant, ast.Attribute, ast.Subscript)) and \
                    isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
                target = _literal_origin(src, node)
                if target is not None and _same_number(target.value, value):
                    found[id(target)] = target
    return next(iter(found.values())) if len(found) == 1 else None


def _over_clipping(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None else None
    if n is None:
        return False
    arg = _keyword_on_line(src, n, "max_norm")
    if arg is None:     # clip_grad_norm_(params, 1.0): the second positional argument
        calls = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call) and c.lineno <= n <= (c.end_lineno or n)
                 and (getattr(c.func, "attr", None) or getattr(c.func, "id", "")).startswith("clip_grad_norm")]
        arg = calls[0].args[1] if calls and len(calls[0].args) > 1 else None
    target = _literal_origin(src, arg)
    if target is None:
        return False
    was = src.segment(target)
    value = _fmt_norm(float(opts.get("value", 1.0)))
    if not _replace_span(src, target, value):
        return False
    src.changes.append(f"line {target.lineno}: gradient clipping max_norm {was} -> {value}")
    return True


def _fmt_norm(x: float) -> str:
    value = f"{x:g}"
    return value if any(c in value for c in ".e") else value + ".0"


def _no_param_groups(src: _Src, arg: ast.expr) -> bool:
    """``arg`` gives the optimizer plain parameters, never param groups (dicts with their own lr or
    weight decay, which a whole ``model.parameters()`` would flatten): no dict in it, and a bare name
    is never assigned anything holding one."""
    def plain(node):
        return not any(isinstance(x, ast.Dict) or (isinstance(x, ast.Call) and isinstance(x.func, ast.Name)
                                                   and x.func.id == "dict") for x in ast.walk(node))
    if not plain(arg):
        return False
    if isinstance(arg, ast.Name):
        for node in ast.walk(src.tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None and \
                    any(isinstance(t, ast.Name) and t.id == arg.id for t in
                        (node.targets if isinstance(node, ast.Assign) else [node.target])) and not plain(node.value):
                return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id == arg.id and not all(plain(a) for a in node.args):
                return False
    return True


def _optimizer_call(src: _Src, n: int) -> ast.Call | None:
    """The optimizer construction on line ``n``: the call there whose parameters argument the
    code reader read (the outermost call starting on that line)."""
    calls = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call) and c.lineno == n and _params_arg(c) is not None]
    return min(calls, key=lambda c: c.col_offset) if calls else None


def _optimizer_whole_model(src: _Src, facts, fact, opts) -> bool:
    """An optimizer given part of a model while the whole model trains: given all of it (the part
    as written -- ``model.fc.parameters()``, a list of some parameters, a sum of ``list(...)``s, a
    name bound to such a list -- but never param groups)."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None else None
    if n is None or not isinstance(f[0], (list, tuple)):
        return False
    for v in f[0]:
        m = re.search(r"holds only (.+) while ([A-Za-z_][\w.]*) trains$", str(v))
        if m is None:
            continue
        held, model = m.group(1), m.group(2)
        node = _optimizer_call(src, n)
        arg = _params_arg(node) if node is not None else None
        if arg is None or not (src.segment(arg) == held or _no_param_groups(src, arg)):
            continue
        if _replace_span(src, arg, f"{model}.parameters()"):
            src.changes.append(f"line {n}: the optimizer given all of {model}.parameters() (it held only {held})")
            return True
    return False


_OTHER_INSTANCE = re.compile(r"^([A-Za-z_][\w.]*) \(.*, line (\d+)\) is trained but the optimizer \(line (\d+)\) "
                             r"holds .*, another instance$")


def _optimizer_for_trained_model(src: _Src, facts, fact, opts) -> bool:
    """The optimizer holds another instance of the model that trains. Built before that instance
    (a model re-created per fold, or again in ``main()``): the optimizer -- and whatever is built on
    it next to it, such as its scheduler -- is built again right after the instance, ``global`` where
    it lives at module level. Built after it from a fresh instance (``opt(Net().parameters())``):
    given the trained instance's parameters."""
    f = facts.get(fact)
    if f is None or not isinstance(f[0], (list, tuple)):
        return False
    for v in f[0]:
        m = _OTHER_INSTANCE.match(str(v))
        if m is None:
            continue
        var, made, built = m.group(1), int(m.group(2)), int(m.group(3))
        if made < built:
            if _given_trained_instance(src, var, built):
                return True
            continue
        if _rebuild_after(src, built, made):
            return True
    # layers of the model swapped after the optimizer took its parameters (a new head, a pruned layer):
    # the optimizer built again after the last swap, over the model as it now is
    swaps = [(int(m.group(1)), int(m.group(2))) for m in (_REPLACED.search(str(v)) for v in f[0]) if m]
    built = {b for _, b in swaps}
    return len(built) == 1 and _rebuild_after(src, built.pop(), max(line for line, _ in swaps))


_REPLACED = re.compile(r" replaced at line (\d+), after the optimizer was built at line (\d+)$")


def _given_trained_instance(src: _Src, var: str, built: int) -> bool:
    """The optimizer of line ``built`` holds another instance than the one bound to ``var`` before it.
    Given ``var.parameters()``; where it already is (``var`` rebound after the optimizer, e.g. to a
    copy), built again after that rebinding. A ``var`` that is a factory's local name (``m`` inside
    ``make_model()``) is read as the name bound to the same construction where the optimizer is."""
    opt = _statement_at(src, built)
    if opt is None:
        return False
    node = _optimizer_call(src, built)
    arg = _params_arg(node) if node is not None else None
    if arg is None or not _no_param_groups(src, arg):
        return False
    if not _bound_before(src, var, built, opt[1]):
        var = _bound_to_same_call(src, arg, built, opt[1])
        if var is None:
            return False        # the instance is not bound to any name where the optimizer is built
    if src.segment(arg) == f"{var}.parameters()":
        again = _rebound_after(src, var, built, opt[1])
        return again is not None and _rebuild_after(src, built, again)
    if _replace_span(src, arg, f"{var}.parameters()"):
        src.changes.append(f"line {built}: the optimizer given {var}.parameters(), the instance that trains")
        return True
    return False


def _same_scope_assigns(src: _Src, scopes: list):
    """Simple ``name = value`` statements in the scope of ``scopes`` (the function innermost, or the
    module), with their target names."""
    for node in ast.walk(src.tree):
        name = _target_name(node) if isinstance(node, ast.Assign) else None
        if name is None:
            continue
        found = _statement_at(src, node.lineno)
        if found is not None and found[1] == scopes:
            yield node, name


def _bound_to_same_call(src: _Src, arg: ast.expr, built: int, scopes: list) -> str | None:
    """For an optimizer given ``make_model().parameters()``: the last name bound to ``make_model()``
    (the same call, as written) before line ``built`` in the optimizer's scope."""
    call = arg.func.value if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) else None
    if not isinstance(call, ast.Call):
        return None
    text = src.segment(call)
    hits = [(st.lineno, name) for st, name in _same_scope_assigns(src, scopes)
            if st.lineno < built and src.segment(st.value) == text]
    return max(hits)[1] if hits else None


def _rebound_after(src: _Src, var: str, built: int, scopes: list) -> int | None:
    """The first line after ``built`` where ``var`` is bound again in the optimizer's scope."""
    lines = [st.lineno for st, name in _same_scope_assigns(src, scopes) if name == var and st.lineno > built]
    return min(lines) if lines else None


def _bound_before(src: _Src, name: str, n: int, scopes: list) -> bool:
    """``name`` is assigned before line ``n`` in the scope of ``scopes`` (or one around it)."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Assign) and node.lineno < n and _target_name(node) == name:
            found = _statement_at(src, node.lineno)
            if found is not None and found[1] == scopes[:len(found[1])]:
                return True
    return False


def _rebuild_after(src: _Src, built: int, made: int) -> bool:
    """Build the optimizer of line ``built`` again after the statement on line ``made``."""
    opt, inst = _statement_at(src, built), _statement_at(src, made)
    if opt is None or inst is None or _target_name(opt[0]) is None:
        return False
    (ost, oscopes), (ist, iscopes) = opt, inst
    name = _target_name(ost)
    # what is built on the optimizer next to it (a scheduler, a scaler bound to it): built again too
    block = (oscopes[-1] if oscopes else src.tree).body
    follow = [st for st in block if built < st.lineno < made and isinstance(st, ast.Assign) and _target_name(st)
              and any(isinstance(x, ast.Name) and x.id == name for c in ast.walk(st.value)
                      if isinstance(c, ast.Call) for x in c.args)]
    indent = _indent(src.line(made))
    texts = [_reindented(src, st, indent) for st in [ost] + follow]
    if any(t is None for t in texts):
        return False
    if oscopes != iscopes[:len(oscopes)]:
        return False
    if len(iscopes) > len(oscopes):
        if oscopes:         # a function's own optimizer, rebuilt in a function inside it: left alone
            return False
        fn = iscopes[-1]
        names = [_target_name(st) for st in [ost] + follow]
        args = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        if args & set(names) or fn.body[0].lineno == fn.lineno:
            return False
        first = fn.body[1] if len(fn.body) > 1 and isinstance(fn.body[0], ast.Expr) and \
            isinstance(fn.body[0].value, ast.Constant) and isinstance(fn.body[0].value.value, str) else fn.body[0]
        src.insert(first.lineno, f"{_indent(src.line(first.lineno))}global {', '.join(names)}\n",
                   f"line {first.lineno}: {', '.join(names)} declared global in {fn.name}() so that the optimizer "
                   "built there is the one every step uses")
    src.insert_after(ist.end_lineno, "".join(texts),
                     f"line {ist.end_lineno + 1}: the optimizer (line {built}) built again for the instance made at "
                     f"line {made}, the one that trains" + (" (with what is built on it)" if follow else ""))
    return True


def _insert_clip(src: _Src, facts, fact, opts) -> bool:
    """Gradient-norm clipping at ``max_norm`` inserted right before the optimizer's ``step()`` in the training
    loop, after its backward, over the parameters the optimizer holds. Refused where the script clips already
    (``fact`` known) or scales its loss (a GradScaler needs ``unscale_`` first, a choice left to the user)."""
    if facts.get(fact) is not None or "max_norm" not in opts:
        return False
    names = {getattr(c.func, "attr", getattr(c.func, "id", "")) for c in ast.walk(src.tree) if isinstance(c, ast.Call)}
    if names & {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "GradScaler", "unscale_"}:
        return False
    pairs = _loops_with_backward(src.tree)
    prefix = _nn_prefix(src)
    if not pairs or prefix is None:
        return _clip_before_manual_update(src, prefix, opts) if prefix is not None else False
    loop, back = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    step = next((st for st in loop.body if st.lineno > back.lineno and isinstance(st, ast.Expr)
                 and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute)
                 and st.value.func.attr == "step" and not st.value.args and isinstance(st.value.func.value, ast.Name)
                 and "sched" not in st.value.func.value.id.lower() and src.starts_its_line(st)), None)
    if step is None:
        return _clip_before_manual_update(src, prefix, opts)
    opt = step.value.func.value.id
    built = [n.value for n in ast.walk(src.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == opt and isinstance(n.value, ast.Call)]
    arg = _params_arg(built[-1]) if built else None
    params = src.segment(arg) if isinstance(arg, ast.Call) and getattr(arg.func, "attr", None) == "parameters" \
        and not arg.args else f'[p for g in {opt}.param_groups for p in g["params"]]'
    norm = _fmt_norm(float(opts["max_norm"]))
    src.insert(step.lineno, f"{_indent(src.line(step.lineno))}{prefix}.utils.clip_grad_norm_({params}, "
                            f"max_norm={norm})\n",
               f"line {step.lineno}: gradients clipped to a total norm of {norm} before {opt}.step()")
    return True


def _clip_before_manual_update(src: _Src, prefix: str, opts) -> bool:
    """No optimizer steps: the weights are updated by hand right after the backward, by a loop over the
    model's parameters (``loss.backward()`` then ``for p in rnn.parameters(): p.data.add_(p.grad.data,
    alpha=-lr)``). Clipping at ``max_norm`` goes right before that loop, over the same parameters. Only
    where one statement after a backward is such a loop and nothing steps an optimizer in its block."""
    done = False
    for block in ast.walk(src.tree):
        body = getattr(block, "body", None)
        if not isinstance(body, list) or any(_calls(st, "step") for st in body):
            continue
        for back, update in zip(body, body[1:]):
            if not (_is_backward(back) and isinstance(update, ast.For) and isinstance(update.target, ast.Name)
                    and isinstance(update.iter, ast.Call) and isinstance(update.iter.func, ast.Attribute)
                    and update.iter.func.attr == "parameters" and not update.iter.args
                    and _updates_in_place(update, update.target.id) and src.starts_its_line(update)):
                continue
            norm = _fmt_norm(float(opts["max_norm"]))
            at = update.lineno
            src.insert(at, f"{_indent(src.line(at))}{prefix}.utils.clip_grad_norm_({src.segment(update.iter)}, "
                           f"max_norm={norm})\n",
                       f"line {at}: gradients clipped to a total norm of {norm} before the weights are updated")
            done = True
    return done


def _is_backward(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
        isinstance(st.value.func, ast.Attribute) and st.value.func.attr == "backward"


#: the in-place tensor methods a hand-written update applies to a parameter
_IN_PLACE_UPDATES = ("add_", "sub_", "addcmul_", "addcdiv_", "copy_")


def _updates_in_place(loop: ast.For, p: str) -> bool:
    """The loop's body updates the parameter ``p`` by its gradient: ``p.data.add_(...)``, ``p -= ...``,
    ``p.data -= ...``, reading ``p.grad``."""
    reads_grad = any(isinstance(n, ast.Attribute) and n.attr == "grad" and ast.unparse(n.value) == p
                     for n in ast.walk(loop))
    writes = any((isinstance(n, ast.AugAssign) and ast.unparse(n.target) in (p, f"{p}.data"))
                 or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _IN_PLACE_UPDATES
                     and ast.unparse(n.func.value) in (p, f"{p}.data")) for n in ast.walk(loop))
    return reads_grad and writes


#: how a script writes an unbounded clipping norm (clip_grad_norm_ used to measure the norm only)
_INFINITE = ("inf", "infinity")


def _bound_clip(src: _Src, facts, fact, opts) -> bool:
    """A clipping that never clips where the gradients explode: ``clip_grad_norm_(params, float("inf"))``
    (run to read the norm), or a norm switched off by the value it is given (``clip_c = -1`` with ``if
    clip_c > 0.: clip_grad_norm_(params, clip_c)``). The norm set to ``max_norm`` where it is written: the
    infinity in the call, or the number it comes from. The call is the located one, else the script's only one."""
    if "max_norm" not in opts:
        return False
    n = _line_of(facts[fact][1]) if facts.get(fact) is not None else None
    calls = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call)
             and (getattr(c.func, "attr", None) or getattr(c.func, "id", "")) in ("clip_grad_norm_", "clip_grad_norm")]
    located = [c for c in calls if n is not None and c.lineno <= n <= c.end_lineno]
    call = located[0] if located else calls[0] if n is None and len(calls) == 1 else None
    if call is None:
        return False
    arg = next((k.value for k in call.keywords if k.arg == "max_norm"), call.args[1] if len(call.args) > 1 else None)
    origin = _norm_origin(src, arg)
    if origin is None or not (origin[1] <= 0 or origin[1] == float("inf")):
        return False
    node, was = origin
    norm = _fmt_norm(float(opts["max_norm"]))
    if not _replace_span(src, node, norm):
        return False
    src.changes.append(f"line {node.lineno}: gradient clipping max_norm {src.segment(node) or was} -> {norm} (it "
                       "never clipped)")
    return True


def _norm_origin(src: _Src, expr, depth: int = _ORIGIN_DEPTH):
    """(node, value) of the number a clipping norm is written as: a literal (negative too), an infinity
    (``float("inf")``, ``math.inf``), followed through names as :func:`_literal_origin` does."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant) \
            and isinstance(expr.operand.value, (int, float)) and not isinstance(expr.operand.value, bool):
        return expr, -float(expr.operand.value)
    if isinstance(expr, ast.Call) and getattr(expr.func, "id", None) == "float" and len(expr.args) == 1 \
            and isinstance(expr.args[0], ast.Constant) and str(expr.args[0].value).lower().lstrip("+") in _INFINITE:
        return expr, float("inf")
    if isinstance(expr, ast.Attribute) and expr.attr == "inf" and isinstance(expr.value, ast.Name):
        return expr, float("inf")
    if isinstance(expr, ast.Name):
        given = _parameter_given(src, expr)
        bound = given if given is not False else _module_binding(src, expr.id)
        return _norm_origin(src, bound, depth - 1)
    target = _literal_origin(src, expr)
    return (target, float(target.value)) if target is not None else None


def _clip_move(facts, fact, opts) -> tuple[float, float] | None:
    """(old, new) clipping norm for a set_clip_norm edit: the fix's ``value``."""
    try:
        return float(facts[fact][0]), float(opts.get("value", 1.0))
    except (KeyError, TypeError, ValueError):
        return None
