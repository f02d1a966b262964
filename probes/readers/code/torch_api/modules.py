"""nn.Module objects: constructors of torch.nn, their methods (train/eval, to/half, requires_grad_,
apply, parameters), and forward passes through local classes and Sequential stacks.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import replace

from ..text import callee_name, snippet
from ..values import (
    BatchVal, Const, Env, FuncVal, IterVal, ListVal, LossVal, MISSING, ModuleVal, ParamsVal, Part,
    Ref, TensorVal, Unknown, Val, module_ids)
from .names import (
    ACT_LAYERS, BN_LAYERS, DROPOUT_LAYERS, LOSS_CLASSES, NOPARAM_LAYERS, PARAM_LAYERS,
    STOCK_CHILDREN, TRANSFORMER_LAYERS)


#: nn.Module method name -> handler (``module_<handler>`` of :class:`ModuleModel`); a handler returning
#: None leaves the call to the fallback (a model from elsewhere)
MODULE_METHODS: dict[str, str] = {
    **dict.fromkeys(("parameters", "named_parameters"), "parameters"),
    **dict.fromkeys(("modules", "children", "named_modules", "named_children"), "submodules"),
    **dict.fromkeys(("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type"), "cast"),
    **dict.fromkeys(("train", "eval"), "mode"),
    "zero_grad": "zero_grad",
    "requires_grad_": "requires_grad",
    "apply": "apply",
    **dict.fromkeys(("add_module", "register_module"), "add_module"),
    "register_parameter": "register_parameter",
    **dict.fromkeys(("append", "extend", "insert"), "grow_container"),
    "forward": "forward",
    "from_pretrained": "itself",
    **dict.fromkeys(("state_dict", "load_state_dict", "register_buffer", "register_forward_hook",
                     "register_full_backward_hook", "named_buffers", "buffers", "save_pretrained",
                     "generate"), "opaque"),
}


class ModuleModel:
    """nn.Module objects: their methods, train/eval mode, forward passes, torch.nn constructors."""

    def call_module_method(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        """``module.name(...)``: a method the module's own class defines runs its body; nn.Module's
        methods go through :data:`MODULE_METHODS`; a model from elsewhere maps tensors to a tensor."""
        if m.cls is not None:
            fm = self.class_attribute(m.cls, name)
            if isinstance(fm, FuncVal) and name not in ("parameters", "named_parameters"):
                return self.call_function(replace(fm, bound=m), args, kwargs, node)
        handler = MODULE_METHODS.get(name)
        if handler is not None:
            out = getattr(self, "module_" + handler)(m, name, args, kwargs, node, env)
            if out is not None:
                return out
        if m.kind == "layer" and name in STOCK_CHILDREN.get(m.qual.rsplit(".", 1)[-1], ()):
            return self.call_module(self.child_module(m, name), args, kwargs, node)   # self.tf.encoder(src)
        if m.kind in ("external", "opaque", "unknown"):
            tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
            if tens:
                return self.fresh_tensor(replace(self.join_tensors(tens), act=None, act_src=None,
                                                 srcs=self.join_tensors(tens).srcs | {m.id}), node)
        return Unknown(snippet(node))

    def module_parameters(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                          env: Env) -> Val:
        return ParamsVal([Part(m, f"{snippet(node.func.value, 50)}.{name}()")],
                         named=name == "named_parameters")

    def module_submodules(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                          env: Env) -> Val:
        anym = ModuleVal(kind="any", qual=f"{m.qual} submodule", line=m.line, parent=m,
                         path="*")
        anym.params = True
        el = ListVal([Unknown("name"), anym], kind="tuple") if name.startswith("named") \
            else anym
        return IterVal("modules", [el])

    def module_cast(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                    env: Env) -> Val:
        """``.to()``/``.half()``/...: half precision is recorded as mixed precision."""
        dtype = None
        if name in ("half", "bfloat16"):
            dtype = "float16" if name == "half" else "bfloat16"
        for v in list(args) + [kwargs.get("dtype")]:
            if isinstance(v, Ref) and v.qual.endswith((".float16", ".half")):
                dtype = "float16"
            elif isinstance(v, Ref) and v.qual.endswith(".bfloat16"):
                dtype = "bfloat16"
        if dtype:
            self.records["amp"].append((node.lineno, dtype, snippet(node, 60), "cast"))
        return m

    def module_mode(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                    env: Env) -> Val:
        """``.train()``/``.eval()`` (``train(False)`` is eval)."""
        mode = name
        if name == "train" and args and isinstance(args[0], Const) and args[0].value is False:
            mode = "eval"
        if name == "train" and isinstance(kwargs.get("mode"), Const) \
                and kwargs["mode"].value is False:
            mode = "eval"
        self.set_module_mode(m, mode)
        self.record_event("mode", node, text=snippet(node), obj=m, mode=mode)
        return m

    def module_zero_grad(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                         env: Env) -> Val:
        self.record_event("zero", node, text=snippet(node), obj=m)
        return Const(None)

    def module_requires_grad(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                             env: Env) -> Val:
        flag = args[0] if args else kwargs.get("requires_grad", Const(True))
        if isinstance(flag, Const) and flag.value is False:
            self.record_frozen(node.func.value, m, node)
        return m

    def module_apply(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                     env: Env) -> Val | None:
        """``model.apply(init_fn)``: ``init_fn`` runs on "any submodule"."""
        if not args:
            return None
        anym = ModuleVal(kind="any", qual=f"{m.qual} submodule", line=m.line, parent=m,
                         path="*")
        anym.params = True
        self.call_value(args[0], [anym], {}, node, env)
        return m

    def module_add_module(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                          env: Env) -> Val | None:
        if len(args) < 2:
            return None
        if isinstance(args[0], Const):
            m.attrs[str(args[0].value)] = args[1]
            if isinstance(args[1], ModuleVal) and args[1].parent is None:
                args[1].parent, args[1].path = m, str(args[0].value)
        return Const(None)

    def module_register_parameter(self, m: ModuleVal, name: str, args: list, kwargs: dict,
                                  node: ast.Call, env: Env) -> Val | None:
        if len(args) >= 2 and isinstance(args[0], Const):
            m.attrs[str(args[0].value)] = TensorVal(param=True)
            return Const(None)
        return None

    def module_grow_container(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                              env: Env) -> Val | None:
        """``layers.append(nn.Linear(...))`` on a ModuleList/Sequential."""
        if m.kind not in ("container", "sequential"):
            return None
        if name == "extend" and args and isinstance(args[0], ListVal):
            items = args[0].items
        else:
            items = args[-1:] if args else []
        for it in items:
            m.layers.append(it)
            if isinstance(it, ModuleVal) and it.parent is None:
                it.parent, it.path = m, f"{m.path}[{len(m.layers) - 1}]"
        return Const(None) if name != "append" else m

    def module_forward(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                       env: Env) -> Val:
        return self.call_module(m, args, kwargs, node)

    def module_itself(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                      env: Env) -> Val:
        return m

    def module_opaque(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                      env: Env) -> Val:
        return Unknown(snippet(node))

    def set_module_mode(self, m: ModuleVal, mode: str) -> None:
        seen: set = set()
        stack = [m]
        while stack:
            x = stack.pop()
            if x.id in seen:
                continue
            seen.add(x.id)
            x.mode = mode
            for v in list(x.attrs.values()) + list(x.layers):
                if isinstance(v, ModuleVal):
                    stack.append(v)
                elif isinstance(v, ListVal):
                    stack.extend(y for y in v.items if isinstance(y, ModuleVal))

    def module_has_params(self, m: ModuleVal) -> bool:
        seen: set = set()
        stack = [m]
        while stack:
            x = stack.pop()
            if x.id in seen:
                continue
            seen.add(x.id)
            if x.params is not None:
                if x.params:
                    return True
                continue
            for v in list(x.attrs.values()) + list(x.layers):
                if isinstance(v, ModuleVal):
                    stack.append(v)
                elif isinstance(v, TensorVal) and v.param:
                    return True
                elif isinstance(v, ListVal):
                    stack.extend(y for y in v.items if isinstance(y, ModuleVal))
        return False

    def call_module(self, m: ModuleVal, args: list, kwargs: dict, node: ast.AST) -> Val:
        top = self.forward_depth == 0
        ins = [v for v in list(args) + list(kwargs.values()) if isinstance(v, (TensorVal,
                                                                               BatchVal))]
        ins_t = [v if isinstance(v, TensorVal) else TensorVal(data=True) for v in ins]
        tainted_in = any(t.calls for t in ins_t)
        has_params = self.module_has_params(m)
        self.forward_depth += 1
        try:
            out = self.run_forward(m, args, kwargs, node, ins_t)
        finally:
            self.forward_depth -= 1
        if not (top and (has_params or not tainted_in)):
            if tainted_in and m.kind == "local" and not has_params:
                self.records["loss_entry"].append((getattr(node, "lineno", 0), m.qual, ins_t))
            return out
        # a top-level model call: tag its output so the loss can be traced back to it
        if ins_t:
            self.record_input_scale(ins_t[0], node)
        ev = self.record_event("call", node, text=snippet(node), obj=m, mode=m.mode)
        idx = len(self.events) - 1

        def tag(v: Val) -> Val:
            if isinstance(v, TensorVal):
                srcs = v.srcs | ({m.id} if has_params else set())
                t = replace(v, calls=v.calls | {idx}, srcs=frozenset(srcs))
                return self.fresh_tensor(t, node)
            if isinstance(v, ListVal):
                return ListVal([tag(x) for x in v.items], kind=v.kind, line=v.line, keys=v.keys,
                               comp=v.comp)
            return v

        out = tag(out)
        ev.value = out
        return out

    def run_forward(self, m: ModuleVal, args: list, kwargs: dict, node: ast.AST,
                    ins: list) -> Val:
        line = getattr(node, "lineno", 0)
        if m.kind == "local":
            fwd = self.class_attribute(m.cls, "forward") if m.cls else MISSING
            if not isinstance(fwd, FuncVal):
                fwd = self.class_attribute(m.cls, "__call__") if m.cls else MISSING
            if isinstance(fwd, FuncVal):
                return self.call_function(replace(fwd, bound=m), args, kwargs, node)
            if m.cls is not None and self.is_loss_subclass(m.cls):
                base = next(b for b in m.cls.bases if isinstance(b, Ref)
                            and b.qual.rsplit(".", 1)[-1] in LOSS_CLASSES)
                return self.call_loss(LOSS_CLASSES[base.qual.rsplit(".", 1)[-1]],
                                      m.qual, m.line, args, kwargs, node)
            return self.fresh_tensor(replace(self.join_tensors(ins), act=None, act_src=None), node)
        if m.kind == "sequential":
            x: Val = args[0] if args else (ins[0] if ins else TensorVal())
            for layer in m.layers:
                if isinstance(layer, ModuleVal):
                    x = self.call_module(layer, [x], {}, node)
                elif isinstance(layer, (FuncVal, LossVal)):
                    x = self.call_value(layer, [x], {}, node, Env())
            return x
        if m.kind == "layer":
            x = ins[0] if ins else TensorVal()
            if m.act:
                return self.apply_squashing(x, m.act, node, text=f"{m.text or m.qual} (line {m.line}, "
                                            f"applied at line {line})",
                                            at_line=m.line)
            last = m.qual.rsplit(".", 1)[-1]
            if last in DROPOUT_LAYERS or last in ("Identity", "Flatten", "Unflatten"):
                return x
            if last in BN_LAYERS and isinstance(x, TensorVal) and x.data and x.scale is not None:
                self.records["input_bn"].append((line, m.text or m.qual))
            t = self.join_tensors(ins)
            if m.params or last in PARAM_LAYERS:
                t = replace(t, srcs=t.srcs | {m.id})
            t = self.fresh_tensor(replace(t, act=None, act_src=None, safe=False, exp=False), node)
            if last == "LSTM":    # output, (h_n, c_n)
                return ListVal([t, ListVal([t, t], kind="tuple")], kind="tuple")
            if last in ("GRU", "RNN", "MultiheadAttention"):   # output, h_n (or the attention weights)
                return ListVal([t, t], kind="tuple")
            return t
        if m.kind in ("external", "opaque", "unknown", "any"):
            t = self.join_tensors(ins)
            t = replace(t, srcs=t.srcs | {m.id}, act=None, act_src=None, safe=False,
                        ext=m.kind in ("external", "opaque"))
            return self.fresh_tensor(t, node)
        return Unknown(m.qual)

    def make_nn_object(self, last: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        """``torch.nn.<last>(...)``: a loss, a Sequential, a container, or a layer."""
        if last in LOSS_CLASSES or last.endswith("Loss"):
            return self.make_loss_object(last, kwargs, node)
        if last == "Sequential":
            return self.make_sequential(args, node)
        if last in ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict"):
            return self.make_container(last, args, kwargs, node)
        return self.make_layer(last, args, kwargs, node)

    def make_loss_object(self, last: str, kwargs: dict, node: ast.Call) -> LossVal:
        """A loss module; its label smoothing is recorded, its reduction kept."""
        line, text = node.lineno, snippet(node, 60)
        kind = LOSS_CLASSES.get(last, "other")
        ls = None
        if "label_smoothing" in kwargs:
            v = kwargs["label_smoothing"]
            ls = v.value if isinstance(v, Const) else "?"
            self.records["ls"].append((line, ls, text))
        red = kwargs.get("reduction")
        return LossVal(kind, line, text, ls, red.value if isinstance(red, Const) else None)

    def make_sequential(self, args: list, node: ast.Call) -> ModuleVal:
        """``nn.Sequential(*layers)`` or of an OrderedDict; its layers become its children."""
        layers = [a for a in args]
        if len(layers) == 1 and isinstance(layers[0], ListVal) and layers[0].kind == "dict":
            layers = list(layers[0].items)
        if len(layers) == 1 and isinstance(layers[0], Unknown):
            layers = []
        m = ModuleVal(kind="sequential", qual="torch.nn.Sequential", line=node.lineno, text=snippet(node, 60),
                      layers=layers)
        self.adopt_layers(m, layers)
        self.modules.append(m)
        return m

    def make_container(self, last: str, args: list, kwargs: dict, node: ast.Call) -> ModuleVal:
        """ModuleList / ModuleDict / ParameterList / ParameterDict of the given modules."""
        src = args[0] if args else kwargs.get("modules", ListVal([]))
        layers = list(src.items) if isinstance(src, ListVal) else []
        m = ModuleVal(kind="container", qual=f"torch.nn.{last}", line=node.lineno, text=snippet(node, 60),
                      layers=layers)
        if isinstance(src, ListVal) and src.kind == "dict" and src.keys:
            for k, v in zip(src.keys, src.items):
                if isinstance(k, str):
                    m.attrs[k] = v
        if last.startswith("Parameter"):
            m.params = True
        self.adopt_layers(m, layers)
        self.modules.append(m)
        return m

    @staticmethod
    def adopt_layers(m: ModuleVal, layers: list) -> None:
        """Layers without a parent become ``m``'s children at ``[i]``."""
        for i, l_ in enumerate(layers):
            if isinstance(l_, ModuleVal) and l_.parent is None:
                l_.parent, l_.path = m, f"[{i}]"

    def make_layer(self, last: str, args: list, kwargs: dict, node: ast.Call) -> ModuleVal:
        """Any other layer: whether it has parameters, its activation, and its dropout and batch
        norm recorded."""
        line, text = node.lineno, snippet(node, 60)
        m = ModuleVal(kind="layer", qual=f"torch.nn.{last}", line=line, text=text)
        m.params = True if last in PARAM_LAYERS else (False if last in NOPARAM_LAYERS
                                                      else True)
        if last in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
                    "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm"):
            aff = kwargs.get("affine", kwargs.get("elementwise_affine"))
            if isinstance(aff, Const) and aff.value is False:
                m.params = False
        m.act = ACT_LAYERS.get(last)
        self.record_layer_dropout(last, args, kwargs, line, text)
        if last == "Sigmoid":
            self.records["sigmoid_layers"].append((line, text, id(node), self.builder_key(),
                                                   self.enclosing_trip_count()))
        if last in BN_LAYERS:
            self.records["bn"].append((line, text))
        self.modules.append(m)
        return m

    def builder_key(self) -> int:
        """The function (a module's ``__init__``, a ``make_model``) building layers now; 0 at module level."""
        return id(self.fn_stack[-1]) if self.fn_stack else 0

    def enclosing_trip_count(self) -> int:
        """How many times the layer-building loops around this point run, multiplied: the loops over a
        ``range(n)`` whose bounds are known and that sit in the function building the layer (the
        interpreter runs a loop's body twice whatever ``n`` is, so a stack built in a loop shows its
        depth only here). An unknown count counts once, as does a loop of a caller (a sweep that
        builds a model per trial does not deepen the model)."""
        fn = self.fn_stack[-1] if self.fn_stack else None
        lo, hi = (fn.lineno, getattr(fn, "end_lineno", fn.lineno)) if fn is not None else (0, None)
        total = 1
        for (nid, _), it in zip(self.loops, self.loop_vals):
            node = self.loop_nodes.get(nid)
            line = getattr(node, "lineno", 0)
            if not (lo <= line and (hi is None or line <= hi)):
                continue
            n = range_trip_count(it)
            if n is not None and n > 0:
                total *= n
        here = id(fn) if fn is not None else 0
        for where, n in self.comp_trips:  # [Block(d) for _ in range(n)] in the same builder
            if where == here and n:
                total *= n
        return total

    def record_layer_dropout(self, last: str, args: list, kwargs: dict, line: int, text: str) -> None:
        """A dropout layer's p, a layer's ``dropout=``, or a transformer layer's default dropout."""
        if last in DROPOUT_LAYERS:
            p = kwargs.get("p", args[0] if args else Const(self.params["code.default_dropout_p"]))
            self.records["dropout"].append((line, p.value if isinstance(p, Const) else None, text))
        elif "dropout" in kwargs:
            p = kwargs["dropout"]
            self.records["dropout"].append((line, p.value if isinstance(p, Const) else None, text))
        elif last in TRANSFORMER_LAYERS:
            self.records["dropout"].append((line, self.params["code.transformer_default_dropout"],
                                            text + " (default)"))

    def clone_module(self, m: ModuleVal) -> ModuleVal:
        c = copy.copy(m)
        c.id = next(module_ids)
        c.var = None
        c.attrs = dict(m.attrs)
        c.attr_events = []
        c.layers = list(m.layers)
        c.parent = None
        self.modules.append(c)
        return c


#: range(stop), range(start, stop), range(start, stop, step): the most arguments range takes
_RANGE_ARGS = 3


def range_trip_count(it) -> int | None:
    """How many items ``range(...)`` with known integer bounds yields; None when a bound is not known."""
    if not (isinstance(it, IterVal) and it.kind == "range") or not 1 <= len(it.args) <= _RANGE_ARGS:
        return None
    vals = [a.value if isinstance(a, Const) and isinstance(a.value, int) and not isinstance(a.value, bool)
            else None for a in it.args]
    if any(v is None for v in vals):
        return None
    try:
        return len(range(*vals))
    except ValueError:      # range(..., 0)
        return None


def returns_sigmoid(cls: ast.ClassDef) -> bool:
    """Whether a module class's ``forward`` returns its output squashed by a functional sigmoid
    (``return torch.sigmoid(self.h(x))``, ``F.sigmoid``, ``h.sigmoid()``, or a name last assigned one
    before the return): a block that stacked acts as one sigmoid layer. A sigmoid used as a gate
    (``t = torch.sigmoid(...); return h * t + x * (1 - t)``) is not returned and is not counted."""
    fwd = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
    if fwd is None:
        return False
    rets = [n for n in ast.walk(fwd) if isinstance(n, ast.Return) and n.value is not None]
    if not rets:
        return False
    last: dict = {}
    for n in ast.walk(fwd):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            if n.lineno >= last.get(n.targets[0].id, (0, None))[0]:
                last[n.targets[0].id] = (n.lineno, n.value)
    for r in rets:
        v = r.value
        if isinstance(v, ast.Name) and v.id in last:
            v = last[v.id][1]
        if sigmoid_input(v) is None:
            return False
    return True


def sigmoid_input(v: ast.AST) -> ast.AST | None:
    """What a functional sigmoid squashes: the argument of ``torch.sigmoid(x)`` / ``F.sigmoid(x)``, the
    receiver of ``x.sigmoid()``; None when ``v`` is no such call."""
    if not isinstance(v, ast.Call):
        return None
    f = v.func
    if callee_name(v) != "sigmoid":
        return None
    if len(v.args) == 1:
        return v.args[0]
    return f.value if not v.args and isinstance(f, ast.Attribute) else None
