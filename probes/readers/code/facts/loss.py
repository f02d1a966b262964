"""``code:loss``: the loss, what squashing reaches it, custom losses, label smoothing, unsafe math and
the task type.
"""

from __future__ import annotations

import ast
import re

from ..text import SNIPPET_CHARS, callee_name, format_number, snippet
from ..values import Event, ModuleVal, TensorVal
from .active_mean import active_mean


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:loss"
#: how many unsafe operations the unsafe_math finding quotes (presentation)
_SHOWN_UNSAFE = 4
FACTS = ("loss_function", "output_activation", "custom_loss", "label_smoothing", "unsafe_math", "task_type",
         "loss_squashes_twice", "loss_mixes_tasks", "output_relu", "loss_own_terms_signed", "loss_averages_classes",
         "loss_mixes_targets", "target_kind", "loss_target_copied", "loss_summed_over_batch",
         "loss_mean_over_active_terms")

#: stock losses of a regression target and of a class target: both summed into one backpropagated
#: loss is a multi-task head (a detector's box and class terms), not a loss that misfits its task
REGRESSION_LOSSES = frozenset({"mse", "l1", "smooth_l1"})
CLASS_LOSSES = frozenset({"cross_entropy", "nll", "bce", "bce_with_logits"})

#: per-element binary losses: each output channel is its own yes/no question
BINARY_LOSSES = frozenset({"bce", "bce_with_logits"})
#: calls that copy a tensor along new or size-1 axes to another tensor's shape
_COPIES = {"expand_as", "expand", "repeat", "broadcast_to", "tile", "repeat_interleave"}

#: a stock loss that squashes its input itself -> the squashing that, applied before it, is applied twice
SQUASHES_ITSELF = {"bce_with_logits": "sigmoid", "cross_entropy": "softmax"}


CLASS_PICKS = {"round", "argmax"}


def class_scoring(tree: ast.AST) -> tuple[int, str] | None:
    """The first ``==`` comparison with a rounded or arg-maxed value on one side and a
    non-constant on the other (``(pred.round() == y)``, ``out.argmax(1) == target``), as
    ``(line, text)``: the script scores its predictions as classes."""
    def picks(e: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and callee_name(n) in CLASS_PICKS for n in ast.walk(e))

    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            a, b = node.left, node.comparators[0]
            if isinstance(a, ast.Constant) or isinstance(b, ast.Constant):
                continue
            if picks(a) != picks(b):
                line = getattr(node, "lineno", 0)
                if found is None or line < found[0]:
                    found = (line, snippet(node, SNIPPET_CHARS))
    return found


def copied_target(stock: list, tree: ast.AST) -> tuple[ast.Call, str] | None:
    """A binary loss (BCE) whose target is one label copied across the prediction's channels
    (``bce(sigmoid(out), mask[:, None].expand_as(out))``) in a script that arg-maxes that
    prediction over its channels: every channel is taught the same answer, so the arg-max the
    script scores picks a channel at random. ``(loss call, copying call text)``."""
    bins = [r for r in stock if r.kind in BINARY_LOSSES]
    if not bins:
        return None
    argmaxed = {a.id for n in ast.walk(tree) if isinstance(n, ast.Call) and callee_name(n) == "argmax"
                for a in ([n.func.value] if isinstance(n.func, ast.Attribute)
                          and not (isinstance(n.func.value, ast.Name) and n.func.value.id in _MODULES)
                          else n.args[:1]) if isinstance(a, ast.Name)}
    for call in loss_calls(bins, tree):
        pred = {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
        for n in ast.walk(call.args[1]):
            if not (isinstance(n, ast.Call) and callee_name(n) in _COPIES):
                continue
            shaped = {m.id for a in [*n.args, *(k.value for k in n.keywords)] for m in ast.walk(a)
                      if isinstance(m, ast.Name)}
            if shaped & pred & argmaxed:
                return call, snippet(n, SNIPPET_CHARS)
    return None


#: calls whose values are whole numbers: class ids drawn, picked or converted
_INTEGER_MAKERS = {"randint", "integers", "argmax", "argmin", "long", "int", "LongTensor", "searchsorted",
                   "digitize", "bincount", "floor", "ceil", "choice", "permutation", "arange"}
#: draws of continuous values
_CONTINUOUS_DRAWS = {"normal", "randn", "randn_like", "standard_normal", "uniform", "rand", "rand_like",
                     "exponential", "gamma", "beta", "lognormal", "laplace", "random", "random_sample"}
#: calls whose values keep the kind of their (first) input: conversions, shapes, clipping, smooth maps
_KEEPS_KIND = {"tensor", "as_tensor", "from_numpy", "array", "asarray", "float", "double", "float32",
               "FloatTensor", "Tensor", "view", "reshape", "unsqueeze", "squeeze", "flatten", "clip", "clamp",
               "to", "detach", "numpy", "copy", "clone", "stack", "cat", "concatenate", "hstack", "vstack",
               "sin", "cos", "tanh", "exp", "log", "sqrt", "abs", "sum", "mean", "dot", "matmul"}
#: how many names deep a loss target's values are followed back (through their assignments)
_TARGET_DEPTH = 8


def loss_calls(stock: list, tree: ast.AST) -> list[ast.Call]:
    """The calls of the script's stock losses with a prediction and a target (``crit(out, y)``,
    ``F.mse_loss(out, y)``): the recorded calls, and calls of a loss module by the name it was
    assigned to (``crit = nn.MSELoss()``)."""
    where = {(r.line, r.text) for r in stock}
    names = {ast.unparse(tg) for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and (getattr(node, "lineno", 0), snippet(node.value, SNIPPET_CHARS)) in where for tg in node.targets}
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and len(n.args) >= 2
            and ((getattr(n, "lineno", 0), ast.unparse(n.func)) in where or ast.unparse(n.func) in names)]


def assigned_values(tree: ast.AST) -> dict[str, list]:
    """Every value the script assigns to each name; a tuple unpacked from a tuple pairs its items
    (``x, y = a, b``), a name unpacked from anything else gets a value that is never followed."""
    out: dict[str, list] = {}
    unknown = ast.Constant(value=None)
    for n in ast.walk(tree):
        if not isinstance(n, ast.Assign):
            continue
        for tg in n.targets:
            if isinstance(tg, ast.Name):
                out.setdefault(tg.id, []).append(n.value)
            elif isinstance(tg, (ast.Tuple, ast.List)):
                pairs = isinstance(n.value, (ast.Tuple, ast.List)) and len(n.value.elts) == len(tg.elts)
                for k, e in enumerate(tg.elts):
                    if isinstance(e, ast.Name):
                        out.setdefault(e.id, []).append(n.value.elts[k] if pairs else unknown)
    return out


def value_kind(expr: ast.AST, assigns: dict, depth: int = _TARGET_DEPTH) -> str | None:
    """"int" when the values an expression the script builds itself are whole numbers (class ids
    drawn, arg-maxed, compared or rounded), "float" when they come from continuous draws through
    arithmetic, None when not followed (a loader's batch, a file read)."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Compare):
        return "int"
    if isinstance(expr, ast.Subscript):
        return value_kind(expr.value, assigns, depth)
    if isinstance(expr, ast.Name):
        values = assigns.get(expr.id, [])
        # an update of the name from itself (``y = np.clip(y, 5, 50)``) reads its earlier values
        earlier = [v for v in values if not _names(v, expr.id)]
        inner = {**assigns, expr.id: earlier}
        kinds = {value_kind(v, inner if v not in earlier else assigns, depth - 1) for v in values}
        return "int" if "int" in kinds else "float" if kinds == {"float"} else None
    if isinstance(expr, ast.BinOp):
        kinds = {value_kind(x, assigns, depth) for x in (expr.left, expr.right)} - {None}
        return "float" if "float" in kinds else "int" if kinds == {"int"} else None
    if isinstance(expr, ast.UnaryOp):
        return value_kind(expr.operand, assigns, depth)
    if not isinstance(expr, ast.Call):
        return None
    f, name = expr.func, callee_name(expr)
    if name in _INTEGER_MAKERS:
        return "int"
    if name in _CONTINUOUS_DRAWS:
        return "float"
    if name in ("round", "around"):
        digits = expr.args[1] if len(expr.args) > 1 else next(
            (k.value for k in expr.keywords if k.arg in ("decimals", "ndigits")), None)
        if not (isinstance(digits, ast.Constant) and isinstance(digits.value, int) and digits.value > 0):
            return "int"           # rounded to whole numbers
    elif name == "astype":
        if not expr.args or "int" in ast.unparse(expr.args[0]):
            return "int" if expr.args else None
    elif name not in _KEEPS_KIND:
        return None
    # a method keeps the kind of its object (``y.float()``), a function that of its first argument
    inner = f.value if isinstance(f, ast.Attribute) and (name == "astype" or not expr.args
                                                          or not isinstance(f.value, ast.Name)
                                                          or f.value.id not in _MODULES) else (
        expr.args[0] if expr.args else None)
    return value_kind(inner, assigns, depth) if inner is not None else None


#: the modules whose functions take the data as their first argument (``np.clip(y, 0, 1)``)
_MODULES = {"np", "numpy", "torch", "F", "math", "jnp", "tf"}


def _names(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def mixed_target_pair(stock: list, tree: ast.AST) -> tuple | None:
    """Two calls of a class loss (cross-entropy, NLL, BCE) in one statement that score the same
    prediction (first argument) against different targets (second argument), as ``(line, text)``
    pairs, or None. The loss records name the callee and its line; the calls are found there."""
    where = {(r.line, r.text) for r in stock if r.kind in CLASS_LOSSES}
    # a loss module (``crit = nn.CrossEntropyLoss()``) is recorded where it is built: its calls go by its name
    names = {ast.unparse(tg) for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and (getattr(node, "lineno", 0), snippet(node.value, SNIPPET_CHARS)) in where for tg in node.targets}

    def scored(node: ast.AST) -> bool:
        return (isinstance(node, ast.Call) and len(node.args) >= 2
                and ((getattr(node, "lineno", 0), ast.unparse(node.func)) in where or ast.unparse(node.func) in names))

    for stmt in ast.walk(tree):
        if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)):
            continue
        seen: dict[str, tuple] = {}
        for node in ast.walk(stmt):
            if not scored(node):
                continue
            pred, target = ast.unparse(node.args[0]), ast.unparse(node.args[1])
            first = seen.setdefault(pred, (target, (node.lineno, snippet(node, SNIPPET_CHARS))))
            if first[0] != target:
                return first[1], (node.lineno, snippet(node, SNIPPET_CHARS))
    return None


#: calls whose result is a Beta draw (``np.random.beta``, ``random.betavariate``, ``Beta(a, b).sample()``)
_BETA_DRAW = re.compile(r"(?:^|[._])(?:beta|betavariate|Beta)\b")


def _beta_names(tree: ast.AST) -> set[str]:
    """Names assigned a Beta draw somewhere in the script (``lam = np.random.beta(a, a)``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Call) and _BETA_DRAW.search(ast.unparse(n.func))
                                                for n in ast.walk(node.value)):
            out.update(ast.unparse(t) for t in node.targets if isinstance(t, ast.Name))
    return out


def _weighted(node: ast.AST) -> list[tuple[str, str]]:
    """``w * X`` -> the (weight, X) readings of a product, as texts without spaces or brackets
    round the weight: [(w, X), (X, w)]; [] for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        a, b = (re.sub(r"[\s()]", "", ast.unparse(n)) for n in (node.left, node.right))
        return [(a, ast.unparse(node.right)), (b, ast.unparse(node.left))]
    return []


def mixup_blend(tree: ast.AST) -> tuple[int, str] | None:
    """The first convex blend of a batch with a shuffled copy of itself under a Beta-drawn weight
    (``lam * y + (1 - lam) * y[index]``, mixup's input and soft-label mixing), as ``(line, text)``."""
    lams = _beta_names(tree)
    if not lams:
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            continue
        for first, second in ((node.left, node.right), (node.right, node.left)):
            for wa, xa in _weighted(first):
                if wa in lams and any(wb == f"1-{wa}" and xb.startswith(f"{xa}[") for wb, xb in _weighted(second)):
                    return getattr(node, "lineno", 0), snippet(node, SNIPPET_CHARS)
    return None


class LossFacts:
    """code:loss: the loss, what squashing reaches it, custom losses and unsafe math."""

    def loss_facts(self, t: TensorVal | None, back: Event | None,
                   trained: list[ModuleVal]) -> None:
        """code:loss facts, from the loss tensor backpropagated first (``t``, at ``back``)."""
        if t is None or back is None:
            return
        line = back.line
        stock = [r for r in t.losses if r.kind is not None]
        inside = [r for r in t.losses if r.kind is None]
        entries = self.records["loss_entry"]
        entry = next((e for e in entries if re.search(r"(loss|criterion|crit|focal|dice)",
                                                      e[1], re.I)), entries[0] if entries else None)
        if inside and not stock:
            self.add_unresolved(f"line {inside[0].line}: the loss is computed inside the model "
                                f"(`{inside[0].text}`): its kind is not visible here")
            return
        if not t.calls and not t.losses and not t.cuts:
            if t.leaf:        # a model of raw tensors the script trains itself: its loss is hand-written
                self.unsafe_math_facts(t, line)
                return
            self.add_unresolved(f"line {line}: could not trace where the loss backpropagated at line "
                                f"{line} comes from")
            return
        custom = self.loss_kind_facts(t, stock, entry, line)
        rec = stock[0] if stock and not custom else None
        self.output_activation_facts(t, rec, custom, line)
        if custom:
            self.squash_twice_facts(stock, t.resquash, line)
            self.class_mean_facts(t)
            self.active_mean_facts()
        elif t.resquash:
            self.resquash_fact(t.resquash, line)
        self.label_smoothing_facts(rec)
        self.summed_loss_facts(rec)
        self.mixed_targets_facts(stock)
        self.copied_target_facts(stock)
        self.continuous_target_facts(stock)
        self.unsafe_math_facts(t, line)

    def loss_kind_facts(self, t: TensorVal, stock: list, entry: tuple | None, line: int) -> bool:
        """loss_function and custom_loss; True when the loss is hand-written."""
        # in a script that scores classes, a regression loss beside a hand-written term on the model's
        # outputs (a capsule net's margin loss + a small reconstruction MSE) is a side term: the class
        # target is served by the hand-written loss, not by the MSE (a VAE's MSE + KL, scoring no
        # classes, stays an MSE)
        side = bool(stock) and all(r.kind in REGRESSION_LOSSES for r in stock) and bool(t.hand_terms) \
            and class_scoring(self.tree) is not None
        custom = (not stock) or t.loss_mod or side
        if custom:
            if side:
                where = f"`{t.hand_terms[0][1]}` (line {t.hand_terms[0][0]})"
                entry = (t.hand_terms[0][0], where)
            elif entry is not None:
                where = f"{entry[1]} (line {entry[0]})"
            else:
                where = f"a hand-written expression backpropagated at line {line}"
            wrapped = f", built on {stock[0].text}" if stock else ""
            if side:
                wrapped = f", plus {stock[0].text} (line {stock[0].line})"
            self.add_finding("loss_function", "custom", entry[0] if entry else line,
                             f"the loss is {where}{wrapped}")
            self.add_finding("custom_loss", True, entry[0] if entry else line,
                             f"hand-written loss: {where}{wrapped}")
        else:
            # the stock loss on the model output's path; several: the first, named in detail
            primary = stock[0]
            others = [r for r in stock if r is not primary]
            extra = f"; also {', '.join(r.text for r in others)}" if others else ""
            self.add_finding("loss_function", primary.kind, primary.line,
                             f"`{primary.text}` (line {primary.line}) computes the loss backpropagated "
                             f"at line {line}{extra}")
            self.add_finding("custom_loss", False, primary.line,
                             f"stock loss `{primary.text}` (line {primary.line})")
            if t.hand_signed:
                hl, htext = t.hand_signed[0]
                self.add_finding("loss_own_terms_signed", True, hl,
                                 f"the loss backpropagated at line {line} adds the script's own term `{htext}` "
                                 f"(line {hl}) to `{primary.text}`, and that term can be below zero (a difference "
                                 f"or negation of computed values)")
            kinds = {r.kind for r in stock}
            if kinds & REGRESSION_LOSSES and kinds & CLASS_LOSSES:
                reg = next(r for r in stock if r.kind in REGRESSION_LOSSES)
                cls = next(r for r in stock if r.kind in CLASS_LOSSES)
                self.add_finding("loss_mixes_tasks", True, primary.line,
                                 f"the loss backpropagated at line {line} sums a regression term `{reg.text}` "
                                 f"(line {reg.line}) and a classification term `{cls.text}` (line {cls.line})")
        return custom

    def output_activation_facts(self, t: TensorVal, rec, custom: bool, line: int) -> None:
        """output_activation: what squashing (softmax/log_softmax/sigmoid) reaches the loss."""
        if rec is not None and rec.act != "?":
            act = rec.act or "none"
            if act == "relu":
                self.output_relu_fact(rec)
                act = "none"
            if rec.act_src and act != "none":
                detail = f"{rec.act_src[1]} output fed to {rec.text} (line {rec.line})"
                self.add_finding("output_activation", act, rec.act_src[0], detail)
            else:
                self.add_finding("output_activation", "none", rec.line,
                                 f"raw model outputs (no softmax/log_softmax/sigmoid) fed to "
                                 f"{rec.text} (line {rec.line})")
        elif rec is not None:
            self.add_unresolved(f"line {rec.line}: could not see what feeds {rec.text}")
        elif custom:
            acts = [self.events[i].value.act for i in sorted(t.calls)
                    if isinstance(self.events[i].value, TensorVal)]
            srcs = [self.events[i].value.act_src for i in sorted(t.calls)
                    if isinstance(self.events[i].value, TensorVal)]
            if acts:
                a = acts[0] or "none"
                if srcs[0] and a != "relu":
                    self.add_finding("output_activation", a, srcs[0][0],
                                     f"the model output leaves {srcs[0][1]} before the hand-written loss")
                else:
                    self.add_finding("output_activation", "none", line,
                                     "raw model outputs (no softmax/log_softmax/sigmoid) reach the "
                                     "hand-written loss")

    def output_relu_fact(self, rec) -> None:
        """output_relu: a ReLU is the last thing the model output passes before a regression loss
        (``torch.relu(self.head(h))``): an output unit that can die, every prediction then 0."""
        if rec.kind in REGRESSION_LOSSES and rec.act_src:
            self.add_finding("output_relu", True, rec.act_src[0],
                             f"{rec.act_src[1]} output fed to {rec.text} (line {rec.line}): a ReLU on the "
                             "regression output, 0 for every input once its pre-activation stays negative")

    def resquash_fact(self, resq: tuple, line: int) -> None:
        """loss_squashes_twice: the model's squashed output is squashed again by the same family on the
        way to the backpropagated loss (a TF port whose model returns ``softmax(output)`` and whose
        hand-written ``softmax_cross_entropy_with_logits`` takes ``log_softmax`` of it). Only the loss's
        own path counts: a softmax taken for reporting never reaches it."""
        src_line, text, act = resq
        self.add_finding("loss_squashes_twice", True, src_line,
                         f"{text}: the model's {act} output is squashed again on its way to the loss "
                         f"backpropagated at line {line}")

    def squash_twice_facts(self, stock: list, resq: tuple | None = None, line: int = 0) -> None:
        """loss_squashes_twice: a hand-written loss hands the model's already squashed output to a
        stock loss that squashes again (a focal loss on ``F.binary_cross_entropy_with_logits`` fed
        ``torch.sigmoid(...)``); failing that, the same family squashing the output again on the loss's
        path (``resq``, :meth:`resquash_fact`). A stock loss on its own is the rules' (output_activation with
        loss_function)."""
        for r in stock:
            if r.act not in (None, "?") and SQUASHES_ITSELF.get(r.kind) == r.act and r.act_src:
                self.add_finding("loss_squashes_twice", True, r.act_src[0],
                                 f"{r.act_src[1]} reaches {r.text} (line {r.line}) inside the "
                                 f"hand-written loss, which applies a {r.act} again")
                return
        if resq:
            self.resquash_fact(resq, line)
            return
        known = [r for r in stock if r.act != "?" and r.kind in SQUASHES_ITSELF]
        if known:
            r = known[0]
            self.add_finding("loss_squashes_twice", False, r.line,
                             f"{r.text} (line {r.line}) inside the hand-written loss receives "
                             f"{'raw outputs' if not r.act else r.act + ' outputs'}")

    def mixed_targets_facts(self, stock: list) -> None:
        """loss_mixes_targets: two class losses of the same prediction against different targets summed
        into the backpropagated loss (mixup, CutMix, FMix, a hand-made label smoothing)."""
        pair = mixed_target_pair(stock, self.tree)
        if pair is not None:
            (la, ta), (lb, tb) = pair
            self.add_finding("loss_mixes_targets", True, la,
                             f"the loss backpropagated scores one prediction against two targets: `{ta}` "
                             f"(line {la}) and `{tb}` (line {lb}): the training targets are a mix "
                             "of two labels, so the training loss cannot fall to zero and training accuracy "
                             "on the mixed inputs stays below validation's")
            return
        blend = mixup_blend(self.tree)
        if blend is not None:
            self.add_finding("loss_mixes_targets", True, blend[0],
                             f"`{blend[1]}` (line {blend[0]}) blends a batch with a shuffled copy of itself "
                             "under a Beta-drawn weight (mixup): the training targets are a mix of two labels, "
                             "so the training loss cannot fall to zero and training accuracy on the mixed "
                             "inputs stays below validation's")

    def active_mean_facts(self) -> None:
        """loss_mean_over_active_terms: a hand-written loss divided by the count of its own positive
        terms (only true is reported)."""
        found = active_mean(self.tree, assigned_values(self.tree))
        if found is not None:
            self.add_finding("loss_mean_over_active_terms", True, found[0],
                             f"`{found[1]}` (line {found[0]}) averages the loss over its active terms only: as "
                             "the model learns, the easy terms drop out and the mean of the hard ones that remain "
                             "swings or rises, so the loss's level does not measure progress")

    def copied_target_facts(self, stock: list) -> None:
        """loss_target_copied: a BCE's target is one label copied to every channel of a prediction
        the script arg-maxes over its channels (only true is reported)."""
        found = copied_target(stock, self.tree)
        if found is not None:
            call, copy = found
            self.add_finding("loss_target_copied", True, call.lineno,
                             f"`{snippet(call, SNIPPET_CHARS)}` (line {call.lineno}) gives a binary loss one "
                             f"label copied to every output channel (`{copy}`) while the script arg-maxes "
                             "those channels: each channel learns the same yes/no answer, so the loss falls "
                             "while the arg-max picks between equal channels")

    def continuous_target_facts(self, stock: list) -> None:
        """target_kind = continuous: every target a regression loss (MSE, L1, smooth L1) is given is
        data the script builds itself from continuous draws through arithmetic (a price from a
        formula plus noise), nothing that makes whole numbers on the way (class ids drawn, compared,
        arg-maxed or rounded): a regression, whatever the script scores its predictions with."""
        regs = [r for r in stock if r.kind in REGRESSION_LOSSES]
        if not regs or len(regs) != len(stock):
            return
        assigns = assigned_values(self.tree)
        calls = loss_calls(regs, self.tree)
        if calls and all(value_kind(c.args[1], assigns) == "float" for c in calls):
            c = calls[0]
            self.add_finding("target_kind", "continuous", c.lineno,
                             f"`{ast.unparse(c.args[1])}` given to `{snippet(c, SNIPPET_CHARS)}` (line {c.lineno}) "
                             "is built in the script from continuous draws through arithmetic, never made "
                             "whole numbers: a regression target")

    def class_mean_facts(self, t: TensorVal) -> None:
        """loss_averages_classes: a hand-written cross-entropy whose per-class terms (log-probabilities
        times one-hot targets) are averaged over the class axis instead of summed over it."""
        if t.class_mean:
            ml, mtext = t.class_mean
            self.add_finding("loss_averages_classes", True, ml,
                             f"`{mtext}` (line {ml}) averages the log-probabilities times one-hot targets "
                             "over every class, not only the batch: the loss and every gradient are the "
                             "cross-entropy divided by the number of classes")

    def summed_loss_facts(self, rec) -> None:
        """loss_summed_over_batch: the stock loss backpropagated sums its per-example terms
        (``reduction='sum'``) instead of averaging them (only true is reported)."""
        if rec is not None and rec.reduction == "sum":
            self.add_finding("loss_summed_over_batch", True, rec.line,
                             f"{rec.text} (line {rec.line}) sums the loss over the examples of the batch: "
                             "its level is the batch size times the per-example loss, and so is every gradient")

    def label_smoothing_facts(self, rec) -> None:
        """label_smoothing of a stock cross-entropy loss."""
        if rec is not None and rec.kind == "cross_entropy":
            if rec.label_smoothing not in (None, "?"):
                self.add_finding("label_smoothing", float(rec.label_smoothing), rec.line,
                                 f"label_smoothing={format_number(rec.label_smoothing)} in {rec.text} "
                                 f"(line {rec.line})")
            elif rec.label_smoothing is None:
                self.add_finding("label_smoothing", 0.0, rec.line,
                                 f"{rec.text} (line {rec.line}) has no label_smoothing")

    def unsafe_math_facts(self, t: TensorVal, line: int) -> None:
        """unsafe_math: log/exp/sqrt/division without a guard on the path to the loss."""
        if t.unsafe:
            kinds = []
            for k, _, _ in t.unsafe:
                if k not in kinds:
                    kinds.append(k)
            first = t.unsafe[0]
            self.add_finding("unsafe_math", kinds, first[1],
                             "; ".join(f"{txt} (line {ln})" for _, ln, txt in t.unsafe[:_SHOWN_UNSAFE]))
        else:
            self.add_finding("unsafe_math", [], line,
                             f"no log/exp/sqrt/division without a guard on the path to the loss "
                             f"backpropagated at line {line}")

    def task_type_facts(self) -> None:
        """task_type: predictions scored as classes make it a classification task."""
        scored = class_scoring(self.tree)
        if scored is not None:
            self.add_finding("task_type", "classification", scored[0],
                             f"`{scored[1]}` (line {scored[0]}) scores predictions as classes (rounded or "
                             "arg-maxed, compared with the targets): a classification task")
