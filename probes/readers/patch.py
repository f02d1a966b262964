"""The fix as a patch: a unified diff against the user's script, for faults the code reader located.

Torch-free. ``traindx diagnose --script train.py --patch fix.diff`` writes it; traindx never edits
the user's files. Which edit fixes which cause is knowledge: each fix in kb/fixes.yaml may list a
``patch:`` — edits from the vocabulary below, each reading the fact whose source ``code:FILE:LINE``
says where the code reader found the fault, with its settings under ``with:``. The first edit that
applies wins; an edit changes only what the fix needs and refuses (returns False) when the located
line does not read as expected, so a patch is never guessed.

=========================  ===========================================================================
edit                       change
=========================  ===========================================================================
set_learning_rate          the learning-rate literal on the optimizer's line, or where it comes from (a
                           module-level constant, also one unpacked from a tuple; an argparse default;
                           a dict literal's entry; the key of a config file the script reads,
                           :func:`make_config_patch`),
                           moved ``factor`` up/down, to at least / at most the family's usual value
insert_zero_grad           ``OPT.zero_grad()`` inserted before the ``backward()`` of the training loop
drop_output_squash         the softmax/sigmoid before a loss that applies its own removed
set_shuffle                ``shuffle=True`` on the training DataLoader; a hand-made batch index built in
                           file order (``torch.arange(N)``) built as a permutation (``torch.randperm(N)``)
insert_train_mode          ``MODEL.train()`` as the first statement of the training loop
set_clip_norm              the clipping ``max_norm`` literal set to ``value``
unfreeze                   each located ``requires_grad = False`` / ``requires_grad_(False)`` set to True;
                           ``module.requires_grad = True`` (a plain attribute) -> ``requires_grad_(True)``
wrap_module_list           a plain list / dict of layers wrapped in ``nn.ModuleList`` / ``nn.ModuleDict``
optimizer_whole_model      an optimizer built over part of the model that trains given all of it
fill_nan_after_write       after the statement writing NaN into the data, the NaN replaced by ``fill``
step_scheduler_per_epoch   an epoch scheduler's ``step()`` moved out of the batch loop to once per epoch
reinit_weights             a weight set to one constant or drawn far too wide given PyTorch's default init
insert_clip_norm           ``clip_grad_norm_`` at ``max_norm`` inserted before the optimizer's step, where
                           nothing clips yet
=========================  ===========================================================================

:func:`make_patch` returns ``{"file", "diff", "cause", "changes"}`` or None when no edit applies.
The diff's paths are the script's path relative to the current directory, so ``patch -p0 < fix.diff``
and ``git apply -p0 fix.diff`` both apply it there.
"""

from __future__ import annotations

import ast
import difflib
import functools
import os
import re
from collections.abc import Mapping

from traindx.engine.errors import InputError

#: A learning rate below this is written in scientific notation in the patch (1e-3, not 0.001):
#: presentation, not knowledge.
_SCI_BELOW = 1e-2

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _line_of(source: str) -> int | None:
    parts = source.split(":")
    if parts[0] != "code" or len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def _fmt_lr(x: float) -> str:
    s = f"{x:.0e}" if x < _SCI_BELOW else f"{x:g}"
    return s.replace("e-0", "e-").replace("e+0", "e")


class _Src:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.changes: list[str] = []
        # insertions are kept beside the original lines, so every edit addresses the script's own
        # line numbers whatever the edits before it inserted
        self.before: dict[int, list[str]] = {}
        self.after: dict[int, list[str]] = {}

    def line(self, n: int) -> str:
        return self.lines[n - 1]

    def set_line(self, n: int, new: str, why: str) -> None:
        self.lines[n - 1] = new
        self.changes.append(why)

    def insert(self, n: int, new: str, why: str) -> None:
        """Insert ``new`` before line ``n`` (1-based)."""
        self.before.setdefault(n, []).append(new)
        self.changes.append(why)

    def insert_after(self, n: int, new: str, why: str) -> None:
        """Insert ``new`` after line ``n`` (1-based)."""
        if not self.lines[n - 1].endswith("\n"):
            self.lines[n - 1] += "\n"
        self.after.setdefault(n, []).append(new)
        self.changes.append(why)

    def result(self) -> str:
        out = []
        for i, line in enumerate(self.lines, start=1):
            out.extend(self.before.get(i, ()))
            out.append(line)
            out.extend(self.after.get(i, ()))
        return "".join(out)

    def col(self, n: int, byte_col: int) -> int:
        """The character index in line ``n`` of the AST's UTF-8 byte offset ``byte_col``."""
        return len(self.lines[n - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def starts_its_line(self, stmt: ast.stmt) -> bool:
        """``stmt`` is the first thing on its line (not the body of a one-line ``if x: ...``)."""
        line = self.lines[stmt.lineno - 1]
        return self.col(stmt.lineno, stmt.col_offset) == len(line) - len(line.lstrip())


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


# ------------------------------------------------------------------ templates
def _fact_number(facts, fact) -> float | None:
    """The value of ``fact`` as a number (None when the session has none or it is no number)."""
    f = facts.get(fact)
    try:
        return float(f[0]) if f is not None else None
    except (TypeError, ValueError):
        return None


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


def _same_number(value, old: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and abs(float(value) - old) <= 1e-12 * max(1.0, abs(old))


def _keyword_on_line(src: _Src, n: int, keyword: str) -> ast.expr | None:
    """The value passed as ``keyword=`` by a call that spans line ``n`` (``lr=...`` of the optimizer)."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and node.lineno <= n <= (node.end_lineno or node.lineno):
            for kw in node.keywords:
                if kw.arg == keyword:
                    return kw.value
    return None


#: how many names a literal is followed through (LR = BASE_LR; BASE_LR = 1e-3)
_ORIGIN_DEPTH = 4


def _literal_origin(src: _Src, expr: ast.expr | None, depth: int = _ORIGIN_DEPTH) -> ast.Constant | None:
    """The number literal ``expr`` takes its value from: itself; for a NAME, the literal of its last
    module-level assignment (``LR = 3e-4`` or ``LR, BATCH = 3e-4, 64``); for ``args.NAME``, the
    ``default=`` of the argparse option whose destination is NAME; for ``CFG["lr"]``, the entry of the
    dict literal CFG names. None where the value comes from
    elsewhere (a config file, a computation), so a patch is never guessed."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.Constant):
        return expr if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ast.Name):
        found = None
        for node in src.tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    found = _assigned(target, node.value, expr.id) or found
        return _literal_origin(src, found, depth - 1)
    if isinstance(expr, ast.Attribute):
        return _literal_origin(src, _argparse_default(src, expr.attr), depth - 1)
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):   # CFG["lr"]
        holder = expr.value
        if isinstance(holder, ast.Name):
            holder = next((_assigned(t, n.value, holder.id) for n in reversed(src.tree.body)
                           if isinstance(n, ast.Assign) for t in n.targets if _assigned(t, n.value, holder.id)), None)
        return _literal_origin(src, _entry(holder, expr.slice.value), depth - 1)
    return None


def _entry(holder: ast.expr | None, key) -> ast.expr | None:
    """The value a dict written in the script holds under ``key``: ``{"lr": 3e-4}`` or ``dict(lr=3e-4)``."""
    if isinstance(holder, ast.Dict):
        return next((v for k, v in zip(holder.keys, holder.values)
                     if isinstance(k, ast.Constant) and k.value == key), None)
    if isinstance(holder, ast.Call) and getattr(holder.func, "id", None) == "dict":
        return next((kw.value for kw in holder.keywords if kw.arg == key), None)
    return None


def _assigned(target: ast.expr, value: ast.expr, name: str) -> ast.expr | None:
    """What ``target = value`` gives ``name``, unpacking tuples element by element."""
    if isinstance(target, ast.Name):
        return value if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            got = _assigned(t, v, name)
            if got is not None:
                return got
    return None


def _argparse_default(src: _Src, dest: str) -> ast.expr | None:
    """The ``default=`` of the ``add_argument`` call whose destination is ``dest`` (``--lr`` /
    ``--learning-rate`` / ``dest="lr"``)."""
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        kws = {kw.arg: kw.value for kw in node.keywords}
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        longs = [x for x in names if x.startswith("--")] or names
        own = kws.get("dest")
        if not isinstance(own, ast.Constant):
            own = ast.Constant(longs[0].lstrip("-").replace("-", "_") if longs else None)
        if own.value == dest and "default" in kws:
            return kws["default"]
    return None


def _loops_with_backward(tree):
    """(loop, statement) for each statement holding ``.backward()`` directly in a for/while body."""
    out = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for stmt in loop.body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
                    out.append((loop, stmt))
                    break
    return out


def _step_receiver(loop) -> str | None:
    for node in ast.walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" \
                and not node.args and isinstance(node.func.value, ast.Name):
            name = node.func.value.id
            if "sched" not in name.lower():
                return name
    return None


def _zero_grad(src: _Src, facts, fact, opts) -> bool:
    pairs = _loops_with_backward(src.tree)
    if not pairs:
        return False
    # the innermost loop holding the backward
    loop, stmt = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    opt = _step_receiver(loop)
    if opt is None:
        return False
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
           for n in ast.walk(loop)):
        return False
    # at the top of the loop body: before this step's forward and backward
    at = loop.body[0].lineno
    src.insert(at, f"{_indent(src.line(at))}{opt}.zero_grad()\n",
               f"line {at}: {opt}.zero_grad() before each step's gradients are computed")
    return True


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
                    continue
                new = before[: m2.start()] + rest
            if not new.strip():
                new = ""
        else:
            continue
        src.set_line(n, new, f"line {n}: the {name} before the loss removed (the loss applies its own)")
        return True
    return False


def _shuffle(src: _Src, facts, fact, opts) -> bool:
    f = facts.get(fact)
    if f is None or f[0] is not False:
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    text = src.line(n)
    if re.search(r"\bshuffle\s*=\s*False\b", text):
        src.set_line(n, re.sub(r"\bshuffle\s*=\s*False\b", "shuffle=True", text, count=1),
                     f"line {n}: shuffle=True on the training DataLoader")
        return True
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and node.lineno == n and node.end_lineno == n and \
                (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "DataLoader" \
                and not any(k.arg == "shuffle" for k in node.keywords):
            close = node.end_col_offset - 1
            if text[close] != ")":
                return False
            src.set_line(n, text[:close] + ", shuffle=True" + text[close:],
                         f"line {n}: shuffle=True on the training DataLoader")
            return True
    return _permute_order(src, n)


#: an index order in file order, and the call that gives a fresh random order of the same length
_IN_ORDER = {("torch", "arange"): "torch.randperm", ("np", "arange"): "np.random.permutation",
             ("numpy", "arange"): "numpy.random.permutation"}


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
        if key not in _IN_ORDER or len(call.args) != 1 or call.keywords or func.lineno != func.end_lineno:
            return False
        at = func.lineno
        text = src.line(at)
        a, b = src.col(at, func.col_offset), src.col(at, func.end_col_offset)
        src.set_line(at, text[:a] + _IN_ORDER[key] + text[b:],
                     f"line {at}: the batches drawn in a random order ({_IN_ORDER[key]})")
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


def _parents(tree) -> dict:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _has_mode_call(node, receiver: str | None = None, modes=("train", "eval")) -> bool:
    """``node`` calls ``.train()`` / ``.eval()`` (on ``receiver`` when given)."""
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in modes
               and (receiver is None or ast.unparse(c.func.value) == receiver) for c in ast.walk(node))


def _model_called_on(src: _Src, n: int) -> str | None:
    """The model whose forward runs on line ``n``: a call there of something whose ``.parameters()``,
    ``.train()`` or ``.eval()`` the script uses elsewhere."""
    models = {ast.unparse(c.func.value) for c in ast.walk(src.tree) if isinstance(c, ast.Call)
              and isinstance(c.func, ast.Attribute) and c.func.attr in ("parameters", "train", "eval")}
    for c in ast.walk(src.tree):
        if isinstance(c, ast.Call) and c.lineno == n and isinstance(c.func, (ast.Name, ast.Attribute)) and \
                ast.unparse(c.func) in models:
            return ast.unparse(c.func)
    return None


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
    if not _train_mode_restored(loop, anchor, node, model, parents):
        first = loop.body[0].lineno
        src.insert(first, f"{_indent(src.line(first))}{model}.train()\n",
                   f"line {first}: {model}.train() at the start of each training step (the validation leaves "
                   "it in eval mode)")
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
    target = _literal_origin(src, _keyword_on_line(src, n, "weight_decay"))
    if target is None or not _same_number(target.value, moved[0]):
        return False
    was = src.segment(target)
    if not _replace_span(src, target, _fmt_lr(moved[1])):
        return False
    src.changes.append(f"line {target.lineno}: weight decay lowered {was} -> {_fmt_lr(moved[1])}")
    return True


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


def _located_lines(values) -> list[int]:
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        out += [int(x) for x in re.findall(r"\(line (\d+)\)", str(v))]
    return out


def _replace_span(src: _Src, node: ast.AST, new: str) -> bool:
    """Replace one single-line node's source by ``new`` (False when the node spans lines)."""
    if node.lineno != node.end_lineno:
        return False
    n = node.lineno
    text = src.line(n)
    a, b = src.col(n, node.col_offset), src.col(n, node.end_col_offset)
    src.lines[n - 1] = text[:a] + new + text[b:]
    return True


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


def _params_arg(call: ast.Call) -> ast.expr | None:
    """The parameters an optimizer call is given: its first argument or ``params=``."""
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "params"), None)


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


def _statement_at(src: _Src, n: int) -> tuple[ast.stmt, list] | None:
    """The simple statement starting line ``n`` and the chain of function definitions around it
    (innermost last)."""
    def walk(body, scopes):
        for st in body:
            if st.lineno == n and isinstance(st, (ast.Assign, ast.AnnAssign, ast.Expr)) and src.starts_its_line(st):
                return st, scopes
            inner = scopes + [st] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) else scopes
            for field in ("body", "orelse", "finalbody", "handlers"):
                found = walk(getattr(st, field, None) or [], inner)
                if found:
                    return found
        return None
    return walk(src.tree.body, [])


def _reindented(src: _Src, st: ast.stmt, indent: str) -> str | None:
    """The source lines of ``st`` moved to ``indent`` (None when a continuation line sits left of
    the statement's own indentation)."""
    own = _indent(src.line(st.lineno))
    out = []
    for i in range(st.lineno, st.end_lineno + 1):
        line = src.line(i)
        if line.strip() and not line.startswith(own):
            return None
        out.append(indent + line[len(own):] if line.strip() else line)
    return "".join(out).rstrip("\n") + "\n"


def _target_name(st: ast.stmt) -> str | None:
    t = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else getattr(st, "target", None)
    return t.id if isinstance(t, ast.Name) else None


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
            opt = _statement_at(src, built)
            if opt is None or not _bound_before(src, var, built, opt[1]):
                continue        # the instance is not bound to that name where the optimizer is built
            node = _optimizer_call(src, built)
            arg = _params_arg(node) if node is not None else None
            if arg is not None and _no_param_groups(src, arg) and \
                    _replace_span(src, arg, f"{var}.parameters()"):
                src.changes.append(f"line {built}: the optimizer given {var}.parameters(), the instance that trains")
                return True
            continue
        if _rebuild_after(src, built, made):
            return True
    return False


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
    if not isinstance(loop, (ast.For, ast.While)) or st not in loop.body or loop.orelse:
        return False
    outer = parents.get(loop)
    while outer is not None and not isinstance(outer, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
        outer = parents.get(outer)
    if outer is None or (not isinstance(outer, (ast.For, ast.While)) and not _called_in_a_loop(src, outer)):
        return False
    moved = _reindented(src, st, _indent(src.line(loop.lineno)))
    if moved is None:
        return False
    name = src.segment(call.func.value)
    keep = _indent(src.line(st.lineno))
    for i in range(st.lineno, st.end_lineno + 1):
        src.lines[i - 1] = f"{keep}pass\n" if i == st.lineno and len(loop.body) == 1 else ""
    src.insert_after(loop.end_lineno, moved,
                     f"line {st.lineno}: {name}.step() moved out of the batch loop (line {loop.lineno}) to after "
                     f"it, so the schedule advances once per epoch")
    return True



#: the in-place initialisers a weight can be set with: torch.nn.init functions and tensor methods
_INIT_FUNCTIONS = ("zeros_", "ones_", "constant_", "normal_", "trunc_normal_", "uniform_")
_INIT_METHODS = ("zero_", "fill_", "normal_", "uniform_")


def _init_module_prefix(src: _Src) -> str | None:
    """How the script can name torch.nn.init: ``init`` (``from torch.nn import init``, or its alias),
    ``nn.init`` (``nn`` bound to torch.nn) or ``torch.nn.init`` (``import torch``); None otherwise."""
    bound = {}
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            bound.update({a.asname or a.name: a.name for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module in ("torch", "torch.nn"):
            bound.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    for name, what in bound.items():
        if what == "torch.nn.init":
            return name
    nn = next((name for name, what in bound.items() if what == "torch.nn"), None)
    return f"{nn}.init" if nn else "torch.nn.init" if bound.get("torch") == "torch" else None


def _reinit(src: _Src, facts, fact, opts) -> bool:
    """A weight set to one constant (``init_constant``), or drawn with a std of ``std_large`` or more
    (``init_weight_std``), given PyTorch's own default start for Linear and Conv weights instead:
    ``kaiming_uniform_(W, a=5 ** 0.5)``. Only a weight (a name ending in ``weight``, so never a bias or
    a 1-D gain), set by one single-line call on the located line."""
    f = facts.get(fact)
    n = _line_of(f[1]) if f is not None else None
    if n is None or f[0] is False or f[0] is None:
        return False
    if fact == "init_weight_std" and not (isinstance(f[0], (int, float)) and f[0] >= float(opts.get("std_large", 0))):
        return False
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
        if prefix is None or not re.search(r"weight\w*(\.data)?$", weight):
            return False
        if not _replace_span(src, call, f"{prefix}.kaiming_uniform_({weight}, a=5 ** 0.5)"):
            return False
        src.changes.append(f"line {n}: {weight} given PyTorch's default start (Kaiming uniform, as nn.Linear "
                           f"and nn.Conv initialise themselves) instead of `{ast.unparse(call)}`")
        return True
    return False



def _nn_prefix(src: _Src) -> str | None:
    """How the script can name torch.nn: ``nn`` (or its alias) when bound to it, else ``torch.nn``."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch.nn" and a.asname:
                    return a.asname
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            for a in node.names:
                if a.name == "nn":
                    return a.asname or "nn"
    torch_bound = any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "torch" and not a.asname
                                                        for a in n.names) for n in ast.walk(src.tree))
    return "torch.nn" if torch_bound else None


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
        return False
    loop, back = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    step = next((st for st in loop.body if st.lineno > back.lineno and isinstance(st, ast.Expr)
                 and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute)
                 and st.value.func.attr == "step" and not st.value.args and isinstance(st.value.func.value, ast.Name)
                 and "sched" not in st.value.func.value.id.lower() and src.starts_its_line(st)), None)
    if step is None:
        return False
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


#: the edit vocabulary kb/fixes.yaml ``patch:`` entries name
EDITS = {"set_learning_rate": _lr, "insert_zero_grad": _zero_grad, "drop_output_squash": _double_softmax,
         "set_shuffle": _shuffle, "insert_train_mode": _train_mode,
         "insert_eval_mode": _eval_mode, "set_clip_norm": _over_clipping,
         "unfreeze": _unfreeze, "wrap_module_list": _wrap_module_list,
         "optimizer_whole_model": _optimizer_whole_model, "optimizer_for_trained_model": _optimizer_for_trained_model,
         "fill_nan_after_write": _fill_nan_after_write, "set_weight_decay": _weight_decay,
         "set_dropout": _dropout, "set_label_smoothing": _label_smoothing, "guard_spread_division": _guard_spread,
         "step_scheduler_per_epoch": _step_per_epoch, "reinit_weights": _reinit,
         "insert_clip_norm": _insert_clip}


def patch_edits(kb, cause: str) -> list[dict]:
    """The ``patch:`` edits of ``cause``'s fix in the knowledge base (empty when it has none)."""
    rc = kb.root_causes.get(cause) or {}
    fix = kb.fixes.get(rc.get("fix")) or {}
    return list(fix.get("patch") or [])


@functools.lru_cache(maxsize=1)
def _core_kb():
    from traindx.engine.loader import load_kb
    return load_kb(entry_point_packs=False)


def make_patch(script: str, facts: Mapping[str, tuple], cause: str, *, display: str | None = None,
               kb=None) -> dict | None:
    """A unified diff fixing ``cause`` in ``script``. ``facts``: fact -> (value, source) as the
    session holds them (the code reader's sources carry ``code:FILE:LINE``); ``kb`` the knowledge
    base whose fixes list the edits (default: the core KB). Every listed edit that applies is made.
    Returns ``{"file", "diff", "cause", "changes"}`` or None."""
    edits = [e for e in patch_edits(kb if kb is not None else _core_kb(), cause) if e.get("edit") in EDITS]
    if not edits:
        return None
    try:
        with open(script, encoding="utf-8") as fh:
            text = fh.read()
        src = _Src(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    base = os.path.basename(script)
    # only facts the code reader located in this script
    mine = {k: v for k, v in facts.items() if isinstance(v, tuple) and len(v) == 2
            and str(v[1]).startswith("code:") and os.path.basename(str(v[1]).split(":")[1]) == base}
    applied = False
    for e in edits:
        applied = EDITS[e["edit"]](src, mine, e.get("fact", ""), _settings(e, kb)) or applied
    if not applied:
        return None
    new = src.result()
    if new == text:
        return None
    path = display or _display(script)
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), _ends(new).splitlines(keepends=True),
                                        fromfile=path, tofile=path))
    return {"file": path, "diff": diff, "cause": cause, "changes": src.changes}


def _settings(edit: dict, kb) -> dict:
    """An edit's ``with:`` settings, a ``{param: ID}`` read from the knowledge base's parameters (so a
    threshold the rules use is the patch's too)."""
    kb = kb if kb is not None else _core_kb()
    return {k: kb.param(v["param"]) if isinstance(v, dict) and set(v) == {"param"} else v
            for k, v in (edit.get("with") or {}).items()}


def _clip_move(facts, fact, opts) -> tuple[float, float] | None:
    """(old, new) clipping norm for a set_clip_norm edit: the fix's ``value``."""
    try:
        return float(facts[fact][0]), float(opts.get("value", 1.0))
    except (KeyError, TypeError, ValueError):
        return None


#: the edits a config file can take: edit -> (the move (old, new), how the new value is written, what changed)
_CONFIG_EDITS = {"set_learning_rate": (_new_lr, _fmt_lr, "learning rate"),
                 "set_clip_norm": (_clip_move, _fmt_norm, "gradient clipping max_norm"),
                 "set_weight_decay": (_new_weight_decay, _fmt_lr, "weight decay")}


def make_config_patch(config: str, key: str, facts: Mapping[str, tuple], cause: str, *,
                      display: str | None = None, kb=None) -> dict | None:
    """The edit of ``cause``'s fix made where the run takes the value from a config file (``lr: 0.3``,
    ``max_grad_norm: 1e-4``): the number on ``key``'s line of ``config`` (YAML, JSON or TOML, ``optim.lr``
    for a nested key) moved as in the script. ``facts`` as for :func:`make_patch`, the config's own
    reading of the value among them. Returns ``{"file", "diff", "cause", "changes"}`` or None when no
    edit applies or the line does not read as expected."""
    from .config import load_config
    edits = [e for e in patch_edits(kb if kb is not None else _core_kb(), cause) if e.get("edit") in _CONFIG_EDITS]
    if not edits:
        return None
    try:
        cfg = load_config(config)
        with open(config, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError, InputError):
        return None
    for e in edits:
        move, fmt, what = _CONFIG_EDITS[e["edit"]]
        moved = move(facts, e.get("fact", ""), _settings(e, kb))
        if moved is None or not str(facts.get(e.get("fact", ""), ("", ""))[1]).startswith("config:"):
            continue
        lines = text.splitlines(keepends=True)
        leaf = re.escape(key.split(".")[-1])
        pattern = re.compile(r"(?<![\w.-])[\"']?" + leaf + r"[\"']?\s*[:=]\s*(" + _NUM + r")")
        found = {i + 1: m for i, line in enumerate(lines) if (m := pattern.search(line))
                 and _same_number(float(m.group(1)), moved[0])}
        n = cfg.lines.get(tuple(key.split(".")))   # JSON records no lines: then the one line that reads so
        n = n if n in found else (next(iter(found)) if n is None and len(found) == 1 else None)
        if n is None:
            continue
        m = found[n]
        was, new = m.group(1), fmt(moved[1])
        if config.lower().endswith((".yaml", ".yml")):
            new = _yaml_float(new)
        lines[n - 1] = lines[n - 1][: m.start(1)] + new + lines[n - 1][m.end(1):]
        path = display or _display(config)
        diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), lines, fromfile=path, tofile=path))
        word = "raised" if moved[1] > moved[0] else "lowered"
        return {"file": path, "diff": diff, "cause": cause,
                "changes": [f"line {n}: {key} ({what}) {word} {was} -> {new}"]}
    return None


def _yaml_float(text: str) -> str:
    """A number as YAML 1.1 (PyYAML's safe_load) reads a float: a dot in the mantissa and a signed
    exponent (``1e-4`` is read as the string "1e-4", ``1.0e-4`` as a float)."""
    m = re.fullmatch(r"([-+]?\d+)(?:\.(\d*))?[eE]([-+]?)(\d+)", text)
    if m is None:
        return text
    return f"{m.group(1)}.{m.group(2) or '0'}e{m.group(3) or '+'}{m.group(4)}"


def _ends(s: str) -> str:
    return s


def _display(script: str) -> str:
    rel = os.path.relpath(os.path.abspath(script))
    return script if rel.startswith("..") else rel
