"""``code:model``: dropout, regularization, explicit initialisation, frozen parameters, mixed precision
(and ``rl_training``, a reinforcement-learning loop).
"""

from __future__ import annotations

import ast
import re

from ..text import HEAD_SNIPPET_CHARS, SHORT_SNIPPET_CHARS, SNIPPET_CHARS, format_number, snippet
from ..torch_api.modules import sigmoid_input
from ..values import ModuleVal
from .added_tables import added_table
from .common import _callee, module_subtree
from .drawn_weights import drawn_weight_stack
from .flatten import feature_map_detail, feature_map_into_linear
from .pretrained import pretrained_keyword, pretrained_start
from .set_weights import random_frozen_tables, set_values_line

#: Assignments followed back from a forward's return value to the layer that made it: a bound on
#: work, not knowledge.
_MAX_ASSIGN_HOPS = 8
#: How much of an ``if``'s condition is searched for an early-stopping word (patience, no_improve, ...):
#: a bound on work (a condition longer than this is not a stopping test), and presentation: how many
#: other names the rl_training finding shows, and how many frozen assignments are kept.
_CONDITION_SEARCH_CHARS = 200
_SHOWN_OTHER_NAMES = 3
_KEPT_FROZEN = 20
#: A temporal-difference target's bootstrapped term is a product of at least three things: the discount,
#: the continuation mask and the network's value of the next state (structure, not a threshold).
_TD_FACTORS = 3


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:model"
#: (``num_classes`` is found by ``Conclusions.class_count_facts`` (common.py) and ``rl_training`` by the
#: reader before interpreting, from the same model definitions; both are this source's facts.)
FACTS = ("dropout_p", "init_constant", "init_bias_constant", "init_weight_std", "init_stack_std", "frozen_params",
         "frozen_weights",
         "requires_grad_attr_on_module", "unfreeze_guarded", "uses_amp", "grad_scaler_used", "regularization",
         "rl_training", "amp_dtype", "model_has_dropout_or_bn", "num_classes", "sigmoid_depth", "input_lookup_buffer",
         "eval_stats_never_updated", "feature_map_into_linear", "gradient_reversal", "loads_pretrained")


#: the KB's RL word lists (kb/parameters/code.yaml), read once a script as lower-case sets
_RL_WORD_LISTS = ("rl_imports", "rl_reward_names", "rl_context_names", "rl_step_result_names", "rl_env_words",
                  "rl_discount_words", "rl_done_words")


def rl_words(params) -> dict:
    """The RL word lists as sets (keys without the ``code.`` prefix) and ``rl_discount_min``."""
    words = {k: {str(w).lower() for w in params[f"code.{k}"]} for k in _RL_WORD_LISTS}
    words["rl_discount_min"] = float(params["code.rl_discount_min"])
    return words


def _stepped_object(call: ast.Call) -> str:
    """The name of the object whose ``step`` is called (``env``, ``self.train_env``), lower case."""
    obj = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(obj, ast.Name):
        return obj.id.lower()
    if isinstance(obj, ast.Attribute):
        return obj.attr.lower()
    return ""


def unpacked_env_step(node: ast.AST, words: dict) -> str | None:
    """``a, r, done = X.step(action)``: a ``step`` called with an action and its result unpacked into
    3-5 names, one of them an end flag or a reward (code.rl_step_result_names), or any names when X is
    called like an environment (code.rl_env_words: ``env``, ``train_env``) — the Gym transition
    protocol (an optimizer's or scheduler's ``step()`` returns nothing to unpack). The assignment's
    text, or None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "step" and node.value.args):
        return None
    elts = node.targets[0].elts
    if not 3 <= len(elts) <= 5:
        return None
    names = {e.id.lower() for e in elts if isinstance(e, ast.Name)}
    obj = _stepped_object(node.value)
    if names & words["rl_step_result_names"] or any(w in obj for w in words["rl_env_words"]):
        return snippet(node, SNIPPET_CHARS)
    return None


def _factors(e: ast.AST) -> list[ast.AST]:
    """The operands of a product chain (``a * b * c`` -> [a, b, c])."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
        return _factors(e.left) + _factors(e.right)
    return [e]


def _ident(e: ast.AST) -> str:
    if isinstance(e, ast.Name):
        return e.id.lower()
    if isinstance(e, ast.Attribute):
        return e.attr.lower()
    return ""


def float_names(tree: ast.AST) -> dict[str, float]:
    """Plain names bound to a float literal anywhere in the script (``disc = 0.99``)."""
    out: dict[str, float] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, float):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = n.value.value
    return out


def td_target(node: ast.AST, words: dict, floats: dict[str, float] | None = None) -> str | None:
    """A temporal-difference (Bellman) target, ``r + gamma * (1 - done) * Q(s')``: a sum one of whose
    terms multiplies a network's output (a call) by a discount (a name with code.rl_discount_words, or
    a literal in [code.rl_discount_min, 1), written or bound to a name: ``floats``) and by a
    continuation mask (``1 - done`` or a name with code.rl_done_words). That product is how
    value-based RL bootstraps, offline or online. Its text, or None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return None
    discount_words, done_words = words["rl_discount_words"], words["rl_done_words"]
    low = words["rl_discount_min"]
    floats = floats or {}

    def literal(f):
        v = f.value if isinstance(f, ast.Constant) else floats.get(f.id) if isinstance(f, ast.Name) else None
        return isinstance(v, float) and low <= v < 1

    for term in (node.left, node.right):
        fs = _factors(term)
        if len(fs) < _TD_FACTORS or not any(isinstance(f, ast.Call) for f in fs):
            continue
        discount = any(any(w in _ident(f) for w in discount_words) or literal(f) for f in fs)
        mask = any(any(w in _ident(f) for w in done_words) for f in fs) or any(
            isinstance(f, ast.BinOp) and isinstance(f.op, ast.Sub) and isinstance(f.left, ast.Constant)
            and f.left.value == 1 for f in fs)
        if discount and mask:
            return snippet(node, SNIPPET_CHARS)
    return None


def rl_markers(tree: ast.AST, params):
    """(line, description) when the script is an RL loop: an RL library import (code.rl_imports), a
    transition unpacked from a step (:func:`unpacked_env_step`), a temporal-difference target
    (:func:`td_target`), an environment stepped with rewards collected, or a reward-like name with at
    least code.rl_context_markers other RL names — several independent markers, not one word."""
    words = rl_words(params)
    imports, reward_words = words["rl_imports"], words["rl_reward_names"]
    context_words, env_words = words["rl_context_names"], words["rl_env_words"]
    names: dict[str, int] = {}
    env_step = None
    floats = float_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.split(".")[0].lower() in imports:
                    return node.lineno, f"imports {m}"
        elif isinstance(node, ast.Name) and node.id.lower() in reward_words | context_words:
            names.setdefault(node.id.lower(), node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in ("step", "reset") and isinstance(node.value, ast.Name) \
                and any(w in node.value.id.lower() for w in env_words):
            env_step = env_step or (node.lineno, f"{node.value.id}.{node.attr}()")
        elif (step := unpacked_env_step(node, words)) is not None:
            return node.lineno, f"an environment's transition unpacked ({step})"
        elif (td := td_target(node, words, floats)) is not None:
            return node.lineno, f"a temporal-difference target ({td})"
    reward_like = reward_words & set(names)
    if env_step and reward_like:
        return env_step[0], f"{env_step[1]} with {', '.join(sorted(reward_like))}"
    context = context_words & set(names)
    if len(reward_like) >= 1 and len(context) >= params["code.rl_context_markers"]:
        first = min(names[n] for n in reward_like)
        others = sorted(set(names) - reward_like)[:_SHOWN_OTHER_NAMES]
        return first, f"{', '.join(sorted(reward_like))} with {', '.join(others)}"
    return None


def guarded_unfreeze(tree: ast.AST) -> tuple[int, str] | None:
    """(line, text) of the first ``X.requires_grad = V`` (V not the constant False) that runs only
    under ``if X.requires_grad:`` on the same ``X``: it can freeze, but never unfreezes, as a frozen
    parameter fails the guard."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Attribute)
                and node.test.attr == "requires_grad"):
            continue
        owner = ast.dump(node.test.value)
        for st in node.body:
            for n in ast.walk(st):
                if isinstance(n, ast.Assign) and not (isinstance(n.value, ast.Constant) and n.value.value is False) \
                        and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                and ast.dump(t.value) == owner for t in n.targets):
                    return n.lineno, f"if {snippet(node.test, SHORT_SNIPPET_CHARS)}: {snippet(n, HEAD_SNIPPET_CHARS)}"
    return None


def buffer_lookups(tree: ast.AST) -> tuple[int, str] | None:
    """(line, text) of the first ``self.B[x]`` or ``F.embedding(x, self.B)`` inside a ``forward`` whose
    argument ``x`` picks rows of ``B``, a tensor registered with ``register_buffer``: an embedding table
    kept as a buffer, which ``.parameters()`` never yields, so no optimizer updates it. (A mask or a
    positional table is sliced by a length or indexed by positions, not by the forward's own input.)"""
    buffers = {n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
               and isinstance(n.func, ast.Attribute) and n.func.attr == "register_buffer"
               and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)}

    def own(e: ast.AST) -> bool:
        return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" \
            and e.attr in buffers
    for fn in ast.walk(tree):
        if not (buffers and isinstance(fn, ast.FunctionDef) and fn.name == "forward"):
            continue
        inputs = {a.arg for a in fn.args.args[1:]}
        for n in ast.walk(fn):
            if isinstance(n, ast.Subscript) and own(n.value) and isinstance(n.slice, ast.Name) \
                    and n.slice.id in inputs:
                return n.lineno, snippet(n, SHORT_SNIPPET_CHARS)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "embedding" \
                    and len(n.args) == 2 and isinstance(n.args[0], ast.Name) and n.args[0].id in inputs \
                    and own(n.args[1]):
                return n.lineno, snippet(n, SHORT_SNIPPET_CHARS)
    return None


def _self_attr(e: ast.AST, names: set) -> str | None:
    """``self.X`` (or ``self.X.data``) with X in ``names``: X, else None."""
    if isinstance(e, ast.Attribute) and e.attr == "data":
        e = e.value
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" and e.attr in names:
        return e.attr
    return None


def _training_branches(fn: ast.AST, flags: frozenset = frozenset(), self_training: bool = True):
    """(training body, evaluation body) of each ``if self.training:`` / ``if not self.training:`` in ``fn``
    (with ``self_training``), and of each ``if flag:`` on a parameter named in ``flags`` (see
    :func:`_flags_passed_false`)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.If):
            yield from _training_branches_of(n, flags, self_training)


def _training_branches_of(n: ast.If, flags: frozenset = frozenset(), self_training: bool = True):
    """(training body, evaluation body) when ``n`` tests ``self.training`` (or its negation), or one of
    ``flags``: a mode flag the forward takes as a parameter (``if is_training:``, slim's style)."""
    test, negated = n.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    own = isinstance(test, ast.Attribute) and test.attr == "training" and isinstance(test.value, ast.Name) \
        and test.value.id == "self"
    if self_training and own or isinstance(test, ast.Name) and test.id in flags:
        yield (n.orelse, n.body) if negated else (n.body, n.orelse)


def _flags_passed_false(tree: ast.AST) -> frozenset:
    """The keywords some call passes as a literal False (``model(val_x, is_training=False)``): a mode
    flag switched off for evaluation where the model takes its mode as an argument instead of
    ``model.eval()``."""
    return frozenset(k.arg for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
                     if k.arg and isinstance(k.value, ast.Constant) and k.value.value is False)


def _buffer_writes(tree: ast.AST, names: set) -> list[tuple[ast.AST, str]]:
    """(node, buffer) of every statement that changes a buffer named in ``names``: an assignment to
    ``X.name`` (or an element of it), or an in-place method (``X.name.mul_(...)``, ``.copy_``, ...)."""
    out = []
    for n in ast.walk(tree):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
            n, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            t = t.value if isinstance(t, ast.Subscript) else t
            if isinstance(t, ast.Attribute) and t.attr in names:
                out.append((n, t.attr))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_") \
                and not n.func.attr.startswith("_"):
            v = n.func.value
            v = v.value if isinstance(v, ast.Attribute) and v.attr == "data" else v
            if isinstance(v, ast.Attribute) and v.attr in names:
                out.append((n, v.attr))
    return out


def mode_branch(tree: ast.AST) -> tuple[int, str] | None:
    """(line, text) of the first ``if self.training:`` in a module's ``forward``: a hand-written layer
    whose output depends on the mode, as Dropout's and BatchNorm's do."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef) and fn.name == "forward":
                for n in ast.walk(fn):
                    if isinstance(n, ast.If) and any(True for _ in _training_branches_of(n)):
                        return n.lineno, f"if {snippet(n.test, SHORT_SNIPPET_CHARS)}:"
    return None


def stale_eval_buffers(tree: ast.AST) -> tuple[int, str] | None:
    """(line, text) of the first read of a registered buffer in the evaluation branch of a module's
    ``forward`` (``if self.training: <batch statistics> else: <self.B>``) that the training branch
    does not read, when nothing the script runs ever writes B: its only writes sit in methods no code
    calls (an update op never run), or there are none. A hand-written normalisation layer then
    evaluates with the statistics it was created with, whatever the training taught it. None when
    the script never switches a model to evaluation, or loads weights (a checkpoint brings the
    statistics). A forward that takes its mode as an argument (``def forward(self, x, is_training)``,
    ``if is_training:``) is read the same way where some call passes that flag as False."""
    evals = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and (
        n.func.attr == "eval" or n.func.attr == "train" and n.args and isinstance(n.args[0], ast.Constant)
        and n.args[0].value is False) for n in ast.walk(tree))
    flags_off = _flags_passed_false(tree)
    if not (evals or flags_off) or _weight_loads(tree):
        return None
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        buffers = {n.args[0].value for n in ast.walk(cls) if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Attribute) and n.func.attr == "register_buffer"
                   and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)}
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        if not buffers or forward is None:
            continue
        flags = frozenset(a.arg for a in forward.args.args + forward.args.kwonlyargs) & flags_off
        for train, evaluation in _training_branches(forward, flags, evals):
            in_train = {_self_attr(n, buffers) for st in train for n in ast.walk(st)}
            reads = [(n, b) for st in evaluation for n in ast.walk(st)
                     if (b := _self_attr(n, buffers)) is not None and b not in in_train]
            if not reads:
                continue
            stale = {b for _, b in reads}
            methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
            for node, b in _buffer_writes(tree, stale):
                home = next((m for m in methods.values() if m.name != "__init__" and any(
                    x is node for x in ast.walk(m))), None)
                if home is None or home.name == "forward" or _mentioned(tree, home):
                    stale.discard(b)
            hit = next(((n, b) for n, b in reads if b in stale), None)
            if hit is not None:
                return hit[0].lineno, snippet(hit[0], SHORT_SNIPPET_CHARS)
    return None


def _mentioned(tree: ast.AST, fn: ast.FunctionDef) -> bool:
    """The method's name appears anywhere outside its own definition (a call, a hook, a getattr)."""
    own = {id(x) for x in ast.walk(fn)}
    for n in ast.walk(tree):
        if id(n) in own:
            continue
        if isinstance(n, ast.Attribute) and n.attr == fn.name or isinstance(n, ast.Name) and n.id == fn.name \
                or isinstance(n, ast.Constant) and n.value == fn.name:
            return True
    return False


class ModelFacts:
    """code:model: dropout, regularization, initialisation, frozen parameters, mixed precision."""

    def model_facts(self, trained: list[ModuleVal]) -> None:
        """code:model facts over the trained models (or, with none traced, every top-level model)."""
        models = trained or [m for m in self.modules if m.kind in (
            "local", "sequential", "external", "opaque") and m.parent is None]
        visible = bool(models) and all(m.kind in ("local", "sequential", "layer")
                                       for m in models)
        pretrained_ok = bool(models) and all(m.kind in ("local", "sequential", "layer",
                                                        "external") for m in models)
        first_line = models[0].line if models else 1
        drops, known = self.dropout_facts(models, visible, first_line)
        self.regularization_facts(models, visible, first_line, drops, known)
        self.initialisation_facts(pretrained_ok, first_line)
        self.frozen_params_fact(trained, pretrained_ok, first_line)
        self.frozen_weights_fact(visible)
        start = pretrained_start(self.tree)
        if start is not None:
            self.add_finding("loads_pretrained", True, start[0],
                             f"`{start[1]}` (line {start[0]}) starts the model from pretrained weights")
        self.task_type_facts()
        self.module_requires_grad_facts()
        self.guarded_unfreeze_facts()
        self.buffer_lookup_facts()
        self.stale_eval_buffer_facts()
        hit = feature_map_into_linear(self.tree)
        if hit is not None:
            self.add_finding("feature_map_into_linear", True, hit.lineno, feature_map_detail(hit))
        self.mixed_precision_facts(models, first_line)
        self.sigmoid_depth_fact()
        grl = gradient_reversal(self.tree)
        if grl is not None:
            self.add_finding("gradient_reversal", True, grl.lineno,
                             f"`{grl.name}` (line {grl.lineno}) is an autograd Function whose backward returns the "
                             "negated gradient: a gradient-reversal layer, trained adversarially against a domain "
                             "or nuisance classifier")

    def sigmoid_depth_fact(self) -> None:
        """sigmoid_depth: the most nn.Sigmoid layers one builder (a module's ``__init__``, a function, the
        script's top level) stacks, a layer built in a ``for _ in range(n)`` loop counted n times."""
        builders: dict[int, dict[int, tuple]] = {}
        for line, text, site, builder, trips in self.records["sigmoid_layers"]:
            sites = builders.setdefault(builder, {})
            if site not in sites or trips > sites[site][2]:
                sites[site] = (line, text, trips)
        if not builders:
            return
        sites = max(builders.values(), key=lambda b: sum(x[2] for x in b.values()))
        depth = sum(x[2] for x in sites.values())
        parts = sorted(sites.values())
        self.add_finding("sigmoid_depth", depth, parts[0][0], "; ".join(
            f"`{text}` (line {line})" + (f" built {trips} times in a loop" if trips > 1 else "")
            for line, text, trips in parts))

    def dropout_facts(self, models: list, visible: bool, first_line: int) -> tuple[list, list]:
        """dropout_p: the largest dropout probability seen; returns (every dropout, those with a known p)."""
        drops = [d for d in self.records["dropout"]]
        known = [d for d in drops if isinstance(d[1], (int, float)) and not isinstance(d[1],
                                                                                       bool)]
        if known:
            best = max(known, key=lambda d: d[1])
            # beyond_probe: a functional dropout (F.dropout) is no module, so the live probe that
            # reads the model's Dropout layers does not see it and would report less
            functional = {"beyond_probe": True, "why": "a functional dropout is no layer of the model"} \
                if best[-1] is True else {}
            self.add_finding("dropout_p", float(best[1]), best[0], f"`{best[2]}` (line {best[0]})", **functional)
        elif drops:
            self.add_unresolved(f"line {drops[0][0]}: dropout probability of `{drops[0][2]}` is computed "
                                f"at run time")
        elif visible:
            self.add_finding("dropout_p", 0.0, first_line,
                             f"no Dropout in {', '.join(m.describe() for m in models)}")
        return drops, known

    def regularization_facts(self, models: list, visible: bool, first_line: int, drops: list,
                             known: list) -> None:
        """regularization (dropout, weight decay, label smoothing, augmentation, BatchNorm, early stopping)
        and model_has_dropout_or_bn."""
        reg: list[tuple[str, int, str]] = []
        if any((d[1] or 0) > 0 for d in known) or (drops and not known):
            d = known[0] if known else drops[0]
            reg.append(("dropout", d[0], d[2]))
        wd = next((f for f in self.findings if f.fact == "weight_decay"), None)
        if wd is not None and wd.value and wd.value > 0:
            reg.append(("weight_decay", int(wd.source.rsplit(":", 1)[-1]),
                        f"weight_decay={format_number(wd.value)}"))
        ls = next((f for f in self.findings if f.fact == "label_smoothing"), None)
        if ls is not None and ls.value and ls.value > 0:
            reg.append(("label_smoothing", int(ls.source.rsplit(":", 1)[-1]),
                        f"label_smoothing={format_number(ls.value)}"))
        elif self.records["ls"] and any(isinstance(x[1], (int, float)) and x[1] > 0
                                        for x in self.records["ls"]):
            x = self.records["ls"][0]
            reg.append(("label_smoothing", x[0], x[2]))
        if self.records["aug"]:
            a = self.records["aug"][0]
            reg.append(("augmentation", a[0], a[1]))
        if self.records["bn"]:
            b = self.records["bn"][0]
            reg.append(("batchnorm", b[0], b[1]))
        early = self.early_stopping()
        if early:
            reg.append(("early_stopping", early[0], early[1]))
        if reg:
            self.add_finding("regularization", [r[0] for r in reg], reg[0][1],
                             "; ".join(f"{r[0]}: {r[2]} (line {r[1]})" for r in reg),
                             lines={r[0]: r[1] for r in reg})
        elif visible:
            self.add_finding("regularization", [], first_line,
                             f"no dropout, weight decay, label smoothing, augmentation, BatchNorm or "
                             f"early stopping in {self.basename}")
        elif models:
            self.add_unresolved(f"regularization inside {models[0].describe()} is not visible in "
                                f"{self.basename}")
        branch = mode_branch(self.tree)
        if self.records["dropout"] or self.records["bn"]:
            x = (self.records["bn"] or self.records["dropout"])[0]
            self.add_finding("model_has_dropout_or_bn", True, x[0], f"`{x[-1]}` (line {x[0]})")
        elif branch is not None:
            self.add_finding("model_has_dropout_or_bn", True, branch[0],
                             f"`{branch[1]}` (line {branch[0]}): a hand-written layer that computes "
                             "differently in training and in evaluation")
        elif visible:
            self.add_finding("model_has_dropout_or_bn", False, first_line,
                             "no Dropout or BatchNorm layer in the model")

    def initialisation_facts(self, pretrained_ok: bool, first_line: int) -> None:
        """init_constant (weights set to one constant) and frozen_params."""
        inits = [r for r in self.records["init"] if not r[3]]
        const = [r for r in inits if r[2] in ("zeros_", "ones_", "constant_", "zero_", "fill_")]
        norms = [r for r in const if r[8]]
        const = [r for r in const if not r[8]]
        tables = [r for r in const if r[7]]
        const = [r for r in const if not r[7]]
        hidden = [r for r in const if not r[6]]
        if hidden:
            r = hidden[0]
            self.add_finding("init_constant", True, r[0],
                             f"`{r[5]}` (line {r[0]}) sets {r[1]} to one constant")
        elif const and pretrained_ok:
            r = const[0]
            self.add_finding("init_constant", False, r[0],
                             f"`{r[5]}` (line {r[0]}) sets only the last layer of a block ({r[1]}) to one "
                             f"constant (a zero one is an identity start): the hidden weights stay random")
        elif tables and pretrained_ok:
            r = tables[0]
            self.add_finding("init_constant", False, r[0],
                             f"`{r[5]}` (line {r[0]}) sets only an embedding table ({r[1]}) to one constant: "
                             f"its rows are picked by index and told apart by the data, no layer's units start alike")
        elif norms and pretrained_ok:
            r = norms[0]
            self.add_finding("init_constant", False, r[0],
                             f"`{r[5]}` (line {r[0]}) sets only a normalisation layer's gain or shift ({r[1]}) "
                             f"to one constant, that layer's own default: the weights of its units stay random")
        elif pretrained_ok:
            self.add_finding("init_constant", False, first_line,
                             f"no constant or zero weight initialisation in {self.basename}")
        self.init_value_facts()

    def frozen_params_fact(self, trained: list[ModuleVal], pretrained_ok: bool, first_line: int) -> None:
        """frozen_params: what requires_grad=False freezes in the models the loss trains. A module frozen
        outside all of them (a fixed feature extractor whose outputs reach the loss only as data, cut
        from its graph: features computed under no_grad first) is no part of what trains; as the live
        probe sees only the model the run binds, it is left out, and said so."""
        fr = self.records["frozen"] or self.frozen_by_assignment()
        if not self.unfreezes():
            fr = fr + [(ln, text, None, None) for ln, text in random_frozen_tables(self.tree)]
        outside = [r for r in fr if trained and self.frozen_outside(r[2], trained)]
        fr = [r for r in fr if r not in outside]
        if fr:
            self.add_finding("frozen_params", [t for _, t, _, _ in fr], fr[0][0],
                             "; ".join(f"requires_grad=False on {t} (line {ln})" for ln, t, _, _ in fr))
        elif outside:
            ln, t = outside[0][0], outside[0][1]
            names = ", ".join(m.var or m.path or m.qual for m in trained)
            self.add_finding("frozen_params", [], ln,
                             f"requires_grad=False on {t} (line {ln}) freezes a module outside the model the "
                             f"loss trains ({names}): its output reaches the loss only cut from its graph, as "
                             f"data; nothing of the trained model is frozen")
        elif pretrained_ok:
            self.add_finding("frozen_params", [], first_line,
                             f"no requires_grad=False in {self.basename}")

    def frozen_outside(self, module, trained: list[ModuleVal]) -> bool:
        """``module`` (a frozen record's module) shares no layer with any of ``trained``: neither one of them,
        nor inside one, nor holding one. A module the reader could not bind (``model[:4]``, a slice it does
        not follow) may be any of them: never outside."""
        if not isinstance(module, ModuleVal) or module.kind == "unknown":
            return False
        mine = self.subtree_ids(module)
        return not any(mine & self.subtree_ids(t) for t in trained)

    @staticmethod
    def subtree_ids(m: ModuleVal) -> set[int]:
        """The ids of ``m`` and of every module it holds."""
        return {x.id for x in module_subtree([m])}

    def frozen_by_assignment(self) -> list:
        """``p.requires_grad = False`` statements and ``x.requires_grad_(False)`` calls the interpreter
        could not tie to a module (a loop over a slice of a model's layers): each freezes what its
        target names. None when the script also sets requires_grad to True or calls requires_grad_
        with anything but False (it may unfreeze them)."""
        out = []
        if self.unfreezes():   # a script that unfreezes anything says nothing either way
            return []
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is False:
                for t in n.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "requires_grad":
                        out.append((n.lineno, snippet(t.value, SHORT_SNIPPET_CHARS), None, None))
            elif _requires_grad_call(n) is False:
                out.append((n.lineno, snippet(n.func.value, SHORT_SNIPPET_CHARS), None, None))
        return sorted(out)[:_KEPT_FROZEN]

    def unfreezes(self) -> bool:
        """Whether the script sets requires_grad to True anywhere (or calls requires_grad_ with anything
        but False): it may unfreeze what it froze."""
        return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is True
                   and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets)
                   or _requires_grad_call(n) is True for n in ast.walk(self.tree))

    def frozen_weights_fact(self, visible: bool) -> None:
        """frozen_weights: what the frozen parameters hold. ``trained_here`` when they were frozen
        after a backward pass of this script (a teacher or a first stage trained, then frozen);
        ``loaded`` when the script loads weights (``load_state_dict``, ``torch.load``,
        ``from_pretrained``, ``pretrained=``/``weights=``); ``assigned`` when the function that freezes them
        also writes fixed values into a weight (a mean shift, a filter kernel: an operator frozen on purpose);
        ``random_init`` when the model is built in the script (its layers visible) and none of these holds:
        they keep their random init for good."""
        fr = next((f for f in self.findings if f.fact == "frozen_params"), None)
        if fr is None or not fr.value:
            return
        line = int(fr.source.rsplit(":", 1)[-1])
        backs = [e.line for e in self.events if e.kind == "backward"]
        trained_first = bool(self.records["frozen_after_backward"]) or (
            not self.records["frozen"] and bool(backs) and min(backs) < line)
        loads = _weight_loads(self.tree)
        if trained_first:
            self.add_finding("frozen_weights", "trained_here", line,
                             "frozen after an earlier backward pass trained them (a teacher or a first "
                             "stage): a deliberate freeze")
        elif loads:
            self.add_finding("frozen_weights", "loaded", line,
                             f"frozen, and weights are loaded (line {loads[0]})")
        elif visible and (fixed := set_values_line(
                self.tree, [r[:2] for r in self.records["frozen"] or self.frozen_by_assignment()])) is not None:
            self.add_finding("frozen_weights", "assigned", line,
                             f"the frozen parameters (line {line}) hold values the script writes into them "
                             f"(line {fixed}): a fixed operator, frozen on purpose")
        elif visible:
            self.add_finding("frozen_weights", "random_init", line,
                             f"the frozen parameters (line {line}) are never trained and no weights are "
                             f"loaded into them in {self.basename}: they keep their random init")

    def init_value_facts(self) -> None:
        """init_bias_constant (the value biases are set to, when not zero) and init_weight_std (the
        largest std weights are drawn with by an explicit normal init, embeddings aside)."""
        recs = self.records["init"]
        bias = [r for r in recs if r[3] and r[2] in ("constant_", "fill_") and isinstance(r[4], (int, float))
                and not isinstance(r[4], bool) and r[4] != 0]
        heads = _output_layers(self.tree)
        named = _heads_named_at_run_time(self.tree)
        prior = [r for r in bias if _is_output_layer(r[1], r[6], heads) or _is_named_head_output(r[1], r[6], named)]
        gates = _gate_layers(self.tree)
        gated = [r for r in bias if r not in prior and _is_output_layer(r[1], r[6], gates)]
        bias = [r for r in bias if r not in prior and r not in gated]
        if gated and not bias:
            self.notes.append(f"`{gated[0][5]}` (line {gated[0][0]}) sets the bias of a layer read only through a "
                              f"sigmoid ({gated[0][1]}): a gate's bias (a highway or LSTM-style gate), behind no ReLU")
        if prior and not bias:
            self.notes.append(f"`{prior[0][5]}` (line {prior[0][0]}) sets the bias of the layer the model "
                              f"returns ({prior[0][1]}): a prior on the output logits, behind no ReLU")
        if bias:
            r = min(bias, key=lambda r: r[4])
            self.add_finding("init_bias_constant", float(r[4]), r[0],
                             f"`{r[5]}` (line {r[0]}) sets {r[1]} to {r[4]:g}")
        normal = [r for r in recs if not r[3] and r[2] in ("normal_", "trunc_normal_")
                  and isinstance(r[4], (int, float)) and not isinstance(r[4], bool) and r[4] > 0
                  and "emb" not in r[1].lower()] + self.drawn_weight_matrices()
        if normal:
            r = max(normal, key=lambda r: r[4])
            self.add_finding("init_weight_std", float(r[4]), r[0],
                             f"`{r[5]}` (line {r[0]}) draws {r[1]} from a normal with std {r[4]:g}")
        stack = drawn_weight_stack(self.tree)
        if stack is not None:
            self.add_finding("init_stack_std", stack[1], stack[0],
                             f"`{stack[3]}` (line {stack[0]}): the script draws its {stack[2]}+ weight matrices "
                             f"itself, the widest with std {stack[1]:g}")

    def drawn_weight_matrices(self) -> list[tuple]:
        """``nn.Parameter(torch.randn(a, b) * s)`` as init records (line, name, "normal_", False, s, text):
        a matrix the script draws itself, whose smaller of its last two sizes (its fan-in either way
        round) is at least ``code.init_min_fan_in``, embedding tables aside (their rows are picked, not
        summed: N(0, 1) is nn.Embedding's own start), and so a parameter the model only adds to its
        activations (a position embedding, a class token: ``added_tables``)."""
        names = {(n.value.lineno, n.value.col_offset): snippet(n.targets[0], SHORT_SNIPPET_CHARS)
                 for n in ast.walk(self.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1}
        out = []
        for line, col, std, shape, text in self.records["param_draw"]:
            name = names.get((line, col), "a parameter")
            if len(shape) >= 2 and min(shape[-2:]) >= self.params["code.init_min_fan_in"] and \
                    "emb" not in name.lower() and not added_table(self.tree, name):
                out.append((line, f"{name} ({' x '.join(map(str, shape))})", "normal_", False, std, text))
        return out

    def module_requires_grad_facts(self) -> None:
        """requires_grad_attr_on_module: ``module.requires_grad = True`` changes nothing."""
        mrg = self.records["module_rg"]
        if mrg:
            self.add_finding("requires_grad_attr_on_module", True, mrg[0][0],
                             f"`{mrg[0][1]}` (line {mrg[0][0]}) sets a plain attribute on a Module: its parameters' "
                             "requires_grad does not change, nothing is unfrozen (use .requires_grad_(True) or loop "
                             "over .parameters())")

    def guarded_unfreeze_facts(self) -> None:
        """unfreeze_guarded: an unfreeze that only touches parameters already requiring grad."""
        g = guarded_unfreeze(self.tree)
        if g is not None:
            self.add_finding("unfreeze_guarded", True, g[0],
                             f"`{g[1]}` (line {g[0]}) sets requires_grad only on parameters that already "
                             "require grad: a frozen parameter fails the test, so nothing frozen is ever unfrozen")

    def buffer_lookup_facts(self) -> None:
        """input_lookup_buffer: the model's input picks rows of a buffer (an embedding never trained)."""
        g = buffer_lookups(self.tree)
        if g is not None:
            self.add_finding("input_lookup_buffer", True, g[0],
                             f"`{g[1]}` (line {g[0]}) looks the input up in a registered buffer: an embedding "
                             "table outside .parameters(), which no optimizer updates")

    def stale_eval_buffer_facts(self) -> None:
        """eval_stats_never_updated: evaluation reads running statistics no code updates."""
        g = stale_eval_buffers(self.tree)
        if g is not None:
            self.add_finding("eval_stats_never_updated", True, g[0],
                             f"`{g[1]}` (line {g[0]}) is what the model uses in evaluation mode, a registered "
                             "buffer that no code the script runs ever updates: evaluation normalises with the "
                             "statistics the layer was created with, not the ones training saw")

    def mixed_precision_facts(self, models: list, first_line: int) -> None:
        """uses_amp, amp_dtype and grad_scaler_used."""
        amp = self.records["amp"]
        if amp:
            a = amp[0]
            self.add_finding("uses_amp", True, a[0], f"`{a[2]}` (line {a[0]})")
            if a[1]:
                self.add_finding("amp_dtype", a[1], a[0], f"`{a[2]}` runs in {a[1]} (line {a[0]})")
        elif models or self.events:
            self.add_finding("uses_amp", False, first_line,
                             f"no autocast, GradScaler or half precision in {self.basename}")
        scalers = self.scalers
        if scalers:
            s = scalers[0]
            if s.enabled is not False:
                self.add_finding("grad_scaler_used", True, s.line, f"GradScaler created at line {s.line}")
            else:
                self.add_finding("grad_scaler_used", False, s.line,
                                 f"GradScaler at line {s.line} is disabled")
        elif amp:
            a = amp[0]
            self.add_finding("grad_scaler_used", False, a[0],
                             f"mixed precision at line {a[0]} without a GradScaler")

    def early_stopping(self) -> tuple[int, str] | None:
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and snippet(n.func).endswith("EarlyStopping"):
                return (n.lineno, snippet(n, SNIPPET_CHARS))
        for n in ast.walk(self.tree):
            if isinstance(n, ast.If) and re.search(r"(patience|early_stop|no_improve|"
                                                   r"bad_epochs|epochs_without)",
                                                   snippet(n.test, _CONDITION_SEARCH_CHARS), re.I):
                if any(isinstance(x, (ast.Break, ast.Return)) for x in ast.walk(n)):
                    return (n.lineno, f"if {snippet(n.test, HEAD_SNIPPET_CHARS)}: break")
        return None


#: calls that pass a layer's output through unchanged in what it is (a squashing, a reshape)
_PASS_THROUGH = {"sigmoid", "softmax", "log_softmax", "tanh", "squeeze", "view", "reshape", "flatten",
                 "float", "contiguous", "unsqueeze", "double"}


def _output_layers(tree: ast.AST) -> set[str]:
    """The attribute names of the layers whose output a model's ``forward`` returns, through a
    squashing or a reshape (``return torch.sigmoid(self.cls(h)).squeeze(1)`` -> ``cls``; a name
    assigned earlier in ``forward`` is followed to its last assignment before the return). A forward
    that returns several outputs at once (``return self.class_net(f), self.box_net(f)``: a detector's
    heads) returns each of them."""
    out: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "forward"):
                continue
            assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                       and isinstance(n.targets[0], ast.Name)]
            for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None):
                values = ret.value.elts if isinstance(ret.value, (ast.Tuple, ast.List)) else [ret.value]
                out |= {name for v in values if (name := _returned_layer(v, ret.lineno, assigns))}
    return out


def _gate_layers(tree: ast.AST) -> set[str]:
    """The attribute names of the layers a module reads only through a sigmoid (``g =
    torch.sigmoid(self.t(x))``: a highway or LSTM-style gate, whose bias is set negative on purpose
    to start it closed) or never reads at all: no ReLU sits behind either, so a negative constant
    bias on them kills no unit. A layer passed anywhere else (``self.net = nn.Sequential(self.fc,
    ...)``, ``relu(self.t(x))``, ``for m in [self.a, self.b]``) is none of them."""
    out: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        methods = [f for f in cls.body if isinstance(f, ast.FunctionDef)]
        if not any(f.name == "forward" for f in methods):
            continue
        owned = {t.attr for f in methods if f.name == "__init__" for n in ast.walk(f)
                 if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
        ok = set(owned)
        for f in methods:
            sig_inputs = _sigmoid_inputs(f)
            for parent in ast.walk(f):
                for child in ast.iter_child_nodes(parent):
                    if isinstance(child, ast.Attribute) and child.attr in ok and isinstance(child.value, ast.Name) \
                            and child.value.id == "self" and isinstance(child.ctx, ast.Load) \
                            and not _read_as_gate(parent, child, f.name == "__init__", sig_inputs):
                        ok.discard(child.attr)
        out |= ok
    return out


def _sigmoid_inputs(fn: ast.FunctionDef) -> set[int]:
    """The ids of the nodes a function squashes with a functional sigmoid (``torch.sigmoid(self.t(x))``,
    ``self.t(x).sigmoid()``: :func:`~..torch_api.modules.sigmoid_input`)."""
    return {id(x) for x in map(sigmoid_input, ast.walk(fn)) if x is not None}


def _read_as_gate(parent: ast.AST, ref: ast.Attribute, in_init: bool, sig_inputs: set[int]) -> bool:
    """``self.X`` (``ref``, a child of ``parent``) read where a gate is: its ``.weight``/``.bias``
    set up in ``__init__``, or called as the only argument of a sigmoid (``sig_inputs``)."""
    if isinstance(parent, ast.Attribute) and parent.attr in ("weight", "bias"):
        return in_init
    return isinstance(parent, ast.Call) and parent.func is ref and id(parent) in sig_inputs


def _returned_layer(e: ast.AST, line: int, assigns: list, depth: int = 0) -> str | None:
    """The ``self.X`` layer whose call produces ``e`` (see :func:`_output_layers`), or None."""
    if depth > _MAX_ASSIGN_HOPS:
        return None
    if isinstance(e, ast.Name):
        prior = [a for a in assigns if a.targets[0].id == e.id and a.lineno < line]
        if prior:
            last = max(prior, key=lambda a: a.lineno)
            return _returned_layer(last.value, last.lineno, assigns, depth + 1)
        return None
    if not isinstance(e, ast.Call):
        return None
    f = e.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
        return f.attr
    if isinstance(f, ast.Attribute) and f.attr in _PASS_THROUGH:
        # x.squeeze(1) / torch.sigmoid(x) / F.log_softmax(x, -1)
        inner = f.value if not (isinstance(f.value, ast.Name) and f.value.id in ("torch", "F")) else \
            (e.args[0] if e.args else None)
        return _returned_layer(inner, line, assigns, depth + 1) if inner is not None else None
    return None


def _heads_named_at_run_time(tree: ast.AST) -> set[str]:
    """Local containers a module registers under a name it computes (``fc = nn.Sequential(...)``,
    ``self.__setattr__(head, fc)``, ``setattr(self, head, fc)``, ``self.add_module(head, fc)``: a
    detector's heads built in a loop over their names, as CenterNet does) when a ``forward`` returns
    what the layers it fetches by name give (``return [{h: self.__getattr__(h)(x) for h in self.heads}]``):
    each such container's last layer is an output the model returns, behind no ReLU of its own."""
    def fetched(n: ast.AST) -> bool:          # self.__getattr__(k)(x) / getattr(self, k)(x)
        f = n.func if isinstance(n, ast.Call) else None
        if not isinstance(f, ast.Call):
            return False
        g = f.func
        return (isinstance(g, ast.Attribute) and g.attr == "__getattr__") or (
            isinstance(g, ast.Name) and g.id == "getattr" and len(f.args) == 2)

    returns_fetched = any(
        isinstance(fn, ast.FunctionDef) and fn.name == "forward"
        and any(isinstance(r, ast.Return) and r.value is not None and any(fetched(c) for c in ast.walk(r.value))
                for r in ast.walk(fn))
        for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for fn in cls.body)
    if not returns_fetched:
        return set()
    out: set[str] = set()
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or len(n.args) < 2:
            continue
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        args = n.args[1:] if name == "setattr" else n.args
        if name in ("__setattr__", "add_module", "setattr") and len(args) == 2 and isinstance(args[1], ast.Name):
            out.add(args[1].id)
    return out


def _is_named_head_output(text: str, last_of_container: bool, named: set) -> bool:
    """An init target on the last layer of a local container registered under a computed name
    (``fc[-1].bias``: :func:`_heads_named_at_run_time`)."""
    m = re.match(r"(\w+)\[-1\]\.(?:weight|bias)\b", text)
    return bool(m) and last_of_container and m.group(1) in named


def _is_output_layer(text: str, last_of_container: bool, heads: set) -> bool:
    """An init target (``self.cls.bias``, ``model.head[-1].bias``) on a layer a forward returns."""
    m = re.match(r"\w+\.(\w+)(\[-1\])?\.(?:weight|bias)\b", text)
    return bool(m) and m.group(1) in heads and (m.group(2) is None or last_of_container)


#: calls that put trained weights into a model (a freeze of them is deliberate)
WEIGHT_LOADERS = ("load_state_dict", "from_pretrained", "load_from_checkpoint", "load_checkpoint",
                  "load_weights")


def _requires_grad_call(n: ast.AST) -> bool | None:
    """``x.requires_grad_(False)``: False; ``x.requires_grad_()``/``(True)``/``(flag)``: True (it may
    unfreeze); anything else None."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "requires_grad_"):
        return None
    arg = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "requires_grad"), None)
    return not (isinstance(arg, ast.Constant) and arg.value is False)


def _weight_loads(tree: ast.AST) -> list[int]:
    """Lines that load weights into a model: a loader method, ``torch.load``/``hub.load``, or a
    constructor asked for pretrained weights (``pretrained=True``, a ``weights=`` naming trained weights:
    :func:`~.pretrained.pretrained_keyword`, so ``np.bincount(x, weights=y)`` is none)."""
    out = []
    drawn = {ln for ln, _ in random_frozen_tables(tree)}   # a table of random numbers loads nothing
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or n.lineno in drawn:
            continue
        name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        base = n.func.value if isinstance(n.func, ast.Attribute) else None
        if name in WEIGHT_LOADERS or name == "load" and isinstance(base, (ast.Name, ast.Attribute)) \
                and snippet(base, 20).split(".")[-1] in ("torch", "hub"):
            out.append(n.lineno)
        elif any(pretrained_keyword(k) for k in n.keywords):
            out.append(n.lineno)
    return sorted(out)


def gradient_reversal(tree: ast.AST) -> ast.ClassDef | None:
    """The first ``torch.autograd.Function`` subclass whose ``backward`` returns its incoming gradient
    negated (``return -ctx.lam * g, None``, ``g.neg()``): the gradient-reversal layer of domain-adversarial
    training, whose validation split is usually the target domain the labels never came from."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if not any((b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) == "Function"
                   for b in cls.bases):
            continue
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "backward" and len(fn.args.args) >= 2):
                continue
            grad = fn.args.args[-1].arg
            for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None):
                first = ret.value.elts[0] if isinstance(ret.value, ast.Tuple) and ret.value.elts else ret.value
                if _negates(first, grad):
                    return cls
    return None


def _negates(e: ast.AST, grad: str) -> bool:
    """Whether ``e`` is the gradient named ``grad`` negated: ``-g``, ``-lam * g``, ``g * -lam``, ``g.neg()``,
    ``torch.neg(g)``, ``g.neg() * lam``."""
    uses = any(isinstance(n, ast.Name) and n.id == grad for n in ast.walk(e))
    neg = any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) for n in ast.walk(e)) \
        or any(isinstance(n, ast.Call) and _callee(n) in ("neg", "negative") for n in ast.walk(e))
    return uses and neg
