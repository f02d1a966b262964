"""Expressions: names, literals, operators, comparisons, subscripts and attributes evaluated to
abstract values, and values read from config files.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from typing import Any

from traindx.probes.readers.config import (
    arith, InputError as ConfigInputError, load_config, UNRESOLVED)

from ..naming import EPS_WORDS, LOADER_WORDS, LOSS_WORDS, MODEL_WORDS, OPT_WORDS, SCHED_WORDS
from ..text import format_number, snippet
from ..values import (
    ArgsVal, BatchVal, ClassVal, ConfigVal, Const, Env, FileVal, FuncVal, ListVal, LoaderVal,
    LossRec, LossVal, MISSING, ModuleVal, ObjVal, OptVal, ParamsVal, Part, Ref, ScalerVal,
    SchedVal, TensorVal, Unknown, Val, config_file_name, from_model, is_tensor, mixes_squashed,
    probability_product)
from ..torch_api.names import PARAM_LAYERS, STOCK_CHILDREN
from ..torch_api.scale import binop_scale
from .calls import BUILTINS

#: Base classes searched for a class attribute (a guard against a cycle): a bound on work, not
#: knowledge.
_MAX_BASES = 10


def compare_constants(op: ast.cmpop, a: Any, b: Any) -> bool | None:
    if isinstance(op, ast.Eq):
        return a == b
    if isinstance(op, ast.NotEq):
        return a != b
    if isinstance(op, ast.Lt):
        return a < b
    if isinstance(op, ast.LtE):
        return a <= b
    if isinstance(op, ast.Gt):
        return a > b
    if isinstance(op, ast.GtE):
        return a >= b
    if isinstance(op, ast.In):
        return a in b
    if isinstance(op, ast.NotIn):
        return a not in b
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    return None


def _squashing_kept(op: ast.operator, a: Val, b: Val) -> TensorVal | None:
    """The operand whose squashing a binary operation's result keeps, if any: probs * mask stays
    probabilities, but softmax(weights) * logits (two trained tensors, one squashed) is no longer
    one, nor is softmax(scores) @ values (a weighted average of the values)."""
    act_of = a if is_tensor(a) and a.act else (b if is_tensor(b) else None)
    if isinstance(op, (ast.Mult, ast.MatMult)):
        mixture = probability_product(a, b, isinstance(op, ast.MatMult))
        if mixture is not None:
            return mixture
    if is_tensor(a) and is_tensor(b) and a.act != b.act and from_model(a) and from_model(b):
        return None
    if isinstance(op, ast.MatMult) and mixes_squashed([a, b]):
        return None
    return act_of


class Expressions:
    """Evaluates Python expressions (names, operators, subscripts, attributes, configs) to abstract values."""

    def eval_expr(self, node: ast.AST | None, env: Env) -> Val:
        if node is None:
            return Const(None)
        self.spend_budget()
        m = getattr(self, "eval_" + type(node).__name__, None)
        if m is None:
            return Unknown(snippet(node))
        return m(node, env)

    def eval_Constant(self, node: ast.Constant, env: Env) -> Val:
        return Const(node.value)

    def eval_Name(self, node: ast.Name, env: Env) -> Val:
        v = env.lookup(node.id)
        if v is not MISSING:
            return v
        if node.id in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[node.id])
        if node.id in BUILTINS:
            return Ref("builtins." + node.id)
        return Unknown(node.id)

    def eval_JoinedStr(self, node: ast.JoinedStr, env: Env) -> Val:
        return Unknown("f-string")

    def eval_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Val:
        v = self.eval_expr(node.value, env)
        self.assign(node.target, v, env, node)
        return v

    def eval_Tuple(self, node: ast.Tuple, env: Env) -> Val:
        return ListVal(self.eval_elements(node.elts, env), kind="tuple", line=node.lineno)

    def eval_List(self, node: ast.List, env: Env) -> Val:
        return ListVal(self.eval_elements(node.elts, env), kind="list", line=node.lineno)

    def eval_Set(self, node: ast.Set, env: Env) -> Val:
        return ListVal(self.eval_elements(node.elts, env), kind="set", line=node.lineno)

    def eval_elements(self, elts: list, env: Env) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval_expr(e.value, env)
                items = v.items if isinstance(v, ListVal) else sequence_items(v)
                if items is not None:
                    out.extend(items)
                else:
                    out.append(Unknown("*"))
            else:
                out.append(self.eval_expr(e, env))
        return out

    def eval_Dict(self, node: ast.Dict, env: Env) -> Val:
        keys, items = [], []
        for k, v in zip(node.keys, node.values):
            val = self.eval_expr(v, env)
            if k is None:
                if isinstance(val, ListVal) and val.kind == "dict" and val.keys is not None:
                    keys.extend(val.keys)
                    items.extend(val.items)
                continue
            kv = self.eval_expr(k, env)
            keys.append(kv.value if isinstance(kv, Const) else None)
            items.append(val)
        return ListVal(items, kind="dict", line=node.lineno, keys=keys)

    def eval_comprehension(self, node: ast.AST, env: Env) -> Env:
        cenv = Env(env)
        for gen in node.generators:
            it = self.eval_expr(gen.iter, cenv)
            self.assign(gen.target, self.element_of(it, node), cenv, node)
            for cond in gen.ifs:
                self.eval_expr(cond, cenv)
        return cenv

    def eval_ListComp(self, node: ast.ListComp, env: Env) -> Val:
        cenv = self.eval_comprehension(node, env)
        return ListVal([self.eval_comp_element(node, cenv)], kind="list", line=node.lineno, comp=True)

    def eval_GeneratorExp(self, node: ast.GeneratorExp, env: Env) -> Val:
        cenv = self.eval_comprehension(node, env)
        elt = self.eval_comp_element(node, cenv)
        return ListVal([elt], kind="gen", line=node.lineno, comp=True)

    def eval_comp_element(self, node: ast.ListComp | ast.GeneratorExp, cenv: Env) -> Val:
        """A list comprehension's (or generator's) element, read once, with how many elements a
        ``range`` with known bounds makes of it kept while it is read (``[Block(d) for _ in range(8)]``
        builds eight blocks: what :meth:`enclosing_trip_count` multiplies)."""
        from ..torch_api.modules import range_trip_count
        trips = 1
        for gen in node.generators:  # a range call is read again (no side effects), nothing else is
            f = gen.iter.func if isinstance(gen.iter, ast.Call) else None
            pure = isinstance(f, ast.Name) and f.id == "range"
            n = range_trip_count(self.eval_expr(gen.iter, cenv)) if pure else None
            trips = trips * n if n and trips else None
        self.comp_trips.append((id(self.fn_stack[-1]) if self.fn_stack else 0, trips))
        try:
            return self.eval_expr(node.elt, cenv)
        finally:
            self.comp_trips.pop()

    def eval_DictComp(self, node: ast.DictComp, env: Env) -> Val:
        cenv = self.eval_comprehension(node, env)
        self.eval_expr(node.key, cenv)
        return ListVal([self.eval_expr(node.value, cenv)], kind="dict", line=node.lineno, keys=None,
                       comp=True)

    def eval_Lambda(self, node: ast.Lambda, env: Env) -> Val:
        return FuncVal(node=node, env=env)

    def eval_IfExp(self, node: ast.IfExp, env: Env) -> Val:
        test = self.eval_expr(node.test, env)
        if isinstance(test, Const):
            return self.eval_expr(node.body if test.value else node.orelse, env)
        a = self.eval_expr(node.body, env)
        b = self.eval_expr(node.orelse, env)
        if isinstance(a, Const) and a.value is None:
            return b
        return a

    def eval_Starred(self, node: ast.Starred, env: Env) -> Val:
        return self.eval_expr(node.value, env)

    def eval_Await(self, node: ast.Await, env: Env) -> Val:
        return self.eval_expr(node.value, env)

    def eval_Slice(self, node: ast.Slice, env: Env) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.eval_expr(part, env)
        return Unknown("slice")

    def eval_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Val:
        v = self.eval_expr(node.operand, env)
        if isinstance(v, Const):
            try:
                if isinstance(node.op, ast.USub):
                    return Const(-v.value, v.origin, v.soft)
                if isinstance(node.op, ast.UAdd):
                    return v
                if isinstance(node.op, ast.Not):
                    return Const(not v.value, v.origin, v.soft)
            except TypeError:
                return Unknown(snippet(node))
        if isinstance(v, TensorVal):
            return replace(v, safe=False, signed=isinstance(node.op, ast.USub) or v.signed)
        return Unknown(snippet(node))

    def eval_BoolOp(self, node: ast.BoolOp, env: Env) -> Val:
        vals = [self.eval_expr(v, env) for v in node.values]
        if all(isinstance(v, Const) for v in vals):
            soft = any(v.soft for v in vals)
            origin = next((v.origin for v in vals if v.origin), None)
            if isinstance(node.op, ast.And):
                r = all(v.value for v in vals)
            else:
                r = any(v.value for v in vals)
            return Const(r, origin, soft)
        return Unknown(snippet(node))

    def eval_Compare(self, node: ast.Compare, env: Env) -> Val:
        left = self.eval_expr(node.left, env)
        rights = [self.eval_expr(c, env) for c in node.comparators]
        if len(node.ops) == 1:
            op, right = node.ops[0], rights[0]
            if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, Const) \
                    and right.value is None:
                if isinstance(left, Const):
                    r = left.value is None
                elif isinstance(left, (TensorVal, ModuleVal, OptVal, SchedVal, LoaderVal,
                                       LossVal, ScalerVal, BatchVal)):
                    r = False
                else:
                    return Unknown(snippet(node))
                return Const(r if isinstance(op, ast.Is) else not r, getattr(left, "origin", None),
                             getattr(left, "soft", False))
            if isinstance(left, Const) and isinstance(right, Const):
                try:
                    r = compare_constants(op, left.value, right.value)
                except Exception:
                    return Unknown(snippet(node))
                if r is not None:
                    return Const(r, left.origin or right.origin, left.soft or right.soft)
        return Unknown(snippet(node))

    def eval_BinOp(self, node: ast.BinOp, env: Env) -> Val:
        a = self.eval_expr(node.left, env)
        b = self.eval_expr(node.right, env)
        return self.eval_binary_op(node.op, a, b, node, node.left, node.right)

    def eval_binary_op(self, op: ast.operator, a: Val, b: Val, node: ast.AST, lnode: ast.AST,
                       rnode: ast.AST) -> Val:
        if isinstance(a, Const) and isinstance(b, Const):
            r = arith(op, a.value, b.value)
            if r is not UNRESOLVED:
                return Const(r, a.origin or b.origin, a.soft or b.soft)
            if isinstance(op, ast.Mod) and isinstance(a.value, str):
                return Unknown("str")
            return Unknown(snippet(node))
        if isinstance(a, ParamsVal) and isinstance(b, ParamsVal):
            return ParamsVal(a.parts + b.parts)
        if isinstance(op, ast.Add) and isinstance(a, (ListVal, ModuleVal)) and isinstance(b, (ListVal, ModuleVal)):
            ia, ib = sequence_items(a), sequence_items(b)
            if ia is not None and ib is not None:   # list(self.blocks) + [self.head]: one list of both
                kind = a.kind if isinstance(a, ListVal) else b.kind if isinstance(b, ListVal) else "list"
                return ListVal(ia + ib, kind=kind, line=getattr(a, "line", 0),
                               comp=any(isinstance(v, ListVal) and v.comp for v in (a, b)))
        if not (is_tensor(a) or is_tensor(b)):
            if isinstance(op, ast.Div) and not isinstance(a, Const) and config_file_name(b) is not None:
                return config_file_name(b)   # Path(__file__).parent / "config.yaml"
            return Unknown(snippet(node))
        t = replace(self.join_tensors([a, b]), scale=binop_scale(op, a, b))
        line = getattr(node, "lineno", 0)
        # losses: scaling by a number keeps a stock loss a stock loss; weighting it by a tensor
        # (focal loss, per-sample weights) makes it hand-written
        la = a.losses if is_tensor(a) else ()
        lb = b.losses if is_tensor(b) else ()
        mod = (a.loss_mod if is_tensor(a) else False) or (b.loss_mod if is_tensor(b) else False)
        if isinstance(op, (ast.Mult, ast.Div, ast.Pow)) and (la or lb) and is_tensor(a) \
                and is_tensor(b):
            mod = True   # a loss weighted by a tensor (focal loss, per-sample weights)
        t = replace(t, loss_mod=mod, signed=_signed(op, a, b, la, lb))
        if isinstance(op, (ast.Add, ast.Sub)) and is_tensor(a) and is_tensor(b) and bool(la) != bool(lb):
            # a stock loss plus a term of the model's outputs that is no stock loss (a hand-written margin
            # loss, a KL term); a penalty on the parameters alone (an L2 sum) has no model call
            hand, hnode = (b, rnode) if la else (a, lnode)
            if hand.calls:
                term = (line, snippet(hnode, 50))
                t = replace(t, hand_terms=t.hand_terms + (term,))
                if hand.signed or (isinstance(op, ast.Sub) and hand is b):
                    t = replace(t, hand_signed=t.hand_signed + (term,))
        act_of = _squashing_kept(op, a, b)
        t = replace(t, act=act_of.act if act_of else None,
                    act_src=act_of.act_src if act_of else None)
        if _class_terms(op, a, b):
            t = replace(t, class_terms=(line, snippet(node, 50)))
        safe = False
        if isinstance(op, (ast.Add, ast.Sub)):
            other, onode = (b, rnode) if is_tensor(a) else (a, lnode)
            if isinstance(other, Const) and isinstance(other.value, (int, float)) \
                    and other.value > 0:
                safe = True
            elif EPS_WORDS.search(snippet(onode)):
                safe = True
            if isinstance(op, ast.Sub) and re.search(r"(max|logsumexp|amax)", snippet(rnode)):
                safe = True   # x - x.max(): the softmax shift
        # only a divisor the model computes can drift to 0 as training goes on; a count or mask sum of
        # the data (a masked mean) is the same at every step, whatever the numerator
        if isinstance(op, ast.Div) and is_tensor(b) and not b.safe and not b.exp \
                and from_model(b) and not EPS_WORDS.search(snippet(rnode)):
            t = self.mark_unsafe(t, "division_without_eps", line,
                                 f"{snippet(node, 50)} divides by a tensor that can be 0")
        if isinstance(op, ast.Pow) and isinstance(b, Const) and b.value in (0.5, 1 / 2) \
                and is_tensor(a) and not a.safe and from_model(a):
            t = self.mark_unsafe(t, "sqrt_of_zero", line, f"{snippet(node, 50)} at 0 has an infinite "
                                                       f"gradient")
        t = replace(t, safe=safe, exp=(a.exp if is_tensor(a) else False)
                    and (b.exp if is_tensor(b) else True))
        return self.fresh_tensor(t, node)

    def eval_Subscript(self, node: ast.Subscript, env: Env) -> Val:
        base = self.eval_expr(node.value, env)
        key = self.eval_expr(node.slice, env)
        if isinstance(base, ListVal):
            if isinstance(key, Const):
                got = base.get(key.value)
                if got is not MISSING:
                    return got
            if base.comp and base.items:
                return base.items[0]
            if base.kind == "dict" and base.items:
                tens = [x for x in base.items if is_tensor(x)]
                if tens:
                    return tens[0]
            return Unknown(snippet(node))
        if isinstance(base, TensorVal):
            return base
        if isinstance(base, BatchVal):
            return TensorVal(data=True)
        if isinstance(base, ConfigVal):
            return self.config_lookup(base, key, node)
        if isinstance(base, ModuleVal) and base.kind in ("sequential", "container"):
            if isinstance(key, Const) and isinstance(key.value, int) and base.layers \
                    and -len(base.layers) <= key.value < len(base.layers):
                return base.layers[key.value]
            if isinstance(key, Const) and isinstance(key.value, str) and key.value in base.attrs:
                return base.attrs[key.value]
            return Unknown(snippet(node))
        if isinstance(base, ModuleVal) and base.kind in ("external", "opaque", "unknown"):
            return self.child_module(base, snippet(node.slice, 20))
        if isinstance(base, LoaderVal):
            return BatchVal(base)
        return Unknown(snippet(node))

    def eval_Attribute(self, node: ast.Attribute, env: Env) -> Val:
        base = self.eval_expr(node.value, env)
        return self.get_attribute(base, node.attr, node)

    def get_attribute(self, base: Val, attr: str, node: ast.AST) -> Val:
        """``base.attr``: dispatched on what ``base`` is; unknown when the reader cannot tell."""
        if isinstance(base, Ref):
            return Ref(f"{base.qual}.{attr}")
        if isinstance(base, ModuleVal):
            return self.module_attribute(base, attr, node)
        if isinstance(base, ObjVal):
            return self.object_attribute(base, attr, node)
        if isinstance(base, ClassVal):
            m = self.class_attribute(base, attr)
            return m if m is not MISSING else Unknown(snippet(node))
        if isinstance(base, TensorVal):
            return self.tensor_attribute(base, attr, node)
        if isinstance(base, ArgsVal):
            return self.argparse_attribute(base, attr, node)
        if isinstance(base, ConfigVal):
            return self.config_lookup(base, Const(attr), node)
        if isinstance(base, ListVal) and base.kind == "dict" and base.keys is not None \
                and attr in base.keys:
            return base.items[base.keys.index(attr)]
        return Unknown(snippet(node))

    def module_attribute(self, base: ModuleVal, attr: str, node: ast.AST) -> Val:
        """A module's attribute: a submodule or tensor it holds, ``training``, a layer's
        ``weight``/``bias``, a method of its class, or a child of a module the reader cannot see into."""
        if attr in base.attrs:
            v = base.attrs[attr]
            if isinstance(v, TensorVal) and v.param:
                # a raw nn.Parameter of the module (``model.w3``): one of its own parameters, not all
                part = v.param_part or Part(base, snippet(node), whole=False)
                return replace(v, srcs=frozenset([base.id]), param_part=part)
            return v
        if attr == "training":
            return Const(base.mode == "train")
        if attr in ("weight", "bias") and (base.kind in ("layer", "any") or self.extends_layer(base.cls)):
            return TensorVal(param=True, srcs=frozenset([base.id]),
                             param_part=Part(base, snippet(node), whole=False))
        if attr == "module":
            return base
        if base.cls is not None:
            m = self.class_attribute(base.cls, attr)
            if isinstance(m, FuncVal):
                return replace(m, bound=base)
            if m is not MISSING:
                return m
        if base.kind in ("external", "opaque", "unknown", "any") or (
                base.kind == "layer" and attr in STOCK_CHILDREN.get(base.qual.rsplit(".", 1)[-1], ())):
            return self.child_module(base, attr)
        return Unknown(snippet(node))

    def object_attribute(self, base: ObjVal, attr: str, node: ast.AST) -> Val:
        """An instance's attribute, then its class's (a method comes back bound); else a placeholder
        guessed from the name."""
        if attr in base.attrs:
            return base.attrs[attr]
        m = self.class_attribute(base.cls, attr)
        if isinstance(m, FuncVal):
            return replace(m, bound=base)
        if m is not MISSING:
            return m
        return self.placeholder_for(snippet(node))

    def tensor_attribute(self, base: TensorVal, attr: str, node: ast.AST) -> Val:
        """``.data`` (cuts the graph, a parameter's only where a module's forward reads it: set up
        or changed outside a forward, ``p.data`` is the parameter itself), ``.T``, the ``.values`` of a
        ``max``/``min``/``sort``/``topk`` along a dimension (the same tensor), ``.grad``, and a
        model output's ``.loss`` / ``.logits``."""
        if attr == "data":
            if base.param and not self.forward_depth:
                return base
            line = getattr(node, "lineno", 0)
            if base.param:   # the module may reach the loss by its other parameters: this one is cut
                self.records["param_data"].append(line)
            return self.cut_graph(base, line, f"`{snippet(node)}`" if base.param else ".data")
        if attr in ("T", "mT", "real", "values"):
            return base   # (``values``: a reduction's values, ``h.max(dim=1).values``: the tensor read on)
        if attr == "grad":
            return TensorVal(data=True)
        if attr in ("loss",) and base.ext:
            rec = LossRec(None, getattr(node, "lineno", 0), snippet(node), base.act,
                          base.act_src)
            return replace(base, losses=(rec,), act=None, ext=False)
        if attr in ("logits", "last_hidden_state", "pooler_output", "prediction_logits"):
            return replace(base, ext=False)
        return Unknown(snippet(node))

    def argparse_attribute(self, base: ArgsVal, attr: str, node: ast.AST) -> Val:
        """``args.x``: the option's default as a soft constant (the reader says it read the default)."""
        d = base.defaults.get(attr)
        if d is not None and d.value is not UNRESOLVED:
            return Const(d.value, f"argparse default {d.option}={format_number(d.value)}, line "
                         f"{d.line}", soft=True)
        return Unknown(snippet(node))

    def extends_layer(self, cls: ClassVal | None, depth: int = 0) -> bool:
        """Whether a class of this file derives from a torch layer with parameters (``class
        MaskedLinear(nn.Linear)``): its ``super().__init__`` made the layer's ``weight`` and ``bias``."""
        if cls is None or depth > _MAX_BASES:
            return False
        return any(isinstance(b, Ref) and b.qual.rsplit(".", 1)[-1] in PARAM_LAYERS
                   or isinstance(b, ClassVal) and self.extends_layer(b, depth + 1) for b in cls.bases)

    def class_attribute(self, cls: ClassVal, attr: str, depth: int = 0) -> Any:
        if attr in cls.attrs:
            return cls.attrs[attr]
        if depth > _MAX_BASES:
            return MISSING
        for b in cls.bases:
            if isinstance(b, ClassVal):
                r = self.class_attribute(b, attr, depth + 1)
                if r is not MISSING:
                    return r
        return MISSING

    def child_module(self, base: ModuleVal, attr: str) -> ModuleVal:
        key = f"__child__{attr}"
        if key not in base.attrs:
            kind = "external" if base.kind in ("external", "opaque", "unknown") else base.kind
            c = ModuleVal(kind=kind if kind != "any" else "any", qual=f"{base.qual}.{attr}",
                          line=base.line, parent=base, path=attr)
            c.params = True
            base.attrs[key] = c
        return base.attrs[key]

    def placeholder_for(self, text: str) -> Val:
        """A value we cannot bind (a function argument, self.x never set): guess its role from
        its name only for the loop's bookkeeping (model, optimizer, scheduler, loader)."""
        if text in self.placeholders:
            return self.placeholders[text]
        last = text.rsplit(".", 1)[-1]
        v: Val
        if SCHED_WORDS.search(last):
            v = SchedVal(kind=None, line=0, text=text)
        elif OPT_WORDS.search(last) or last in ("opt", "optimizer", "optim"):
            v = OptVal(kind=None, line=0, text=text)
        elif LOADER_WORDS.search(last):
            v = LoaderVal(line=0, text=text)
        elif LOSS_WORDS.search(last):
            v = Unknown(text)
        elif MODEL_WORDS.search(last):
            v = ModuleVal(kind="unknown", qual=text, line=0, var=text)
            v.params = True
            self.modules.append(v)
        else:
            v = Unknown(text)
        self.placeholders[text] = v
        return v

    def config_lookup(self, base: ConfigVal, key: Val, node: ast.AST) -> Val:
        if not isinstance(key, Const):
            return Unknown(snippet(node))
        data = base.cfg.data
        path = base.key + (key.value,)
        cur = data
        for k in path:
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            else:
                self.add_unresolved(f"line {getattr(node, 'lineno', 0)}: `{snippet(node, 50)}` is not in "
                                    f"{base.cfg.basename}")
                return Unknown(snippet(node))
        if isinstance(cur, dict):
            return ConfigVal(base.cfg, path)
        dotted = ".".join(str(k) for k in path)
        return Const(cur, f"{base.cfg.basename}: {dotted}")

    def load_config_value(self, arg: Val, node: ast.AST) -> Val:
        path = arg.path if isinstance(arg, FileVal) else (
            arg.value if isinstance(arg, Const) and isinstance(arg.value, str) else None)
        if path is None:
            self.add_unresolved(f"line {node.lineno}: `{snippet(node, 60)}` loads a config whose path is "
                                f"only known at run time")
            return Unknown(snippet(node))
        for cand in (os.path.join(self.dir, path), path):
            if os.path.isfile(cand):
                try:
                    return ConfigVal(load_config(cand))
                except ConfigInputError as err:
                    self.add_unresolved(f"line {node.lineno}: config {path} could not be read: {err}")
                    return Unknown(snippet(node))
        self.add_unresolved(f"line {node.lineno}: values come from {path}, which is not next to "
                            f"{self.basename}: pass it with --config")
        return Unknown(snippet(node))


def sequence_items(v: Val) -> list | None:
    """The items of a value that is a sequence to Python: a list or tuple, or a ModuleList/Sequential
    (its layers), for ``[*self.blocks, self.head]`` and ``list(self.blocks) + [self.head]``."""
    if isinstance(v, ListVal) and v.kind != "dict":
        return list(v.items)
    if isinstance(v, ModuleVal) and v.kind in ("sequential", "container") and not v.attrs:
        return list(v.layers)
    return None


def _class_terms(op, a, b) -> bool:
    """``a * b`` is the model's log-probabilities times one-hot targets: a cross-entropy's per-class
    terms, before the sum over the classes."""
    if not (isinstance(op, ast.Mult) and is_tensor(a) and is_tensor(b) and (a.onehot or b.onehot)):
        return False
    logp = b if a.onehot else a
    return logp.act == "log_softmax" and from_model(logp)


def _signed(op, a, b, la, lb) -> bool:
    """Whether ``a op b`` can be below zero by construction: a difference of two computed tensors
    that are no stock losses (an entropy gap, a log-ratio), or a sum, or a product or quotient
    (by a number or a tensor), of such a value. Anything else (an exp, a square, a stock loss of
    it) starts afresh."""
    ta, tb = isinstance(a, TensorVal), isinstance(b, TensorVal)
    if isinstance(op, ast.Sub) and ta and tb and not la and not lb:
        return True
    if isinstance(op, (ast.Add, ast.Sub)) and ta and tb:
        return (a.signed and not la) or (b.signed and not lb)
    if isinstance(op, (ast.Mult, ast.Div)):
        # scaled by a number or by another tensor (a batch size read from .size(), a mask, a
        # count), a value that can be below zero still can
        return (ta and a.signed and not la) or (tb and b.signed and not lb)
    return False
