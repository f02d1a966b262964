"""Calls: functions and methods defined in the script followed into their bodies with the caller's
values, class instantiation, builtins and list methods. Library calls go to ``torch_api``.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..naming import LOSS_WORDS, MODEL_WORDS
from ..text import snippet
from ..torch_api.modules import returns_sigmoid
from ..torch_api.names import LOSS_CLASSES, canonical
from ..values import (
    AccelVal, ArgsVal, BatchVal, ClassVal, ConfigVal, Const, CtxVal, Env, FileVal, Frame, FuncVal,
    IterVal, ListVal, LoaderVal, LossVal, MISSING, ModuleVal, ObjVal, OptVal, ParamsVal, ParserVal,
    Ref, ScalerVal, SchedVal, SuperVal, TensorVal, Unknown, Val, config_file_name, is_tensor)


#: the method handler for each kind of value (``base.name(...)``); torch objects' handlers are in torch_api
METHODS_BY_TYPE: dict[type, str] = {
    ModuleVal: "call_module_method", ObjVal: "call_object_method", ClassVal: "call_class_method",
    OptVal: "call_optimizer_method", SchedVal: "call_scheduler_method", ScalerVal: "call_scaler_method",
    AccelVal: "call_accelerator_method", LossVal: "call_loss_object_method",
    TensorVal: "call_tensor_method", ListVal: "call_list_method", ConfigVal: "call_config_method",
    ParserVal: "call_parser_method", LoaderVal: "call_batch_method", BatchVal: "call_batch_method",
    ParamsVal: "call_opaque_method", Unknown: "call_unknown_method",
}


BUILTINS = {"range", "len", "enumerate", "zip", "list", "tuple", "dict", "iter", "next", "sum",
            "max", "min", "float", "int", "print", "isinstance", "filter", "map", "sorted",
            "open", "super", "getattr", "setattr", "hasattr", "abs", "round", "str", "bool",
            "type", "any", "all", "reversed", "set", "format", "vars", "id", "repr", "object",
            "Exception", "ValueError", "RuntimeError", "KeyError", "StopIteration"}


class Calls:
    """Calls: functions and methods of this file followed into their bodies, builtins, lists."""

    def eval_Call(self, node: ast.Call, env: Env) -> Val:
        args, kwargs = self.eval_call_arguments(node, env)
        f = node.func
        if isinstance(f, ast.Attribute):
            base = self.eval_expr(f.value, env)
            return self.call_method(base, f.attr, args, kwargs, node, env)
        fv = self.eval_expr(f, env)
        return self.call_value(fv, args, kwargs, node, env)

    def eval_call_arguments(self, node: ast.Call, env: Env) -> tuple[list, dict]:
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval_expr(a.value, env)
                if isinstance(v, ListVal) and not v.comp:
                    args.extend(v.items)
                elif isinstance(v, ListVal) and v.comp and v.items:
                    args.append(v.items[0])
                else:
                    args.append(v if isinstance(v, (TensorVal, BatchVal)) else Unknown("*"))
            else:
                args.append(self.eval_expr(a, env))
        kwargs: dict = {}
        for k in node.keywords:
            v = self.eval_expr(k.value, env)
            if k.arg is None:
                if isinstance(v, ListVal) and v.kind == "dict" and v.keys is not None:
                    for kk, vv in zip(v.keys, v.items):
                        if isinstance(kk, str):
                            kwargs[kk] = vv
                elif isinstance(v, (ListVal, BatchVal, TensorVal)):
                    kwargs["**"] = TensorVal(data=True) if not isinstance(v, ListVal) or not \
                        v.items or not is_tensor(v.items[0]) else v.items[0]
                continue
            kwargs[k.arg] = v
        return args, kwargs

    def call_value(self, fv: Val, args: list, kwargs: dict, node: ast.Call, env: Env) -> Val:
        if isinstance(fv, Ref):
            return self.call_library(canonical(fv.qual), fv.qual, args, kwargs, node, env)
        if isinstance(fv, FuncVal):
            return self.call_function(fv, args, kwargs, node)
        if isinstance(fv, ClassVal):
            return self.instantiate_class(fv, args, kwargs, node)
        if isinstance(fv, ModuleVal):
            return self.call_module(fv, args, kwargs, node)
        if isinstance(fv, LossVal):
            return self.call_loss(fv.kind, fv.text, fv.line, args, kwargs, node,
                                  ls=fv.label_smoothing, reduction=fv.reduction)
        if isinstance(fv, SuperVal):
            return fv
        if isinstance(fv, ObjVal):     # an instance called: its class's __call__
            call = self.class_attribute(fv.cls, "__call__")
            if isinstance(call, FuncVal):
                return self.call_function(replace(call, bound=fv), args, kwargs, node)
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if isinstance(fv, Unknown):
            if MODEL_WORDS.search(fv.text.rsplit(".", 1)[-1]) and not LOSS_WORDS.search(
                    fv.text):
                m = self.placeholder_for(fv.text)
                if isinstance(m, ModuleVal):
                    return self.call_module(m, args, kwargs, node)
            if tens:
                return self.fresh_tensor(replace(self.join_tensors(tens), act=None, act_src=None), node)
        return Unknown(snippet(node))

    def call_function(self, fv: FuncVal, args: list | None, kwargs: dict, node: ast.AST,
                      placeholder_args: bool = False) -> Val:
        fn = fv.node
        if fn in self.fn_stack or len(self.fn_stack) >= self.max_inline_depth:
            return Unknown(getattr(fn, "name", "<lambda>"))
        self.inlined.add(fn)
        env = Env(fv.env)
        a = fn.args
        positional = list(a.posonlyargs) + list(a.args)
        given = list(args or [])
        if fv.bound is not None:
            given = [fv.bound] + given
        defaults = list(a.defaults)
        first_default = len(positional) - len(defaults)
        for i, p in enumerate(positional):
            if i < len(given):
                val = given[i]
            elif p.arg in kwargs:
                val = kwargs[p.arg]
            elif i >= first_default:
                val = self.eval_expr(defaults[i - first_default], fv.env)
            elif placeholder_args:
                val = self.placeholder_for(p.arg)
            else:
                val = Unknown(p.arg)
            env.vars[p.arg] = val
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                env.vars[p.arg] = kwargs[p.arg]
            elif d is not None:
                env.vars[p.arg] = self.eval_expr(d, fv.env)
            else:
                env.vars[p.arg] = self.placeholder_for(p.arg) if placeholder_args else Unknown(p.arg)
        if a.vararg:
            env.vars[a.vararg.arg] = ListVal(given[len(positional):], kind="tuple")
        if a.kwarg:
            rest = {k: v for k, v in kwargs.items() if k not in env.vars}
            env.vars[a.kwarg.arg] = ListVal(list(rest.values()), kind="dict",
                                            keys=list(rest.keys()))
        self_val = given[0] if (fv.cls is not None and given) else None
        frame = Frame(fv=fv, self_val=self_val)
        self.frames.append(frame)
        self.fn_stack.append(fn)
        if fv.no_grad:
            self.nograd.append(CtxVal("nograd", getattr(fn, "lineno", 0), fv.no_grad))
        try:
            if isinstance(fn, ast.Lambda):
                result = self.eval_expr(fn.body, env)
            else:
                self.exec_block(fn.body, env)
                result = self.merge_returns(frame.returns)
        finally:
            if fv.no_grad:
                self.nograd.pop()
            self.fn_stack.pop()
            self.frames.pop()
        if fv.bound is None and isinstance(result, TensorVal) and any(
                isinstance(g, TensorVal) and g.calls for g in given):
            self.records["loss_entry"].append((getattr(node, "lineno", 0), f"{fv.name}()", []))
        return result

    @staticmethod
    def merge_returns(returns: list) -> Val:
        real = [r for r in returns if not (isinstance(r, Const) and r.value is None)]
        if not real:
            return Const(None)
        return real[-1]

    def instantiate_class(self, cv: ClassVal, args: list, kwargs: dict, node: ast.Call) -> Val:
        obj: Val
        if cv.is_optimizer:     # the parameters it holds and its step count as a stock optimizer's
            return self.make_optimizer(cv.name.lower(), args, kwargs, node)
        if cv.is_module:
            obj = ModuleVal(kind="local", qual=cv.name, line=node.lineno, text=snippet(node),
                            cls=cv)
            self.modules.append(obj)
            if returns_sigmoid(cv.node):  # a block squashing its output: one sigmoid layer per block built
                self.records["sigmoid_layers"].append((node.lineno, snippet(node, 60), id(node), self.builder_key(),
                                                       self.enclosing_trip_count()))
        else:
            obj = ObjVal(cls=cv)
        init = self.class_attribute(cv, "__init__")
        if isinstance(init, FuncVal):
            self.call_function(replace(init, bound=obj), args, kwargs, node)
        return obj

    @staticmethod
    def is_loss_subclass(cv: ClassVal) -> bool:
        return any(isinstance(b, Ref) and b.qual.rsplit(".", 1)[-1] in LOSS_CLASSES
                   for b in cv.bases)

    def call_method(self, base: Val, name: str, args: list, kwargs: dict, node: ast.Call,
                    env: Env) -> Val:
        """``base.name(*args, **kwargs)``: bound to what ``base`` is (:data:`METHODS_BY_TYPE`)."""
        if isinstance(base, Ref):
            return self.call_value(Ref(f"{base.qual}.{name}"), args, kwargs, node, env)
        if isinstance(base, SuperVal):
            for b in base.cls.bases:
                if isinstance(b, ClassVal):
                    m = self.class_attribute(b, name)
                    if isinstance(m, FuncVal):
                        return self.call_function(replace(m, bound=base.obj), args, kwargs, node)
            return Const(None)
        if isinstance(base, (ModuleVal, ObjVal)) and name in base.attrs:
            return self.call_value(base.attrs[name], args, kwargs, node, env)
        if name in ("with_name", "joinpath") and args and config_file_name(args[-1]) is not None:
            return config_file_name(args[-1])   # Path(__file__).with_name("config.yaml")
        handler = METHODS_BY_TYPE.get(type(base))
        if handler is not None:
            return getattr(self, handler)(base, name, args, kwargs, node, env)
        if isinstance(base, Const) and isinstance(base.value, str):
            return Unknown("str")
        return Unknown(snippet(node))

    def call_object_method(self, base: ObjVal, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        """A method of an instance of a class of this file: run its body."""
        m = self.class_attribute(base.cls, name)
        if isinstance(m, FuncVal):
            return self.call_function(replace(m, bound=base), args, kwargs, node)
        if m is not MISSING:
            return self.call_value(m, args, kwargs, node, env)
        return Unknown(snippet(node))

    def call_class_method(self, base: ClassVal, name: str, args: list, kwargs: dict, node: ast.Call,
                          env: Env) -> Val:
        m = self.class_attribute(base, name)
        if isinstance(m, FuncVal):
            return self.call_function(m, args, kwargs, node)
        return Unknown(snippet(node))

    def call_config_method(self, base: ConfigVal, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        """``cfg.get(key, default)`` on a loaded config."""
        if name == "get" and args:
            v = self.config_lookup(base, args[0], node) if isinstance(args[0], Const) else \
                Unknown("?")
            if isinstance(v, Unknown) and len(args) > 1:
                return args[1]
            return v
        return Unknown(snippet(node))

    def call_parser_method(self, base: ParserVal, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        """``parser.parse_args()``: the argparse defaults."""
        if name in ("parse_args",):
            return ArgsVal(self.argdefaults)
        if name == "parse_known_args":
            return ListVal([ArgsVal(self.argdefaults), Unknown("rest")], kind="tuple")
        return Const(None)

    def call_opaque_method(self, base: Val, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        return Unknown(snippet(node))

    def call_unknown_method(self, base: Unknown, name: str, args: list, kwargs: dict,
                            node: ast.Call, env: Env) -> Val:
        """Methods on something we could not bind: keep the loop's bookkeeping from names."""
        text = base.text
        if name == "backward":
            self.record_event("backward", node, text=snippet(node), obj=None)
            return Const(None)
        if name == "zero_grad":
            self.record_event("zero", node, text=snippet(node), obj=None)
            return Const(None)
        if name == "step":
            p = self.placeholder_for(text)
            if isinstance(p, SchedVal):
                self.record_event("sched", node, text=snippet(node), obj=p)
                return Const(None)
            ret = self.run_step_closure(args, kwargs, node)
            self.record_event("step", node, text=snippet(node),
                              obj=p if isinstance(p, OptVal) else None)
            return ret
        if name in ("parse_args", "parse_known_args") and self.argdefaults:
            a = ArgsVal(self.argdefaults)
            return a if name == "parse_args" else ListVal([a, Unknown("rest")], kind="tuple")
        p = self.placeholder_for(text)
        if isinstance(p, ModuleVal):
            return self.call_module_method(p, name, args, kwargs, node, env)
        if isinstance(p, (OptVal, SchedVal, LoaderVal)):
            return self.call_method(p, name, args, kwargs, node, env)
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if tens:
            return self.fresh_tensor(replace(self.join_tensors(tens), act=None, act_src=None), node)
        return Unknown(snippet(node))

    def call_list_method(self, base: ListVal, name: str, args: list, kwargs: dict,
                         node: ast.Call, env: Env | None = None) -> Val:
        if name == "append" and args:
            base.items.append(args[0])
            if base.keys is not None:
                base.keys.append(None)
        elif name == "extend" and args and isinstance(args[0], ListVal) and base.keys is None:
            base.items.extend(args[0].items)
        elif name == "items":
            return IterVal("items", [base])
        elif name == "values":
            return ListVal(list(base.items), kind="list")
        elif name == "keys":
            return ListVal([Const(k) for k in (base.keys or [])], kind="list")
        elif name == "get" and args and isinstance(args[0], Const):
            got = base.get(args[0].value)
            if got is not MISSING:
                return got
            return args[1] if len(args) > 1 else Const(None)
        elif name in ("copy",):
            return ListVal(list(base.items), kind=base.kind,
                           keys=list(base.keys) if base.keys is not None else None)
        elif name == "update" and base.kind == "dict" and base.keys is not None:
            src = args[0] if args else ListVal(list(kwargs.values()), kind="dict",
                                               keys=list(kwargs.keys()))
            if isinstance(src, ListVal) and src.kind == "dict" and src.keys is not None:
                for k, v in zip(src.keys, src.items):
                    if self.cond and isinstance(v, Const):
                        v = replace(v, cond=f"`if {self.cond[-1]}:` (line {node.lineno})")
                    if k in base.keys:
                        base.items[base.keys.index(k)] = v
                    else:
                        base.keys.append(k)
                        base.items.append(v)
        elif name == "to":
            return base
        return Const(None)

    def call_builtin(self, name: str, args: list, kwargs: dict, node: ast.Call,
                     env: Env) -> Val:
        """A call of a Python builtin: iterators, collections, conversions, reductions and a few
        others are modelled; any other call of tensors joins them, else it is unknown."""
        handler = _BUILTIN_CALLS.get(name)
        if handler is not None:
            v = getattr(self, handler)(name, args, kwargs, node)
            if v is not None:
                return v
        tens = [v for v in args if isinstance(v, TensorVal)]
        if tens:
            return self.join_tensors(tens)
        return Unknown(name)

    def builtin_iterator(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        """range, enumerate, zip, iter, reversed, sorted."""
        a0 = args[0] if args else None
        if name == "range":
            return IterVal("range", [], list(args))
        if name == "enumerate":
            return IterVal("enumerate", [a0]) if a0 is not None else Unknown("?")
        if name == "zip":
            return IterVal("zip", list(args))
        return IterVal("wrap", [a0]) if a0 is not None else Unknown("?")

    def builtin_collection(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        """list, tuple, set (a copy, or the iterable itself when it is a loader, module, ...), dict."""
        if name == "dict":
            return ListVal(list(kwargs.values()), kind="dict", keys=list(kwargs.keys()))
        a0 = args[0] if args else None
        if a0 is None:
            return ListVal([], kind=name)
        if isinstance(a0, ListVal):
            return ListVal(list(a0.items), kind=name, line=a0.line, comp=a0.comp)
        if isinstance(a0, (ParamsVal, IterVal, LoaderVal, ModuleVal)):
            return a0
        return Unknown("list")

    def builtin_conversion(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        """float, int, bool, abs, round: of a constant, computed; of a tensor, it leaves the graph."""
        a0 = args[0] if args else None
        if isinstance(a0, Const):
            try:
                fn = {"float": float, "int": int, "bool": bool, "abs": abs,
                      "round": round}[name]
                return Const(fn(a0.value), a0.origin, a0.soft)
            except (TypeError, ValueError):
                return Unknown(name)
        if isinstance(a0, TensorVal) and name in ("float", "int", "bool"):
            return replace(self.cut_graph(a0, node.lineno, f"{name}()"), data=True)
        return Unknown(name)

    def builtin_reduction(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        """sum, max, min: of tensors, a new tensor joining them; of constants, computed."""
        tens = []
        for a in args:
            if isinstance(a, ListVal):
                tens.extend(x for x in a.items if isinstance(x, TensorVal))
            elif isinstance(a, TensorVal):
                tens.append(a)
        if tens:
            return self.fresh_tensor(self.join_tensors(tens), node)
        if all(isinstance(a, Const) for a in args) and args:
            try:
                return Const({"sum": sum, "max": max, "min": min}[name](
                    *[a.value for a in args]))
            except (TypeError, ValueError):
                return Unknown(name)
        return Unknown(name)

    def builtin_other(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val | None:
        """next, filter, len, super, open, getattr, isinstance; None when the call's arguments do not
        fit the model (the caller's default applies)."""
        a0 = args[0] if args else None
        if name == "next" and a0 is not None:
            return self.element_of(a0, node)
        if name == "filter" and len(args) > 1:
            return args[1]
        if name == "len":
            if isinstance(a0, ListVal) and not a0.comp:
                return Const(len(a0.items))
            return Unknown("len")
        if name == "super":
            fr = self.frames[-1] if self.frames else None
            if fr and fr.fv and fr.fv.cls is not None and fr.self_val is not None:
                return SuperVal(fr.fv.cls, fr.self_val)
            return Unknown("super")
        if name == "open" and a0 is not None:
            if isinstance(a0, Const) and isinstance(a0.value, str):
                return FileVal(a0.value)
            return Unknown("file")
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], Const):
            return self.get_attribute(a0, str(args[1].value), node)
        if name == "isinstance":
            return Unknown("isinstance")
        return None


# builtin name -> the Calls method that models it
_BUILTIN_CALLS = {
    **dict.fromkeys(("range", "enumerate", "zip", "iter", "reversed", "sorted"), "builtin_iterator"),
    **dict.fromkeys(("list", "tuple", "set", "dict"), "builtin_collection"),
    **dict.fromkeys(("float", "int", "bool", "abs", "round"), "builtin_conversion"),
    **dict.fromkeys(("sum", "max", "min"), "builtin_reduction"),
    **dict.fromkeys(("next", "filter", "len", "super", "open", "getattr", "isinstance"), "builtin_other"),
}
