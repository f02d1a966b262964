"""Abstract tensors: joining provenance, cutting the graph, squashing, unsafe math, and the torch
tensor functions and methods.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from collections.abc import Iterable

from ..naming import EPS_WORDS
from ..text import snippet
from .scale import CLIPS, clip_scale, draw_scale, function_scale, literal_scale, select_scale
from ..values import (PROBABILITY_ACTS, Const, Env, ListVal, TensorVal, Unknown, Val, from_model,
                      mixes_squashed)

#: math.exp is folded only within this (it overflows a float past about 709.8): arithmetic, not
#: knowledge.
_EXP_MAX = 700


#: ``where(cond, a, b)``: the condition and the two branches it picks from
_WHERE_ARGS = 3
#: ``F.dropout(x, p, training)``: the position of the mode flag
_DROPOUT_FLAG_POS = 2


def mode_told(node: ast.AST) -> bool:
    """Whether a functional dropout call is handed a module's mode (``training=self.training``, a
    third argument naming ``.training``); one left at its default or given the script's own flag acts
    whatever the module's mode."""
    if not isinstance(node, ast.Call):
        return True
    flag = next((k.value for k in node.keywords if k.arg in ("training", "train")), None)
    if flag is None and len(node.args) > _DROPOUT_FLAG_POS:
        flag = node.args[_DROPOUT_FLAG_POS]
    return flag is not None and any(isinstance(n, ast.Attribute) and n.attr == "training" for n in ast.walk(flag))


def made_trainable(c) -> bool:
    """Whether a tensor made by ``c`` is created trainable (``requires_grad=True``)."""
    flag = c.kwargs.get("requires_grad")
    return isinstance(flag, Const) and flag.value is True


@dataclass
class TensorCall:
    """One call of a torch tensor function: ``x`` its first argument, ``tens`` the tensors it gets."""

    name: str
    args: list
    kwargs: dict
    node: ast.Call
    qual: str
    x: Val
    tens: list

    @property
    def line(self) -> int:
        return self.node.lineno


#: squashings of one family: a softmax's output put through a softmax or log_softmax again (or a
#: sigmoid's through a sigmoid) is squashed twice
SQUASH_FAMILY = {"softmax": "softmax", "log_softmax": "softmax", "sigmoid": "sigmoid"}


def _computed_input(node: ast.AST) -> bool:
    """A squashing call whose input is written as arithmetic (``torch.sigmoid(logit / temperature)``,
    a relaxed Bernoulli's noisy log-odds): a new quantity, not the squashed output squashed again."""
    if not isinstance(node, ast.Call):
        return False
    arg = node.func.value if isinstance(node.func, ast.Attribute) and not node.args else (
        node.args[0] if node.args else None)
    return isinstance(arg, (ast.BinOp, ast.UnaryOp))


#: torch tensor function name -> handler (``tensor_<handler>`` of :class:`TensorModel`)
TENSOR_FUNCTIONS: dict[str, str] = {
    **dict.fromkeys(("softmax", "log_softmax", "sigmoid", "relu"), "squash"),
    **dict.fromkeys(("log", "log2", "log10"), "log"),
    "exp": "exp",
    **dict.fromkeys(("sqrt", "rsqrt"), "sqrt"),
    **dict.fromkeys(("div", "true_divide", "divide"), "divide"),
    "pow": "power",
    **dict.fromkeys(("clamp", "clip", "clamp_min", "clamp_", "clamp_min_", "maximum", "softplus",
                     "logsumexp", "log1p", "log_sigmoid", "logsigmoid", "normalize"), "guard"),
    **dict.fromkeys(("tensor", "as_tensor", "from_numpy", "Tensor", "FloatTensor", "LongTensor",
                     "asarray"), "rewrap"),
    **dict.fromkeys(("argmax", "argmin", "argsort", "round", "floor", "ceil", "sign", "bucketize"),
                    "discrete"),
    **dict.fromkeys(("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout"), "dropout"),
    **dict.fromkeys(("mean", "sum", "nanmean", "nansum"), "reduce"),
    **dict.fromkeys(("scatter", "scatter_"), "scatter"),
    **dict.fromkeys(("randn", "rand", "zeros", "ones", "randint", "arange", "linspace", "empty", "full",
                     "zeros_like", "ones_like", "randn_like", "rand_like", "eye", "randperm", "normal", "logspace",
                     "one_hot", "bernoulli", "multinomial"), "new_data"),
}

#: functions after which a loss is still the stock loss (anything else makes it hand-made)
KEEPS_LOSS = {"mean", "sum", "view", "reshape", "squeeze", "unsqueeze", "flatten",
              "float", "double", "half", "to", "cuda", "cpu", "clone", "contiguous",
              "type", "type_as", "requires_grad_", "retain_grad", "nan_to_num", "add",
              "sub", "stack", "cat", "view_as", "reshape_as"}
#: functions after which one-hot targets are still one column per class (a dtype, a device, a view)
KEEPS_ONEHOT = {"float", "double", "half", "bfloat16", "to", "cuda", "cpu", "type", "type_as", "view", "reshape",
                "squeeze", "unsqueeze", "clone", "contiguous", "permute", "transpose", "movedim", "flatten",
                "view_as", "reshape_as", "detach"}
#: tensor functions that build one-hot targets from class ids (``eye`` is indexed by them)
ONEHOT_BUILDERS = {"one_hot", "eye"}
#: the class axis of a (batch, classes) array of per-class terms, as a reduction names it
CLASS_AXES = {1, -1}
#: functions that keep what squashing the tensor carries (anything else forgets it)
SHAPE_OPS = {"view", "reshape", "squeeze", "unsqueeze", "flatten", "permute",
             "transpose", "contiguous", "float", "double", "half", "bfloat16", "to",
             "cuda", "cpu", "clone", "mean", "sum", "stack", "cat", "expand",
             "expand_as", "view_as", "reshape_as", "narrow", "select", "index_select",
             "gather", "chunk", "split", "masked_fill", "where", "t", "type", "type_as",
             "repeat", "tile", "squeeze_", "unsqueeze_", "nan_to_num", "max", "min",
             "amax", "amin", "abs", "neg", "mul", "add", "sub", "matmul", "mm", "bmm",
             "einsum", "norm", "std", "var", "prod", "cumsum", "diag", "tril", "triu",
             "pad", "interpolate", "roll", "flip", "requires_grad_", "retain_grad",
             "detach_", "movedim", "swapaxes", "long", "int", "bool"}

#: products that contract one operand against another: squashed weights times unsquashed values
#: (``torch.bmm(attn, v)``, a kernel smoother's ``softmax(-d) @ y``) average the values, so the
#: result is no longer probabilities (an elementwise ``probs * mask`` stays them)
MIXING_PRODUCTS = {"matmul", "mm", "bmm", "einsum"}


class TensorModel:
    """Abstract tensors: provenance joins, graph cuts, squashing, unsafe math, torch tensor functions and methods."""

    def join_tensors(self, vals: Iterable[Val]) -> TensorVal:
        ts = [v for v in vals if isinstance(v, TensorVal)]
        if not ts:
            return TensorVal()
        srcs, calls, cuts, losses, unsafe, hand, hsigned = set(), set(), [], [], [], [], []
        for t in ts:
            srcs |= t.srcs
            calls |= t.calls
            cuts.extend(c for c in t.cuts if c not in cuts)
            losses.extend(x for x in t.losses if x not in losses)
            unsafe.extend(u for u in t.unsafe if u not in unsafe)
            hand.extend(h for h in t.hand_terms if h not in hand)
            hsigned.extend(h for h in t.hand_signed if h not in hsigned)
        first = next((t for t in ts if t.act), ts[0])
        terms = next((t.class_terms for t in ts if t.class_terms), None)
        cmean = next((t.class_mean for t in ts if t.class_mean), None)
        resq = next((t.resquash for t in ts if t.resquash), None)
        return TensorVal(srcs=frozenset(srcs), calls=frozenset(calls), cuts=tuple(cuts),
                         onehot=all(t.onehot for t in ts), class_terms=terms, class_mean=cmean, resquash=resq,
                         act=first.act, act_src=first.act_src, losses=tuple(losses),
                         loss_mod=any(t.loss_mod for t in ts), unsafe=tuple(unsafe), hand_terms=tuple(hand),
                         hand_signed=tuple(hsigned),
                         data=any(t.data for t in ts), ext=any(t.ext for t in ts),
                         leaf=any(t.leaf for t in ts))

    def fresh_tensor(self, t: TensorVal, node: ast.AST) -> TensorVal:
        """A freshly computed tensor: inside torch.no_grad() it is cut off the graph."""
        ng = self.active_no_grad()
        if ng is not None and t.srcs:
            return self.cut_graph(t, ng.line, ng.how)
        return t

    def record_input_scale(self, x: Val, node: ast.AST) -> None:
        """The inputs of a dataset or of the model, when the script made them on a followed scale."""
        if isinstance(x, TensorVal) and x.data and not from_model(x) and x.scale is not None:
            self.records["input_scale"].append((getattr(node, "lineno", 0), x.scale, snippet(node, 60)))

    def cut_graph(self, t: TensorVal, line: int, how: str) -> TensorVal:
        if not t.srcs:
            return replace(t, param=False, param_part=None)
        return replace(t, srcs=frozenset(), cuts=t.cuts + ((line, how, t.srcs),), param=False,
                       param_part=None)

    def mark_unsafe(self, t: TensorVal, kind: str, line: int, text: str) -> TensorVal:
        rec = (kind, line, text)
        if rec in t.unsafe:
            return t
        return replace(t, unsafe=t.unsafe + (rec,))

    def apply_squashing(self, x: Val, act: str, node: ast.AST, text: str | None = None,
                        at_line: int | None = None) -> Val:
        t = x if isinstance(x, TensorVal) else TensorVal()
        line = at_line or getattr(node, "lineno", 0)
        text = text or f"{snippet(node, 50)} (line {line})"
        resq = t.resquash
        if resq is None and SQUASH_FAMILY.get(act) and SQUASH_FAMILY.get(act) == SQUASH_FAMILY.get(t.act or "") \
                and t.act in PROBABILITY_ACTS and t.act_src and from_model(t) and not _computed_input(node):
            resq = (t.act_src[0], f"{t.act_src[1]}, then {text}", t.act)
        return self.fresh_tensor(replace(t, act=act, act_src=(line, text), safe=False, exp=False,
                                         resquash=resq), node)

    def call_tensor_function(self, name: str, args: list, kwargs: dict, node: ast.Call, qual: str) -> Val:
        """torch.<name>(...) / F.<name>(...) / tensor.<name>(...) on abstract tensors, dispatched by
        :data:`TENSOR_FUNCTIONS`; what no handler takes keeps its inputs' provenance."""
        x = args[0] if args else next(iter(kwargs.values()), Unknown("?"))
        tens = []
        for v in list(args) + list(kwargs.values()):
            if isinstance(v, TensorVal):
                tens.append(v)
            elif isinstance(v, ListVal):   # torch.stack([...]), torch.cat(list_of_tensors)
                tens.extend(x_ for x_ in v.items if isinstance(x_, TensorVal))
        if isinstance(x, ListVal) and name in ("stack", "cat", "concat", "concatenate"):
            x = replace(self.join_tensors(tens), scale=literal_scale(x)) if tens else x
        call = TensorCall(name, args, kwargs, node, qual, x, tens)
        handler = TENSOR_FUNCTIONS.get(name)
        if handler is not None:
            out = getattr(self, "tensor_" + handler)(call)
            if out is not None:
                return out
        return self.tensor_elementwise(call)

    def tensor_squash(self, c: TensorCall) -> Val:
        return self.apply_squashing(c.x, c.name, c.node)

    def tensor_log(self, c: TensorCall) -> Val:
        x, node, line = c.x, c.node, c.line
        t = x if isinstance(x, TensorVal) else self.join_tensors(c.tens)
        if isinstance(x, TensorVal) and not x.safe and from_model(x) and not EPS_WORDS.search(
                snippet(node)):
            what = f"of {x.act} output" if x.act in ("softmax", "sigmoid") else "with no eps"
            t = self.mark_unsafe(t, "log_without_eps", line,
                                 f"{snippet(node, 50)}: log {what} (log(0) = -inf)")
        act = {"softmax": "log_softmax"}.get(t.act or "", t.act)
        return self.fresh_tensor(replace(t, act=act, act_src=t.act_src if act == t.act else (
            line, f"{snippet(node, 50)} (line {line})"), safe=False, exp=False), node)

    def tensor_exp(self, c: TensorCall) -> Val:
        x, node = c.x, c.node
        t = x if isinstance(x, TensorVal) else self.join_tensors(c.tens)
        argnode = (node.func.value if c.qual.startswith("tensor.") and isinstance(
            node.func, ast.Attribute) else (node.args[0] if node.args else None))
        # exp(-loss) (focal loss pt) is bounded by 1
        neg_loss = isinstance(argnode, ast.UnaryOp) and isinstance(argnode.op, ast.USub) \
            and isinstance(x, TensorVal) and bool(x.losses)
        if isinstance(x, TensorVal) and from_model(x) and not x.safe and not neg_loss:
            t = self.mark_unsafe(t, "exp_overflow", c.line,
                                 f"{snippet(node, 50)}: exp of an unbounded value overflows")
        return self.fresh_tensor(replace(t, exp=True, safe=False), node)

    def tensor_sqrt(self, c: TensorCall) -> Val:
        x = c.x
        t = x if isinstance(x, TensorVal) else self.join_tensors(c.tens)
        if isinstance(x, TensorVal) and from_model(x) and not x.safe:
            t = self.mark_unsafe(t, "sqrt_of_zero", c.line,
                                 f"{snippet(c.node, 50)}: sqrt at 0 has an infinite gradient")
        return self.fresh_tensor(replace(t, safe=False, exp=False), c.node)

    def tensor_divide(self, c: TensorCall) -> Val | None:
        args, node = c.args, c.node
        if not (len(args) >= 2 and isinstance(args[1], TensorVal)):
            return None
        t = self.join_tensors(c.tens)
        # a divisor of the data alone (a mask's count) does not drift to 0 with training
        if not args[1].safe and not args[1].exp and from_model(args[1]) and len(node.args) > 1 \
                and not EPS_WORDS.search(snippet(node.args[1])):
            t = self.mark_unsafe(t, "division_without_eps", c.line,
                                 f"{snippet(node, 50)} divides by a tensor that can be 0")
        return self.fresh_tensor(t, node)

    def tensor_power(self, c: TensorCall) -> Val | None:
        """``x.pow(0.5)``: a square root (the exponent is the square root's, not a threshold)."""
        args, x = c.args, c.x
        if len(args) >= 2 and isinstance(args[1], Const) \
                and args[1].value == 0.5 and isinstance(x, TensorVal) and from_model(x) \
                and not x.safe:
            return self.mark_unsafe(self.join_tensors(c.tens), "sqrt_of_zero", c.line,
                                    f"{snippet(c.node, 50)}: sqrt at 0 has an infinite gradient")
        return None

    def tensor_guard(self, c: TensorCall) -> Val:
        """clamp/softplus/normalize...: the result is safe to log or divide by (log1p & co are not)."""
        t = self.join_tensors(c.tens)
        if c.name in CLIPS and isinstance(c.x, TensorVal) and c.x.data:   # data held between two limits
            t = replace(t, scale=clip_scale(c.args, c.kwargs))
        return self.fresh_tensor(replace(t, safe=c.name not in ("log1p", "log_sigmoid", "logsigmoid",
                                                                "logsumexp"), exp=False), c.node)

    def tensor_rewrap(self, c: TensorCall) -> Val:
        """torch.tensor(x) and friends: a new leaf, cut off the graph of ``x``."""
        if c.tens and (c.tens[0].srcs or c.tens[0].calls):
            return self.cut_graph(self.join_tensors(c.tens), c.line, f"{snippet(c.node, 40)}")
        cuts = self.join_tensors(c.tens).cuts if c.tens else ()
        if cuts:
            # rebuilt from a model output already cut off (``torch.tensor(out.detach().numpy())``):
            # the cut travels on, so that the layers behind it are known to get no gradient
            return TensorVal(cuts=cuts)
        if made_trainable(c):      # torch.tensor([0.5], requires_grad=True): a weight the script trains
            return TensorVal(leaf=True, scale=function_scale(c.name, c.x))
        return TensorVal(data=True, scale=function_scale(c.name, c.x))

    def tensor_discrete(self, c: TensorCall) -> Val:
        """argmax/round/...: no gradient flows through; data rounded keeps its scale (an index does not)."""
        if c.tens:
            scale = function_scale(c.name, c.x) if isinstance(c.x, TensorVal) and c.x.data else None
            return replace(self.cut_graph(self.join_tensors(c.tens), c.line, f"{c.name}()"), act=None, scale=scale)
        return TensorVal(data=True)

    def tensor_dropout(self, c: TensorCall) -> Val:
        p = c.kwargs.get("p", c.args[1] if len(c.args) > 1 else Const(self.params["code.default_dropout_p"]))
        # a last field True marks a functional call: no module the live regularisation probe can see
        self.records["dropout"].append((c.line, p.value if isinstance(p, Const) else None,
                                        snippet(c.node, 50), True))
        # only a dropout told the module's mode (``training=self.training``) follows train/eval mode;
        # one left at its default, or switched by the script's own flag, acts whatever the mode
        if not mode_told(c.node):
            return c.x if isinstance(c.x, TensorVal) else TensorVal()
        self.records["functional_dropout"].append(c.line)
        return c.x if isinstance(c.x, TensorVal) else TensorVal()

    def tensor_new_data(self, c: TensorCall) -> Val:
        if made_trainable(c):      # torch.zeros(1, requires_grad=True): the weights of a raw-tensor model
            return TensorVal(leaf=True, scale=draw_scale(c.name, c.args, c.kwargs))
        return TensorVal(data=True, scale=draw_scale(c.name, c.args, c.kwargs), onehot=c.name in ONEHOT_BUILDERS)

    def tensor_scatter(self, c: TensorCall) -> Val:
        """``torch.zeros(B, C).scatter_(1, y, 1)``: data made here, scattered into, is one-hot targets."""
        out = self.tensor_elementwise(c)
        if isinstance(out, TensorVal) and isinstance(c.x, TensorVal) and c.x.data and not from_model(c.x):
            return replace(out, onehot=True)
        return out

    def tensor_reduce(self, c: TensorCall) -> Val:
        """mean/sum: per-class cross-entropy terms summed over the class axis are a cross-entropy;
        averaged over it (a mean over every element, or over the class axis) they are the
        cross-entropy divided by the number of classes (``class_mean``). An axis not followed
        forgets them."""
        out = self.tensor_elementwise(c)
        x = c.x
        if not (isinstance(out, TensorVal) and isinstance(x, TensorVal) and x.class_terms):
            return out
        dim = c.kwargs.get("dim", c.kwargs.get("axis", c.args[1] if len(c.args) > 1 else None))
        if dim is None:
            dims: set | None = None
        elif isinstance(dim, Const) and isinstance(dim.value, int):
            dims = {dim.value}
        elif isinstance(dim, ListVal) and all(isinstance(d, Const) for d in dim.items):
            dims = {d.value for d in dim.items}
        else:
            return replace(out, class_terms=None)
        if dims is not None and not dims & CLASS_AXES:
            return replace(out, class_terms=x.class_terms)     # over the batch: still per class
        if c.name in ("mean", "nanmean"):
            return replace(out, class_terms=None, class_mean=(c.line, snippet(c.node, 60)))
        return replace(out, class_terms=None)

    def tensor_elementwise(self, c: TensorCall) -> Val:
        """Any other function: the inputs' provenance carries over; a loss changed by it becomes a
        hand-made loss, and anything but a shape operation forgets the output's squashing."""
        if not c.tens:
            return Unknown(snippet(c.node))
        t = self.join_tensors(c.tens)
        if t.losses and c.name not in KEEPS_LOSS:
            t = replace(t, loss_mod=True)   # exp(-ce), log(loss)...: a hand-made loss
        if c.name not in SHAPE_OPS or (c.name in MIXING_PRODUCTS and mixes_squashed(c.tens)):
            t = replace(t, act=None, act_src=None, class_terms=None)
        if c.name not in KEEPS_ONEHOT:
            t = replace(t, onehot=False)
        if c.name == "where" and len(c.args) >= _WHERE_ARGS:      # each element from one of two branches
            scale = select_scale(c.args, c.qual.startswith("tensor."))
        else:
            scale = function_scale(c.name, c.x) if isinstance(c.x, TensorVal) and c.x.data else None
        return self.fresh_tensor(replace(t, safe=False, exp=False, scale=scale), c.node)

    def call_tensor_method(self, t: TensorVal, name: str, args: list, kwargs: dict,
                           node: ast.Call, env: Env | None = None) -> Val:
        line = node.lineno
        if name == "backward":
            self.record_event("backward", node, text=snippet(node), obj=t)
            return Const(None)
        if name in ("detach", "detach_", "item", "numpy", "tolist"):
            how = f".{name}()"
            r = self.cut_graph(t, line, how)
            if name in ("item", "tolist"):
                return replace(r, data=True)
            return r
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if t.param and isinstance(flag, Const) and flag.value is False:
                self.record_frozen(node.func.value, t, node)
            if not t.param and not (isinstance(flag, Const) and not flag.value):
                return replace(t, leaf=True, data=False, scale=None)   # weights of a raw-tensor model
            return t
        if name in ("zero_", "fill_") and t.param:
            self.record_init(node.func.value, t, "zero_" if name == "zero_" else "fill_", node,
                             args[0] if args else Const(0))
            return t
        if name in ("zero_",) and not t.param:
            text = snippet(node.func.value)
            if text.endswith(".grad") or ".grad." in text:
                self.record_event("zero", node, text=snippet(node), obj=None)
            return t
        return self.call_tensor_function(name, [t] + list(args), kwargs, node, "tensor." + name)

    @staticmethod
    def fold_math(name: str, args: list) -> Val:
        import math

        fn = {"sqrt": math.sqrt, "log": math.log, "exp": math.exp, "pow": math.pow,
              "ceil": math.ceil, "floor": math.floor}.get(name)
        try:
            if fn is not None and all(isinstance(a.value, (int, float)) for a in args):
                if name == "exp" and abs(args[0].value) > _EXP_MAX:
                    return Unknown("math")
                return Const(fn(*[a.value for a in args]))
        except (ValueError, OverflowError, TypeError):
            pass
        return Unknown("math")
