"""The code reader: facts read from a Python training script without running it.

Evidence sources ``code:optimizer``, ``code:loss``, ``code:loop``, ``code:data`` and
``code:model`` (kb/sources.yaml). The script is parsed with :mod:`ast` and walked by a small
abstract interpreter: it is never imported, never executed, and nothing here imports torch.

The interpreter follows the script the way Python would run it, top to bottom, but with abstract
values: ``import torch.nn as nn`` binds ``nn`` to the name ``torch.nn``; ``crit =
nn.CrossEntropyLoss()`` binds a stock-loss value; ``model = Net()`` runs ``Net.__init__`` to learn
its layers; ``model(x)`` runs ``Net.forward`` so a softmax on its return is seen; a call to a
helper function defined in the same file (``train_one_epoch(model, loader, opt)``) is followed
into its body with the caller's values. Loop bodies run twice, so state that carries over from
one epoch to the next (``model.eval()`` never undone by ``model.train()``) shows. Tensors carry
their provenance: which model call produced them, which squashing was applied, which stock loss
consumed them, and where the autograd graph was cut (``.detach()``, ``.item()``, ``.numpy()``,
``torch.no_grad()``, re-wrapping with ``torch.tensor``).

Public API: :func:`analyze_code` ``(path) -> CodeReport``. Every finding's source is
``code:<basename>:<line>`` and its detail one short sentence quoting what was seen. What could
not be resolved goes to ``CodeReport.unresolved`` instead of being guessed.

Facts produced (names from kb/facts.yaml), each only when the script shows it:

- optimizer: ``optimizer``, ``learning_rate`` (keyword, positional, argparse default, a value
  from a config file next to the script, or the class default), ``weight_decay``,
  ``params_not_in_optimizer`` (another instance trained, a subset while the whole model trains,
  a layer replaced after the optimizer was built, layers in a plain list/dict);
- loss: ``loss_function``, ``output_activation`` (what squashing reaches the loss),
  ``custom_loss``, ``label_smoothing``, ``unsafe_math`` (log/exp/sqrt/division without a guard
  on the path to the loss);
- loop: ``zero_grad_called``, ``optimizer_not_zeroed`` (one of several optimizers never zeroed),
  ``grads_all_zero`` (gradients cleared between backward and step),
  ``clip_max_norm``, ``scheduler``, ``scheduler_step_per_batch``,
  ``scheduler_designed_per_batch``, ``warmup``, ``graph_cut``, ``model_mode_in_validation``,
  ``model_mode_in_training``;
- data: ``shuffle``, ``batch_size``, ``num_workers`` of the loader the training loop iterates;
- model: ``dropout_p``, ``regularization``, ``model_has_dropout_or_bn``, ``init_constant``,
  ``frozen_params``, ``uses_amp``, ``amp_dtype``, ``grad_scaler_used``.

Negative facts ("no Dropout", "frozen_params == []") are claimed only when the model is fully
visible in the file; for a model imported from elsewhere the reader says so in ``unresolved``.
"""

from __future__ import annotations

import ast
import copy
import os
import re
import tokenize
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding
from traindx.probes.readers.config import (CONFIG_SUFFIXES, UNRESOLVED, InputError as _CfgError,
                                   arith, load_config, read_argparse)

__all__ = ["analyze_code", "CodeReport", "parse_source"]

_MAX_OPS = 400_000        # abstract-interpretation budget per file
_MAX_DEPTH = 24           # nested inlined calls
_LOOP_LITERAL_MAX = 6     # a loop over a literal list runs once per item up to this many


# --------------------------------------------------------------------------------------------
# Reading the file
# --------------------------------------------------------------------------------------------

def parse_source(path: str | os.PathLike) -> ast.Module:
    """Parse a Python file; InputError (file and line) if missing, undecodable or invalid."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise InputError("no such Python file", path=p)
    if os.path.isdir(p):
        raise InputError("is a directory, expected a Python file", path=p)
    from traindx.engine import bounded
    data = bounded.read_bytes(p, bounded.limits().max_file_bytes, "Python file")
    text = _decode(p, data)
    try:
        return ast.parse(text, filename=p)
    except (RecursionError, MemoryError):   # CPython's parser gives up on very deep expressions
        raise InputError("expression nested too deeply for Python's parser", path=p) from None
    except SyntaxError as err:
        raise InputError(f"invalid Python: {err.msg}", path=p, line=err.lineno,
                         col=err.offset) from None
    except ValueError as err:  # null bytes
        line = data[: data.find(b"\x00")].count(b"\n") + 1 if b"\x00" in data else None
        raise InputError(f"invalid Python: {err}", path=p, line=line) from None


def _decode(path: str, data: bytes) -> str:
    """UTF-8 (or the PEP 263 coding the file declares); InputError naming the line otherwise."""
    import io

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise InputError(f"invalid Python: {err}", path=path, line=1) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})",
                         path=path, line=line, hint="save the file as UTF-8") from None
    except LookupError:
        raise InputError(f"unknown source encoding {encoding!r}", path=path, line=1) from None


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------

@dataclass
class CodeReport:
    """What the code reader found in one script.

    ``findings``: facts with ``source="code:<basename>:<line>"``. ``unresolved``: things that
    were seen but could not be resolved statically (a learning rate read from a config at run
    time, a helper imported from another file), one sentence each. ``config_paths``: config
    files the script names (string literals ending .yaml/.yml/.json/.toml), in order.
    ``notes``: observations that are no fact of the vocabulary (e.g. step before backward).
    """

    path: str
    findings: list[Finding] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    config_paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def get(self, fact: str) -> Finding | None:
        """The finding for ``fact``, or None."""
        for f in self.findings:
            if f.fact == fact:
                return f
        return None

    def facts(self) -> dict[str, Any]:
        """``{fact: value}`` of every finding."""
        return {f.fact: f.value for f in self.findings}


def analyze_code(path: str | os.PathLike) -> CodeReport:
    """Read a training script statically and return what it shows (see the module doc).

    Raises :class:`InputError` if the file is missing, not UTF-8 or not valid Python."""
    p = os.fspath(path)
    tree = parse_source(p)
    reader = _Reader(p, tree)
    try:
        reader.run()
        report = reader.report()
    except RecursionError:   # a valid but absurdly deep expression: the reader walks trees recursively
        raise InputError("code nested too deeply to read (the reader recurses per level)", path=p) from None
    rl = _rl_markers(tree)
    if rl is not None and report.get("rl_training") is None:
        line, what = rl
        report.findings.append(Finding("rl_training", True, f"code:{os.path.basename(p)}:{line}",
                                       f"reinforcement learning: {what}"))
    return report


#: names whose presence together marks a reinforcement-learning loop (rewards from an environment)
_RL_IMPORTS = {"gym", "gymnasium", "stable_baselines3", "pettingzoo", "dm_control"}
_RL_CALLS = {"step", "reset"}            # env.step(action), env.reset()
_RL_NAMES = {"reward", "rewards", "returns", "episode", "episodes", "policy", "action", "actions", "advantage",
             "advantages", "discount", "gamma"}


def _rl_markers(tree: ast.AST):
    """(line, description) when the script is an RL loop: an RL library import, or an environment
    stepped with actions and rewards collected — several independent markers, not one word."""
    names: dict[str, int] = {}
    env_step = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.split(".")[0] in _RL_IMPORTS:
                    return node.lineno, f"imports {m}"
        elif isinstance(node, ast.Name) and node.id.lower() in _RL_NAMES:
            names.setdefault(node.id.lower(), node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in _RL_CALLS and isinstance(node.value, ast.Name) \
                and "env" in node.value.id.lower():
            env_step = env_step or (node.lineno, f"{node.value.id}.{node.attr}()")
    reward_like = {"reward", "rewards", "returns", "advantage", "advantages"} & set(names)
    if env_step and reward_like:
        return env_step[0], f"{env_step[1]} with {', '.join(sorted(reward_like))}"
    if len(reward_like) >= 1 and len({"episode", "episodes", "policy", "action", "actions", "discount", "gamma"} & set(names)) >= 2:
        first = min(names[n] for n in reward_like)
        return first, f"{', '.join(sorted(reward_like))} with {', '.join(sorted(set(names) - reward_like)[:3])}"
    return None


# --------------------------------------------------------------------------------------------
# Abstract values
# --------------------------------------------------------------------------------------------

class Val:
    """Base of the abstract values."""


class _Missing:
    pass


MISSING = _Missing()


@dataclass(eq=False)
class Unknown(Val):
    text: str = "?"


@dataclass(eq=False)
class Const(Val):
    value: Any
    origin: str | None = None   # "argparse default --lr (line 12)", "config cfg.yaml: optim.lr"
    soft: bool = False          # a default the command line may override
    cond: str | None = None     # set only under an unresolved condition (`if use_cuda:`)


@dataclass(eq=False)
class Ref(Val):
    """A name imported from a library: ``torch.nn.Linear``, ``torch.optim``."""

    qual: str


@dataclass(eq=False)
class ListVal(Val):
    items: list
    kind: str = "list"          # list, tuple, dict, set
    line: int = 0
    keys: list | None = None    # dict keys (Const values or None)
    comp: bool = False          # built by a comprehension: items hold one representative

    def get(self, key: Any) -> Val:
        if self.kind == "dict" and self.keys is not None and len(self.keys) == len(self.items):
            for k, v in zip(self.keys, self.items):
                if k == key:
                    return v
            return MISSING
        if isinstance(key, int) and not self.comp and -len(self.items) <= key < len(self.items):
            return self.items[key]
        if self.comp and self.items:
            return self.items[0]
        return MISSING


@dataclass(eq=False)
class FuncVal(Val):
    node: ast.AST               # FunctionDef / AsyncFunctionDef / Lambda
    env: "Env"
    cls: "ClassVal | None" = None
    bound: Val | None = None    # self, for bound methods
    no_grad: str | None = None  # decorated with @torch.no_grad()

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")


@dataclass(eq=False)
class ClassVal(Val):
    node: ast.ClassDef
    bases: list
    attrs: dict
    is_module: bool

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(eq=False)
class ObjVal(Val):
    cls: ClassVal
    attrs: dict = field(default_factory=dict)


@dataclass(eq=False)
class SuperVal(Val):
    cls: ClassVal
    obj: Val


_ids = iter(range(1, 1 << 62))


@dataclass(eq=False)
class ModuleVal(Val):
    """An nn.Module instance: kind local (a class of this file), sequential, container
    (ModuleList/ModuleDict), layer (a stock torch.nn layer), external (torchvision, timm,
    transformers), opaque (imported from elsewhere), unknown (a parameter we could not bind)."""

    kind: str
    qual: str
    line: int
    text: str = ""
    cls: ClassVal | None = None
    attrs: dict = field(default_factory=dict)
    layers: list = field(default_factory=list)
    params: bool | None = None      # stock layers: has parameters
    act: str | None = None          # stock activation layers: softmax/log_softmax/sigmoid
    mode: str = "train"
    parent: "ModuleVal | None" = None
    path: str = ""
    var: str | None = None
    id: int = field(default_factory=lambda: next(_ids))
    attr_events: list = field(default_factory=list)   # (seq, line, attr, value)

    def describe(self) -> str:
        name = self.var or self.path or self.qual
        if not self.line:
            return name
        return f"{name} ({self.qual}, line {self.line})"


@dataclass(eq=False)
class LossVal(Val):
    """A stock loss object (nn.CrossEntropyLoss()...)."""

    kind: str
    line: int
    text: str
    label_smoothing: Any = None
    reduction: str | None = None


@dataclass
class Part:
    """A piece of the parameters handed to an optimizer."""

    module: ModuleVal | None
    text: str
    whole: bool = True              # all parameters of ``module``


@dataclass(eq=False)
class ParamsVal(Val):
    parts: list
    named: bool = False


@dataclass(eq=False)
class OptVal(Val):
    kind: str | None
    line: int
    text: str
    parts: list = field(default_factory=list)
    lr: Any = None                  # (value, detail) or None
    wd: Any = None
    seq: int = 0
    var: str | None = None
    groups: int = 0


@dataclass(eq=False)
class SchedVal(Val):
    kind: str | None
    line: int
    text: str
    per_batch: bool | None = None   # designed to step per batch
    why: str = ""
    warmup: bool = False
    var: str | None = None


@dataclass(eq=False)
class LoaderVal(Val):
    line: int
    text: str
    batch_size: Any = None          # (value, detail) / None unresolved
    shuffle: Any = None
    num_workers: Any = None
    var: str | None = None
    why: dict = field(default_factory=dict)   # argument -> why it is unresolved


@dataclass(eq=False)
class SamplerVal(Val):
    kind: str
    shuffles: bool | None


@dataclass(eq=False)
class ScalerVal(Val):
    line: int
    enabled: bool | None


@dataclass(eq=False)
class AccelVal(Val):
    line: int


@dataclass(eq=False)
class CtxVal(Val):
    """A context manager we care about: no_grad / inference_mode / autocast."""

    kind: str                      # nograd, enablegrad, autocast
    line: int
    how: str
    dtype: str | None = None


@dataclass(eq=False)
class IterVal(Val):
    kind: str                      # enumerate, zip, range, wrap, items
    inner: list
    args: list = field(default_factory=list)


@dataclass(eq=False)
class BatchVal(Val):
    """An element of a DataLoader: unpacks/indexes into data tensors."""

    source: Val | None = None


@dataclass(eq=False)
class ArgsVal(Val):
    defaults: dict


@dataclass(eq=False)
class ParserVal(Val):
    pass


@dataclass(eq=False)
class ConfigVal(Val):
    cfg: Any                       # ConfigFile
    key: tuple = ()


@dataclass(eq=False)
class FileVal(Val):
    path: str


@dataclass(frozen=True)
class LossRec:
    kind: str | None               # None: computed inside an external model
    line: int
    text: str
    act: str | None
    act_src: tuple | None          # (line, text) of the squashing
    label_smoothing: Any = None
    reduction: str | None = None


@dataclass(eq=False)
class TensorVal(Val):
    srcs: frozenset = frozenset()   # ids of parameter-holding modules reached with the graph intact
    calls: frozenset = frozenset()  # indices of top-level model-call events on the path
    cuts: tuple = ()                # (line, how, frozenset(srcs cut off))
    act: str | None = None
    act_src: tuple | None = None
    losses: tuple = ()
    loss_mod: bool = False
    unsafe: tuple = ()              # (kind, line, text)
    data: bool = False
    param: bool = False
    safe: bool = False              # clamped / + eps
    exp: bool = False               # produced by exp (positive)
    ext: bool = False               # output of an external model (has .loss/.logits)
    param_part: Part | None = None  # an element of model.parameters()


def _is_tensor(v: Any) -> bool:
    return isinstance(v, TensorVal)


def _tainted(t: TensorVal) -> bool:
    return bool(t.srcs or t.calls)


class Env:
    def __init__(self, parent: "Env | None" = None):
        self.vars: dict[str, Val] = {}
        self.parent = parent

    def lookup(self, name: str) -> Any:
        e: Env | None = self
        while e is not None:
            if name in e.vars:
                return e.vars[name]
            e = e.parent
        return MISSING

    @property
    def root(self) -> "Env":
        e = self
        while e.parent is not None:
            e = e.parent
        return e


@dataclass
class Event:
    kind: str                      # backward step zero sched call mode clip
    line: int
    loops: tuple                   # ((loop node id, pass), ...)
    seq: int
    text: str = ""
    obj: Any = None                # the optimizer / module / scheduler / tensor concerned
    mode: str | None = None
    nograd: bool = False
    funcs: tuple = ()
    value: Any = None
    cond: bool = False
    src: Any = None                # what the innermost loop iterates


@dataclass
class Frame:
    fv: FuncVal | None
    returns: list = field(default_factory=list)
    self_val: Val | None = None
    globals_declared: set = field(default_factory=set)


class _Budget(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------

_BUILTINS = {"range", "len", "enumerate", "zip", "list", "tuple", "dict", "iter", "next", "sum",
             "max", "min", "float", "int", "print", "isinstance", "filter", "map", "sorted",
             "open", "super", "getattr", "setattr", "hasattr", "abs", "round", "str", "bool",
             "type", "any", "all", "reversed", "set", "format", "vars", "id", "repr", "object",
             "Exception", "ValueError", "RuntimeError", "KeyError", "StopIteration"}

_PARAM_LAYERS = {
    "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm", "GroupNorm",
    "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm",
    "Embedding", "EmbeddingBag", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
    "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "PReLU"}
_NOPARAM_LAYERS = {
    "ReLU", "ReLU6", "GELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softmax2d", "Softmin",
    "LeakyReLU", "ELU", "SELU", "CELU", "SiLU", "Mish", "Softplus", "Softsign", "Hardtanh",
    "Hardswish", "Hardsigmoid", "Tanhshrink", "Threshold", "GLU", "LogSigmoid", "Identity",
    "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "FeatureAlphaDropout", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
    "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample", "PixelShuffle",
    "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d",
    "ChannelShuffle", "CosineSimilarity", "PairwiseDistance"}
_ACT_LAYERS = {"Softmax": "softmax", "Softmax2d": "softmax", "LogSoftmax": "log_softmax",
               "Sigmoid": "sigmoid"}
_DROPOUT_LAYERS = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                   "FeatureAlphaDropout"}
_BN_LAYERS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
              "LazyBatchNorm2d", "LazyBatchNorm3d"}
_DROPOUT_KW_DEFAULTS = {"TransformerEncoderLayer": 0.1, "TransformerDecoderLayer": 0.1,
                        "Transformer": 0.1}

_LOSS_CLASSES = {"CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll", "BCELoss": "bce",
                 "BCEWithLogitsLoss": "bce_with_logits", "MSELoss": "mse", "L1Loss": "l1",
                 "SmoothL1Loss": "smooth_l1", "HuberLoss": "smooth_l1", "KLDivLoss": "kl_div"}
_LOSS_FUNCS = {"cross_entropy": "cross_entropy", "nll_loss": "nll",
               "binary_cross_entropy": "bce",
               "binary_cross_entropy_with_logits": "bce_with_logits", "mse_loss": "mse",
               "l1_loss": "l1", "smooth_l1_loss": "smooth_l1", "huber_loss": "smooth_l1",
               "kl_div": "kl_div"}

_OPT_DEFAULT_LR = {"sgd": 1e-3, "adam": 1e-3, "adamw": 1e-3, "rmsprop": 1e-2, "adagrad": 1e-2,
                   "adadelta": 1.0, "adamax": 2e-3, "nadam": 2e-3, "radam": 1e-3, "asgd": 1e-2,
                   "rprop": 1e-2, "lbfgs": 1.0, "sparseadam": 1e-3, "adafactor": 1e-2}
_OPT_DEFAULT_WD = {"adamw": 1e-2}
_OPT_NO_WD = {"rprop", "lbfgs", "sparseadam"}

_SCHED_PER_BATCH = {"onecyclelr", "cycliclr"}
_SCHED_EPOCHISH = {"steplr", "multisteplr", "exponentiallr", "cosineannealinglr",
                   "cosineannealingwarmrestarts", "polynomiallr", "linearlr", "constantlr",
                   "multiplicativelr", "reducelronplateau"}
_STEPS_WORDS = re.compile(r"(len\s*\(|step|iter|batch)", re.I)
_EPOCH_WORDS = re.compile(r"epoch", re.I)

_AUG_NAMES = {"RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
              "RandomRotation", "RandomAffine", "ColorJitter", "RandomErasing", "RandAugment",
              "AutoAugment", "TrivialAugmentWide", "AugMix", "RandomPerspective",
              "RandomGrayscale", "RandomApply", "RandomChoice", "RandomOrder", "MixUp", "CutMix",
              "ElasticTransform", "RandomInvert", "RandomPosterize", "RandomSolarize",
              "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
              "RandomPhotometricDistort", "RandomZoomOut", "RandomIoUCrop", "GaussianNoise",
              "RandomResize", "ScaleJitter", "RandomShortestSize"}
_ALBU_NON_AUG = {"Normalize", "Resize", "ToTensorV2", "Compose", "CenterCrop", "PadIfNeeded",
                 "LongestMaxSize", "SmallestMaxSize", "ToFloat", "FromFloat"}

_MODEL_WORDS = re.compile(r"(model|net\b|network|encoder|decoder|classifier|backbone|"
                          r"generator|discriminator|student|\bnet|critic|actor)", re.I)
_OPT_WORDS = re.compile(r"(^|[._])(opt|optim|optimizer|optimiser)[\w]*$", re.I)
_SCHED_WORDS = re.compile(r"(sched|lr_s)", re.I)
_LOADER_WORDS = re.compile(r"(loader|\bdl\b|_dl\b|dataloader|batches|\biterator)", re.I)
_LOSS_WORDS = re.compile(r"(criterion|loss_fn|loss_func|lossfn|\bcrit\b|loss_function)", re.I)
_EVAL_FUNC = re.compile(r"(eval|valid|test|predict|infer)", re.I)
_RELEVANT = re.compile(r"(autocast|GradScaler|\.half\(|zero_grad|\.step\(|backward|DataLoader|"
                       r"optim|sched|\.eval\(|\.train\(|clip_grad|Dropout|requires_grad|"
                       r"init\.|Softmax|softmax|sigmoid|Loss|loss|lr)")
_EPS_WORDS = re.compile(r"(eps|epsilon|tiny|smooth|1e-|delta|stab)", re.I)


def _canon(qual: str) -> str:
    """Collapse module paths people import from to one canonical name per object."""
    parts = qual.split(".")
    last = parts[-1]
    if qual.startswith("torch.nn.modules."):
        return "torch.nn." + last
    if qual.startswith("torch.nn.functional.") or qual.startswith("torch.nn.init.") \
            or qual.startswith("torch.nn.utils."):
        return ".".join(parts[:3]) + "." + last
    if qual.startswith("torch.optim.lr_scheduler."):
        return "torch.optim.lr_scheduler." + last
    if qual.startswith("torch.optim.") and len(parts) >= 4:
        return "torch.optim." + last
    if qual.startswith("torch.utils.data."):
        return "torch.utils.data." + last
    if qual.startswith(("torch.cuda.amp.", "torch.amp.", "torch.cpu.amp.")) \
            or qual in ("torch.autocast", "torch.GradScaler"):
        return "amp." + last
    if qual.startswith("torchvision.transforms."):
        return "torchvision.transforms." + last
    if qual.startswith("lightning.pytorch.") or qual.startswith("pytorch_lightning."):
        return "pl." + last
    return qual


_CLASS_PICKS = {"round", "argmax"}


def _class_scoring(tree: ast.AST) -> tuple[int, str] | None:
    """The first ``==`` comparison with a rounded or arg-maxed value on one side and a
    non-constant on the other (``(pred.round() == y)``, ``out.argmax(1) == target``), as
    ``(line, text)``: the script scores its predictions as classes."""
    def picks(e: ast.AST) -> bool:
        for n in ast.walk(e):
            if isinstance(n, ast.Call):
                f = n.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
                if name in _CLASS_PICKS:
                    return True
        return False

    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            a, b = node.left, node.comparators[0]
            if isinstance(a, ast.Constant) or isinstance(b, ast.Constant):
                continue
            if picks(a) != picks(b):
                line = getattr(node, "lineno", 0)
                if found is None or line < found[0]:
                    found = (line, _short(node, 60))
    return found


def _short(node: ast.AST, limit: int = 80) -> str:
    try:
        s = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse of odd nodes
        s = type(node).__name__
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v)


# --------------------------------------------------------------------------------------------
# The interpreter
# --------------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.tree = tree
        self.basename = os.path.basename(path)
        self.dir = os.path.dirname(os.path.abspath(path))
        self.argdefaults = read_argparse(tree)
        self.events: list[Event] = []
        self.loops: list[tuple] = []
        self.loop_nodes: dict[int, ast.AST] = {}
        self.loop_vals: list[Val] = []
        self.frames: list[Frame] = []
        self.fn_stack: list[ast.AST] = []
        self.nograd: list[CtxVal | None] = []
        self.autocast: list[CtxVal] = []
        self.forward_depth = 0
        self.seq = 0
        self.ops = 0
        self.cond: list[str] = []
        self.modules: list[ModuleVal] = []
        self.optimizers: list[OptVal] = []
        self.schedulers: list[SchedVal] = []
        self.loaders: list[LoaderVal] = []
        self.scalers: list[ScalerVal] = []
        self.rec: dict[str, list] = {k: [] for k in (
            "dropout", "bn", "init", "frozen", "aug", "amp", "clip", "early", "ls",
            "loss_entry", "half", "module_rg")}
        self.unresolved: list[str] = []
        self.notes: list[str] = []
        self.inlined: set = set()
        self.placeholders: dict[str, Val] = {}
        self.globals = Env()
        self.out_of_budget = False
        self.uninstantiated_lists: list = []
        self.cov_opts: list = []

    # ---- bookkeeping ---------------------------------------------------------------------

    def tick(self) -> None:
        self.ops += 1
        if self.ops > _MAX_OPS:
            raise _Budget()

    def unres(self, msg: str) -> None:
        if msg not in self.unresolved:
            self.unresolved.append(msg)

    def note(self, msg: str) -> None:
        if msg not in self.notes:
            self.notes.append(msg)

    def event(self, kind: str, node: ast.AST, **kw: Any) -> Event:
        self.seq += 1
        ev = Event(kind=kind, line=getattr(node, "lineno", 0), loops=tuple(self.loops),
                   seq=self.seq, nograd=self.in_nograd() is not None,
                   funcs=tuple(getattr(f, "name", "<lambda>") for f in self.fn_stack),
                   cond=bool(self.cond), src=self.loop_vals[-1] if self.loop_vals else None,
                   **kw)
        self.events.append(ev)
        return ev

    def in_nograd(self) -> CtxVal | None:
        for c in reversed(self.nograd):
            return c
        return None

    # ---- running ---------------------------------------------------------------------------

    def run(self) -> None:
        self.globals.vars["__name__"] = Const("__main__")
        self.globals.vars["__file__"] = Const(self.path)
        try:
            self.exec_block(self.tree.body, self.globals)
            # Functions that hold a training loop but are never called from the script's
            # top level (a library-style file): read them with their arguments unknown.
            for fn in self._uncalled_training_functions():
                self.unres(f"{fn.name}() (line {fn.lineno}) is never called in "
                           f"{self.basename}: read with its arguments unknown")
                fv = self.globals.lookup(fn.name)
                if isinstance(fv, FuncVal):
                    self.call_function(fv, None, {}, fn, placeholder_args=True)
            self.probe_uninstantiated()
        except _Budget:
            self.out_of_budget = True
            self.unres("the script is too large to follow completely: some facts may be "
                       "missing")
        except RecursionError:  # pragma: no cover - pathological nesting
            self.unres("the script nests too deeply to follow completely")

    def _uncalled_training_functions(self) -> list[ast.FunctionDef]:
        out = []
        for node in self.tree.body:
            fns = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
            for fn in fns:
                if fn in self.inlined:
                    continue
                text = ast.unparse(fn)
                if ".backward(" in text or ".step(" in text:
                    out.append(fn)
        return out

    # ---- statements ------------------------------------------------------------------------

    def exec_block(self, stmts: list[ast.stmt], env: Env) -> str | None:
        for s in stmts:
            st = self.exec(s, env)
            if st:
                return st
        return None

    def exec(self, s: ast.stmt, env: Env) -> str | None:
        self.tick()
        if isinstance(s, ast.Expr):
            self.ev(s.value, env)
        elif isinstance(s, ast.Assign):
            v = self.ev(s.value, env)
            for t in s.targets:
                self.assign(t, v, env, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.ev(s.value, env), env, s)
        elif isinstance(s, ast.AugAssign):
            cur = self.ev(s.target, env)
            rhs = self.ev(s.value, env)
            self.assign(s.target, self.binop(s.op, cur, rhs, s, s.target, s.value), env, s)
        elif isinstance(s, ast.If):
            return self.exec_if(s, env)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            return self.exec_for(s, env)
        elif isinstance(s, ast.While):
            return self.exec_while(s, env)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            return self.exec_with(s, env)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.exec_block(s.body, env)
            for h in s.handlers:
                if h.name:
                    env.vars[h.name] = Unknown(h.name)
                self.exec_block(h.body, env)
            self.exec_block(s.orelse, env)
            return self.exec_block(s.finalbody, env)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            env.vars[s.name] = self.make_function(s, env, None)
        elif isinstance(s, ast.ClassDef):
            env.vars[s.name] = self.make_class(s, env)
        elif isinstance(s, ast.Return):
            v = self.ev(s.value, env) if s.value is not None else Const(None)
            if self.frames:
                self.frames[-1].returns.append(v)
            return "return"
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            self.exec_import(s, env)
        elif isinstance(s, ast.Global):
            if self.frames:
                self.frames[-1].globals_declared.update(s.names)
        elif isinstance(s, ast.Break):
            return "break"
        elif isinstance(s, ast.Continue):
            return "continue"
        elif isinstance(s, ast.Raise):
            return "raise"
        elif isinstance(s, ast.Assert):
            self.ev(s.test, env)
        elif isinstance(s, ast.Match):
            self.ev(s.subject, env)
            for case in s.cases:
                self.cond.append("match")
                self.exec_block(case.body, env)
                self.cond.pop()
        return None

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
        test = self.ev(s.test, env)
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
            if skipped and _RELEVANT.search(" ".join(ast.unparse(x) for x in skipped)):
                self.unres(f"line {s.lineno}: `if {_short(s.test, 50)}:` depends on a "
                           f"command-line option ({test.origin}); read the branch its default "
                           f"takes")
            return self.exec_block(s.body if truth else s.orelse, env)
        self.cond.append(_short(s.test, 60))
        try:
            st1 = self.exec_block(s.body, env)
            st2 = self.exec_block(s.orelse, env)
        finally:
            self.cond.pop()
        if st1 == "raise" and st2 is None:
            return None
        if st1 and st1 == st2 and st1 in ("return", "raise"):
            return st1
        return None

    def _loop_items(self, it: Val) -> list | None:
        """A loop over a short literal list runs once per item (for phase in ['train', 'val'])."""
        if isinstance(it, ListVal) and not it.comp and it.kind in ("list", "tuple") \
                and 0 < len(it.items) <= _LOOP_LITERAL_MAX:
            return list(it.items)
        return None

    def exec_for(self, s: ast.For, env: Env) -> str | None:
        it = self.ev(s.iter, env)
        nid = id(s)
        self.loop_nodes[nid] = s
        items = self._loop_items(it)
        passes = items if items is not None else [None, None]
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
        test = self.ev(s.test, env)
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
            ctx = self.ev(item.context_expr, env)
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
            dv = self.ev(d.func if isinstance(d, ast.Call) else d, env)
            if isinstance(dv, Ref) and _canon(dv.qual) in ("torch.no_grad", "torch.inference_mode"):
                fv.no_grad = f"@{_short(d)}"
        return fv

    def make_class(self, node: ast.ClassDef, env: Env) -> ClassVal:
        bases = [self.ev(b, env) for b in node.bases]
        is_module = False
        for b in bases:
            if isinstance(b, Ref):
                q = _canon(b.qual)
                if q in ("torch.nn.Module", "pl.LightningModule") or q.endswith(".nn.Module") \
                        or q.endswith("LightningModule"):
                    is_module = True
                if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in _LOSS_CLASSES:
                    is_module = True
            elif isinstance(b, ClassVal) and b.is_module:
                is_module = True
        cv = ClassVal(node=node, bases=bases, attrs={}, is_module=is_module)
        cenv = Env(env)
        for st in node.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cv.attrs[st.name] = self.make_function(st, env, cv)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                self.exec(st, cenv)
        for k, v in cenv.vars.items():
            cv.attrs.setdefault(k, v)
        return cv

    # ---- assignment ------------------------------------------------------------------------

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
            vals = self.unpack(v, n)
            for t, x in zip(target.elts, vals):
                if isinstance(t, ast.Starred):
                    self.assign(t.value, Unknown("*"), env, stmt)
                else:
                    self.assign(t, x, env, stmt)
        elif isinstance(target, ast.Attribute):
            base = self.ev(target.value, env)
            self.set_attr(base, target.attr, v, target, stmt)
        elif isinstance(target, ast.Subscript):
            base = self.ev(target.value, env)
            key = self.ev(target.slice, env)
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
                self.note(f"line {stmt.lineno}: the learning rate is set by hand "
                          f"(`{_short(stmt, 60)}`)")
        elif isinstance(target, ast.Starred):
            self.assign(target.value, v, env, stmt)

    def set_attr(self, base: Val, attr: str, v: Val, target: ast.AST, stmt: ast.AST) -> None:
        line = getattr(stmt, "lineno", 0)
        if isinstance(base, ModuleVal):
            if attr == "requires_grad" and not (isinstance(v, Const) and v.value is False):
                # `module.requires_grad = True` (an unfreeze) only sets a Python attribute: no
                # parameter changes, so whatever was frozen stays frozen
                self.rec["module_rg"].append((line, _short(stmt, 60)))
            base.attrs[attr] = v
            self.seq += 1
            base.attr_events.append((self.seq, line, attr, v))
            if isinstance(v, ModuleVal) and v.parent is None and v is not base:
                v.parent, v.path = base, attr
        elif isinstance(base, ObjVal):
            base.attrs[attr] = v
        elif isinstance(base, TensorVal) or isinstance(base, Unknown):
            if attr == "requires_grad" and isinstance(v, Const) and v.value is False:
                self.frozen(target.value, base, stmt)
            elif attr == "grad" and isinstance(v, Const) and v.value is None:
                self.event("zero", stmt, text=_short(stmt), obj=None)

    def frozen(self, expr: ast.AST, base: Val, stmt: ast.AST) -> None:
        text = _short(expr, 60)
        module, whole = None, False
        if isinstance(base, TensorVal) and base.param_part is not None:
            text = base.param_part.text
            module, whole = base.param_part.module, base.param_part.whole
        elif isinstance(base, ModuleVal):
            module, whole = base, True
        cond = f" (if {self.cond[-1]})" if self.cond else ""
        rec = (getattr(stmt, "lineno", 0), text + cond, module, whole and not cond)
        if not any(r[:2] == rec[:2] for r in self.rec["frozen"]):
            self.rec["frozen"].append(rec)

    def unpack(self, v: Val, n: int) -> list:
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

    # ---- iteration -------------------------------------------------------------------------

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
        while isinstance(it, IterVal) and it.inner and seen < 8:
            if it.kind == "zip":
                for x in it.inner:
                    if isinstance(self.loop_source(x), LoaderVal):
                        return self.loop_source(x)
            it = it.inner[0]
            seen += 1
        return it

    # ---- expressions -----------------------------------------------------------------------

    def ev(self, node: ast.AST | None, env: Env) -> Val:
        if node is None:
            return Const(None)
        self.tick()
        m = getattr(self, "ev_" + type(node).__name__, None)
        if m is None:
            return Unknown(_short(node))
        return m(node, env)

    def ev_Constant(self, node: ast.Constant, env: Env) -> Val:
        return Const(node.value)

    def ev_Name(self, node: ast.Name, env: Env) -> Val:
        v = env.lookup(node.id)
        if v is not MISSING:
            return v
        if node.id in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[node.id])
        if node.id in _BUILTINS:
            return Ref("builtins." + node.id)
        return Unknown(node.id)

    def ev_JoinedStr(self, node: ast.JoinedStr, env: Env) -> Val:
        return Unknown("f-string")

    def ev_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Val:
        v = self.ev(node.value, env)
        self.assign(node.target, v, env, node)
        return v

    def ev_Tuple(self, node: ast.Tuple, env: Env) -> Val:
        return ListVal(self.ev_elts(node.elts, env), kind="tuple", line=node.lineno)

    def ev_List(self, node: ast.List, env: Env) -> Val:
        return ListVal(self.ev_elts(node.elts, env), kind="list", line=node.lineno)

    def ev_Set(self, node: ast.Set, env: Env) -> Val:
        return ListVal(self.ev_elts(node.elts, env), kind="set", line=node.lineno)

    def ev_elts(self, elts: list, env: Env) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.ev(e.value, env)
                if isinstance(v, ListVal):
                    out.extend(v.items)
                else:
                    out.append(Unknown("*"))
            else:
                out.append(self.ev(e, env))
        return out

    def ev_Dict(self, node: ast.Dict, env: Env) -> Val:
        keys, items = [], []
        for k, v in zip(node.keys, node.values):
            val = self.ev(v, env)
            if k is None:
                if isinstance(val, ListVal) and val.kind == "dict" and val.keys is not None:
                    keys.extend(val.keys)
                    items.extend(val.items)
                continue
            kv = self.ev(k, env)
            keys.append(kv.value if isinstance(kv, Const) else None)
            items.append(val)
        return ListVal(items, kind="dict", line=node.lineno, keys=keys)

    def _comprehension(self, node: ast.AST, env: Env) -> Env:
        cenv = Env(env)
        for gen in node.generators:
            it = self.ev(gen.iter, cenv)
            self.assign(gen.target, self.element_of(it, node), cenv, node)
            for cond in gen.ifs:
                self.ev(cond, cenv)
        return cenv

    def ev_ListComp(self, node: ast.ListComp, env: Env) -> Val:
        cenv = self._comprehension(node, env)
        return ListVal([self.ev(node.elt, cenv)], kind="list", line=node.lineno, comp=True)

    ev_SetComp = ev_ListComp

    def ev_GeneratorExp(self, node: ast.GeneratorExp, env: Env) -> Val:
        cenv = self._comprehension(node, env)
        elt = self.ev(node.elt, cenv)
        return ListVal([elt], kind="gen", line=node.lineno, comp=True)

    def ev_DictComp(self, node: ast.DictComp, env: Env) -> Val:
        cenv = self._comprehension(node, env)
        self.ev(node.key, cenv)
        return ListVal([self.ev(node.value, cenv)], kind="dict", line=node.lineno, keys=None,
                       comp=True)

    def ev_Lambda(self, node: ast.Lambda, env: Env) -> Val:
        return FuncVal(node=node, env=env)

    def ev_IfExp(self, node: ast.IfExp, env: Env) -> Val:
        test = self.ev(node.test, env)
        if isinstance(test, Const):
            return self.ev(node.body if test.value else node.orelse, env)
        a = self.ev(node.body, env)
        b = self.ev(node.orelse, env)
        if isinstance(a, Const) and a.value is None:
            return b
        return a

    def ev_Starred(self, node: ast.Starred, env: Env) -> Val:
        return self.ev(node.value, env)

    def ev_Await(self, node: ast.Await, env: Env) -> Val:
        return self.ev(node.value, env)

    def ev_Slice(self, node: ast.Slice, env: Env) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part, env)
        return Unknown("slice")

    def ev_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Val:
        v = self.ev(node.operand, env)
        if isinstance(v, Const):
            try:
                if isinstance(node.op, ast.USub):
                    return Const(-v.value, v.origin, v.soft)
                if isinstance(node.op, ast.UAdd):
                    return v
                if isinstance(node.op, ast.Not):
                    return Const(not v.value, v.origin, v.soft)
            except TypeError:
                return Unknown(_short(node))
        if isinstance(v, TensorVal):
            return replace(v, safe=False)
        return Unknown(_short(node))

    def ev_BoolOp(self, node: ast.BoolOp, env: Env) -> Val:
        vals = [self.ev(v, env) for v in node.values]
        if all(isinstance(v, Const) for v in vals):
            soft = any(v.soft for v in vals)
            origin = next((v.origin for v in vals if v.origin), None)
            if isinstance(node.op, ast.And):
                r = all(v.value for v in vals)
            else:
                r = any(v.value for v in vals)
            return Const(r, origin, soft)
        return Unknown(_short(node))

    def ev_Compare(self, node: ast.Compare, env: Env) -> Val:
        left = self.ev(node.left, env)
        rights = [self.ev(c, env) for c in node.comparators]
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
                    return Unknown(_short(node))
                return Const(r if isinstance(op, ast.Is) else not r, getattr(left, "origin", None),
                             getattr(left, "soft", False))
            if isinstance(left, Const) and isinstance(right, Const):
                try:
                    r = _compare(op, left.value, right.value)
                except Exception:
                    return Unknown(_short(node))
                if r is not None:
                    return Const(r, left.origin or right.origin, left.soft or right.soft)
        return Unknown(_short(node))

    def ev_BinOp(self, node: ast.BinOp, env: Env) -> Val:
        a = self.ev(node.left, env)
        b = self.ev(node.right, env)
        return self.binop(node.op, a, b, node, node.left, node.right)

    def binop(self, op: ast.operator, a: Val, b: Val, node: ast.AST, lnode: ast.AST,
              rnode: ast.AST) -> Val:
        if isinstance(a, Const) and isinstance(b, Const):
            r = arith(op, a.value, b.value)
            if r is not UNRESOLVED:
                return Const(r, a.origin or b.origin, a.soft or b.soft)
            if isinstance(op, ast.Mod) and isinstance(a.value, str):
                return Unknown("str")
            return Unknown(_short(node))
        if isinstance(a, ParamsVal) and isinstance(b, ParamsVal):
            return ParamsVal(a.parts + b.parts)
        if isinstance(a, ListVal) and isinstance(b, ListVal) and isinstance(op, ast.Add):
            return ListVal(a.items + b.items, kind=a.kind, line=a.line)
        if not (_is_tensor(a) or _is_tensor(b)):
            return Unknown(_short(node))
        t = self.tjoin([a, b])
        line = getattr(node, "lineno", 0)
        # losses: scaling by a number keeps a stock loss a stock loss; weighting it by a tensor
        # (focal loss, per-sample weights) makes it hand-written
        la = a.losses if _is_tensor(a) else ()
        lb = b.losses if _is_tensor(b) else ()
        mod = (a.loss_mod if _is_tensor(a) else False) or (b.loss_mod if _is_tensor(b) else False)
        if isinstance(op, (ast.Mult, ast.Div, ast.Pow)) and (la or lb) and _is_tensor(a) \
                and _is_tensor(b):
            mod = True   # a loss weighted by a tensor (focal loss, per-sample weights)
        t = replace(t, loss_mod=mod)
        # act: keep the squashing of the tensor operand; probs * mask stays probabilities,
        # but softmax(weights) * logits (two trained tensors, one squashed) is no longer one
        act_of = a if _is_tensor(a) and a.act else (b if _is_tensor(b) else None)
        if _is_tensor(a) and _is_tensor(b) and a.act != b.act and _tainted(a) and _tainted(b):
            act_of = None
        t = replace(t, act=act_of.act if act_of else None,
                    act_src=act_of.act_src if act_of else None)
        safe = False
        if isinstance(op, (ast.Add, ast.Sub)):
            other, onode = (b, rnode) if _is_tensor(a) else (a, lnode)
            if isinstance(other, Const) and isinstance(other.value, (int, float)) \
                    and other.value > 0:
                safe = True
            elif _EPS_WORDS.search(_short(onode)):
                safe = True
            if isinstance(op, ast.Sub) and re.search(r"(max|logsumexp|amax)", _short(rnode)):
                safe = True   # x - x.max(): the softmax shift
        if isinstance(op, ast.Div) and _is_tensor(b) and not b.safe and not b.exp \
                and (_tainted(b) or (_is_tensor(a) and _tainted(a))) and not _EPS_WORDS.search(
                    _short(rnode)):
            t = self.unsafe(t, "division_without_eps", line,
                            f"{_short(node, 50)} divides by a tensor that can be 0")
        if isinstance(op, ast.Pow) and isinstance(b, Const) and b.value in (0.5, 1 / 2) \
                and _is_tensor(a) and not a.safe and _tainted(a):
            t = self.unsafe(t, "sqrt_of_zero", line, f"{_short(node, 50)} at 0 has an infinite "
                                                       f"gradient")
        t = replace(t, safe=safe, exp=(a.exp if _is_tensor(a) else False)
                    and (b.exp if _is_tensor(b) else True))
        return self.mk(t, node)

    def ev_Subscript(self, node: ast.Subscript, env: Env) -> Val:
        base = self.ev(node.value, env)
        key = self.ev(node.slice, env)
        if isinstance(base, ListVal):
            if isinstance(key, Const):
                got = base.get(key.value)
                if got is not MISSING:
                    return got
            if base.comp and base.items:
                return base.items[0]
            if base.kind == "dict" and base.items:
                tens = [x for x in base.items if _is_tensor(x)]
                if tens:
                    return tens[0]
            return Unknown(_short(node))
        if isinstance(base, TensorVal):
            return base
        if isinstance(base, BatchVal):
            return TensorVal(data=True)
        if isinstance(base, ConfigVal):
            return self.config_get(base, key, node)
        if isinstance(base, ModuleVal) and base.kind in ("sequential", "container"):
            if isinstance(key, Const) and isinstance(key.value, int) and base.layers \
                    and -len(base.layers) <= key.value < len(base.layers):
                return base.layers[key.value]
            if isinstance(key, Const) and isinstance(key.value, str) and key.value in base.attrs:
                return base.attrs[key.value]
            return Unknown(_short(node))
        if isinstance(base, ModuleVal) and base.kind in ("external", "opaque", "unknown"):
            return self.child(base, _short(node.slice, 20))
        if isinstance(base, LoaderVal):
            return BatchVal(base)
        return Unknown(_short(node))

    def ev_Attribute(self, node: ast.Attribute, env: Env) -> Val:
        base = self.ev(node.value, env)
        return self.get_attr(base, node.attr, node)

    def get_attr(self, base: Val, attr: str, node: ast.AST) -> Val:
        if isinstance(base, Ref):
            return Ref(f"{base.qual}.{attr}")
        if isinstance(base, ModuleVal):
            if attr in base.attrs:
                v = base.attrs[attr]
                if isinstance(v, TensorVal) and v.param:
                    return replace(v, srcs=frozenset([base.id]))
                return v
            if attr == "training":
                return Const(base.mode == "train")
            if attr in ("weight", "bias") and base.kind in ("layer", "any"):
                return TensorVal(param=True, srcs=frozenset([base.id]),
                                 param_part=Part(base, _short(node), whole=False))
            if attr == "module":
                return base
            if base.cls is not None:
                m = self.class_attr(base.cls, attr)
                if isinstance(m, FuncVal):
                    return replace(m, bound=base)
                if m is not MISSING:
                    return m
            if base.kind in ("external", "opaque", "unknown", "any"):
                return self.child(base, attr)
            return Unknown(_short(node))
        if isinstance(base, ObjVal):
            if attr in base.attrs:
                return base.attrs[attr]
            m = self.class_attr(base.cls, attr)
            if isinstance(m, FuncVal):
                return replace(m, bound=base)
            if m is not MISSING:
                return m
            return self.placeholder(_short(node))
        if isinstance(base, ClassVal):
            m = self.class_attr(base, attr)
            return m if m is not MISSING else Unknown(_short(node))
        if isinstance(base, TensorVal):
            if attr == "data":
                if base.param:
                    return base
                return self.cut(base, getattr(node, "lineno", 0), ".data")
            if attr in ("T", "mT", "real"):
                return base
            if attr == "grad":
                return TensorVal(data=True)
            if attr in ("loss",) and base.ext:
                rec = LossRec(None, getattr(node, "lineno", 0), _short(node), base.act,
                              base.act_src)
                return replace(base, losses=(rec,), act=None, ext=False)
            if attr in ("logits", "last_hidden_state", "pooler_output", "prediction_logits"):
                return replace(base, ext=False)
            return Unknown(_short(node))
        if isinstance(base, ArgsVal):
            d = base.defaults.get(attr)
            if d is not None and d.value is not UNRESOLVED:
                return Const(d.value, f"argparse default {d.option}={_fmt(d.value)}, line "
                                      f"{d.line}", soft=True)
            return Unknown(_short(node))
        if isinstance(base, ConfigVal):
            return self.config_get(base, Const(attr), node)
        if isinstance(base, ListVal) and base.kind == "dict" and base.keys is not None \
                and attr in base.keys:
            return base.items[base.keys.index(attr)]
        if isinstance(base, Unknown):
            return Unknown(_short(node))
        return Unknown(_short(node))

    def class_attr(self, cls: ClassVal, attr: str, depth: int = 0) -> Any:
        if attr in cls.attrs:
            return cls.attrs[attr]
        if depth > 10:
            return MISSING
        for b in cls.bases:
            if isinstance(b, ClassVal):
                r = self.class_attr(b, attr, depth + 1)
                if r is not MISSING:
                    return r
        return MISSING

    def child(self, base: ModuleVal, attr: str) -> ModuleVal:
        key = f"__child__{attr}"
        if key not in base.attrs:
            kind = "external" if base.kind in ("external", "opaque", "unknown") else base.kind
            c = ModuleVal(kind=kind if kind != "any" else "any", qual=f"{base.qual}.{attr}",
                          line=base.line, parent=base, path=attr)
            c.params = True
            base.attrs[key] = c
        return base.attrs[key]

    def placeholder(self, text: str) -> Val:
        """A value we cannot bind (a function argument, self.x never set): guess its role from
        its name only for the loop's bookkeeping (model, optimizer, scheduler, loader)."""
        if text in self.placeholders:
            return self.placeholders[text]
        last = text.rsplit(".", 1)[-1]
        v: Val
        if _SCHED_WORDS.search(last):
            v = SchedVal(kind=None, line=0, text=text)
        elif _OPT_WORDS.search(last) or last in ("opt", "optimizer", "optim"):
            v = OptVal(kind=None, line=0, text=text)
        elif _LOADER_WORDS.search(last):
            v = LoaderVal(line=0, text=text)
        elif _LOSS_WORDS.search(last):
            v = Unknown(text)
        elif _MODEL_WORDS.search(last):
            v = ModuleVal(kind="unknown", qual=text, line=0, var=text)
            v.params = True
            self.modules.append(v)
        else:
            v = Unknown(text)
        self.placeholders[text] = v
        return v

    # ---- configs ----------------------------------------------------------------------------

    def config_get(self, base: ConfigVal, key: Val, node: ast.AST) -> Val:
        if not isinstance(key, Const):
            return Unknown(_short(node))
        data = base.cfg.data
        path = base.key + (key.value,)
        cur = data
        for k in path:
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            else:
                self.unres(f"line {getattr(node, 'lineno', 0)}: `{_short(node, 50)}` is not in "
                           f"{base.cfg.basename}")
                return Unknown(_short(node))
        if isinstance(cur, dict):
            return ConfigVal(base.cfg, path)
        dotted = ".".join(str(k) for k in path)
        return Const(cur, f"{base.cfg.basename}: {dotted}")

    def load_config_val(self, arg: Val, node: ast.AST) -> Val:
        path = arg.path if isinstance(arg, FileVal) else (
            arg.value if isinstance(arg, Const) and isinstance(arg.value, str) else None)
        if path is None:
            self.unres(f"line {node.lineno}: `{_short(node, 60)}` loads a config whose path is "
                       f"only known at run time")
            return Unknown(_short(node))
        for cand in (os.path.join(self.dir, path), path):
            if os.path.isfile(cand):
                try:
                    return ConfigVal(load_config(cand))
                except _CfgError as err:
                    self.unres(f"line {node.lineno}: config {path} could not be read: {err}")
                    return Unknown(_short(node))
        self.unres(f"line {node.lineno}: values come from {path}, which is not next to "
                   f"{self.basename}: pass it with --config")
        return Unknown(_short(node))

    # ---- tensors ------------------------------------------------------------------------------

    def tjoin(self, vals: Iterable[Val]) -> TensorVal:
        ts = [v for v in vals if isinstance(v, TensorVal)]
        if not ts:
            return TensorVal()
        srcs, calls, cuts, losses, unsafe = set(), set(), [], [], []
        for t in ts:
            srcs |= t.srcs
            calls |= t.calls
            cuts.extend(c for c in t.cuts if c not in cuts)
            losses.extend(x for x in t.losses if x not in losses)
            unsafe.extend(u for u in t.unsafe if u not in unsafe)
        first = next((t for t in ts if t.act), ts[0])
        return TensorVal(srcs=frozenset(srcs), calls=frozenset(calls), cuts=tuple(cuts),
                         act=first.act, act_src=first.act_src, losses=tuple(losses),
                         loss_mod=any(t.loss_mod for t in ts), unsafe=tuple(unsafe),
                         data=any(t.data for t in ts), ext=any(t.ext for t in ts))

    def mk(self, t: TensorVal, node: ast.AST) -> TensorVal:
        """A freshly computed tensor: inside torch.no_grad() it is cut off the graph."""
        ng = self.in_nograd()
        if ng is not None and t.srcs:
            return self.cut(t, ng.line, ng.how)
        return t

    def cut(self, t: TensorVal, line: int, how: str) -> TensorVal:
        if not t.srcs:
            return replace(t, param=False, param_part=None)
        return replace(t, srcs=frozenset(), cuts=t.cuts + ((line, how, t.srcs),), param=False,
                       param_part=None)

    def unsafe(self, t: TensorVal, kind: str, line: int, text: str) -> TensorVal:
        rec = (kind, line, text)
        if rec in t.unsafe:
            return t
        return replace(t, unsafe=t.unsafe + (rec,))

    def squash(self, x: Val, act: str, node: ast.AST, text: str | None = None,
               at_line: int | None = None) -> Val:
        t = x if isinstance(x, TensorVal) else TensorVal()
        line = at_line or getattr(node, "lineno", 0)
        text = text or f"{_short(node, 50)} (line {line})"
        return self.mk(replace(t, act=act, act_src=(line, text), safe=False, exp=False), node)

    def tensor_fn(self, name: str, args: list, kwargs: dict, node: ast.Call, qual: str) -> Val:
        """torch.<name>(...) / F.<name>(...) / tensor.<name>(...) on abstract tensors."""
        line = node.lineno
        x = args[0] if args else next(iter(kwargs.values()), Unknown("?"))
        tens = []
        for v in list(args) + list(kwargs.values()):
            if isinstance(v, TensorVal):
                tens.append(v)
            elif isinstance(v, ListVal):   # torch.stack([...]), torch.cat(list_of_tensors)
                tens.extend(x_ for x_ in v.items if isinstance(x_, TensorVal))
        if isinstance(x, ListVal) and name in ("stack", "cat", "concat", "concatenate"):
            x = self.tjoin(tens) if tens else x
        if name in ("softmax", "log_softmax", "sigmoid"):
            return self.squash(x, name, node)
        if name in ("log", "log2", "log10"):
            t = x if isinstance(x, TensorVal) else self.tjoin(tens)
            if isinstance(x, TensorVal) and not x.safe and _tainted(x) and not _EPS_WORDS.search(
                    _short(node)):
                what = f"of {x.act} output" if x.act in ("softmax", "sigmoid") else "with no eps"
                t = self.unsafe(t, "log_without_eps", line,
                                f"{_short(node, 50)}: log {what} (log(0) = -inf)")
            act = {"softmax": "log_softmax"}.get(t.act or "", t.act)
            return self.mk(replace(t, act=act, act_src=t.act_src if act == t.act else (
                line, f"{_short(node, 50)} (line {line})"), safe=False, exp=False), node)
        if name in ("exp",):
            t = x if isinstance(x, TensorVal) else self.tjoin(tens)
            argnode = (node.func.value if qual.startswith("tensor.") and isinstance(
                node.func, ast.Attribute) else (node.args[0] if node.args else None))
            # exp(-loss) (focal loss pt) is bounded by 1
            neg_loss = isinstance(argnode, ast.UnaryOp) and isinstance(argnode.op, ast.USub) \
                and isinstance(x, TensorVal) and bool(x.losses)
            if isinstance(x, TensorVal) and _tainted(x) and not x.safe and not neg_loss:
                t = self.unsafe(t, "exp_overflow", line,
                                f"{_short(node, 50)}: exp of an unbounded value overflows")
            return self.mk(replace(t, exp=True, safe=False), node)
        if name in ("sqrt", "rsqrt"):
            t = x if isinstance(x, TensorVal) else self.tjoin(tens)
            if isinstance(x, TensorVal) and _tainted(x) and not x.safe:
                t = self.unsafe(t, "sqrt_of_zero", line,
                                f"{_short(node, 50)}: sqrt at 0 has an infinite gradient")
            return self.mk(replace(t, safe=False, exp=False), node)
        if name in ("div", "true_divide", "divide") and len(args) >= 2 and isinstance(
                args[1], TensorVal):
            t = self.tjoin(tens)
            if not args[1].safe and not args[1].exp and _tainted(t) and len(node.args) > 1 \
                    and not _EPS_WORDS.search(_short(node.args[1])):
                t = self.unsafe(t, "division_without_eps", line,
                                f"{_short(node, 50)} divides by a tensor that can be 0")
            return self.mk(t, node)
        if name in ("pow",) and len(args) >= 2 and isinstance(args[1], Const) \
                and args[1].value == 0.5 and isinstance(x, TensorVal) and _tainted(x) \
                and not x.safe:
            return self.unsafe(self.tjoin(tens), "sqrt_of_zero", line,
                               f"{_short(node, 50)}: sqrt at 0 has an infinite gradient")
        if name in ("clamp", "clip", "clamp_min", "clamp_", "clamp_min_", "maximum", "softplus",
                    "logsumexp", "log1p", "log_sigmoid", "logsigmoid", "normalize"):
            t = self.tjoin(tens)
            return self.mk(replace(t, safe=name not in ("log1p", "log_sigmoid", "logsigmoid",
                                                        "logsumexp"), exp=False), node)
        if name in ("tensor", "as_tensor", "from_numpy", "Tensor", "FloatTensor",
                    "LongTensor", "asarray"):
            if tens and (tens[0].srcs or tens[0].calls):
                return self.cut(self.tjoin(tens), line, f"{_short(node, 40)}")
            return TensorVal(data=True)
        if name in ("argmax", "argmin", "argsort", "round", "floor", "ceil", "sign",
                    "bucketize"):
            if tens:
                return replace(self.cut(self.tjoin(tens), line, f"{name}()"), act=None)
            return TensorVal(data=True)
        if name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout"):
            p = kwargs.get("p", args[1] if len(args) > 1 else Const(0.5))
            self.rec["dropout"].append((line, p.value if isinstance(p, Const) else None,
                                        _short(node, 50)))
            return x if isinstance(x, TensorVal) else TensorVal()
        if name in ("randn", "rand", "zeros", "ones", "randint", "arange", "linspace", "empty",
                    "full", "zeros_like", "ones_like", "randn_like", "rand_like", "eye",
                    "randperm", "normal", "one_hot", "bernoulli", "multinomial"):
            return TensorVal(data=True)
        if not tens:
            return Unknown(_short(node))
        t = self.tjoin(tens)
        keeps_loss = {"mean", "sum", "view", "reshape", "squeeze", "unsqueeze", "flatten",
                      "float", "double", "half", "to", "cuda", "cpu", "clone", "contiguous",
                      "type", "type_as", "requires_grad_", "retain_grad", "nan_to_num", "add",
                      "sub", "stack", "cat", "view_as", "reshape_as"}
        if t.losses and name not in keeps_loss:
            t = replace(t, loss_mod=True)   # exp(-ce), log(loss)...: a hand-made loss
        shape_ops = {"view", "reshape", "squeeze", "unsqueeze", "flatten", "permute",
                     "transpose", "contiguous", "float", "double", "half", "bfloat16", "to",
                     "cuda", "cpu", "clone", "mean", "sum", "stack", "cat", "expand",
                     "expand_as", "view_as", "reshape_as", "narrow", "select", "index_select",
                     "gather", "chunk", "split", "masked_fill", "where", "t", "type", "type_as",
                     "repeat", "tile", "squeeze_", "unsqueeze_", "nan_to_num", "max", "min",
                     "amax", "amin", "abs", "neg", "mul", "add", "sub", "matmul", "mm", "bmm",
                     "einsum", "norm", "std", "var", "prod", "cumsum", "diag", "tril", "triu",
                     "pad", "interpolate", "roll", "flip", "requires_grad_", "retain_grad",
                     "detach_", "squeeze", "movedim", "swapaxes", "long", "int", "bool"}
        if name not in shape_ops:
            t = replace(t, act=None, act_src=None)
        return self.mk(replace(t, safe=False, exp=False), node)

    # ---- calls ---------------------------------------------------------------------------------

    def ev_Call(self, node: ast.Call, env: Env) -> Val:
        args, kwargs = self.call_args(node, env)
        f = node.func
        if isinstance(f, ast.Attribute):
            base = self.ev(f.value, env)
            return self.method(base, f.attr, args, kwargs, node, env)
        fv = self.ev(f, env)
        return self.call(fv, args, kwargs, node, env)

    def call_args(self, node: ast.Call, env: Env) -> tuple[list, dict]:
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.ev(a.value, env)
                if isinstance(v, ListVal) and not v.comp:
                    args.extend(v.items)
                elif isinstance(v, ListVal) and v.comp and v.items:
                    args.append(v.items[0])
                else:
                    args.append(v if isinstance(v, (TensorVal, BatchVal)) else Unknown("*"))
            else:
                args.append(self.ev(a, env))
        kwargs: dict = {}
        for k in node.keywords:
            v = self.ev(k.value, env)
            if k.arg is None:
                if isinstance(v, ListVal) and v.kind == "dict" and v.keys is not None:
                    for kk, vv in zip(v.keys, v.items):
                        if isinstance(kk, str):
                            kwargs[kk] = vv
                elif isinstance(v, (ListVal, BatchVal, TensorVal)):
                    kwargs["**"] = TensorVal(data=True) if not isinstance(v, ListVal) or not \
                        v.items or not _is_tensor(v.items[0]) else v.items[0]
                continue
            kwargs[k.arg] = v
        return args, kwargs

    def call(self, fv: Val, args: list, kwargs: dict, node: ast.Call, env: Env) -> Val:
        if isinstance(fv, Ref):
            return self.ref_call(_canon(fv.qual), fv.qual, args, kwargs, node, env)
        if isinstance(fv, FuncVal):
            return self.call_function(fv, args, kwargs, node)
        if isinstance(fv, ClassVal):
            return self.instantiate(fv, args, kwargs, node)
        if isinstance(fv, ModuleVal):
            return self.module_call(fv, args, kwargs, node)
        if isinstance(fv, LossVal):
            return self.loss_call(fv.kind, fv.text, fv.line, args, kwargs, node,
                                  ls=fv.label_smoothing, reduction=fv.reduction)
        if isinstance(fv, SuperVal):
            return fv
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if isinstance(fv, Unknown):
            if _MODEL_WORDS.search(fv.text.rsplit(".", 1)[-1]) and not _LOSS_WORDS.search(
                    fv.text):
                m = self.placeholder(fv.text)
                if isinstance(m, ModuleVal):
                    return self.module_call(m, args, kwargs, node)
            if tens:
                return self.mk(replace(self.tjoin(tens), act=None, act_src=None), node)
        return Unknown(_short(node))

    def call_function(self, fv: FuncVal, args: list | None, kwargs: dict, node: ast.AST,
                      placeholder_args: bool = False) -> Val:
        fn = fv.node
        if fn in self.fn_stack or len(self.fn_stack) >= _MAX_DEPTH:
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
                val = self.ev(defaults[i - first_default], fv.env)
            elif placeholder_args:
                val = self.placeholder(p.arg)
            else:
                val = Unknown(p.arg)
            env.vars[p.arg] = val
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                env.vars[p.arg] = kwargs[p.arg]
            elif d is not None:
                env.vars[p.arg] = self.ev(d, fv.env)
            else:
                env.vars[p.arg] = self.placeholder(p.arg) if placeholder_args else Unknown(p.arg)
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
                result = self.ev(fn.body, env)
            else:
                self.exec_block(fn.body, env)
                result = self._merge_returns(frame.returns)
        finally:
            if fv.no_grad:
                self.nograd.pop()
            self.fn_stack.pop()
            self.frames.pop()
        if fv.bound is None and isinstance(result, TensorVal) and any(
                isinstance(g, TensorVal) and g.calls for g in given):
            self.rec["loss_entry"].append((getattr(node, "lineno", 0), f"{fv.name}()", []))
        return result

    @staticmethod
    def _merge_returns(returns: list) -> Val:
        real = [r for r in returns if not (isinstance(r, Const) and r.value is None)]
        if not real:
            return Const(None)
        return real[-1]

    def instantiate(self, cv: ClassVal, args: list, kwargs: dict, node: ast.Call) -> Val:
        obj: Val
        if cv.is_module:
            obj = ModuleVal(kind="local", qual=cv.name, line=node.lineno, text=_short(node),
                            cls=cv)
            self.modules.append(obj)
        else:
            obj = ObjVal(cls=cv)
        init = self.class_attr(cv, "__init__")
        if isinstance(init, FuncVal):
            self.call_function(replace(init, bound=obj), args, kwargs, node)
        return obj

    @staticmethod
    def _is_loss_subclass(cv: ClassVal) -> bool:
        return any(isinstance(b, Ref) and b.qual.rsplit(".", 1)[-1] in _LOSS_CLASSES
                   for b in cv.bases)

    # ---- method calls ---------------------------------------------------------------------

    def method(self, base: Val, name: str, args: list, kwargs: dict, node: ast.Call,
               env: Env) -> Val:
        line = node.lineno
        if isinstance(base, Ref):
            return self.call(Ref(f"{base.qual}.{name}"), args, kwargs, node, env)
        if isinstance(base, SuperVal):
            for b in base.cls.bases:
                if isinstance(b, ClassVal):
                    m = self.class_attr(b, name)
                    if isinstance(m, FuncVal):
                        return self.call_function(replace(m, bound=base.obj), args, kwargs, node)
            return Const(None)
        if isinstance(base, (ModuleVal, ObjVal)) and name in base.attrs:
            return self.call(base.attrs[name], args, kwargs, node, env)
        if isinstance(base, ModuleVal):
            return self.module_method(base, name, args, kwargs, node, env)
        if isinstance(base, ObjVal):
            m = self.class_attr(base.cls, name)
            if isinstance(m, FuncVal):
                return self.call_function(replace(m, bound=base), args, kwargs, node)
            if m is not MISSING:
                return self.call(m, args, kwargs, node, env)
            return Unknown(_short(node))
        if isinstance(base, ClassVal):
            m = self.class_attr(base, name)
            if isinstance(m, FuncVal):
                return self.call_function(m, args, kwargs, node)
            return Unknown(_short(node))
        if isinstance(base, OptVal):
            if name == "step":
                self.event("step", node, text=_short(node), obj=base)
            elif name == "zero_grad":
                self.event("zero", node, text=_short(node), obj=base)
            elif name == "add_param_group" and args:
                base.parts.extend(self.param_parts(args[0], node))
            return Const(None)
        if isinstance(base, SchedVal):
            if name == "step":
                self.event("sched", node, text=_short(node), obj=base)
            return Unknown(_short(node))
        if isinstance(base, ScalerVal):
            if name == "scale":
                return args[0] if args else Unknown("scaled")
            if name == "step":
                opt = args[0] if args else None
                self.event("step", node, text=_short(node),
                           obj=opt if isinstance(opt, OptVal) else None)
            return Const(None)
        if isinstance(base, AccelVal):
            if name == "prepare":
                return args[0] if len(args) == 1 else ListVal(list(args), kind="tuple")
            if name == "backward" and args:
                self.event("backward", node, text=_short(node),
                           obj=args[0] if isinstance(args[0], TensorVal) else None)
                return Const(None)
            if name in ("clip_grad_norm_", "clip_grad_value_"):
                return self.clip(name, args[1:], kwargs, node)
            if name == "autocast":
                return CtxVal("autocast", line, _short(node), None)
            return Unknown(_short(node))
        if isinstance(base, LossVal):
            if name == "forward":
                return self.call(base, args, kwargs, node, env)
            return Unknown(_short(node))
        if isinstance(base, TensorVal):
            return self.tensor_method(base, name, args, kwargs, node)
        if isinstance(base, ListVal):
            return self.list_method(base, name, args, kwargs, node)
        if isinstance(base, ConfigVal):
            if name == "get" and args:
                v = self.config_get(base, args[0], node) if isinstance(args[0], Const) else \
                    Unknown("?")
                if isinstance(v, Unknown) and len(args) > 1:
                    return args[1]
                return v
            return Unknown(_short(node))
        if isinstance(base, ParserVal):
            if name in ("parse_args",):
                return ArgsVal(self.argdefaults)
            if name == "parse_known_args":
                return ListVal([ArgsVal(self.argdefaults), Unknown("rest")], kind="tuple")
            return Const(None)
        if isinstance(base, (LoaderVal, BatchVal)):
            if name in ("to", "cuda", "cpu", "float", "items", "values"):
                if name == "items":
                    return IterVal("items", [ListVal([TensorVal(data=True)], kind="dict")])
                return base if isinstance(base, BatchVal) else Unknown("?")
            return Unknown(_short(node))
        if isinstance(base, ParamsVal):
            return Unknown(_short(node))
        if isinstance(base, Unknown):
            return self.unknown_method(base, name, args, kwargs, node, env)
        if isinstance(base, Const) and isinstance(base.value, str):
            return Unknown("str")
        return Unknown(_short(node))

    def unknown_method(self, base: Unknown, name: str, args: list, kwargs: dict,
                       node: ast.Call, env: Env) -> Val:
        """Methods on something we could not bind: keep the loop's bookkeeping from names."""
        text = base.text
        if name == "backward":
            self.event("backward", node, text=_short(node), obj=None)
            return Const(None)
        if name == "zero_grad":
            self.event("zero", node, text=_short(node), obj=None)
            return Const(None)
        if name == "step":
            p = self.placeholder(text)
            if isinstance(p, SchedVal):
                self.event("sched", node, text=_short(node), obj=p)
            else:
                self.event("step", node, text=_short(node),
                           obj=p if isinstance(p, OptVal) else None)
            return Const(None)
        if name in ("parse_args", "parse_known_args") and self.argdefaults:
            a = ArgsVal(self.argdefaults)
            return a if name == "parse_args" else ListVal([a, Unknown("rest")], kind="tuple")
        p = self.placeholder(text)
        if isinstance(p, ModuleVal):
            return self.module_method(p, name, args, kwargs, node, env)
        if isinstance(p, (OptVal, SchedVal, LoaderVal)):
            return self.method(p, name, args, kwargs, node, env)
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if tens:
            return self.mk(replace(self.tjoin(tens), act=None, act_src=None), node)
        return Unknown(_short(node))

    def list_method(self, base: ListVal, name: str, args: list, kwargs: dict,
                    node: ast.Call) -> Val:
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

    def module_method(self, m: ModuleVal, name: str, args: list, kwargs: dict, node: ast.Call,
                      env: Env) -> Val:
        line = node.lineno
        if m.cls is not None:
            fm = self.class_attr(m.cls, name)
            if isinstance(fm, FuncVal) and name not in ("parameters", "named_parameters"):
                return self.call_function(replace(fm, bound=m), args, kwargs, node)
        if name in ("parameters", "named_parameters"):
            return ParamsVal([Part(m, f"{_short(node.func.value, 50)}.{name}()")],
                             named=name == "named_parameters")
        if name in ("modules", "children", "named_modules", "named_children"):
            anym = ModuleVal(kind="any", qual=f"{m.qual} submodule", line=m.line, parent=m,
                             path="*")
            anym.params = True
            el = ListVal([Unknown("name"), anym], kind="tuple") if name.startswith("named") \
                else anym
            return IterVal("modules", [el])
        if name in ("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type"):
            dtype = None
            if name in ("half", "bfloat16"):
                dtype = "float16" if name == "half" else "bfloat16"
            for v in list(args) + [kwargs.get("dtype")]:
                if isinstance(v, Ref) and v.qual.endswith((".float16", ".half")):
                    dtype = "float16"
                elif isinstance(v, Ref) and v.qual.endswith(".bfloat16"):
                    dtype = "bfloat16"
            if dtype:
                self.rec["amp"].append((line, dtype, _short(node, 60), "cast"))
            return m
        if name in ("train", "eval"):
            mode = name
            if name == "train" and args and isinstance(args[0], Const) and args[0].value is False:
                mode = "eval"
            if name == "train" and isinstance(kwargs.get("mode"), Const) \
                    and kwargs["mode"].value is False:
                mode = "eval"
            self.set_mode(m, mode)
            self.event("mode", node, text=_short(node), obj=m, mode=mode)
            return m
        if name == "zero_grad":
            self.event("zero", node, text=_short(node), obj=m)
            return Const(None)
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if isinstance(flag, Const) and flag.value is False:
                self.frozen(node.func.value, m, node)
            return m
        if name == "apply" and args:
            anym = ModuleVal(kind="any", qual=f"{m.qual} submodule", line=m.line, parent=m,
                             path="*")
            anym.params = True
            self.call(args[0], [anym], {}, node, env)
            return m
        if name in ("add_module", "register_module") and len(args) >= 2:
            if isinstance(args[0], Const):
                m.attrs[str(args[0].value)] = args[1]
                if isinstance(args[1], ModuleVal) and args[1].parent is None:
                    args[1].parent, args[1].path = m, str(args[0].value)
            return Const(None)
        if name == "register_parameter" and len(args) >= 2 and isinstance(args[0], Const):
            m.attrs[str(args[0].value)] = TensorVal(param=True)
            return Const(None)
        if name in ("append", "extend", "insert") and m.kind in ("container", "sequential"):
            if name == "extend" and args and isinstance(args[0], ListVal):
                items = args[0].items
            else:
                items = args[-1:] if args else []
            for it in items:
                m.layers.append(it)
                if isinstance(it, ModuleVal) and it.parent is None:
                    it.parent, it.path = m, f"{m.path}[{len(m.layers) - 1}]"
            return Const(None) if name != "append" else m
        if name == "forward":
            return self.module_call(m, args, kwargs, node)
        if name in ("from_pretrained",):
            return m
        if name in ("state_dict", "load_state_dict", "register_buffer", "register_forward_hook",
                    "register_full_backward_hook", "named_buffers", "buffers", "save_pretrained",
                    "generate"):
            return Unknown(_short(node))
        if m.kind in ("external", "opaque", "unknown"):
            tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
            if tens:
                return self.mk(replace(self.tjoin(tens), act=None, act_src=None,
                                       srcs=self.tjoin(tens).srcs | {m.id}), node)
        return Unknown(_short(node))

    def set_mode(self, m: ModuleVal, mode: str) -> None:
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

    def tensor_method(self, t: TensorVal, name: str, args: list, kwargs: dict,
                      node: ast.Call) -> Val:
        line = node.lineno
        if name == "backward":
            self.event("backward", node, text=_short(node), obj=t)
            return Const(None)
        if name in ("detach", "detach_", "item", "numpy", "tolist"):
            how = f".{name}()"
            r = self.cut(t, line, how)
            if name in ("item", "tolist"):
                return replace(r, data=True)
            return r
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if t.param and isinstance(flag, Const) and flag.value is False:
                self.frozen(node.func.value, t, node)
            return t
        if name in ("zero_", "fill_") and t.param:
            self.init_record(node.func.value, t, "zero_" if name == "zero_" else "fill_", node,
                             args[0] if args else Const(0))
            return t
        if name in ("zero_",) and not t.param:
            text = _short(node.func.value)
            if text.endswith(".grad") or ".grad." in text:
                self.event("zero", node, text=_short(node), obj=None)
            return t
        return self.tensor_fn(name, [t] + list(args), kwargs, node, "tensor." + name)

    # ---- modules ------------------------------------------------------------------------------

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

    def module_call(self, m: ModuleVal, args: list, kwargs: dict, node: ast.AST) -> Val:
        top = self.forward_depth == 0
        ins = [v for v in list(args) + list(kwargs.values()) if isinstance(v, (TensorVal,
                                                                               BatchVal))]
        ins_t = [v if isinstance(v, TensorVal) else TensorVal(data=True) for v in ins]
        tainted_in = any(t.calls for t in ins_t)
        has_params = self.module_has_params(m)
        self.forward_depth += 1
        try:
            out = self._forward(m, args, kwargs, node, ins_t)
        finally:
            self.forward_depth -= 1
        if not (top and (has_params or not tainted_in)):
            if tainted_in and m.kind == "local" and not has_params:
                self.rec["loss_entry"].append((getattr(node, "lineno", 0), m.qual, ins_t))
            return out
        # a top-level model call: tag its output so the loss can be traced back to it
        ev = self.event("call", node, text=_short(node), obj=m, mode=m.mode)
        idx = len(self.events) - 1

        def tag(v: Val) -> Val:
            if isinstance(v, TensorVal):
                srcs = v.srcs | ({m.id} if has_params else set())
                t = replace(v, calls=v.calls | {idx}, srcs=frozenset(srcs))
                return self.mk(t, node)
            if isinstance(v, ListVal):
                return ListVal([tag(x) for x in v.items], kind=v.kind, line=v.line, keys=v.keys,
                               comp=v.comp)
            return v

        out = tag(out)
        ev.value = out
        return out

    def _forward(self, m: ModuleVal, args: list, kwargs: dict, node: ast.AST,
                 ins: list) -> Val:
        line = getattr(node, "lineno", 0)
        if m.kind == "local":
            fwd = self.class_attr(m.cls, "forward") if m.cls else MISSING
            if not isinstance(fwd, FuncVal):
                fwd = self.class_attr(m.cls, "__call__") if m.cls else MISSING
            if isinstance(fwd, FuncVal):
                return self.call_function(replace(fwd, bound=m), args, kwargs, node)
            if m.cls is not None and self._is_loss_subclass(m.cls):
                base = next(b for b in m.cls.bases if isinstance(b, Ref)
                            and b.qual.rsplit(".", 1)[-1] in _LOSS_CLASSES)
                return self.loss_call(_LOSS_CLASSES[base.qual.rsplit(".", 1)[-1]],
                                      m.qual, m.line, args, kwargs, node)
            return self.mk(replace(self.tjoin(ins), act=None, act_src=None), node)
        if m.kind == "sequential":
            x: Val = args[0] if args else (ins[0] if ins else TensorVal())
            for layer in m.layers:
                if isinstance(layer, ModuleVal):
                    x = self.module_call(layer, [x], {}, node)
                elif isinstance(layer, (FuncVal, LossVal)):
                    x = self.call(layer, [x], {}, node, Env())
            return x
        if m.kind == "layer":
            x = ins[0] if ins else TensorVal()
            if m.act:
                return self.squash(x, m.act, node, text=f"{m.text or m.qual} (line {m.line}, "
                                                        f"applied at line {line})",
                                   at_line=m.line)
            last = m.qual.rsplit(".", 1)[-1]
            if last in _DROPOUT_LAYERS or last in ("Identity", "Flatten", "Unflatten"):
                return x
            t = self.tjoin(ins)
            if m.params or last in _PARAM_LAYERS:
                t = replace(t, srcs=t.srcs | {m.id})
            t = self.mk(replace(t, act=None, act_src=None, safe=False, exp=False), node)
            if last in ("LSTM", "GRU", "RNN", "MultiheadAttention"):
                return ListVal([t, ListVal([t, t], kind="tuple")], kind="tuple")
            return t
        if m.kind in ("external", "opaque", "unknown", "any"):
            t = self.tjoin(ins)
            t = replace(t, srcs=t.srcs | {m.id}, act=None, act_src=None, safe=False,
                        ext=m.kind in ("external", "opaque"))
            return self.mk(t, node)
        return Unknown(m.qual)

    # ---- optimizers, losses, data --------------------------------------------------------

    def param_parts(self, v: Val, node: ast.AST) -> list[Part]:
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
                        parts.extend(self.param_parts(p, node))
                elif isinstance(it, TensorVal) and it.param:
                    if it.param_part is not None:
                        parts.append(it.param_part)
                    else:
                        parts.append(Part(None, "a parameter", whole=False))
                else:
                    parts.extend(self.param_parts(it, node))
            return parts
        if isinstance(v, IterVal):
            out: list[Part] = []
            for x in v.inner:
                out.extend(self.param_parts(x, node))
            return out
        if isinstance(v, TensorVal) and v.param:
            return [v.param_part or Part(None, "a parameter", whole=False)]
        return [Part(None, _short(node, 60), whole=False)]

    def make_optimizer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> OptVal:
        line = node.lineno
        opt = OptVal(kind=kind, line=line, text=_short(node, 70))
        params = args[0] if args else kwargs.get("params", Unknown("params"))
        opt.parts = self.param_parts(params, node)
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
            if kind in _OPT_DEFAULT_LR:
                d = _OPT_DEFAULT_LR[kind]
                why = f"no lr given: {kind}'s default {_fmt(d)} in torch"
                if kind == "sgd":
                    why += " >= 2.2 (older torch requires lr)"
                opt.lr = (d, why)
            else:
                self.unres(f"line {line}: learning rate of `{_short(node, 50)}` not given and "
                           f"its default is unknown")
        elif isinstance(lr, Const) and isinstance(lr.value, (int, float)) \
                and not isinstance(lr.value, bool):
            src = f" ({lr.origin})" if lr.origin else ""
            written = _short(lr_node, 30) if lr_node else _fmt(lr.value)
            shown = "" if written == _fmt(lr.value) or _literal_number(lr_node) is not None \
                else f" = {_fmt(lr.value)}"
            opt.lr = (float(lr.value), f"lr={written}{shown}{src}")
        else:
            self.unres(f"line {line}: learning rate `{_short(lr_node, 40) if lr_node else '?'}` "
                       f"of {kind} is computed at run time")
        if opt.groups:
            lrs = [g.get("lr") for g in params.items if isinstance(g, ListVal)]
            if any(x is not MISSING for x in lrs):
                self.note(f"line {line}: {kind} has {opt.groups} parameter groups with their own "
                          f"learning rates")
        wd = kwargs.get("weight_decay")
        if wd is None and opt.groups:
            g = params.items[0].get("weight_decay")
            wd = g if g is not MISSING else None
        if wd is None:
            if kind in _OPT_NO_WD:
                opt.wd = None
            else:
                d = _OPT_DEFAULT_WD.get(kind, 0.0)
                opt.wd = (d, f"no weight_decay given: {kind}'s default {_fmt(d)}")
        elif isinstance(wd, Const) and isinstance(wd.value, (int, float)):
            src = f" ({wd.origin})" if wd.origin else ""
            opt.wd = (float(wd.value), f"weight_decay={_fmt(wd.value)}{src}")
        else:
            self.unres(f"line {line}: weight_decay of {kind} is computed at run time")
        self.optimizers.append(opt)
        return opt

    def make_scheduler(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> SchedVal:
        s = SchedVal(kind=kind, line=node.lineno, text=_short(node, 70))
        text = _short(node, 200)
        if kind in _SCHED_PER_BATCH:
            s.per_batch, s.why = True, f"{kind} is designed to step every batch"
        elif kind.startswith("get_") or "schedule_with_warmup" in kind:
            s.per_batch, s.why = True, f"{kind} counts optimizer steps"
            s.warmup = "warmup" in kind
        elif kind == "lambdalr":
            fn = args[1] if len(args) > 1 else kwargs.get("lr_lambda")
            body = ""
            if isinstance(fn, FuncVal):
                body = _short(fn.node, 300)
            body += " " + text
            if re.search(r"warm", body, re.I):
                s.warmup = True
            if _EPOCH_WORDS.search(body) and not re.search(r"(step|iter|batch)", body, re.I):
                s.per_batch, s.why = False, "its lambda counts epochs"
            elif re.search(r"(step|iter|batch|warm)", body, re.I):
                s.per_batch, s.why = True, "its lambda counts steps"
            else:
                self.unres(f"line {node.lineno}: cannot tell whether the LambdaLR is meant to "
                           f"step per batch or per epoch")
        elif kind in _SCHED_EPOCHISH:
            period = None
            for k in ("T_max", "step_size", "milestones", "total_iters", "T_0", "patience"):
                if k in kwargs:
                    period = next((kw.value for kw in node.keywords if kw.arg == k), None)
                    break
            if period is None and len(node.args) > 1:
                period = node.args[1]
            ptext = _short(period, 80) if period is not None else ""
            if period is not None and _STEPS_WORDS.search(ptext):
                s.per_batch, s.why = True, f"its period `{ptext}` counts batches"
            else:
                lit = _literal_number(period)
                if lit is not None and lit >= 1000:
                    self.unres(f"line {node.lineno}: {kind} period {_fmt(lit)} could count "
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
        ld = LoaderVal(line=node.lineno, text=_short(node, 70))
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
                    return f"{_short(star, 30)}[{k!r}]"
            return _short(n, 30) if n is not None else "?"

        def val(k: str, default: Any, what: str) -> Any:
            if k not in bound:
                return (default, f"{what} not given: DataLoader's default {_fmt(default)}")
            v = bound[k]
            if isinstance(v, Const) and v.cond:
                ld.why[k] = (f"line {node.lineno}: {k}={_fmt(v.value)} of `{_short(node, 50)}` "
                             f"is set only under {v.cond}")
                return None
            if isinstance(v, Const) and not isinstance(v.value, (list, dict)):
                src = f" ({v.origin})" if v.origin else ""
                return (v.value, f"{k}={kwtext(k)}{' = ' + _fmt(v.value) if v.origin else ''}"
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

    def loss_call(self, kind: str, text: str, line: int, args: list, kwargs: dict,
                  node: ast.AST, ls: Any = None, reduction: str | None = None) -> Val:
        inp = args[0] if args else kwargs.get("input", Unknown("input"))
        rest = list(args[1:]) + [v for k, v in kwargs.items() if k in ("target",)]
        if ls is None and "label_smoothing" in kwargs:
            v = kwargs["label_smoothing"]
            ls = v.value if isinstance(v, Const) else "?"
            self.rec["ls"].append((getattr(node, "lineno", 0), ls, _short(node, 60)))
        if reduction is None and isinstance(kwargs.get("reduction"), Const):
            reduction = kwargs["reduction"].value
        act = inp.act if isinstance(inp, TensorVal) else None
        act_src = inp.act_src if isinstance(inp, TensorVal) else None
        rec = LossRec(kind, line or getattr(node, "lineno", 0), text,
                      act if isinstance(inp, TensorVal) else "?", act_src, ls, reduction)
        t = self.tjoin([inp] + rest)
        t = replace(t, act=None, act_src=None, losses=(rec,), loss_mod=False, safe=False,
                    exp=False, ext=False)
        return self.mk(t, node)

    def clip(self, name: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        key = "max_norm" if "norm" in name else "clip_value"
        v = kwargs.get(key, args[0] if args else None)
        if isinstance(v, Const) and isinstance(v.value, (int, float)):
            src = f" ({v.origin})" if v.origin else ""
            self.event("clip", node, text=_short(node, 70), value=(float(v.value), src, name))
        else:
            self.event("clip", node, text=_short(node, 70), value=(None, "", name))
        return TensorVal(data=True)

    def init_record(self, target_node: ast.AST, target: Val, fn: str, node: ast.AST,
                    value: Val | None) -> None:
        text = _short(target_node, 50)
        if isinstance(target, TensorVal) and target.param_part is not None and \
                not text.endswith(("weight", "bias")):
            text = f"{text} (each of {target.param_part.text})"
        is_bias = re.search(r"bias\b", _short(target_node)) is not None
        self.rec["init"].append((getattr(node, "lineno", 0), text, fn, is_bias,
                                 value.value if isinstance(value, Const) else None,
                                 _short(node, 60)))

    # ---- library calls -------------------------------------------------------------------

    def ref_call(self, q: str, raw: str, args: list, kwargs: dict, node: ast.Call,
                 env: Env) -> Val:
        line = node.lineno
        last = q.rsplit(".", 1)[-1]
        # builtins ------------------------------------------------------------------------
        if q.startswith("builtins."):
            return self.builtin_call(last, args, kwargs, node, env)
        if last == "tqdm" or q.endswith(".tqdm") or q.endswith(".track"):
            return IterVal("wrap", [args[0]]) if args else Unknown("tqdm")
        if q in ("itertools.chain",) and args:
            parts: list[Part] = []
            for a in args:
                parts.extend(self.param_parts(a, node))
            return ParamsVal(parts)
        if q in ("copy.deepcopy", "copy.copy") and args:
            return self.clone(args[0]) if isinstance(args[0], ModuleVal) else args[0]
        if q in ("argparse.ArgumentParser",) or q.endswith("ArgumentParser"):
            return ParserVal()
        if q in ("yaml.safe_load", "yaml.load", "yaml.full_load", "json.load", "json.loads",
                 "tomllib.load", "toml.load", "tomli.load", "yaml.unsafe_load") and args:
            return self.load_config_val(args[0], node)
        if q.endswith("OmegaConf.load") and args:
            return self.load_config_val(args[0], node)
        # torch.nn layers and losses -----------------------------------------------------------
        if q in ("torch.nn.DataParallel", "torch.nn.parallel.DistributedDataParallel",
                 "torch.nn.parallel.DataParallel", "torch.compile") and args:
            return args[0]
        if q == "torch.nn.Parameter" or q == "torch.nn.parameter.Parameter":
            return TensorVal(param=True)
        if q.endswith("OrderedDict"):
            src = args[0] if args else None
            if isinstance(src, ListVal):
                keys, items = [], []
                for pair in src.items:
                    if isinstance(pair, ListVal) and len(pair.items) == 2:
                        k = pair.items[0]
                        keys.append(k.value if isinstance(k, Const) else None)
                        items.append(pair.items[1])
                return ListVal(items, kind="dict", keys=keys)
            return ListVal([], kind="dict", keys=[])
        if q.startswith("torch.nn.") and q.count(".") == 2:
            return self.nn_class(last, args, kwargs, node)
        if q.startswith("torch.nn.functional."):
            if last in _LOSS_FUNCS:
                return self.loss_call(_LOSS_FUNCS[last], _short(node.func), line, args, kwargs,
                                      node)
            if last.endswith("_loss") or last in ("cosine_embedding_loss", "ctc_loss"):
                return self.loss_call("other", _short(node.func), line, args, kwargs, node)
            return self.tensor_fn(last, args, kwargs, node, q)
        if q.startswith("torch.nn.init."):
            if args and last in ("zeros_", "ones_", "constant_"):
                val = Const(0) if last == "zeros_" else Const(1) if last == "ones_" else (
                    args[1] if len(args) > 1 else kwargs.get("val", Unknown("?")))
                self.init_record(node.args[0] if node.args else node, args[0], last, node, val)
            return args[0] if args else Const(None)
        if q in ("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                 "torch.nn.utils.clip_grad_norm"):
            return self.clip(last, args[1:], kwargs, node)
        # optimizers and schedulers ------------------------------------------------------------
        if q.startswith("torch.optim.lr_scheduler."):
            return self.make_scheduler(last.lower(), args, kwargs, node)
        if q.startswith("torch.optim.") and q.count(".") == 2 and last[:1].isupper() \
                and last != "Optimizer":
            return self.make_optimizer(last.lower(), args, kwargs, node)
        if (q.startswith("transformers.") or q.startswith("diffusers.")) and "schedule" in last:
            return self.make_scheduler(last, args, kwargs, node)
        if q.startswith(("transformers.", "bitsandbytes.", "apex.", "lion_pytorch.",
                         "torch_optimizer.", "timm.optim.")) and re.match(
                r"(Paged)?(Fused)?(Adam|AdamW|SGD|Lion|LAMB|Lamb|Adafactor|RMSprop|Novograd)",
                last):
            from traindx.probes.readers.config import normalize_optimizer

            return self.make_optimizer(normalize_optimizer(last), args, kwargs, node)
        # data ------------------------------------------------------------------------------
        if q == "torch.utils.data.DataLoader":
            return self.make_loader(args, kwargs, node)
        if q.startswith("torch.utils.data.") and last.endswith("Sampler"):
            if last in ("RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler"):
                return SamplerVal(last, True)
            if last == "SequentialSampler":
                return SamplerVal(last, False)
            if last == "DistributedSampler":
                sh = kwargs.get("shuffle", Const(True))
                return SamplerVal(last, sh.value if isinstance(sh, Const) else None)
            return SamplerVal(last, None)
        if q.startswith("torchvision.transforms.") or q.startswith("albumentations."):
            if last in _AUG_NAMES or (q.startswith("albumentations.") and last[:1].isupper()
                                      and last not in _ALBU_NON_AUG):
                self.rec["aug"].append((line, _short(node, 60)))
            return Unknown("transform")
        # mixed precision -----------------------------------------------------------------------
        if q in ("amp.autocast",):
            return self.autocast_ctx(raw, args, kwargs, node)
        if q in ("amp.GradScaler",):
            en = kwargs.get("enabled", Const(True))
            sc = ScalerVal(line, en.value if isinstance(en, Const) and not en.soft else (
                en.value if isinstance(en, Const) else None))
            if isinstance(en, Const) and en.soft:
                self.unres(f"line {line}: GradScaler enabled={_short(node, 40)} follows a "
                           f"command-line option ({en.origin})")
            self.scalers.append(sc)
            return sc
        if q in ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                 "torch.autograd.grad_mode.no_grad"):
            mode = args[0] if args else kwargs.get("mode", Const(True))
            if isinstance(mode, Const) and mode.value is False:
                return CtxVal("enablegrad", line, _short(node))
            return CtxVal("nograd", line, f"{_short(node, 40)} (line {line})")
        if q in ("torch.enable_grad",):
            return CtxVal("enablegrad", line, _short(node))
        if q in ("torch.set_grad_enabled", "torch.autograd.set_grad_enabled"):
            flag = args[0] if args else kwargs.get("mode")
            if isinstance(flag, Const):
                if flag.value:
                    return CtxVal("enablegrad", line, _short(node))
                return CtxVal("nograd", line, f"{_short(node, 40)} (line {line})")
            return Unknown("grad mode")
        if q in ("torch.autograd.backward",) and args:
            self.event("backward", node, text=_short(node),
                       obj=args[0] if isinstance(args[0], TensorVal) else None)
            return Const(None)
        if q == "torch.set_default_dtype" and args and isinstance(args[0], Ref):
            if args[0].qual.endswith(("float16", "half", "bfloat16")):
                self.rec["amp"].append((line, "bfloat16" if "bfloat" in args[0].qual else
                                        "float16", _short(node, 60), "cast"))
            return Const(None)
        if q in ("accelerate.Accelerator",):
            mp = kwargs.get("mixed_precision")
            if isinstance(mp, Const) and isinstance(mp.value, str) and mp.value in ("fp16",
                                                                                    "bf16"):
                self.rec["amp"].append((line, "float16" if mp.value == "fp16" else "bfloat16",
                                        _short(node, 60), "accelerate"))
            return AccelVal(line)
        # models from libraries --------------------------------------------------------------
        if q.startswith(("torchvision.models.", "timm.", "transformers.",
                         "segmentation_models_pytorch.", "torch.hub.load")) \
                or last == "from_pretrained":
            if q.startswith("timm.") and last != "create_model":
                return Unknown(_short(node))
            mv = ModuleVal(kind="external", qual=_short(node.func, 60), line=line,
                           text=_short(node))
            mv.params = True
            self.modules.append(mv)
            return mv
        # torch tensor functions ----------------------------------------------------------------
        if q.startswith("torch.") and q.count(".") == 1:
            return self.tensor_fn(last, args, kwargs, node, q)
        if q.startswith(("numpy.", "np.")) or raw.split(".")[0] in ("np", "numpy"):
            tens = [v for v in args if isinstance(v, TensorVal)]
            if tens:
                return self.cut(self.tjoin(tens), line, f"{_short(node, 40)}")
            return Unknown("ndarray")
        if q.startswith("math.") or q.startswith("random.") or q.startswith("os.") \
                or q.startswith("time.") or q.startswith("logging.") or q.startswith("sys."):
            if q.startswith("math.") and all(isinstance(a, Const) for a in args) and args:
                return self.math_const(last, args)
            return Unknown(_short(node))
        # things imported from elsewhere: a class-looking name is probably a model
        if last[:1].isupper() and not q.startswith(("torch.", "torchvision.", "torchaudio.",
                                                    "torchtext.", "sklearn.", "pandas.",
                                                    "numpy.", "collections.", "pathlib.",
                                                    "dataclasses.", "typing.")):
            mv = ModuleVal(kind="opaque", qual=_short(node.func, 60), line=line,
                           text=_short(node))
            mv.params = True
            self.modules.append(mv)
            return mv
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if tens:
            return self.mk(replace(self.tjoin(tens), act=None, act_src=None), node)
        return Unknown(_short(node))

    @staticmethod
    def math_const(name: str, args: list) -> Val:
        import math

        fn = {"sqrt": math.sqrt, "log": math.log, "exp": math.exp, "pow": math.pow,
              "ceil": math.ceil, "floor": math.floor}.get(name)
        try:
            if fn is not None and all(isinstance(a.value, (int, float)) for a in args):
                if name == "exp" and abs(args[0].value) > 700:
                    return Unknown("math")
                return Const(fn(*[a.value for a in args]))
        except (ValueError, OverflowError, TypeError):
            pass
        return Unknown("math")

    def autocast_ctx(self, raw: str, args: list, kwargs: dict, node: ast.Call) -> Val:
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
            return CtxVal("none", line, _short(node))
        if isinstance(en, Const) and en.soft and not en.value:
            self.unres(f"line {line}: `{_short(node, 50)}` follows a command-line option "
                       f"({en.origin}); off by default")
            return CtxVal("none", line, _short(node))
        if not isinstance(en, Const):
            self.unres(f"line {line}: `{_short(node, 50)}` is switched by a run-time flag")
        self.rec["amp"].append((line, dtype, _short(node, 60), "autocast"))
        return CtxVal("autocast", line, _short(node), dtype)

    def nn_class(self, last: str, args: list, kwargs: dict, node: ast.Call) -> Val:
        line = node.lineno
        text = _short(node, 60)
        if last in _LOSS_CLASSES or last.endswith("Loss"):
            kind = _LOSS_CLASSES.get(last, "other")
            ls = None
            if "label_smoothing" in kwargs:
                v = kwargs["label_smoothing"]
                ls = v.value if isinstance(v, Const) else "?"
                self.rec["ls"].append((line, ls, text))
            red = kwargs.get("reduction")
            return LossVal(kind, line, text, ls, red.value if isinstance(red, Const) else None)
        if last == "Sequential":
            layers = [a for a in args]
            if len(layers) == 1 and isinstance(layers[0], ListVal) and layers[0].kind == "dict":
                layers = list(layers[0].items)
            if len(layers) == 1 and isinstance(layers[0], Unknown):
                layers = []
            m = ModuleVal(kind="sequential", qual="torch.nn.Sequential", line=line, text=text,
                          layers=layers)
            for i, l_ in enumerate(layers):
                if isinstance(l_, ModuleVal) and l_.parent is None:
                    l_.parent, l_.path = m, f"[{i}]"
            self.modules.append(m)
            return m
        if last in ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict"):
            src = args[0] if args else kwargs.get("modules", ListVal([]))
            layers = list(src.items) if isinstance(src, ListVal) else []
            m = ModuleVal(kind="container", qual=f"torch.nn.{last}", line=line, text=text,
                          layers=layers)
            if isinstance(src, ListVal) and src.kind == "dict" and src.keys:
                for k, v in zip(src.keys, src.items):
                    if isinstance(k, str):
                        m.attrs[k] = v
            if last.startswith("Parameter"):
                m.params = True
            for i, l_ in enumerate(layers):
                if isinstance(l_, ModuleVal) and l_.parent is None:
                    l_.parent, l_.path = m, f"[{i}]"
            self.modules.append(m)
            return m
        m = ModuleVal(kind="layer", qual=f"torch.nn.{last}", line=line, text=text)
        m.params = True if last in _PARAM_LAYERS else (False if last in _NOPARAM_LAYERS
                                                       else True)
        if last in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
                    "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm"):
            aff = kwargs.get("affine", kwargs.get("elementwise_affine"))
            if isinstance(aff, Const) and aff.value is False:
                m.params = False
        m.act = _ACT_LAYERS.get(last)
        if last in _DROPOUT_LAYERS:
            p = kwargs.get("p", args[0] if args else Const(0.5))
            self.rec["dropout"].append((line, p.value if isinstance(p, Const) else None, text))
        elif "dropout" in kwargs:
            p = kwargs["dropout"]
            self.rec["dropout"].append((line, p.value if isinstance(p, Const) else None, text))
        elif last in _DROPOUT_KW_DEFAULTS:
            self.rec["dropout"].append((line, _DROPOUT_KW_DEFAULTS[last], text + " (default)"))
        if last in _BN_LAYERS:
            self.rec["bn"].append((line, text))
        self.modules.append(m)
        return m

    def clone(self, m: ModuleVal) -> ModuleVal:
        c = copy.copy(m)
        c.id = next(_ids)
        c.var = None
        c.attrs = dict(m.attrs)
        c.attr_events = []
        c.layers = list(m.layers)
        c.parent = None
        self.modules.append(c)
        return c

    def builtin_call(self, name: str, args: list, kwargs: dict, node: ast.Call,
                     env: Env) -> Val:
        a0 = args[0] if args else None
        if name == "range":
            return IterVal("range", [], list(args))
        if name in ("enumerate",):
            return IterVal("enumerate", [a0]) if a0 is not None else Unknown("?")
        if name == "zip":
            return IterVal("zip", list(args))
        if name in ("iter", "reversed", "sorted"):
            return IterVal("wrap", [a0]) if a0 is not None else Unknown("?")
        if name in ("list", "tuple", "set"):
            if a0 is None:
                return ListVal([], kind=name)
            if isinstance(a0, ListVal):
                return ListVal(list(a0.items), kind=name, line=a0.line, comp=a0.comp)
            if isinstance(a0, (ParamsVal, IterVal, LoaderVal, ModuleVal)):
                return a0
            return Unknown("list")
        if name == "dict":
            return ListVal(list(kwargs.values()), kind="dict", keys=list(kwargs.keys()))
        if name == "next" and a0 is not None:
            return self.element_of(a0, node)
        if name == "filter" and len(args) > 1:
            return args[1]
        if name == "len":
            if isinstance(a0, ListVal) and not a0.comp:
                return Const(len(a0.items))
            return Unknown("len")
        if name in ("float", "int", "bool", "abs", "round"):
            if isinstance(a0, Const):
                try:
                    fn = {"float": float, "int": int, "bool": bool, "abs": abs,
                          "round": round}[name]
                    return Const(fn(a0.value), a0.origin, a0.soft)
                except (TypeError, ValueError):
                    return Unknown(name)
            if isinstance(a0, TensorVal) and name in ("float", "int", "bool"):
                return replace(self.cut(a0, node.lineno, f"{name}()"), data=True)
            return Unknown(name)
        if name in ("sum", "max", "min"):
            tens = []
            for a in args:
                if isinstance(a, ListVal):
                    tens.extend(x for x in a.items if isinstance(x, TensorVal))
                elif isinstance(a, TensorVal):
                    tens.append(a)
            if tens:
                return self.mk(self.tjoin(tens), node)
            if all(isinstance(a, Const) for a in args) and args:
                try:
                    return Const({"sum": sum, "max": max, "min": min}[name](
                        *[a.value for a in args]))
                except (TypeError, ValueError):
                    return Unknown(name)
            return Unknown(name)
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
            return self.get_attr(a0, str(args[1].value), node)
        if name == "isinstance":
            return Unknown("isinstance")
        tens = [v for v in args if isinstance(v, TensorVal)]
        if tens:
            return self.tjoin(tens)
        return Unknown(name)

    # ------------------------------------------------------------------------------------------
    # From events to findings
    # ------------------------------------------------------------------------------------------

    def report(self) -> CodeReport:
        rep = CodeReport(path=self.path)
        rep.config_paths = self._config_paths()
        self.F: list[Finding] = []
        try:
            self._conclude()
        finally:
            rep.findings = self.F
            rep.unresolved = list(self.unresolved)
            rep.notes = list(self.notes)
        return rep

    def add(self, fact: str, value: Any, line: int, detail: str, **extra: Any) -> None:
        if any(f.fact == fact for f in self.F):
            return
        line = line or getattr(self, "default_line", 1) or 1
        self.F.append(Finding(fact=fact, value=value, source=f"code:{self.basename}:{line}",
                              detail=detail, extra=extra))

    def _config_paths(self) -> list[str]:
        out: list[str] = []
        consts = [n for n in ast.walk(self.tree) if isinstance(n, ast.Constant)]
        consts.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        for n in consts:
            if isinstance(n.value, str) \
                    and n.value.lower().endswith(CONFIG_SUFFIXES) and "\n" not in n.value \
                    and len(n.value) < 300 and n.value not in out:
                out.append(n.value)
        return out

    # -- helpers over modules and optimizers ------------------------------------------------

    def ancestors(self, m: ModuleVal) -> list[ModuleVal]:
        out, cur, n = [], m, 0
        while cur is not None and n < 50:
            out.append(cur)
            cur = cur.parent
            n += 1
        return out

    def covered(self, m: ModuleVal) -> bool | None:
        """True if some optimizer holds all of ``m``'s parameters (through m or an ancestor)."""
        if not self.cov_opts:
            return None
        anc = {a.id for a in self.ancestors(m)}
        for o in self.cov_opts:
            for p in o.parts:
                if p.module is not None and p.whole and p.module.id in anc:
                    return True
        return False

    def trained(self, mid: int) -> bool:
        """Is the module with id ``mid`` something an optimizer updates (or unknown: True)?"""
        m = next((x for x in self._all_modules() if x.id == mid), None)
        if m is None or not self.cov_opts:
            return True
        if self.covered(m):
            return True
        # partly covered (a child in the optimizer) counts too
        for o in self.cov_opts:
            for p in o.parts:
                if p.module is not None and m in self.ancestors(p.module):
                    return True
                if p.module is None:
                    return True  # an optimizer over something we could not resolve
        return False

    def _all_modules(self) -> list[ModuleVal]:
        seen: dict[int, ModuleVal] = {}
        stack = list(self.modules)
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

    def _is_frozen(self, m: ModuleVal) -> bool:
        """All of ``m`` frozen: requires_grad=False over it or an ancestor (maybe under a
        condition on the parameter name, the usual 'freeze all but the head' loop)."""
        anc = {a.id for a in self.ancestors(m)}
        for _, text, fm, whole in self.rec["frozen"]:
            if isinstance(fm, ModuleVal) and fm.id in anc and (whole or "(if " in text):
                return True
        return False

    # -- the conclusions --------------------------------------------------------------------------

    def _conclude(self) -> None:
        ev = self.events
        backs = [e for e in ev if e.kind == "backward"]
        steps = [e for e in ev if e.kind == "step"]
        primary_back = next((e for e in backs if isinstance(e.obj, TensorVal)), None)
        if backs and primary_back is None:
            self.unres(f"line {backs[0].line}: could not trace what `{backs[0].text}` "
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
        self.default_line = (backs[0].line if backs else steps[0].line if steps else 1)
        # the loop that runs one optimizer step per iteration
        ref_ev = steps[0] if steps else (backs[0] if backs else None)
        step_loop = ref_ev.loops[-1][0] if ref_ev and ref_ev.loops else None
        # the optimizers that really step (an optimizer built and never stepped updates nothing)
        stepped = [e.obj for e in steps if isinstance(e.obj, OptVal) and e.obj.kind]
        self.cov_opts = [o for o in self.optimizers if o in stepped] or self.optimizers
        opt = self._primary_optimizer(steps)
        self._optimizer_facts(opt)
        self._coverage_facts(trained_models, opt)
        self._loss_facts(loss_t, primary_back, trained_models)
        self._loop_facts(backs, steps, step_loop, loss_t, primary_back)
        self._mode_facts(train_calls, step_loop)
        self._data_facts(step_loop, ref_ev)
        self._model_facts(trained_models)

    def _primary_optimizer(self, steps: list[Event]) -> OptVal | None:
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
            self.note(f"several optimizers: reported {opt.kind} (line {opt.line}); also "
                      f"{others}")
        return opt

    def _optimizer_facts(self, opt: OptVal | None) -> None:
        if opt is None:
            return
        self.add("optimizer", opt.kind, opt.line, f"`{opt.text}` (line {opt.line})")
        if opt.lr is not None:
            self.add("learning_rate", opt.lr[0], opt.line,
                     f"{opt.lr[1]} in `{opt.text}` (line {opt.line})")
        if opt.wd is not None:
            self.add("weight_decay", opt.wd[0], opt.line, f"{opt.wd[1]} (line {opt.line})")

    def _coverage_facts(self, trained: list[ModuleVal], opt: OptVal | None) -> None:
        missing: list[str] = []
        lines: list[int] = []
        # 1. layers kept in plain Python lists/dicts inside an nn.Module
        seen_cls: set = set()
        for m in self._all_modules():
            for key, msg, line in self._plain_lists(m):
                if key not in seen_cls:
                    seen_cls.add(key)
                    missing.append(msg)
                    lines.append(line)
        for key, msg, line in self.uninstantiated_lists:
            if key not in seen_cls:
                seen_cls.add(key)
                missing.append(msg + " (class not instantiated in this file)")
                lines.append(line)
        # 2. trained model instances against the optimizers' parameters
        if self.cov_opts and trained:
            for m in trained:
                if not self.module_has_params(m):
                    continue
                anc = {a.id for a in self.ancestors(m)}
                parts = [(o, p) for o in self.cov_opts for p in o.parts]
                if any(p.module is None for _, p in parts):
                    unres = [p.text for _, p in parts if p.module is None]
                    self.unres(f"optimizer parameters `{unres[0]}` could not be resolved")
                    continue
                whole = [(o, p) for o, p in parts if p.module.id in anc and p.whole]
                sub = [(o, p) for o, p in parts if m in self.ancestors(p.module)
                       and p.module is not m]
                if whole:
                    # parts replaced after the optimizer took model.parameters()
                    o0 = min((o for o, _ in whole), key=lambda o: o.seq)
                    for sm in [m] + [x for x in self._all_modules() if m in self.ancestors(x)]:
                        for seq, line, attr, val in sm.attr_events:
                            if seq > o0.seq and isinstance(val, ModuleVal) \
                                    and self.module_has_params(val):
                                who = sm.var or sm.path or sm.qual
                                missing.append(f"{who}.{attr} replaced at line {line}, after the "
                                               f"optimizer was built at line {o0.line}")
                                lines.append(line)
                    continue
                if sub:
                    held = ", ".join(p.text for _, p in sub)
                    rest = self._uncovered_children(m, [p.module for _, p in sub])
                    if m.kind in ("local", "sequential") and not rest:
                        continue    # the parts named are all the model has
                    if (rest and all(self._is_frozen(r) for _, r in rest)) or (
                            not rest and self._is_frozen(m)):
                        self.note(f"the optimizer holds only part of {m.var or m.qual} "
                                  f"({held}); the rest is frozen")
                        continue
                    what = ", ".join(t for t, _ in rest) if rest else \
                        f"everything in {m.var or m.qual} outside {held}"
                    o0 = sub[0][0]
                    missing.append(f"{what}: the optimizer (line {o0.line}) holds only {held} "
                                   f"while {m.var or m.qual} trains")
                    lines.append(o0.line)
                    continue
                # a different instance
                others = [p for _, p in parts if p.module is not None]
                what = others[0].text if others else "other parameters"
                om = others[0].module if others else None
                olabel, same = "", False
                if om is not None:
                    root = self.ancestors(om)[-1]
                    olabel = f" of {root.describe()}"
                    same = root.qual == m.qual and root is not m
                o0 = self.cov_opts[0]
                if same:
                    missing.append(f"{m.describe()} is trained but the optimizer (line "
                                   f"{o0.line}) holds {what}{olabel}, another instance")
                else:
                    missing.append(f"{m.describe()} is trained but no optimizer that steps "
                                   f"holds its parameters (the one at line {o0.line} holds "
                                   f"{what}{olabel})")
                lines.append(o0.line)
        if missing:
            uniq: list[str] = []
            for msg in missing:
                if msg not in uniq:
                    uniq.append(msg)
            missing = uniq
            self.add("params_not_in_optimizer", missing, lines[0],
                     "; ".join(missing), lines=lines)
        elif self.cov_opts and trained and opt is not None and not any(
                "could not be resolved" in u for u in self.unresolved):
            names = ", ".join(m.var or m.qual for m in trained)
            self.add("params_not_in_optimizer", [], opt.line,
                     f"the optimizer at line {opt.line} holds all parameters of {names}")

    def _plain_lists(self, m: ModuleVal) -> list[tuple]:
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
            line = self._attr_line(m.cls, attr) or m.line
            out.append(((m.cls.name, attr),
                        f"layers kept in a plain {kind}: self.{attr} in {m.cls.name} (line "
                        f"{line}); use nn.Module{'Dict' if kind == 'dict' else 'List'}", line))
        return out

    def probe_uninstantiated(self) -> None:
        """Module classes the script defines but never instantiates (a model file read on
        its own): run their __init__ with unknown arguments, only to find plain-list layers;
        nothing else they record is kept."""
        self.uninstantiated_lists = []
        made = {m.cls.node for m in self.modules if m.cls is not None}
        classes = [v for v in self.globals.vars.values()
                   if isinstance(v, ClassVal) and v.is_module and v.node not in made]
        if not classes:
            return
        saved = (self.events, self.rec, self.modules, self.optimizers, self.schedulers,
                 self.loaders, self.scalers, list(self.unresolved), list(self.notes))
        for cv in classes:
            self.events, self.modules = [], []
            self.rec = {k: [] for k in saved[1]}
            self.optimizers, self.schedulers, self.loaders, self.scalers = [], [], [], []
            try:
                init = self.class_attr(cv, "__init__")
                obj = ModuleVal(kind="local", qual=cv.name, line=cv.node.lineno, cls=cv)
                if isinstance(init, FuncVal):
                    self.call_function(replace(init, bound=obj), None, {}, cv.node,
                                       placeholder_args=False)
                self.uninstantiated_lists.extend(self._plain_lists(obj))
            except (_Budget, RecursionError):
                break
        (self.events, self.rec, self.modules, self.optimizers, self.schedulers, self.loaders,
         self.scalers, self.unresolved, self.notes) = saved

    def _attr_line(self, cls: ClassVal, attr: str) -> int | None:
        for n in ast.walk(cls.node):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and t.attr == attr \
                            and isinstance(t.value, ast.Name) and t.value.id == "self":
                        return n.lineno
        return None

    def _uncovered_children(self, m: ModuleVal, held: list[ModuleVal]) -> list[tuple]:
        if m.kind not in ("local", "sequential"):
            return []
        out = []
        held_ids = {h.id for h in held}
        name = m.var or m.qual
        items = list(m.attrs.items()) if m.kind == "local" else [
            (f"[{i}]", x) for i, x in enumerate(m.layers)]
        for attr, v in items:
            if attr.startswith("__child__"):
                continue
            if isinstance(v, ModuleVal) and self.module_has_params(v) and v.id not in held_ids \
                    and not any(v in self.ancestors(h) for h in held):
                out.append((f"{name}.{attr}" if not attr.startswith("[") else f"{name}{attr}",
                            v))
        return out

    def _loss_facts(self, t: TensorVal | None, back: Event | None,
                    trained: list[ModuleVal]) -> None:
        if t is None or back is None:
            return
        line = back.line
        stock = [r for r in t.losses if r.kind is not None]
        inside = [r for r in t.losses if r.kind is None]
        entries = self.rec["loss_entry"]
        entry = next((e for e in entries if re.search(r"(loss|criterion|crit|focal|dice)",
                                                      e[1], re.I)), entries[0] if entries else None)
        if inside and not stock:
            self.unres(f"line {inside[0].line}: the loss is computed inside the model "
                       f"(`{inside[0].text}`): its kind is not visible here")
            return
        if not t.calls and not t.losses and not t.cuts:
            self.unres(f"line {line}: could not trace where the loss backpropagated at line "
                       f"{line} comes from")
            return
        custom = (not stock) or t.loss_mod
        if custom:
            if entry is not None:
                where = f"{entry[1]} (line {entry[0]})"
            else:
                where = f"a hand-written expression backpropagated at line {line}"
            wrapped = f", built on {stock[0].text}" if stock else ""
            self.add("loss_function", "custom", entry[0] if entry else line,
                     f"the loss is {where}{wrapped}")
            self.add("custom_loss", True, entry[0] if entry else line,
                     f"hand-written loss: {where}{wrapped}")
        else:
            # the stock loss on the model output's path; several: the first, named in detail
            primary = stock[0]
            others = [r for r in stock if r is not primary]
            extra = f"; also {', '.join(r.text for r in others)}" if others else ""
            self.add("loss_function", primary.kind, primary.line,
                     f"`{primary.text}` (line {primary.line}) computes the loss backpropagated "
                     f"at line {line}{extra}")
            self.add("custom_loss", False, primary.line,
                     f"stock loss `{primary.text}` (line {primary.line})")
        # what squashing reached the loss
        rec = stock[0] if stock and not custom else None
        if rec is not None and rec.act != "?":
            act = rec.act or "none"
            if rec.act_src:
                detail = f"{rec.act_src[1]} output fed to {rec.text} (line {rec.line})"
                self.add("output_activation", act, rec.act_src[0], detail)
            else:
                self.add("output_activation", "none", rec.line,
                         f"raw model outputs (no softmax/log_softmax/sigmoid) fed to "
                         f"{rec.text} (line {rec.line})")
        elif rec is not None:
            self.unres(f"line {rec.line}: could not see what feeds {rec.text}")
        elif custom:
            acts = [self.events[i].value.act for i in sorted(t.calls)
                    if isinstance(self.events[i].value, TensorVal)]
            srcs = [self.events[i].value.act_src for i in sorted(t.calls)
                    if isinstance(self.events[i].value, TensorVal)]
            if acts:
                a = acts[0] or "none"
                if srcs[0]:
                    self.add("output_activation", a, srcs[0][0],
                             f"the model output leaves {srcs[0][1]} before the hand-written loss")
                else:
                    self.add("output_activation", "none", line,
                             "raw model outputs (no softmax/log_softmax/sigmoid) reach the "
                             "hand-written loss")
        # label smoothing
        if rec is not None and rec.kind == "cross_entropy":
            if rec.label_smoothing not in (None, "?"):
                self.add("label_smoothing", float(rec.label_smoothing), rec.line,
                         f"label_smoothing={_fmt(rec.label_smoothing)} in {rec.text} "
                         f"(line {rec.line})")
            elif rec.label_smoothing is None:
                self.add("label_smoothing", 0.0, rec.line,
                         f"{rec.text} (line {rec.line}) has no label_smoothing")
        # unsafe math on the loss path
        if t.unsafe:
            kinds = []
            for k, _, _ in t.unsafe:
                if k not in kinds:
                    kinds.append(k)
            first = t.unsafe[0]
            self.add("unsafe_math", kinds, first[1],
                     "; ".join(f"{txt} (line {ln})" for _, ln, txt in t.unsafe[:4]))
        else:
            self.add("unsafe_math", [], line,
                     f"no log/exp/sqrt/division without a guard on the path to the loss "
                     f"backpropagated at line {line}")

    def _iteration(self, loop_id: int) -> list[Event]:
        """The events of the first iteration of a loop, in order."""
        first = next((e for e in self.events if (loop_id, 0) in e.loops), None)
        if first is None:
            return []
        k = first.loops.index((loop_id, 0))
        prefix = first.loops[: k + 1]
        return [e for e in self.events if e.loops[: k + 1] == prefix]

    def _loop_facts(self, backs: list[Event], steps: list[Event], step_loop: int | None,
                    loss_t: TensorVal | None, back: Event | None) -> None:
        ev = self.events
        reached: set = set()   # modules some backward reaches with the graph intact
        for b in backs:
            if isinstance(b.obj, TensorVal):
                reached |= set(b.obj.srcs)
        zeros = [e for e in ev if e.kind == "zero"]
        if step_loop is not None and (steps or backs):
            lnode = self.loop_nodes.get(step_loop)
            lline = getattr(lnode, "lineno", 0)
            inside = [z for z in zeros if any(l == step_loop for l, _ in z.loops)]
            # an optimizer stepped in the loop whose own zero_grad never runs there, while another's
            # does (two optimizers, one forgotten): its gradients add up across iterations
            zeroed = {id(z.obj) for z in inside if isinstance(z.obj, OptVal)}
            covers_all = any(not isinstance(z.obj, OptVal) for z in inside)
            forgotten = [] if covers_all or not zeroed else [
                st for st in steps if isinstance(st.obj, OptVal) and id(st.obj) not in zeroed
                and any(l == step_loop for l, _ in st.loops)]
            if forgotten:
                st = forgotten[0]
                z = inside[0]
                self.add("optimizer_not_zeroed", True, st.line,
                         f"`{st.text}` (line {st.line}) steps in the training loop (line {lline}) "
                         f"but its zero_grad() never runs there; only `{z.text}` (line {z.line}) "
                         f"does: that optimizer's gradients add up across iterations")
            elif inside:
                self.add("optimizer_not_zeroed", False, inside[0].line,
                         "every optimizer stepped in the loop is zeroed there" if not covers_all else
                         f"`{inside[0].text}` (line {inside[0].line}) clears every gradient")
            if inside:
                z = inside[0]
                self.add("zero_grad_called", True, z.line,
                         f"`{z.text}` (line {z.line}) runs inside the training loop (line "
                         f"{lline})")
            else:
                bl = backs[0].line if backs else "?"
                sl = steps[0].line if steps else "?"
                if zeros:
                    z = zeros[0]
                    self.add("zero_grad_called", False, lline,
                             f"`{z.text}` (line {z.line}) is outside the loop at line {lline} "
                             f"where backward (line {bl}) and step (line {sl}) run: gradients "
                             f"add up across its iterations")
                else:
                    self.add("zero_grad_called", False, lline,
                             f"no zero_grad() or grad = None in the loop at line {lline} where "
                             f"backward (line {bl}) and step (line {sl}) run")
            # order within one iteration
            it = [e for e in self._iteration(step_loop) if e.kind in ("backward", "zero",
                                                                      "step", "clip")]
            seqk = [e for e in it if e.kind in ("backward", "zero", "step")]
            for i, e in enumerate(seqk):
                if e.kind != "step":
                    continue
                prev = None
                for j in range(1, len(seqk) + 1):
                    cand = seqk[(i - j) % len(seqk)]
                    if cand.kind in ("backward", "zero"):
                        prev = (cand, j > i)
                        break
                if prev and prev[0].kind == "zero":
                    self.add("grads_all_zero", True, e.line,
                             f"`{prev[0].text}` (line {prev[0].line}) clears the gradients "
                             f"after backward and before `{e.text}` (line {e.line}): every step "
                             f"sees zero gradients")
                elif prev and prev[0].kind == "backward" and prev[1]:
                    self.note(f"line {e.line}: `{e.text}` runs before `{prev[0].text}` "
                              f"(line {prev[0].line}) in the same iteration: each step applies "
                              f"the previous batch's gradients")
                break
            for i, e in enumerate(it):
                if e.kind == "clip":
                    before = [x for x in it[:i] if x.kind == "backward"]
                    if not before and any(x.kind == "backward" for x in it[i:]):
                        self.note(f"line {e.line}: gradient clipping runs before backward in "
                                  f"the iteration: it clips the previous gradients")
        # clipping
        clips = [e for e in ev if e.kind == "clip"]
        if clips:
            c = clips[0]
            val, src, name = c.value
            if val is not None:
                how = "value clipping: clip_value" if "value" in name else "max_norm"
                self.add("clip_max_norm", val, c.line,
                         f"`{c.text}` (line {c.line}){src}" + (
                             f" ({how})" if "value" in name else ""))
            else:
                self.unres(f"line {c.line}: clipping threshold of `{c.text}` is computed at run "
                           f"time")
        # scheduler
        scheds = [e for e in ev if e.kind == "sched"]
        sched_obj = next((e.obj for e in scheds if isinstance(e.obj, SchedVal) and e.obj.kind),
                         None)
        if sched_obj is None and self.schedulers:
            sched_obj = self.schedulers[0]
            if not scheds:
                self.note(f"line {sched_obj.line}: the scheduler `{sched_obj.text}` is never "
                          f"stepped")
        if sched_obj is not None and sched_obj.kind:
            self.add("scheduler", sched_obj.kind, sched_obj.line,
                     f"`{sched_obj.text}` (line {sched_obj.line})")
            if sched_obj.per_batch is not None:
                self.add("scheduler_designed_per_batch", sched_obj.per_batch, sched_obj.line,
                         f"{sched_obj.why} (line {sched_obj.line})")
            if sched_obj.warmup:
                self.add("warmup", True, sched_obj.line,
                         f"`{sched_obj.text}` warms the learning rate up (line {sched_obj.line})")
        mine = [e for e in scheds if e.obj is sched_obj or not isinstance(e.obj, SchedVal)
                or e.obj.kind is None] if sched_obj is not None else scheds
        if mine and step_loop is not None:
            per_batch = [e for e in mine if any(l == step_loop for l, _ in e.loops)]
            lline = getattr(self.loop_nodes.get(step_loop), "lineno", 0)
            if per_batch:
                e = per_batch[0]
                cond = " (under a condition)" if e.cond else ""
                self.add("scheduler_step_per_batch", True, e.line,
                         f"`{e.text}` (line {e.line}) runs every batch, inside the loop at line "
                         f"{lline}{cond}")
            else:
                e = mine[0]
                self.add("scheduler_step_per_batch", False, e.line,
                         f"`{e.text}` (line {e.line}) runs outside the batch loop (line {lline})")
        # graph cut on the path to the loss
        if loss_t is not None and back is not None:
            lost = []
            for line, how, srcs in loss_t.cuts:
                gone = [s for s in srcs if s not in reached and self.trained(s)]
                if gone:
                    lost.append((line, how))
            if not loss_t.srcs and (loss_t.calls or loss_t.cuts):
                cut = loss_t.cuts[0] if loss_t.cuts else (back.line, "?")
                self.add("graph_cut", True, cut[0],
                         f"{cut[1]} (line {cut[0]}) cuts the graph: the loss backpropagated at "
                         f"line {back.line} reaches no trainable parameter")
            elif lost:
                self.add("graph_cut", True, lost[0][0],
                         f"{lost[0][1]} (line {lost[0][0]}) cuts the graph between trainable "
                         f"layers and the loss backpropagated at line {back.line}")
            elif loss_t.srcs:
                self.add("graph_cut", False, back.line,
                         f"the model output reaches `{back.text}` (line {back.line}) with the "
                         f"graph intact")

    def _mode_facts(self, train_calls: set, step_loop: int | None) -> None:
        calls = [(i, e) for i, e in enumerate(self.events) if e.kind == "call"]
        if not calls:
            return
        train_models = {self.events[i].obj.id for i in train_calls
                        if isinstance(self.events[i].obj, ModuleVal)}
        val_calls, tr_calls = [], []
        for i, e in calls:
            if i in train_calls:
                tr_calls.append(e)
                continue
            if not isinstance(e.obj, ModuleVal) or (train_models and e.obj.id not in
                                                    train_models):
                continue
            in_step_loop = step_loop is not None and e.loops and e.loops[-1][0] == step_loop
            eval_fn = any(_EVAL_FUNC.search(f) for f in e.funcs)
            if e.nograd or eval_fn or (e.loops and not in_step_loop):
                val_calls.append(e)
        if val_calls:
            bad = [e for e in val_calls if e.mode == "train"]
            if bad:
                e = bad[0]
                self.add("model_mode_in_validation", "train", e.line,
                         f"`{e.text}` (line {e.line}) runs validation with the model in train "
                         f"mode: no model.eval() before it")
            else:
                e = val_calls[0]
                mode_ev = next((x for x in reversed(self.events[: self.events.index(e)])
                                if x.kind == "mode" and x.obj is e.obj), None)
                where = f" after `{mode_ev.text}` (line {mode_ev.line})" if mode_ev else ""
                self.add("model_mode_in_validation", "eval", e.line,
                         f"`{e.text}` (line {e.line}) runs validation in eval mode{where}")
        if tr_calls:
            bad = [e for e in tr_calls if e.mode == "eval"]
            if bad:
                e = bad[0]
                prior = [x for x in self.events[: self.events.index(e)]
                         if x.kind == "mode" and x.obj is e.obj and x.mode == "eval"]
                why = f" `{prior[-1].text}` (line {prior[-1].line}) is never undone by " \
                      f"model.train()" if prior else ""
                self.add("model_mode_in_training", "eval", e.line,
                         f"`{e.text}` (line {e.line}) trains with the model in eval mode:{why}")
            else:
                e = tr_calls[0]
                self.add("model_mode_in_training", "train", e.line,
                         f"`{e.text}` (line {e.line}) trains with the model in train mode")

    def _data_facts(self, step_loop: int | None, ref_ev: Event | None) -> None:
        ld = None
        how = ""
        if step_loop is not None and ref_ev is not None:
            src = self.loop_source(ref_ev.src if ref_ev.src is not None else Unknown("?"))
            if isinstance(src, BatchVal) and isinstance(src.source, LoaderVal):
                src = src.source
            if isinstance(src, LoaderVal) and src.line:
                ld, how = src, "iterated by the training loop"
            elif isinstance(src, IterVal) and src.kind == "range" and len(src.args) == 3:
                lnode = self.loop_nodes.get(step_loop)
                step = src.args[2]
                if isinstance(step, Const) and isinstance(step.value, int) \
                        and self._slices_by(lnode):
                    self.add("batch_size", step.value, lnode.lineno,
                             f"manual batching: `{_short(lnode.iter, 50)}` (line {lnode.lineno})")
                    perm = self._permutes(lnode)
                    if perm:
                        self.add("shuffle", True, perm, f"the data is permuted (line {perm}) "
                                                        f"before manual batching")
                    else:
                        self.add("shuffle", False, lnode.lineno,
                                 f"manual batching by slicing at line {lnode.lineno} with no "
                                 f"permutation of the data")
                    return
        if ld is None:
            real = [x for x in self.loaders if x.line]
            named = [x for x in real if x.var and "train" in x.var.lower()]
            if named:
                ld, how = named[0], f"named {named[0].var}"
            elif len(real) == 1:
                ld, how = real[0], "the only DataLoader"
            elif real:
                self.unres(f"{len(real)} DataLoaders (lines "
                           f"{', '.join(str(x.line) for x in real)}): could not tell which one "
                           f"trains")
        if ld is None:
            return
        label = f"`{ld.text}` (line {ld.line}, {how})"
        if ld.shuffle is not None:
            self.add("shuffle", ld.shuffle[0], ld.line, f"{ld.shuffle[1]} in {label}")
        else:
            self.unres(ld.why.get("shuffle") or ld.why.get("sampler") or
                       f"line {ld.line}: shuffling of `{ld.text}` is decided at run time")
        if ld.batch_size is not None:
            self.add("batch_size", ld.batch_size[0], ld.line, f"{ld.batch_size[1]} in {label}")
        else:
            self.unres(ld.why.get("batch_size") or
                       f"line {ld.line}: batch size of `{ld.text}` is computed at run time")
        if ld.num_workers is not None:
            self.add("num_workers", ld.num_workers[0], ld.line,
                     f"{ld.num_workers[1]} in {label}")
        else:
            self.unres(ld.why.get("num_workers") or
                       f"line {ld.line}: num_workers of `{ld.text}` is computed at run time")

    @staticmethod
    def _slices_by(loop: ast.AST) -> bool:
        tgt = loop.target.id if isinstance(loop.target, ast.Name) else None
        if tgt is None:
            return False
        for n in ast.walk(loop):
            if isinstance(n, ast.Slice) and isinstance(n.lower, ast.Name) and n.lower.id == tgt:
                return True
        return False

    def _permutes(self, loop: ast.AST) -> int | None:
        # a permutation in the loop or in the function around it
        scope = self.tree
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    n is loop for n in ast.walk(fn)):
                scope = fn
        for n in ast.walk(scope):
            if isinstance(n, ast.Call):
                t = _short(n.func)
                if t.endswith(("randperm", "permutation", "shuffle")):
                    return n.lineno
        return None

    def _model_facts(self, trained: list[ModuleVal]) -> None:
        models = trained or [m for m in self.modules if m.kind in (
            "local", "sequential", "external", "opaque") and m.parent is None]
        visible = bool(models) and all(m.kind in ("local", "sequential", "layer")
                                       for m in models)
        pretrained_ok = bool(models) and all(m.kind in ("local", "sequential", "layer",
                                                        "external") for m in models)
        first_line = models[0].line if models else 1
        # dropout
        drops = [d for d in self.rec["dropout"]]
        known = [d for d in drops if isinstance(d[1], (int, float)) and not isinstance(d[1],
                                                                                        bool)]
        if known:
            best = max(known, key=lambda d: d[1])
            self.add("dropout_p", float(best[1]), best[0], f"`{best[2]}` (line {best[0]})")
        elif drops:
            self.unres(f"line {drops[0][0]}: dropout probability of `{drops[0][2]}` is computed "
                       f"at run time")
        elif visible:
            self.add("dropout_p", 0.0, first_line,
                     f"no Dropout in {', '.join(m.describe() for m in models)}")
        # regularization list
        reg: list[tuple[str, int, str]] = []
        if any((d[1] or 0) > 0 for d in known) or (drops and not known):
            d = known[0] if known else drops[0]
            reg.append(("dropout", d[0], d[2]))
        wd = next((f for f in self.F if f.fact == "weight_decay"), None)
        if wd is not None and wd.value and wd.value > 0:
            reg.append(("weight_decay", int(wd.source.rsplit(":", 1)[-1]),
                        f"weight_decay={_fmt(wd.value)}"))
        ls = next((f for f in self.F if f.fact == "label_smoothing"), None)
        if ls is not None and ls.value and ls.value > 0:
            reg.append(("label_smoothing", int(ls.source.rsplit(":", 1)[-1]),
                        f"label_smoothing={_fmt(ls.value)}"))
        elif self.rec["ls"] and any(isinstance(x[1], (int, float)) and x[1] > 0
                                    for x in self.rec["ls"]):
            x = self.rec["ls"][0]
            reg.append(("label_smoothing", x[0], x[2]))
        if self.rec["aug"]:
            a = self.rec["aug"][0]
            reg.append(("augmentation", a[0], a[1]))
        if self.rec["bn"]:
            b = self.rec["bn"][0]
            reg.append(("batchnorm", b[0], b[1]))
        early = self._early_stopping()
        if early:
            reg.append(("early_stopping", early[0], early[1]))
        if reg:
            self.add("regularization", [r[0] for r in reg], reg[0][1],
                     "; ".join(f"{r[0]}: {r[2]} (line {r[1]})" for r in reg),
                     lines={r[0]: r[1] for r in reg})
        elif visible:
            self.add("regularization", [], first_line,
                     f"no dropout, weight decay, label smoothing, augmentation, BatchNorm or "
                     f"early stopping in {self.basename}")
        elif models:
            self.unres(f"regularization inside {models[0].describe()} is not visible in "
                       f"{self.basename}")
        if self.rec["dropout"] or self.rec["bn"]:
            x = (self.rec["bn"] or self.rec["dropout"])[0]
            self.add("model_has_dropout_or_bn", True, x[0], f"`{x[-1]}` (line {x[0]})")
        elif visible:
            self.add("model_has_dropout_or_bn", False, first_line,
                     "no Dropout or BatchNorm layer in the model")
        # initialisation
        inits = [r for r in self.rec["init"] if not r[3]]
        const = [r for r in inits if r[2] in ("zeros_", "ones_", "constant_", "zero_", "fill_")]
        if const:
            r = const[0]
            self.add("init_constant", True, r[0],
                     f"`{r[5]}` (line {r[0]}) sets {r[1]} to one constant")
        elif pretrained_ok:
            self.add("init_constant", False, first_line,
                     f"no constant or zero weight initialisation in {self.basename}")
        # frozen parameters
        fr = self.rec["frozen"]
        if fr:
            self.add("frozen_params", [t for _, t, _, _ in fr], fr[0][0],
                     "; ".join(f"requires_grad=False on {t} (line {ln})" for ln, t, _, _ in fr))
        elif pretrained_ok:
            self.add("frozen_params", [], first_line,
                     f"no requires_grad=False in {self.basename}")
        scored = _class_scoring(self.tree)
        if scored is not None:
            self.add("task_type", "classification", scored[0],
                     f"`{scored[1]}` (line {scored[0]}) scores predictions as classes (rounded or "
                     "arg-maxed, compared with the targets): a classification task")
        mrg = self.rec["module_rg"]
        if mrg:
            self.add("requires_grad_attr_on_module", True, mrg[0][0],
                     f"`{mrg[0][1]}` (line {mrg[0][0]}) sets a plain attribute on a Module: its parameters' "
                     "requires_grad does not change, nothing is unfrozen (use .requires_grad_(True) or loop "
                     "over .parameters())")
        # mixed precision
        amp = self.rec["amp"]
        if amp:
            a = amp[0]
            self.add("uses_amp", True, a[0], f"`{a[2]}` (line {a[0]})")
            if a[1]:
                self.add("amp_dtype", a[1], a[0], f"`{a[2]}` runs in {a[1]} (line {a[0]})")
        elif models or self.events:
            self.add("uses_amp", False, first_line,
                     f"no autocast, GradScaler or half precision in {self.basename}")
        scalers = self.scalers
        if scalers:
            s = scalers[0]
            if s.enabled is not False:
                self.add("grad_scaler_used", True, s.line, f"GradScaler created at line {s.line}")
            else:
                self.add("grad_scaler_used", False, s.line,
                         f"GradScaler at line {s.line} is disabled")
        elif amp:
            a = amp[0]
            self.add("grad_scaler_used", False, a[0],
                     f"mixed precision at line {a[0]} without a GradScaler")

    def _early_stopping(self) -> tuple[int, str] | None:
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and _short(n.func).endswith("EarlyStopping"):
                return (n.lineno, _short(n, 60))
        for n in ast.walk(self.tree):
            if isinstance(n, ast.If) and re.search(r"(patience|early_stop|no_improve|"
                                                   r"bad_epochs|epochs_without)",
                                                   _short(n.test, 200), re.I):
                if any(isinstance(x, (ast.Break, ast.Return)) for x in ast.walk(n)):
                    return (n.lineno, f"if {_short(n.test, 50)}: break")
        return None


def _literal_number(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _compare(op: ast.cmpop, a: Any, b: Any) -> bool | None:
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
