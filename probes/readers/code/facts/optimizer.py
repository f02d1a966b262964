"""``code:optimizer``: the optimizer, its learning rate and weight decay, and whether it holds the
parameters the loss trains (``params_not_in_optimizer``).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..text import format_number
from ..values import BudgetExceeded, ClassVal, Event, FuncVal, ListVal, ModuleVal, OptVal, TensorVal
from .l2_penalty import l2_penalty


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:optimizer"
FACTS = ("optimizer", "learning_rate", "weight_decay", "params_not_in_optimizer", "momentum", "adam_eps")


def _param_groups_of(node: ast.AST) -> ast.AST | None:
    """``X`` of ``X.param_groups`` or ``X.param_groups[i]``, else None."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "param_groups":
        return node.value
    return None


def lr_written_at_run_time(tree: ast.AST, name: str | None) -> int | None:
    """The line where the script writes a learning rate into the parameter groups of the optimizer bound
    to ``name`` (``opt.param_groups[0]['lr'] = ...``, or ``g['lr'] = ...`` in ``for g in opt.param_groups``),
    else None. ``name`` None: the script's only optimizer, whatever name (a function's parameter) it is
    written through."""
    group_vars: dict[str, ast.AST] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and _param_groups_of(n.iter) is not None:
            group_vars[n.target.id] = _param_groups_of(n.iter)
    for n in ast.walk(tree):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        for t in targets:
            if not (isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "lr"):
                continue
            base = _param_groups_of(t.value)
            if base is None and isinstance(t.value, ast.Name):
                base = group_vars.get(t.value.id)
            if base is not None and (name is None or ast.unparse(base).rsplit(".", 1)[-1] == name):
                return n.lineno
    return None


class OptimizerFacts:
    """code:optimizer: the optimizer, its learning rate and weight decay, and the parameters it holds."""

    def primary_optimizer(self, steps: list[Event]) -> OptVal | None:
        stepped = []
        for e in steps:
            if isinstance(e.obj, OptVal) and e.obj.kind and e.obj not in stepped:
                stepped.append(e.obj)
        real = [o for o in self.optimizers if o.kind]
        if stepped:
            opt = stepped[0]
        elif real:
            opt = real[-1]
        else:
            return None
        if len(stepped) > 1 or (not stepped and len(real) > 1):
            others = ", ".join(f"{o.kind} (line {o.line})" for o in (stepped or real)
                               if o is not opt)
            self.add_note(f"several optimizers: reported {opt.kind} (line {opt.line}); also "
                          f"{others}")
        return opt

    def optimizer_facts(self, opt: OptVal | None) -> None:
        self.l2_penalty_fact(opt)
        if opt is None:
            return
        self.add_finding("optimizer", opt.kind, opt.line, f"`{opt.text}` (line {opt.line})")
        only = len([o for o in self.optimizers if o.kind]) == 1
        written = lr_written_at_run_time(self.tree, None if only else opt.var) \
            if opt.lr is not None and opt.lr[0] == 0 else None
        if written is not None:
            self.add_note(f"line {opt.line}: lr=0 in `{opt.text}` is a placeholder: the script sets the rate "
                          f"itself at line {written} (param_groups[...]['lr'] = ...)")
        elif opt.lr is not None:
            self.add_finding("learning_rate", opt.lr[0], opt.line,
                             f"{opt.lr[1]} in `{opt.text}` (line {opt.line})")
        if opt.wd is not None and not any(f.fact == "weight_decay" for f in self.findings):
            self.add_finding("weight_decay", opt.wd[0], opt.line, f"{opt.wd[1]} (line {opt.line})")
        if opt.momentum is not None:
            self.add_finding("momentum", opt.momentum[0], opt.line, f"{opt.momentum[1]} (line {opt.line})")
        if opt.eps is not None:
            self.add_finding("adam_eps", opt.eps[0], opt.line, f"{opt.eps[1]} in `{opt.text}` (line {opt.line})")

    def l2_penalty_fact(self, opt: OptVal | None) -> None:
        """weight_decay from an L2 penalty the script adds to its loss (``facts/l2_penalty.py``), where the
        optimizer shows none: the coupled decay it amounts to. Not beside AdamW, whose own decay is
        decoupled (one number cannot say both)."""
        pen = l2_penalty(self.tree)
        if pen is None or (opt is not None and (opt.kind == "adamw" or (opt.wd is not None and opt.wd[0]))):
            return
        wd, line, text = pen
        # beyond_probe: the live probe reads the optimizer's own weight_decay, where this decay never shows
        self.add_finding("weight_decay", wd, line,
                         f"the L2 penalty `{text}` (line {line}) is added to the loss: coupled weight decay "
                         f"{format_number(wd)} (twice its coefficient, as weight_decay adds it to the gradient)",
                         beyond_probe=True, why="the loss adds an L2 penalty the optimizer does not hold")

    def coverage_facts(self, trained: list[ModuleVal], opt: OptVal | None) -> None:
        """params_not_in_optimizer: layers in plain lists/dicts, and trained models whose parameters no
        stepping optimizer holds (another instance, a subset, a layer replaced after it was built)."""
        gaps = self.plain_list_gaps()
        if self.covering_optimizers and trained:
            for m in trained:
                if self.module_has_params(m):
                    gaps.extend(self.optimizer_gaps(m))
        missing = [msg for msg, _ in gaps]
        lines = [line for _, line in gaps]
        if missing:
            uniq: list[str] = []
            for msg in missing:
                if msg not in uniq:
                    uniq.append(msg)
            missing = uniq
            self.add_finding("params_not_in_optimizer", missing, lines[0],
                             "; ".join(missing), lines=lines)
        elif self.covering_optimizers and trained and opt is not None and not any(
                "could not be resolved" in u for u in self.unresolved):
            names = ", ".join(m.var or m.qual for m in trained)
            self.add_finding("params_not_in_optimizer", [], opt.line,
                             f"the optimizer at line {opt.line} holds all parameters of {names}")

    def plain_list_gaps(self) -> list[tuple[str, int]]:
        """(message, line) for each class that keeps layers in a plain Python list/dict."""
        gaps: list[tuple[str, int]] = []
        seen_cls: set = set()
        for m in self.all_modules():
            for key, msg, line in self.plain_list_layers(m):
                if key not in seen_cls:
                    seen_cls.add(key)
                    gaps.append((msg, line))
        for key, msg, line in self.uninstantiated_lists:
            if key not in seen_cls:
                seen_cls.add(key)
                gaps.append((msg + " (class not instantiated in this file)", line))
        return gaps

    def optimizer_gaps(self, m: ModuleVal) -> list[tuple[str, int]]:
        """(message, line) for the parameters of trained model ``m`` that no stepping optimizer holds."""
        anc = {a.id for a in self.ancestors(m)}
        parts = [(o, p) for o in self.covering_optimizers for p in o.parts]
        if any(p.module is None for _, p in parts):
            unres = [p.text for _, p in parts if p.module is None]
            self.add_unresolved(f"optimizer parameters `{unres[0]}` could not be resolved")
            return []
        whole = [(o, p) for o, p in parts if p.module.id in anc and p.whole]
        sub = [(o, p) for o, p in parts if m in self.ancestors(p.module)
               and (p.module is not m or not p.whole)]
        if whole:
            return self.replaced_after_optimizer(m, whole)
        if sub:
            return self.subset_gap(m, sub)
        return self.other_instance_gap(m, parts)

    def replaced_after_optimizer(self, m: ModuleVal, whole: list) -> list[tuple[str, int]]:
        """Parts of ``m`` replaced after the optimizer took ``m.parameters()``."""
        gaps = []
        o0 = min((o for o, _ in whole), key=lambda o: o.seq)
        for sm in [m] + [x for x in self.all_modules() if m in self.ancestors(x)]:
            for seq, line, attr, val in sm.attr_events:
                if seq > o0.seq and isinstance(val, ModuleVal) \
                        and self.module_has_params(val):
                    who = sm.var or sm.path or sm.qual
                    gaps.append((f"{who}{'' if attr.startswith('[') else '.'}{attr} replaced at line {line}, after the "
                                 f"optimizer was built at line {o0.line}", line))
        return gaps

    def subset_gap(self, m: ModuleVal, sub: list) -> list[tuple[str, int]]:
        """The optimizer holds only some children of ``m``: fine if the rest is frozen or empty."""
        held = ", ".join(p.text for _, p in sub)
        rest = self.uncovered_children(m, [p.module for _, p in sub if p.module is not m])
        rest += self.uncovered_own_parameters(m, [p.text for _, p in sub if p.module is m],
                                              children_only=all(p.module is not m for _, p in sub))
        if m.kind in ("local", "sequential") and not rest:
            return []    # the parts named are all the model has
        if (rest and all(isinstance(r, ModuleVal) and self.is_frozen(r) for _, r in rest)) or (
                not rest and self.is_frozen(m)):
            self.add_note(f"the optimizer holds only part of {m.var or m.qual} "
                          f"({held}); the rest is frozen")
            return []
        what = ", ".join(t for t, _ in rest) if rest else \
            f"everything in {m.var or m.qual} outside {held}"
        o0 = sub[0][0]
        who = "the optimizer" if o0.kind else "the hand-written update loop"
        return [(f"{what}: {who} (line {o0.line}) holds only {held} "
                 f"while {m.var or m.qual} trains", o0.line)]

    def other_instance_gap(self, m: ModuleVal, parts: list) -> list[tuple[str, int]]:
        """The optimizer holds another model (or another instance of the same class)."""
        others = [p for _, p in parts if p.module is not None]
        what = others[0].text if others else "other parameters"
        om = others[0].module if others else None
        olabel, same = "", False
        if om is not None:
            root = self.ancestors(om)[-1]
            olabel = f" of {root.describe()}"
            same = root.qual == m.qual and root is not m
        o0 = self.covering_optimizers[0]
        if same:
            return [(f"{m.describe()} is trained but the optimizer (line "
                     f"{o0.line}) holds {what}{olabel}, another instance", o0.line)]
        return [(f"{m.describe()} is trained but no optimizer that steps "
                 f"holds its parameters (the one at line {o0.line} holds "
                 f"{what}{olabel})", o0.line)]

    def plain_list_layers(self, m: ModuleVal) -> list[tuple]:
        """Layers with parameters kept in a plain list/dict attribute of a module of this
        file (not nn.ModuleList/ModuleDict, nor registered some other way)."""
        if m.kind != "local" or m.cls is None:
            return []
        out = []
        registered = set()
        for v in m.attrs.values():
            if isinstance(v, ModuleVal):
                registered.add(v.id)
                registered |= {x.id for x in v.layers if isinstance(x, ModuleVal)}
        for attr, v in m.attrs.items():
            if not isinstance(v, ListVal) or attr.startswith("__child__"):
                continue
            layers = [x for x in v.items if isinstance(x, ModuleVal)
                      and self.module_has_params(x)]
            if not layers or all(x.id in registered for x in layers):
                continue
            kind = "dict" if v.kind == "dict" else "list"
            line = self.attribute_line(m.cls, attr) or m.line
            out.append(((m.cls.name, attr),
                        f"layers kept in a plain {kind}: self.{attr} in {m.cls.name} (line "
                        f"{line}); use nn.Module{'Dict' if kind == 'dict' else 'List'}", line))
        return out

    def read_uninstantiated_classes(self) -> None:
        """Module classes the script defines but never instantiates (a model file read on
        its own): run their __init__ with unknown arguments, only to find plain-list layers;
        nothing else they record is kept."""
        self.uninstantiated_lists = []
        made = {m.cls.node for m in self.modules if m.cls is not None}
        classes = [v for v in self.globals.vars.values()
                   if isinstance(v, ClassVal) and v.is_module and v.node not in made]
        if not classes:
            return
        saved = (self.events, self.records, self.modules, self.optimizers, self.schedulers,
                 self.loaders, self.scalers, list(self.unresolved), list(self.notes))
        for cv in classes:
            self.events, self.modules = [], []
            self.records = {k: [] for k in saved[1]}
            self.optimizers, self.schedulers, self.loaders, self.scalers = [], [], [], []
            try:
                init = self.class_attribute(cv, "__init__")
                obj = ModuleVal(kind="local", qual=cv.name, line=cv.node.lineno, cls=cv)
                if isinstance(init, FuncVal):
                    self.call_function(replace(init, bound=obj), None, {}, cv.node,
                                       placeholder_args=False)
                self.uninstantiated_lists.extend(self.plain_list_layers(obj))
            except (BudgetExceeded, RecursionError):
                break
        (self.events, self.records, self.modules, self.optimizers, self.schedulers, self.loaders,
         self.scalers, self.unresolved, self.notes) = saved

    def attribute_line(self, cls: ClassVal, attr: str) -> int | None:
        for n in ast.walk(cls.node):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and t.attr == attr \
                            and isinstance(t.value, ast.Name) and t.value.id == "self":
                        return n.lineno
        return None

    def uncovered_own_parameters(self, m: ModuleVal, held: list[str], children_only: bool = False) -> list[tuple]:
        """The raw ``nn.Parameter`` attributes of ``m`` (``self.w1 = nn.Parameter(...)``) when the optimizer
        names some of them one by one (``[model.w3, model.bias]``) and not these, or holds only children of
        ``m`` (``children_only``: ``list(model.emb.parameters()) + list(model.mlp.parameters())``), which
        never hold ``m``'s own; none when it names none otherwise (they then come whole)."""
        if m.kind != "local" or not (held or children_only):
            return []
        names = {t.rsplit(".", 1)[-1] for t in held}
        frozen = {text.rsplit(".", 1)[-1] for _, text, fm, _ in self.records["frozen"] if fm is m}
        name = m.var or m.qual
        return [(f"{name}.{attr}", v) for attr, v in m.attrs.items()
                if isinstance(v, TensorVal) and v.param and attr not in names and attr not in frozen]

    def uncovered_children(self, m: ModuleVal, held: list[ModuleVal], name: str | None = None) -> list[tuple]:
        """(name, module) for each child of ``m`` with parameters that no module in ``held`` holds. A child
        holding a held module (``layers`` when only ``layers[-1]`` is held) is looked into: its other
        layers are not held."""
        if m.kind not in ("local", "sequential", "container"):
            return []
        out = []
        held_ids = {h.id for h in held}
        name = name or m.var or m.qual
        items = list(m.attrs.items()) if m.kind == "local" else [
            (f"[{i}]", x) for i, x in enumerate(m.layers)]
        for attr, v in items:
            if attr.startswith("__child__") or not isinstance(v, ModuleVal) or v.id in held_ids:
                continue
            full = f"{name}.{attr}" if not attr.startswith("[") else f"{name}{attr}"
            if any(v in self.ancestors(h) for h in held):
                if v.kind in ("sequential", "container"):
                    out.extend(self.uncovered_children(v, held, full))
            elif self.module_has_params(v):
                out.append((full, v))
        return out
