"""From the recorded events to findings: the report, helpers over modules and optimizers shared by the
fact modules, and :meth:`Conclusions.conclude`, which runs the fact modules in order.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from traindx.engine.evidence import Finding
from traindx.probes.readers.config import CONFIG_SUFFIXES

from ..report import CodeReport
from ..text import callee_name
from ..values import PATH_MAX_CHARS, ListVal, ModuleVal, OptVal, TensorVal

#: Module parents followed up from a layer (a guard against a cycle in the abstract values): a
#: bound on work, not knowledge.
_MAX_MODULE_NESTING = 50
#: how many characters of an output layer's code a finding quotes (presentation)
_LAYER_TEXT_CHARS = 80


class Conclusions:
    """From the recorded events to findings: the report, shared helpers, and the order of the fact modules."""

    def build_report(self) -> CodeReport:
        rep = CodeReport(path=self.path)
        rep.config_paths = self.config_paths()
        self.findings: list[Finding] = []
        try:
            self.conclude()
        finally:
            rep.findings = self.findings
            rep.unresolved = list(self.unresolved)
            rep.notes = list(self.notes)
        return rep

    def add_finding(self, fact: str, value: Any, line: int, detail: str, **extra: Any) -> None:
        if any(f.fact == fact for f in self.findings):
            return
        line = line or getattr(self, "default_line", 1) or 1
        self.findings.append(Finding(fact=fact, value=value, source=f"code:{self.basename}:{line}",
                                     detail=detail, extra=extra))

    def config_paths(self) -> list[str]:
        out: list[str] = []
        consts = [n for n in ast.walk(self.tree) if isinstance(n, ast.Constant)]
        consts.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        for n in consts:
            if isinstance(n.value, str) \
                    and n.value.lower().endswith(CONFIG_SUFFIXES) and "\n" not in n.value \
                    and len(n.value) < PATH_MAX_CHARS and n.value not in out:
                out.append(n.value)
        return out

    def ancestors(self, m: ModuleVal) -> list[ModuleVal]:
        out, cur, n = [], m, 0
        while cur is not None and n < _MAX_MODULE_NESTING:
            out.append(cur)
            cur = cur.parent
            n += 1
        return out

    def is_covered(self, m: ModuleVal) -> bool | None:
        """True if some optimizer holds all of ``m``'s parameters (through m or an ancestor)."""
        if not self.covering_optimizers:
            return None
        anc = {a.id for a in self.ancestors(m)}
        for o in self.covering_optimizers:
            for p in o.parts:
                if p.module is not None and p.whole and p.module.id in anc:
                    return True
        return False

    def is_trained(self, mid: int) -> bool:
        """Is the module with id ``mid`` something an optimizer updates (or unknown: True)?"""
        m = next((x for x in self.all_modules() if x.id == mid), None)
        if m is None or not self.covering_optimizers:
            return True
        if self.is_covered(m):
            return True
        # partly covered (a child in the optimizer) counts too
        for o in self.covering_optimizers:
            for p in o.parts:
                if p.module is not None and m in self.ancestors(p.module):
                    return True
                if p.module is None:
                    return True  # an optimizer over something we could not resolve
        return False

    def all_modules(self) -> list[ModuleVal]:
        return module_subtree(self.modules)

    def is_frozen(self, m: ModuleVal) -> bool:
        """All of ``m`` frozen: requires_grad=False over it or an ancestor (maybe under a
        condition on the parameter name, the usual 'freeze all but the head' loop)."""
        anc = {a.id for a in self.ancestors(m)}
        for _, text, fm, whole in self.records["frozen"]:
            if isinstance(fm, ModuleVal) and fm.id in anc and (whole or "(if " in text):
                return True
        return False

    def own_parameters_trained(self, reached: set, trained: list[ModuleVal]) -> list[ModuleVal]:
        """The modules above a trained one whose own raw ``nn.Parameter``s reach the loss too (a CRF's
        transition matrix read in its ``nll`` method, which calls its emission layers): trained as well,
        though the script never calls them as a module."""
        return [m for m in self.all_modules()
                if m.id in reached and m not in trained
                and any(m in self.ancestors(t) for t in trained)
                and any(isinstance(v, TensorVal) and v.param for v in m.attrs.values())]

    def conclude(self) -> None:
        ev = self.events
        backs = [e for e in ev if e.kind == "backward"]
        steps = [e for e in ev if e.kind == "step"]
        primary_back = next((e for e in backs if isinstance(e.obj, TensorVal)), None)
        if backs and primary_back is None:
            self.add_unresolved(f"line {backs[0].line}: could not trace what `{backs[0].text}` "
                                f"backpropagates")
        loss_t: TensorVal | None = primary_back.obj if primary_back else None
        all_calls: set = set()
        reached: set = set()
        for e in backs:
            if isinstance(e.obj, TensorVal):
                all_calls |= set(e.obj.calls)
                reached |= set(e.obj.srcs)
        # the models a backward trains: their output reaches it with the graph intact (a
        # teacher under no_grad does not); if every path is cut, all of them
        train_calls = {i for i in all_calls if isinstance(self.events[i].obj, ModuleVal)
                       and self.events[i].obj.id in reached} or all_calls
        trained_models: list[ModuleVal] = []
        for idx in sorted(train_calls):
            m = self.events[idx].obj
            if isinstance(m, ModuleVal) and m not in trained_models:
                trained_models.append(m)
        trained_models += self.own_parameters_trained(reached, trained_models)
        self.default_line = (backs[0].line if backs else steps[0].line if steps else 1)
        # the loop that runs one optimizer step per iteration
        ref_ev = steps[0] if steps else (backs[0] if backs else None)
        step_loop = ref_ev.loops[-1][0] if ref_ev and ref_ev.loops else None
        # the optimizers that really step (an optimizer built and never stepped updates nothing)
        stepped = [e.obj for e in steps if isinstance(e.obj, OptVal) and e.obj.kind]
        # a script with no optimizer that updates its parameters by hand: the loops that do it hold them
        self.covering_optimizers = [o for o in self.optimizers if o in stepped] or self.optimizers \
            or list(self.records["manual_update"])
        opt = self.primary_optimizer(steps)
        self.optimizer_facts(opt)
        self.coverage_facts(trained_models, opt)
        self.loss_facts(loss_t, primary_back, trained_models)
        self.loop_facts(backs, steps, step_loop, loss_t, primary_back)
        self.mode_facts(train_calls, step_loop)
        self.data_facts(step_loop, ref_ev)
        self.model_facts(trained_models)
        self.class_count_facts()

    def class_count_facts(self) -> None:
        """num_classes: a module-level constant named as a class count (the config keys' names:
        ``N_CLASSES = 3``, ``num_classes = cfg["num_classes"]``) in a script trained with a
        classification loss."""
        lf = next((f for f in self.findings if f.fact == "loss_function"), None)
        if lf is None or lf.value not in ("cross_entropy", "nll"):
            return
        if self.targets_are_batch_positions():
            return
        from traindx.probes.readers.config import _NC_KEYS
        for node in self.tree.body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)):
                continue
            name = node.targets[0].id
            if name.lower() not in _NC_KEYS:
                continue
            v = self.globals.vars.get(name)
            val = getattr(v, "value", None)
            if isinstance(val, int) and not isinstance(val, bool) and val >= 2:
                self.add_finding("num_classes", val, node.lineno,
                                 f"`{name}` = {val} (line {node.lineno})")
                return
        found = self.output_layer_widths()
        if len({k for k, _, _ in found}) == 1 and found[0][0] >= 2:
            k, line, text = found[0]
            self.add_finding("num_classes", k, line,
                             f"the model's output layer `{text}` (line {line}) scores {k} classes")
            return
        self.class_name_list_fact()

    def class_name_list_fact(self) -> None:
        """num_classes from a module-level list of the class names (``CLASSES = ["cat", "dog", "bird"]``,
        the PyTorch tutorials' ``classes = ('plane', 'car', ...)``; its name one of
        code.class_name_lists): as many classes as names, when neither a class-count constant nor one
        output layer says it (the model is built with ``len(CLASSES)`` outputs)."""
        names = {str(w).lower() for w in self.params["code.class_name_lists"]}
        for node in self.tree.body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id.lower() in names
                    and isinstance(node.value, (ast.List, ast.Tuple))):
                continue
            elts = node.value.elts
            if len(elts) >= 2 and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
                name = node.targets[0].id
                self.add_finding("num_classes", len(elts), node.lineno,
                                 f"`{name}` lists {len(elts)} class names (line {node.lineno})")
                return

    def targets_are_batch_positions(self) -> bool:
        """A cross-entropy of the script is given ``torch.arange(n)`` as its targets (InfoNCE, CLIP,
        SimCLR: each row's positive sits on the diagonal of a similarity matrix): its classes are
        the batch's rows, not the outputs of a layer or a class-count constant, so chance is not
        ln(width)."""
        names: dict[str, list[bool]] = {}
        losses = set()
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                t = n.targets[0]
                key = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
                if key is None:
                    continue
                names.setdefault(key, []).append(_is_arange(n.value))
                if isinstance(n.value, ast.Call) and _callee(n.value) in _CE_CLASSES:
                    losses.add(key)
        for n in ast.walk(self.tree):
            if not isinstance(n, ast.Call) or not (_callee(n) in _CE_FUNCTIONS or _callee(n) in losses):
                continue
            tgt = n.args[1] if len(n.args) > 1 else next(
                (k.value for k in n.keywords if k.arg in ("target", "targets", "labels")), None)
            key = tgt.id if isinstance(tgt, ast.Name) else tgt.attr if isinstance(tgt, ast.Attribute) else None
            if _is_arange(tgt) or (key is not None and names.get(key) and all(names[key])):
                return True
        return False

    def output_layer_widths(self) -> list[tuple[int, int, str]]:
        """``(width, line, source)`` of each model's output layer: the ``nn.Linear`` a module's
        ``forward`` returns the output of (``return self.fc(h)``, or a name last assigned from it),
        or the last layer of a top-level ``nn.Sequential``; its width resolved from a literal or a
        module-level constant."""
        out: list[tuple[int, int, str]] = []
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                out += self._class_output_width(node)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                w = self._linear_width(_last_layer(node.value))
                if w is not None and _callee(node.value) == "Sequential":
                    out.append((w, node.lineno, ast.unparse(_last_layer(node.value))[:_LAYER_TEXT_CHARS]))
        return out

    def _class_output_width(self, cls: ast.ClassDef) -> list[tuple[int, int, str]]:
        methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
        init, fwd = methods.get("__init__"), methods.get("forward")
        if init is None or fwd is None:
            return []
        layers: dict[str, ast.Call] = {}
        for st in ast.walk(init):
            if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.value, ast.Call)
                    and isinstance(st.targets[0], ast.Attribute)
                    and isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == "self"):
                layers[st.targets[0].attr] = st.value
        rets = [st.value for st in ast.walk(fwd) if isinstance(st, ast.Return) and st.value is not None]
        if len(rets) != 1:
            return []
        expr = rets[0]
        if isinstance(expr, ast.Name):     # out = self.fc(h); return out
            assigned = [st.value for st in ast.walk(fwd) if isinstance(st, ast.Assign)
                        and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                        and st.targets[0].id == expr.id]
            expr = assigned[-1] if assigned else expr
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "self"):
            return []
        layer = layers.get(expr.func.attr)
        if layer is None:
            return []
        w = self._linear_width(_last_layer(layer) if _callee(layer) == "Sequential" else layer,
                               _defaults(init, cls.name, self.tree))
        return [] if w is None else [(w, layer.lineno, ast.unparse(layer)[:_LAYER_TEXT_CHARS])]

    def _linear_width(self, call, defaults: dict | None = None) -> int | None:
        """The out_features of ``nn.Linear(a, b)`` / ``Linear(in_features=a, out_features=b)``: a
        literal, a module-level constant, or an argument of ``__init__`` with such a default
        (``def __init__(self, n_class=C)``) when the model is built without it."""
        if not isinstance(call, ast.Call) or _callee(call) not in ("Linear", "LazyLinear"):
            return None
        pos = 0 if _callee(call) == "LazyLinear" else 1
        arg = next((k.value for k in call.keywords if k.arg == "out_features"), None)
        if arg is None and len(call.args) > pos:
            arg = call.args[pos]
        if isinstance(arg, ast.Name) and arg.id in (defaults or {}):
            arg = defaults[arg.id]
        if isinstance(arg, ast.Constant):
            val = arg.value
        elif isinstance(arg, ast.Name):
            val = getattr(self.globals.vars.get(arg.id), "value", None)
        else:
            return None
        return val if isinstance(val, int) and not isinstance(val, bool) else None


#: the largest exponent a stated power is folded with (a GradScaler's scale is 2**24 at most in practice)
_MAX_EXPONENT = 64


def stated_number(v: ast.AST | None) -> float | None:
    """The number an expression of literals states: a literal, a negated one, a quotient or a power of
    two of them (``1e-3``, ``-0.5``, ``1 / 128``, ``2.0 ** 14``); None for anything else, and where the
    arithmetic has no real finite answer (a division by zero, an overflow)."""
    if isinstance(v, ast.Constant) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return float(v.value)
    if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub):
        x = stated_number(v.operand)
        return -x if x is not None else None
    if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Div, ast.Pow)):
        a, b = stated_number(v.left), stated_number(v.right)
        if a is None or b is None or (isinstance(v.op, ast.Pow) and abs(b) > _MAX_EXPONENT):
            return None
        try:
            r = a / b if isinstance(v.op, ast.Div) else a ** b
        except (ZeroDivisionError, OverflowError):
            return None
        return r if isinstance(r, float) and math.isfinite(r) else None
    return None


def bound_once(tree: ast.AST) -> dict[str, tuple]:
    """Names the script binds exactly once: name -> (the value node, the statement) (``reg = 0.1``; ``step, reg =
    1.0, 0.1``; ``scale: float = 1e-3``); a name also changed in place (``reg += 1``) or bound twice is left out."""
    seen: dict[str, list] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            pairs = [pair for t in n.targets for pair in (
                zip(t.elts, n.value.elts) if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple)
                and len(t.elts) == len(n.value.elts) else [(t, n.value)])]
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            pairs = [(n.target, n.value if isinstance(n, ast.AnnAssign) else None)]
        else:
            continue
        for t, v in pairs:
            if isinstance(t, ast.Name):
                seen.setdefault(t.id, []).append((v, n))
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def numbers_bound_once(tree: ast.AST) -> dict[str, float]:
    """Names the script binds exactly once (:func:`bound_once`), to a stated number."""
    return {k: x for k, (v, _n) in bound_once(tree).items() if (x := stated_number(v)) is not None}


def falsy_constant(e: ast.AST | None) -> bool:
    """A literal ``False``, ``None``, ``0`` or ``""``."""
    return isinstance(e, ast.Constant) and e.value in (False, None, 0, "")


def _defaults(init: ast.FunctionDef, cls: str, tree: ast.AST) -> dict:
    """The arguments of a class's ``__init__`` that keep their default wherever the script builds
    the class (no call ``cls(...)`` passes them), name -> the default's expression."""
    a = init.args
    pos = a.posonlyargs + a.args
    out = {p.arg: d for p, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)}
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    names = [p.arg for p in pos[1:]]          # after self
    for c in ast.walk(tree):
        if isinstance(c, ast.Call) and _callee(c) == cls:
            if c.keywords and any(k.arg is None for k in c.keywords) or any(
                    isinstance(x, ast.Starred) for x in c.args):
                return {}                     # **kwargs / *args: any argument may be passed
            for k in names[:len(c.args)] + [k.arg for k in c.keywords]:
                out.pop(k, None)
    return out


_CE_FUNCTIONS = ("cross_entropy", "nll_loss")
_CE_CLASSES = ("CrossEntropyLoss", "NLLLoss")


def _is_arange(v: ast.AST | None) -> bool:
    """``torch.arange(n)``, or the two views' positions joined (``torch.cat([arange(n, 2n),
    arange(0, n)])``, NT-Xent) or shifted (``arange(n) + n``, ``(arange(2n) + n) % (2n)``)."""
    if isinstance(v, ast.BinOp):
        return _is_arange(v.left)
    if not isinstance(v, ast.Call):
        return False
    if _callee(v) in ("arange", "range"):
        return True
    if _callee(v) in ("cat", "concat", "concatenate", "hstack") and v.args \
            and isinstance(v.args[0], (ast.List, ast.Tuple)) and v.args[0].elts:
        return all(_is_arange(e) for e in v.args[0].elts)
    return False


def _callee(call: ast.Call) -> str | None:
    """The called name: ``nn.Linear(...)`` -> ``Linear``."""
    return callee_name(call) or None


def _last_layer(call: ast.Call):
    """The output layer of ``nn.Sequential(...)``: its last positional argument, or the one before a
    trailing squashing or shape-only layer (``nn.Linear(h, C), nn.Softmax(-1)``: the Linear scores
    the C classes the softmax then squashes), else None."""
    if _callee(call) != "Sequential" or not call.args:
        return None
    layers = list(call.args)
    while len(layers) > 1 and isinstance(layers[-1], ast.Call) and _callee(layers[-1]) in _AFTER_OUTPUT:
        layers.pop()
    return layers[-1]


#: layers that may follow a classifier's output layer without changing its width
_AFTER_OUTPUT = {"Softmax", "LogSoftmax", "Sigmoid", "Flatten", "Identity"}


def module_subtree(roots) -> list[ModuleVal]:
    """``roots`` and every module they hold (attributes, layers, lists of modules), each once."""
    seen: dict[int, ModuleVal] = {}
    stack = list(roots)
    while stack:
        m = stack.pop()
        if m.id in seen:
            continue
        seen[m.id] = m
        for v in list(m.attrs.values()) + list(m.layers):
            if isinstance(v, ModuleVal):
                stack.append(v)
            elif isinstance(v, ListVal):
                stack.extend(x for x in v.items if isinstance(x, ModuleVal))
    return list(seen.values())
