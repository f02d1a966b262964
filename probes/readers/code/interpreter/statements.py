"""Statements: assignments, if/for/while/with, functions and classes, executed over abstract values.
Loop bodies run twice, so state that carries over from one iteration to the next shows.
"""

from __future__ import annotations

import ast

from ..naming import RELEVANT
from ..text import snippet
from ..torch_api.names import LOSS_CLASSES, PARAM_LAYERS, canonical
from ..torch_api.scale import number
from ..values import (
    BatchVal, ClassVal, Const, CtxVal, Env, FuncVal, IterVal, ListVal, LoaderVal, ModuleVal,
    ObjVal, OptVal, ParamsVal, Ref, SchedVal, TensorVal, Unknown, Val)

#: Iterator wrappers (enumerate, tqdm, zip, ...) unwrapped to find what a loop iterates: a bound on
#: work, not knowledge.
_MAX_ITER_WRAPPERS = 8

#: A loop whose items are not known runs its body twice, so that state carried over shows.
_TWO_PASSES = (None, None)

#: ``n - 1`` is a loop's last index over ``range(n)``: structural, not a threshold.
_LAST_INDEX_OFFSET = 1


def _rooted_at(node: ast.AST, name: str) -> bool:
    """``name`` or ``name.data``: the parameter a loop variable names, or its storage."""
    if isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return isinstance(node, ast.Name) and node.id == name


def _mentions_own_grad(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "grad" and _rooted_at(n.value, name)
               for n in ast.walk(node))


def updates_from_own_gradient(body: list, name: str) -> bool:
    """The statements ``body`` update the parameter ``name`` in place from its own gradient:
    ``name.data.add_(name.grad, alpha=-lr)``, ``name.sub_(lr * name.grad)``, ``name.data -= lr *
    name.grad`` or ``name.data = name.data - lr * name.grad``: a hand-written optimizer step."""
    for n in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("add_", "sub_", "copy_") \
                and _rooted_at(n.func.value, name) and any(_mentions_own_grad(a, name) for a in n.args):
            return True
        if isinstance(n, ast.AugAssign) and _rooted_at(n.target, name) and _mentions_own_grad(n.value, name):
            return True
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) \
                and _rooted_at(n.targets[0], name) and _mentions_own_grad(n.value, name):
            return True
    return False


def _trip_expressions(loop: ast.For) -> list[str]:
    """The expressions that give ``loop``'s trip count, as source: ``n`` for ``range(n)`` /
    ``range(0, n)``, ``len(xs)`` for ``enumerate(xs)``."""
    it = loop.iter
    while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("tqdm", "iter") \
            and it.args:
        it = it.args[0]
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args):
        return []
    if it.func.id == "range" and len(it.args) <= 2 and not it.keywords:
        return [ast.unparse(it.args[-1])]
    if it.func.id == "enumerate" and len(it.args) == 1:
        return [f"len({ast.unparse(it.args[0])})"]
    return []


def _index_name(loop: ast.For) -> str | None:
    """The name bound to the loop's index: ``i`` in ``for i in range(n)`` or
    ``for i, batch in enumerate(xs)``."""
    target = loop.target
    if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) \
            and loop.iter.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    return target.id if isinstance(target, ast.Name) else None


def _plus_one(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and any(
        isinstance(a, ast.Name) and a.id == name for a in (node.left, node.right)) and any(
        isinstance(a, ast.Constant) and a.value == _LAST_INDEX_OFFSET for a in (node.left, node.right))


def _minus_one(node: ast.AST) -> str | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) \
            and isinstance(node.right, ast.Constant) and node.right.value == _LAST_INDEX_OFFSET:
        return ast.unparse(node.left)
    return None


def last_iteration_test(test: ast.AST, loop: ast.For) -> bool:
    """Whether ``test`` holds on ``loop``'s last iteration only: ``i == n - 1`` or ``i + 1 == n``
    (either side) where ``n`` is the loop's own trip count (``range(n)``, ``len(xs)`` of
    ``enumerate(xs)``)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    name, trips = _index_name(loop), _trip_expressions(loop)
    if name is None or not trips:
        return False
    for a, b in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if isinstance(a, ast.Name) and a.id == name and _minus_one(b) in trips:
            return True
        if _plus_one(a, name) and ast.unparse(b) in trips:
            return True
    return False


class Statements:
    """Executes Python statements (assignments, loops, with, classes) over abstract values."""

    def exec_block(self, stmts: list[ast.stmt], env: Env) -> str | None:
        for s in stmts:
            st = self.exec_statement(s, env)
            if st:
                return st
        return None

    def exec_statement(self, s: ast.stmt, env: Env) -> str | None:
        """Execute one statement; returns "return", "break", "continue" or "raise" when it leaves
        the block, else None. Statements the reader does not model are skipped."""
        self.spend_budget()
        handler = _STATEMENT_HANDLERS.get(type(s))
        return getattr(self, handler)(s, env) if handler else None

    def exec_expression_statement(self, s: ast.Expr, env: Env) -> None:
        self.eval_expr(s.value, env)

    def exec_assign(self, s: ast.Assign, env: Env) -> None:
        v = self.eval_expr(s.value, env)
        for t in s.targets:
            self.assign(t, v, env, s)

    def exec_annotated_assign(self, s: ast.AnnAssign, env: Env) -> None:
        if s.value is not None:
            self.assign(s.target, self.eval_expr(s.value, env), env, s)

    def exec_augmented_assign(self, s: ast.AugAssign, env: Env) -> None:
        cur = self.eval_expr(s.target, env)
        rhs = self.eval_expr(s.value, env)
        self.assign(s.target, self.eval_binary_op(s.op, cur, rhs, s, s.target, s.value), env, s)

    def exec_try(self, s: ast.stmt, env: Env) -> str | None:
        """The body, every handler (its name unknown), else, then finally: what finally leaves with."""
        self.exec_block(s.body, env)
        for h in s.handlers:
            if h.name:
                env.vars[h.name] = Unknown(h.name)
            self.exec_block(h.body, env)
        self.exec_block(s.orelse, env)
        return self.exec_block(s.finalbody, env)

    def exec_function_def(self, s: ast.FunctionDef, env: Env) -> None:
        env.vars[s.name] = self.make_function(s, env, None)

    def exec_class_def(self, s: ast.ClassDef, env: Env) -> None:
        env.vars[s.name] = self.make_class(s, env)

    def exec_return(self, s: ast.Return, env: Env) -> str:
        v = self.eval_expr(s.value, env) if s.value is not None else Const(None)
        if self.frames:
            self.frames[-1].returns.append(v)
        return "return"

    def exec_global(self, s: ast.Global, env: Env) -> None:
        if self.frames:
            self.frames[-1].globals_declared.update(s.names)

    def exec_break(self, s: ast.Break, env: Env) -> str:
        return "break"

    def exec_continue(self, s: ast.Continue, env: Env) -> str:
        return "continue"

    def exec_raise(self, s: ast.Raise, env: Env) -> str:
        return "raise"

    def exec_assert(self, s: ast.Assert, env: Env) -> None:
        self.eval_expr(s.test, env)

    def exec_match(self, s: ast.Match, env: Env) -> None:
        """The subject, then every case's body under a "match" condition."""
        self.eval_expr(s.subject, env)
        for case in s.cases:
            self.cond.append("match")
            self.exec_block(case.body, env)
            self.cond.pop()

    def exec_import(self, s: ast.stmt, env: Env) -> None:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.asname:
                    env.vars[a.asname] = Ref(a.name)
                else:
                    top = a.name.split(".")[0]
                    env.vars[top] = Ref(top)
        else:
            mod = ("." * s.level) + (s.module or "")
            for a in s.names:
                if a.name == "*":
                    continue
                env.vars[a.asname or a.name] = Ref(f"{mod}.{a.name}" if mod else a.name)

    def exec_if(self, s: ast.If, env: Env) -> str | None:
        test = self.eval_expr(s.test, env)
        if isinstance(test, Const) and not test.soft:
            try:
                truth = bool(test.value)
            except Exception:  # pragma: no cover
                truth = None
            if truth is not None:
                return self.exec_block(s.body if truth else s.orelse, env)
        if isinstance(test, Const) and test.soft:
            # A command-line default: read the branch the default takes, say so.
            try:
                truth = bool(test.value)
            except Exception:  # pragma: no cover
                truth = True
            skipped = s.orelse if truth else s.body
            if skipped and RELEVANT.search(" ".join(ast.unparse(x) for x in skipped)):
                self.add_unresolved(f"line {s.lineno}: `if {snippet(s.test, 50)}:` depends on a "
                                    f"command-line option ({test.origin}); read the branch its default "
                                    f"takes")
            return self.exec_block(s.body if truth else s.orelse, env)
        # a branch taken on a loop's last iteration only (validation after the last batch) runs on
        # the loop's second pass, so nothing it does carries into a further iteration of that loop
        last = self.last_iteration_pass(s.test)
        self.cond.append(snippet(s.test, 60))
        st1 = st2 = None
        try:
            self.guards.append((s.test, True))
            if last is not False:
                st1 = self.exec_block(s.body, env)
            self.guards[-1] = (s.test, False)
            if last is not True:
                st2 = self.exec_block(s.orelse, env)
        finally:
            self.cond.pop()
            self.guards.pop()
        if st1 == "raise" and st2 is None:
            return None
        if st1 and st1 == st2 and st1 in ("return", "raise"):
            return st1
        return None

    def last_iteration_pass(self, test: ast.AST) -> bool | None:
        """On the innermost generic loop (run as two passes) whose last iteration ``test`` singles
        out: True on its second pass, False on its first; None for any other test."""
        for nid, i in reversed(self.loops):
            loop = self.loop_nodes.get(nid)
            if isinstance(loop, ast.For) and last_iteration_test(test, loop):
                return i == len(_TWO_PASSES) - 1
        return None

    def literal_loop_items(self, it: Val) -> list | None:
        """A loop over a short literal list runs once per item (for phase in ['train', 'val'])."""
        if isinstance(it, ListVal) and not it.comp and it.kind in ("list", "tuple") \
                and 0 < len(it.items) <= self.params["code.literal_loop_max"]:
            return list(it.items)
        return None

    def exec_for(self, s: ast.For, env: Env) -> str | None:
        it = self.eval_expr(s.iter, env)
        if isinstance(s.target, ast.Name) and updates_from_own_gradient(s.body, s.target.id):
            self.record_manual_update(it, s)
        nid = id(s)
        self.loop_nodes[nid] = s
        from ..torch_api.modules import range_trip_count
        trips = range_trip_count(it)
        if trips is not None:
            self.loop_counts[nid] = trips
        items = self.literal_loop_items(it)
        passes = items if items is not None else list(_TWO_PASSES)
        result = None
        for i, item in enumerate(passes):
            self.loops.append((nid, i))
            self.loop_vals.append(it)
            try:
                self.assign(s.target, item if items is not None else self.element_of(it, s),
                            env, s)
                st = self.exec_block(s.body, env)
            finally:
                self.loops.pop()
                self.loop_vals.pop()
            if st in ("break", "raise"):
                break
            if st == "return":
                result = "return" if not self.cond else None
                break
        else:
            self.exec_block(s.orelse, env)
        return result

    def exec_while(self, s: ast.While, env: Env) -> str | None:
        test = self.eval_expr(s.test, env)
        if isinstance(test, Const) and not test.soft and not test.value:
            return self.exec_block(s.orelse, env)
        nid = id(s)
        self.loop_nodes[nid] = s
        for i in range(2):
            self.loops.append((nid, i))
            self.loop_vals.append(Unknown("while"))
            try:
                st = self.exec_block(s.body, env)
            finally:
                self.loops.pop()
                self.loop_vals.pop()
            if st in ("break", "raise", "return"):
                break
        return None

    def exec_with(self, s: ast.With, env: Env) -> str | None:
        pushed_ng = pushed_ac = 0
        for item in s.items:
            ctx = self.eval_expr(item.context_expr, env)
            if isinstance(ctx, CtxVal):
                if ctx.kind in ("nograd", "enablegrad"):
                    self.nograd.append(ctx if ctx.kind == "nograd" else None)
                    pushed_ng += 1
                elif ctx.kind == "autocast":
                    self.autocast.append(ctx)
                    pushed_ac += 1
            if item.optional_vars is not None:
                self.assign(item.optional_vars, ctx, env, s)
        try:
            return self.exec_block(s.body, env)
        finally:
            for _ in range(pushed_ng):
                self.nograd.pop()
            for _ in range(pushed_ac):
                self.autocast.pop()

    def make_function(self, node: ast.AST, env: Env, cls: ClassVal | None) -> FuncVal:
        fv = FuncVal(node=node, env=env, cls=cls)
        for d in getattr(node, "decorator_list", []):
            dv = self.eval_expr(d.func if isinstance(d, ast.Call) else d, env)
            if isinstance(dv, Ref) and canonical(dv.qual) in ("torch.no_grad", "torch.inference_mode"):
                fv.no_grad = f"@{snippet(d)}"
        return fv

    def make_class(self, node: ast.ClassDef, env: Env) -> ClassVal:
        bases = [self.eval_expr(b, env) for b in node.bases]
        is_module = False
        for b in bases:
            if isinstance(b, Ref):
                q = canonical(b.qual)
                if q in ("torch.nn.Module", "pl.LightningModule") or q.endswith(".nn.Module") \
                        or q.endswith("LightningModule"):
                    is_module = True
                last = q.rsplit(".", 1)[-1]
                if q.startswith("torch.nn.") and (last in LOSS_CLASSES or last in PARAM_LAYERS):
                    is_module = True   # a loss, or a layer with parameters extended (class MaskedLinear(nn.Linear))
            elif isinstance(b, ClassVal) and b.is_module:
                is_module = True
        # an optimizer the script writes itself (``class LARS(optim.Optimizer)``) holds parameters as a stock one does
        is_optimizer = any(isinstance(b, Ref) and canonical(b.qual) == "torch.optim.Optimizer"
                           or isinstance(b, ClassVal) and b.is_optimizer for b in bases)
        cv = ClassVal(node=node, bases=bases, attrs={}, is_module=is_module, is_optimizer=is_optimizer)
        cenv = Env(env)
        for st in node.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # also a name later statements of the class body see (``__call__ = train``)
                cv.attrs[st.name] = cenv.vars[st.name] = self.make_function(st, env, cv)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                self.exec_statement(st, cenv)
        for k, v in cenv.vars.items():
            cv.attrs.setdefault(k, v)
        return cv

    def assign(self, target: ast.AST, v: Val, env: Env, stmt: ast.AST) -> None:
        if isinstance(target, ast.Name):
            scope = env
            if self.frames and target.id in self.frames[-1].globals_declared:
                scope = env.root
            scope.vars[target.id] = v
            for cls_ in (ModuleVal, OptVal, SchedVal, LoaderVal):
                if isinstance(v, cls_) and v.var is None:
                    v.var = target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            vals = self.unpack_value(v, n)
            for t, x in zip(target.elts, vals):
                if isinstance(t, ast.Starred):
                    self.assign(t.value, Unknown("*"), env, stmt)
                else:
                    self.assign(t, x, env, stmt)
        elif isinstance(target, ast.Attribute):
            base = self.eval_expr(target.value, env)
            self.set_attribute(base, target.attr, v, target, stmt)
        elif isinstance(target, ast.Subscript):
            base = self.eval_expr(target.value, env)
            key = self.eval_expr(target.slice, env)
            if isinstance(base, ModuleVal) and isinstance(v, ModuleVal):
                # `model.features[i] = new_conv`: a layer of a Sequential/ModuleList/ModuleDict swapped,
                # as an attribute assignment swaps one (an optimizer built before holds the old one)
                self.seq += 1
                base.attr_events.append((self.seq, getattr(stmt, "lineno", 0), f"[{snippet(target.slice, 30)}]", v))
            if isinstance(base, TensorVal) and base.scale is not None:   # x[:, j] = ...: part rewritten
                new = v.scale if isinstance(v, TensorVal) else number(v)
                base.scale = max(base.scale, abs(new)) if new is not None else None
            if isinstance(base, ListVal) and base.kind == "dict" and isinstance(key, Const):
                if base.keys is not None and len(base.keys) != len(base.items):
                    base.keys = None
                if base.keys is not None and key.value in base.keys:
                    base.items[base.keys.index(key.value)] = v
                elif base.keys is not None:
                    base.keys.append(key.value)
                    base.items.append(v)
            elif isinstance(base, ListVal) and base.kind == "dict" and base.keys is not None \
                    and len(base.keys) == len(base.items):
                base.keys.append(None)
                base.items.append(v)
            elif isinstance(base, ListVal) and isinstance(key, Const) \
                    and isinstance(key.value, int) and not base.comp \
                    and -len(base.items) <= key.value < len(base.items):
                base.items[key.value] = v
            elif isinstance(key, Const) and key.value == "lr":
                self.add_note(f"line {stmt.lineno}: the learning rate is set by hand "
                              f"(`{snippet(stmt, 60)}`)")
        elif isinstance(target, ast.Starred):
            self.assign(target.value, v, env, stmt)

    def set_attribute(self, base: Val, attr: str, v: Val, target: ast.AST, stmt: ast.AST) -> None:
        line = getattr(stmt, "lineno", 0)
        if isinstance(base, (ModuleVal, ObjVal)):
            v = self.flag_flipped(base, attr, v)
        if isinstance(base, ModuleVal):
            if attr == "requires_grad" and not (isinstance(v, Const) and v.value is False):
                # `module.requires_grad = True` (an unfreeze) only sets a Python attribute: no
                # parameter changes, so whatever was frozen stays frozen
                self.records["module_rg"].append((line, snippet(stmt, 60)))
            base.attrs[attr] = v
            self.seq += 1
            base.attr_events.append((self.seq, line, attr, v))
            if isinstance(v, ModuleVal) and v.parent is None and v is not base:
                v.parent, v.path = base, attr
        elif isinstance(base, ObjVal):
            base.attrs[attr] = v
        elif isinstance(base, TensorVal) or isinstance(base, Unknown):
            if attr == "requires_grad" and isinstance(v, Const) and v.value is False:
                self.record_frozen(target.value, base, stmt)
            elif attr == "grad" and isinstance(v, Const) and v.value is None:
                self.record_event("zero", stmt, text=snippet(stmt), obj=None)

    def flag_flipped(self, base: Val, attr: str, v: Val) -> Val:
        """A flag an object holds (``self.train_teacher = True``) set to the other truth value under a
        condition the reader cannot decide (``if epoch == freeze_epoch: self.train_teacher = False``):
        either value may hold from there on, so the flag becomes unknown and a test on it reads both
        branches, rather than the last one written."""
        old = base.attrs.get(attr)
        if self.cond and isinstance(v, Const) and isinstance(old, Const) and isinstance(v.value, bool) \
                and isinstance(old.value, bool) and v.value != old.value:
            return Unknown(f"{attr} (set to {v.value} only if {self.cond[-1]})")
        return v

    def record_frozen(self, expr: ast.AST, base: Val, stmt: ast.AST) -> None:
        text = snippet(expr, 60)
        module, whole = None, False
        if isinstance(base, TensorVal) and base.param_part is not None:
            text = base.param_part.text
            module, whole = base.param_part.module, base.param_part.whole
        elif isinstance(base, ModuleVal):
            module, whole = base, True
        cond = f" (if {self.cond[-1]})" if self.cond else ""
        rec = (getattr(stmt, "lineno", 0), text + cond, module, whole and not cond)
        if not any(r[:2] == rec[:2] for r in self.records["frozen"]):
            self.records["frozen"].append(rec)
        if any(e.kind == "backward" for e in self.events):   # frozen after it trained (a teacher)
            self.records["frozen_after_backward"].append(rec[0])

    def unpack_value(self, v: Val, n: int) -> list:
        if isinstance(v, ListVal) and not v.comp and len(v.items) == n:
            return list(v.items)
        if isinstance(v, ListVal) and v.comp and v.items:
            return [v.items[0]] * n
        if isinstance(v, BatchVal):
            return [TensorVal(data=True) for _ in range(n)]
        if isinstance(v, TensorVal):
            return [v] * n
        if isinstance(v, ModuleVal) and v.kind == "layer" and v.qual.endswith(("LSTM", "GRU",
                                                                               "RNN")):
            return [TensorVal() for _ in range(n)]
        return [Unknown("?") for _ in range(n)]

    def element_of(self, it: Val, node: ast.AST | None = None) -> Val:
        if isinstance(it, LoaderVal):
            return BatchVal(it)
        if isinstance(it, IterVal):
            if it.kind == "enumerate":
                return ListVal([Unknown("i"), self.element_of(it.inner[0])], kind="tuple")
            if it.kind == "zip":
                return ListVal([self.element_of(x) for x in it.inner], kind="tuple")
            if it.kind == "range":
                return Unknown("i")
            if it.kind == "items":
                d = it.inner[0]
                vals = d.items if isinstance(d, ListVal) else []
                return ListVal([Unknown("k"), vals[0] if vals else Unknown("v")], kind="tuple")
            if it.kind == "modules":
                return it.inner[0]
            if it.inner:
                return self.element_of(it.inner[0])
            return Unknown("?")
        if isinstance(it, ParamsVal):
            part = it.parts[0] if it.parts else None
            t = TensorVal(param=True, param_part=part,
                          srcs=frozenset([part.module.id]) if part and part.module else
                          frozenset())
            if it.named:
                return ListVal([Unknown("name"), t], kind="tuple")
            return t
        if isinstance(it, ListVal):
            if it.kind == "dict":
                return Const(it.keys[0]) if it.keys else Unknown("k")
            return it.items[0] if it.items else Unknown("?")
        if isinstance(it, ModuleVal) and it.kind == "container":
            return it.layers[0] if it.layers else Unknown("?")
        if isinstance(it, TensorVal):
            return it
        if isinstance(it, Unknown):
            return BatchVal(None)
        return Unknown("?")

    def loop_source(self, it: Val) -> Val:
        """The thing a loop really iterates: the loader inside enumerate(tqdm(loader))."""
        seen = 0
        while isinstance(it, IterVal) and it.inner and seen < _MAX_ITER_WRAPPERS:
            if it.kind == "zip":
                for x in it.inner:
                    if isinstance(self.loop_source(x), LoaderVal):
                        return self.loop_source(x)
            it = it.inner[0]
            seen += 1
        return it


# statement type -> the Statements method that executes it
_STATEMENT_HANDLERS = {
    ast.Expr: "exec_expression_statement", ast.Assign: "exec_assign", ast.AnnAssign: "exec_annotated_assign",
    ast.AugAssign: "exec_augmented_assign", ast.If: "exec_if", ast.For: "exec_for", ast.AsyncFor: "exec_for",
    ast.While: "exec_while", ast.With: "exec_with", ast.AsyncWith: "exec_with", ast.Try: "exec_try",
    ast.FunctionDef: "exec_function_def", ast.AsyncFunctionDef: "exec_function_def", ast.ClassDef: "exec_class_def",
    ast.Return: "exec_return", ast.Import: "exec_import", ast.ImportFrom: "exec_import", ast.Global: "exec_global",
    ast.Break: "exec_break", ast.Continue: "exec_continue", ast.Raise: "exec_raise", ast.Assert: "exec_assert",
    ast.Match: "exec_match",
}
if hasattr(ast, "TryStar"):
    _STATEMENT_HANDLERS[ast.TryStar] = "exec_try"
