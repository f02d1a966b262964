"""The training objects built from their calls: optimizers (and the parameters they hold),
schedulers, data loaders, losses, gradient clipping, initialisation and autocast.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

from ..text import format_number, snippet
from ..values import (
    AccelVal, BatchVal, Const, CtxVal, Env, FuncVal, IterVal, ListVal, LoaderVal, LossRec, LossVal,
    MISSING, ModuleVal, OptVal, ParamsVal, Part, Ref, SamplerVal, ScalerVal, SchedVal, TensorVal,
    Unknown, Val, literal_number)
from .names import (
    ADAM_FAMILY, EPOCH_WORDS, NORM_LAYERS, OPT_NO_WD, SCHED_EPOCHISH, SCHED_PER_BATCH,
    STEPS_WORDS)
from .schedule import decay_arguments



#: where Adam and AdamW take eps positionally: Adam(params, lr, betas, eps, ...)
_ADAM_EPS_ARG = 3


def adam_eps_given(kind: str, args: list, kwargs: dict) -> tuple | None:
    """(eps, detail) of an Adam-family optimizer built with a literal eps, else None (the default, or a
    value computed at run time)."""
    if kind not in ADAM_FAMILY:
        return None
    eps = kwargs.get("eps")
    if eps is None and len(args) > _ADAM_EPS_ARG and kind in ("adam", "adamw"):
        eps = args[_ADAM_EPS_ARG]
    if not (isinstance(eps, Const) and isinstance(eps.value, (int, float)) and not isinstance(eps.value, bool)):
        return None
    src = f" ({eps.origin})" if eps.origin else ""
    return float(eps.value), f"eps={format_number(eps.value)}{src}"

class TrainingObjects:
    """Optimizers, schedulers, data loaders, losses, clipping, initialisation and autocast built from their calls."""

    def parameter_parts(self, v: Val, node: ast.AST) -> list[Part]:
        if isinstance(v, ParamsVal):
            return list(v.parts)
        if isinstance(v, ModuleVal):
            return [Part(v, v.describe())]
        if isinstance(v, ListVal):
            parts: list[Part] = []
            for it in v.items:
                if isinstance(it, ListVal) and it.kind == "dict":
                    p = it.get("params")
                    if p is not MISSING:
                        parts.extend(self.parameter_parts(p, node))
                elif isinstance(it, TensorVal) and it.param:
                    if it.param_part is not None:
                        parts.append(it.param_part)
                    else:
                        parts.append(Part(None, "a parameter", whole=False))
                else:
                    parts.extend(self.parameter_parts(it, node))
            return parts
        if isinstance(v, IterVal):
            out: list[Part] = []
            for x in v.inner:
                out.extend(self.parameter_parts(x, node))
            return out
        if isinstance(v, TensorVal) and v.param:
            return [v.param_part or Part(None, "a parameter", whole=False)]
        return [Part(None, snippet(node, 60), whole=False)]

    def record_manual_update(self, params: Val, loop: ast.For) -> None:
        """A loop that updates each parameter it iterates from its own gradient (``for p in params:
        p.data.add_(p.grad, alpha=-lr)``, the word_language_model example's hand-written SGD): kept as
        an optimizer of no kind that holds what the loop iterates, read for params_not_in_optimizer where
        the script builds no optimizer. Only when every part resolves to a module: an unresolved list
        says nothing either way."""
        if any(o.line == loop.lineno for o in self.records["manual_update"]):
            return
        parts = self.parameter_parts(params, loop.iter)
        if not parts or any(p.module is None for p in parts):
            return
        self.seq += 1
        self.records["manual_update"].append(OptVal(kind=None, line=loop.lineno, text=snippet(loop.iter, 70),
                                                    parts=parts, seq=self.seq))

    def make_optimizer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> OptVal:
        line = node.lineno
        opt = OptVal(kind=kind, line=line, text=snippet(node, 70))
        params = args[0] if args else kwargs.get("params", Unknown("params"))
        opt.parts = self.parameter_parts(params, node)
        opt.groups = len(params.items) if isinstance(params, ListVal) and params.items and \
            isinstance(params.items[0], ListVal) and params.items[0].kind == "dict" else 0
        self.seq += 1
        opt.seq = self.seq
        lr_node = None
        if "lr" in kwargs:
            lr = kwargs["lr"]
            lr_node = next((k.value for k in node.keywords if k.arg == "lr"), None)
        elif len(args) > 1 and kind not in ("lbfgs",):
            lr = args[1]
            lr_node = node.args[1] if len(node.args) > 1 else None
        else:
            lr = None
        if lr is None and opt.groups:
            g = params.items[0].get("lr")
            if g is not MISSING:
                lr = g
        if lr is None:
            if f"code.default_lr.{kind}" in self.params:
                d = self.params[f"code.default_lr.{kind}"]
                why = f"no lr given: {kind}'s default {format_number(d)} in torch"
                if kind == "sgd":
                    why += " >= 2.2 (older torch requires lr)"
                opt.lr = (d, why)
            else:
                self.add_unresolved(f"line {line}: learning rate of `{snippet(node, 50)}` not given and "
                                    f"its default is unknown")
        elif isinstance(lr, Const) and isinstance(lr.value, (int, float)) \
                and not isinstance(lr.value, bool):
            src = f" ({lr.origin})" if lr.origin else ""
            written = snippet(lr_node, 30) if lr_node else format_number(lr.value)
            shown = "" if written == format_number(lr.value) or literal_number(lr_node) is not None \
                else f" = {format_number(lr.value)}"
            opt.lr = (float(lr.value), f"lr={written}{shown}{src}")
        else:
            self.add_unresolved(f"line {line}: learning rate `{snippet(lr_node, 40) if lr_node else '?'}` "
                                f"of {kind} is computed at run time")
        if opt.groups:
            lrs = [g.get("lr") for g in params.items if isinstance(g, ListVal)]
            if any(x is not MISSING for x in lrs):
                self.add_note(f"line {line}: {kind} has {opt.groups} parameter groups with their own "
                              f"learning rates")
        wd = kwargs.get("weight_decay")
        if wd is None and opt.groups:
            g = params.items[0].get("weight_decay")
            wd = g if g is not MISSING else None
        if wd is None:
            if kind in OPT_NO_WD:
                opt.wd = None
            else:
                d = self.params.get(f"code.default_weight_decay.{kind}", 0.0)
                opt.wd = (d, f"no weight_decay given: {kind}'s default {format_number(d)}")
        elif isinstance(wd, Const) and isinstance(wd.value, (int, float)):
            src = f" ({wd.origin})" if wd.origin else ""
            opt.wd = (float(wd.value), f"weight_decay={format_number(wd.value)}{src}")
        else:
            self.add_unresolved(f"line {line}: weight_decay of {kind} is computed at run time")
        if kind in ("sgd", "rmsprop"):
            mom = kwargs.get("momentum")
            if mom is None and len(args) > 2 and kind == "sgd":
                mom = args[2]     # SGD(params, lr, momentum, ...)
            if mom is None and not opt.groups:
                opt.momentum = (0.0, f"no momentum given: {kind}'s default 0")
            elif isinstance(mom, Const) and isinstance(mom.value, (int, float)) and not isinstance(mom.value, bool):
                opt.momentum = (float(mom.value), f"momentum={format_number(mom.value)}")
        opt.eps = adam_eps_given(kind, args, kwargs)
        self.optimizers.append(opt)
        return opt

    def make_scheduler(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> SchedVal:
        s = SchedVal(kind=kind, line=node.lineno, text=snippet(node, 70),
                     decay=decay_arguments(kind, args, kwargs, self.params))
        text = snippet(node, 200)
        if kind in SCHED_PER_BATCH:
            s.per_batch, s.why = True, f"{kind} is designed to step every batch"
        elif kind.startswith("get_") or "schedule_with_warmup" in kind:
            s.per_batch, s.why = True, f"{kind} counts optimizer steps"
            s.warmup = "warmup" in kind
        elif kind == "lambdalr":
            fn = args[1] if len(args) > 1 else kwargs.get("lr_lambda")
            body = ""
            if isinstance(fn, FuncVal):
                body = snippet(fn.node, 300)
            body += " " + text
            if re.search(r"warm", body, re.I):
                s.warmup = True
            if EPOCH_WORDS.search(body) and not re.search(r"(step|iter|batch)", body, re.I):
                s.per_batch, s.why = False, "its lambda counts epochs"
            elif re.search(r"(step|iter|batch|warm)", body, re.I):
                s.per_batch, s.why = True, "its lambda counts steps"
            else:
                self.add_unresolved(f"line {node.lineno}: cannot tell whether the LambdaLR is meant to "
                                    f"step per batch or per epoch")
        elif kind in SCHED_EPOCHISH:
            period, pval = None, None
            for k in ("T_max", "step_size", "milestones", "total_iters", "T_0", "patience"):
                if k in kwargs:
                    period = next((kw.value for kw in node.keywords if kw.arg == k), None)
                    pval = kwargs[k]
                    break
            if period is None and len(node.args) > 1:
                period, pval = node.args[1], (args[1] if len(args) > 1 else None)
            ptext = snippet(period, 80) if period is not None else ""
            # a period whose value is known (a constant, a config entry) and small is counted in
            # epochs whatever its name says (``LR_STEP = cfg["lr_step"]`` = 5 is StepLR's own
            # ``step_size``); only a computed one (``len(loader) * 5``) counts batches by its text
            small = (isinstance(pval, Const) and isinstance(pval.value, (int, float))
                     and not isinstance(pval.value, bool) and 0 < pval.value < self.params["code.per_batch_period_min"]
                     and not isinstance(period, ast.Constant))
            if small and not re.search(r"(len\s*\(|batch|iter)", ptext, re.I):
                s.per_batch = False
                s.why = (f"{kind} with period `{ptext}` = {format_number(pval.value)} is the per-epoch "
                         f"pattern")
            elif period is not None and STEPS_WORDS.search(ptext):
                s.per_batch, s.why = True, f"its period `{ptext}` counts batches"
            else:
                lit = literal_number(period)
                if lit is not None and lit >= self.params["code.per_batch_period_min"]:
                    self.add_unresolved(f"line {node.lineno}: {kind} period {format_number(lit)} could count "
                                        f"batches or epochs")
                else:
                    s.per_batch = False
                    s.why = f"{kind} with period `{ptext or 'default'}` is the per-epoch pattern"
            if kind == "linearlr" and re.search(r"start_factor", text):
                s.warmup = True
        elif kind in ("sequentiallr", "chainedscheduler"):
            subs = [x for x in (args[1] if len(args) > 1 else kwargs.get(
                "schedulers", ListVal([]))).items] if isinstance(
                args[1] if len(args) > 1 else kwargs.get("schedulers"), ListVal) else []
            subs = [x for x in subs if isinstance(x, SchedVal)]
            s.warmup = any(x.warmup or x.kind == "linearlr" for x in subs)
            known = [x.per_batch for x in subs if x.per_batch is not None]
            if known and all(known):
                s.per_batch, s.why = True, "its schedulers count batches"
            elif known and not any(known):
                s.per_batch, s.why = False, "its schedulers are the per-epoch pattern"
        self.schedulers.append(s)
        return s

    def make_loader(self, args: list, kwargs: dict, node: ast.Call) -> LoaderVal:
        ld = LoaderVal(line=node.lineno, text=snippet(node, 70))
        names = ["dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers"]
        bound = dict(zip(names, args))
        bound.update(kwargs)

        def kwtext(k: str) -> str:
            n = next((kw.value for kw in node.keywords if kw.arg == k), None)
            if n is None and k in names and names.index(k) < len(node.args):
                n = node.args[names.index(k)]
            if n is None:
                star = next((kw.value for kw in node.keywords if kw.arg is None), None)
                if star is not None:
                    return f"{snippet(star, 30)}[{k!r}]"
            return snippet(n, 30) if n is not None else "?"

        def val(k: str, default: Any, what: str) -> Any:
            if k not in bound:
                return (default, f"{what} not given: DataLoader's default {format_number(default)}")
            v = bound[k]
            if isinstance(v, Const) and v.cond:
                ld.why[k] = (f"line {node.lineno}: {k}={format_number(v.value)} of `{snippet(node, 50)}` "
                             f"is set only under {v.cond}")
                return None
            if isinstance(v, Const) and not isinstance(v.value, (list, dict)):
                src = f" ({v.origin})" if v.origin else ""
                return (v.value, f"{k}={kwtext(k)}{' = ' + format_number(v.value) if v.origin else ''}"
                        f"{src}")
            return None

        if "batch_sampler" in bound:
            ld.batch_size = None
            ld.shuffle = None
        else:
            ld.batch_size = val("batch_size", 1, "batch_size")
            if ld.batch_size is not None and ld.batch_size[0] is None:
                ld.batch_size = None
            if "sampler" in bound:
                smp = bound["sampler"]
                if isinstance(smp, SamplerVal) and smp.shuffles is not None:
                    ld.shuffle = (smp.shuffles, f"sampler={kwtext('sampler')} "
                                                f"({'random' if smp.shuffles else 'in order'})")
                else:
                    ld.shuffle = None
            else:
                ld.shuffle = val("shuffle", False, "shuffle")
                if ld.shuffle is not None and not isinstance(ld.shuffle[0], bool):
                    ld.shuffle = (bool(ld.shuffle[0]), ld.shuffle[1])
        ld.num_workers = val("num_workers", 0, "num_workers")
        self.loaders.append(ld)
        return ld

    def call_loss(self, kind: str, text: str, line: int, args: list, kwargs: dict,
                  node: ast.AST, ls: Any = None, reduction: str | None = None) -> Val:
        inp = args[0] if args else kwargs.get("input", Unknown("input"))
        rest = list(args[1:]) + [v for k, v in kwargs.items() if k in ("target",)]
        if ls is None and "label_smoothing" in kwargs:
            v = kwargs["label_smoothing"]
            ls = v.value if isinstance(v, Const) else "?"
            self.records["ls"].append((getattr(node, "lineno", 0), ls, snippet(node, 60)))
        if reduction is None and isinstance(kwargs.get("reduction"), Const):
            reduction = kwargs["reduction"].value
        act = inp.act if isinstance(inp, TensorVal) else None
        act_src = inp.act_src if isinstance(inp, TensorVal) else None
        rec = LossRec(kind, line or getattr(node, "lineno", 0), text,
                      act if isinstance(inp, TensorVal) else "?", act_src, ls, reduction)
        t = self.join_tensors([inp] + rest)
        t = replace(t, act=None, act_src=None, losses=(rec,), loss_mod=False, safe=False,
                    exp=False, ext=False)
        return self.fresh_tensor(t, node)

    def record_clipping(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        key = "max_norm" if "norm" in name else "clip_value"
        v = kwargs.get(key, args[0] if args else None)
        if isinstance(v, Const) and isinstance(v.value, (int, float)):
            src = f" ({v.origin})" if v.origin else ""
            self.record_event("clip", node, text=snippet(node, 70), value=(float(v.value), src, name))
        else:
            self.record_event("clip", node, text=snippet(node, 70), value=(None, "", name))
        return TensorVal(data=True)

    def record_init(self, target_node: ast.AST, target: Val, fn: str, node: ast.AST,
                    value: Val | None) -> None:
        text = snippet(target_node, 50)
        if isinstance(target, TensorVal) and target.param_part is not None and \
                not text.endswith(("weight", "bias")):
            text = f"{text} (each of {target.param_part.text})"
        is_bias = re.search(r"bias\b", snippet(target_node)) is not None
        self.records["init"].append((getattr(node, "lineno", 0), text, fn, is_bias,
                                     value.value if isinstance(value, Const) else None,
                                     snippet(node, 60), _last_of_container(target_node),
                                     _lookup_table(target), _norm_layer_param(target, target_node,
                                                                              self.guards)))

    def make_autocast(self, raw: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        line = node.lineno
        en = kwargs.get("enabled", Const(True))
        dtype_v = kwargs.get("dtype")
        device = args[0] if args else kwargs.get("device_type")
        dtype = None
        if isinstance(dtype_v, Ref):
            dtype = "bfloat16" if "bfloat16" in dtype_v.qual else (
                "float16" if dtype_v.qual.endswith(("float16", "half")) else None)
        if dtype is None:
            dev = device.value if isinstance(device, Const) else None
            if ".cpu." in raw or dev == "cpu":
                dtype = "bfloat16"
            elif ".cuda." in raw or dev == "cuda":
                dtype = "float16"
        if isinstance(en, Const) and en.value is False and not en.soft:
            return CtxVal("none", line, snippet(node))
        if isinstance(en, Const) and en.soft and not en.value:
            self.add_unresolved(f"line {line}: `{snippet(node, 50)}` follows a command-line option "
                                f"({en.origin}); off by default")
            return CtxVal("none", line, snippet(node))
        if not isinstance(en, Const):
            self.add_unresolved(f"line {line}: `{snippet(node, 50)}` is switched by a run-time flag")
        self.records["amp"].append((line, dtype, snippet(node, 60), "autocast"))
        return CtxVal("autocast", line, snippet(node), dtype)

    # ---- methods of the objects built ------------------------------------------------------------

    def call_optimizer_method(self, base: OptVal, name: str, args: list, kwargs: dict, node: ast.Call,
                              env: Env) -> Val:
        """``opt.step()``, ``opt.zero_grad()``, ``opt.add_param_group(...)``; ``opt.step(closure)``
        (LBFGS and the like) runs the closure first, so the zero_grad and backward it holds happen
        in the iteration, and returns what the closure returns (the loss)."""
        if name == "step":
            ret = self.run_step_closure(args, kwargs, node)
            self.record_event("step", node, text=snippet(node), obj=base)
            return ret
        elif name == "zero_grad":
            self.record_event("zero", node, text=snippet(node), obj=base)
        elif name == "add_param_group" and args:
            base.parts.extend(self.parameter_parts(args[0], node))
        return Const(None)

    def run_step_closure(self, args: list, kwargs: dict, node: ast.Call) -> Val:
        """The closure handed to ``optimizer.step(closure)``, run as the optimizer runs it."""
        closure = args[0] if args else kwargs.get("closure")
        if isinstance(closure, FuncVal):
            return self.call_function(closure, [], {}, node)
        return Const(None)

    def call_scheduler_method(self, base: SchedVal, name: str, args: list, kwargs: dict, node: ast.Call,
                              env: Env) -> Val:
        if name == "step":
            self.record_event("sched", node, text=snippet(node), obj=base)
        return Unknown(snippet(node))

    def call_scaler_method(self, base: ScalerVal, name: str, args: list, kwargs: dict, node: ast.Call,
                           env: Env) -> Val:
        """``scaler.scale(loss)`` is the loss; ``scaler.step(opt)`` steps ``opt``."""
        if name == "scale":
            return args[0] if args else Unknown("scaled")
        if name == "step":
            opt = args[0] if args else None
            self.record_event("step", node, text=snippet(node),
                              obj=opt if isinstance(opt, OptVal) else None)
        return Const(None)

    def call_accelerator_method(self, base: AccelVal, name: str, args: list, kwargs: dict,
                                node: ast.Call, env: Env) -> Val:
        """accelerate's ``prepare``, ``backward``, clipping and ``autocast``."""
        if name == "prepare":
            return args[0] if len(args) == 1 else ListVal(list(args), kind="tuple")
        if name == "backward" and args:
            self.record_event("backward", node, text=snippet(node),
                              obj=args[0] if isinstance(args[0], TensorVal) else None)
            return Const(None)
        if name in ("clip_grad_norm_", "clip_grad_value_"):
            return self.record_clipping(name, args[1:], kwargs, node)
        if name == "autocast":
            return CtxVal("autocast", node.lineno, snippet(node), None)
        return Unknown(snippet(node))

    def call_loss_object_method(self, base: LossVal, name: str, args: list, kwargs: dict,
                                node: ast.Call, env: Env) -> Val:
        if name == "forward":
            return self.call_value(base, args, kwargs, node, env)
        return Unknown(snippet(node))

    def call_batch_method(self, base: Val, name: str, args: list, kwargs: dict, node: ast.Call,
                          env: Env) -> Val:
        """``batch.to(device)``, ``batch.items()`` on a loader's element."""
        if name in ("to", "cuda", "cpu", "float", "items", "values"):
            if name == "items":
                return IterVal("items", [ListVal([TensorVal(data=True)], kind="dict")])
            return base if isinstance(base, BatchVal) else Unknown("?")
        return Unknown(snippet(node))


#: stock layers that are lookup tables: a row is read by its index, not computed from the input
LOOKUP_TABLES = ("Embedding", "EmbeddingBag")


def _lookup_table(target) -> bool:
    """The tensor an init writes is an embedding table's weight. Its rows are not units of a layer
    fed the same input: each row is read and updated only by the indices that pick it, against
    other rows and weights, so a constant start (word2vec's zero context vectors) breaks no symmetry
    that the data does not break."""
    part = getattr(target, "param_part", None) if isinstance(target, TensorVal) else None
    mod = part.module if part is not None else None
    return mod is not None and mod.kind == "layer" and mod.qual.split(".")[-1] in LOOKUP_TABLES


def _norm_layer_param(target, node: ast.AST, guards: list) -> bool:
    """The tensor an init writes is a normalisation layer's gain or shift (``nn.init.ones_(m.weight)``
    under ``elif isinstance(m, nn.BatchNorm2d):``, or on a BatchNorm the reader built). Gain 1 and
    shift 0 are those layers' own defaults; each channel's gain scales a normalised channel, no units
    fed the same input start alike."""
    part = getattr(target, "param_part", None) if isinstance(target, TensorVal) else None
    mod = part.module if part is not None else None
    if mod is not None and mod.kind == "layer" and mod.qual.split(".")[-1] in NORM_LAYERS:
        return True
    while isinstance(node, ast.Attribute) and node.attr in ("data", "weight", "bias"):
        node = node.value
    if not guards or not guards[-1][1] or not isinstance(node, ast.Name):
        return False
    test = guards[-1][0]
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == node.id):
        return False
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [k.attr if isinstance(k, ast.Attribute) else k.id if isinstance(k, ast.Name) else None
             for k in kinds]
    return bool(names) and all(n in NORM_LAYERS for n in names)


def _last_of_container(node: ast.AST) -> bool:
    """The tensor an init writes is the weight of the last layer of a container (``net[-1].weight``,
    ``self.layers[-1].weight.data``): the block's output layer. Zeroing it is the identity start of
    a residual branch, a coupling layer or a zero-initialised head; the units it feeds are told
    apart by the loss or by the skip path, so no symmetry follows from it."""
    while isinstance(node, ast.Attribute) and node.attr in ("data", "weight", "bias"):
        node = node.value
    if not isinstance(node, ast.Subscript):
        return False
    idx = node.slice
    return (isinstance(idx, ast.UnaryOp) and isinstance(idx.op, ast.USub)
            and isinstance(idx.operand, ast.Constant) and idx.operand.value == 1)

