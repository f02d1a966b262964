"""Abstract values: what a Python expression of the script evaluates to (constants, library names,
modules, optimizers, tensors with their provenance, ...), the environment, and the events recorded
while the script runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any


class Val:
    """Base of the abstract values."""


class Missing:
    pass


MISSING = Missing()

#: A string constant longer than this is text, not a config file's path (code that names its
#: config): a bound on what is looked at, not knowledge.
PATH_MAX_CHARS = 300


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
    env: Env
    cls: ClassVal | None = None
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
    is_optimizer: bool = False      # extends torch.optim.Optimizer: its instances are optimizers

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


module_ids = iter(range(1, 1 << 62))


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
    parent: ModuleVal | None = None
    path: str = ""
    var: str | None = None
    id: int = field(default_factory=lambda: next(module_ids))
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
    momentum: Any = None            # (value, detail) for SGD/RMSprop, else None
    eps: Any = None                 # (value, detail) of an eps written in an Adam-family call, else None
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
    decay: dict | None = None       # a stock decaying schedule's numbers (torch_api/schedule.py)


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
    hand_terms: tuple = ()          # (line, text): terms computed from the model's outputs without a
                                    # stock loss, added to a stock loss (a margin loss + 0.0005 * mse)
    signed: bool = False            # a difference or negation of computed tensors (an entropy gap,
                                    # -log p): can be below zero by construction; kept only through
                                    # sums and scaling by a number, not through other operations
    hand_signed: tuple = ()         # (line, text): hand terms added to a stock loss that can be
                                    # below zero (signed, or subtracted from the stock loss)
    unsafe: tuple = ()              # (kind, line, text)
    data: bool = False
    param: bool = False
    safe: bool = False              # clamped / + eps
    exp: bool = False               # produced by exp (positive)
    ext: bool = False               # output of an external model (has .loss/.logits)
    param_part: Part | None = None  # an element of model.parameters()
    scale: float | None = None      # data made here: a bound on |value| (|mean| + std) from random
                                    # draws, constants and simple arithmetic; None when not followed
    leaf: bool = False              # a tensor the script made trainable itself (x.requires_grad_(),
                                    # requires_grad=True), or computed from one: a model of raw tensors
    onehot: bool = False            # targets spread over the class axis (F.one_hot(y), eye(C)[y], a
                                    # scatter of 1s, a smoothed one-hot): one column per class
    class_terms: tuple | None = None  # (line, text): log-probabilities times such targets, the per-class
                                    # terms of a cross-entropy not yet summed over the class axis
    class_mean: tuple | None = None   # (line, text): where those terms were averaged over the class axis
                                    # (a mean over every element): the cross-entropy divided by C
    resquash: tuple | None = None   # (line, text, act): the model's output, already squashed (a softmax,
                                    # a sigmoid), squashed again by the same family (log_softmax of a
                                    # softmax, sigmoid of a sigmoid) on this tensor's path


def is_tensor(v: Any) -> bool:
    return isinstance(v, TensorVal)


#: squashings whose outputs are probabilities (in [0, 1]): a product of two of them is a probability too
PROBABILITY_ACTS = frozenset({"softmax", "sigmoid"})


def probability_product(a: Any, b: Any, matmul: bool) -> TensorVal | None:
    """The operand whose squashing a product of two probabilities keeps, or None unless both factors
    are probabilities. Routing probabilities times class distributions (a soft decision tree's
    ``path_probs @ softmax(leaves)``, a mixture of experts' ``gate * softmax(expert)``) is a mixture of
    those distributions: a matrix product keeps the right operand's last axis, so its squashing; an
    elementwise one keeps the distribution's (softmax) over a gate's (sigmoid)."""
    if not (is_tensor(a) and is_tensor(b) and a.act in PROBABILITY_ACTS and b.act in PROBABILITY_ACTS):
        return None
    if matmul:
        return b
    return b if b.act == "softmax" else a


def mixes_squashed(vals) -> bool:
    """Among the tensor operands of a product, one carries a squashing the other lacks."""
    acts = {v.act for v in vals if isinstance(v, TensorVal)}
    return len(acts) > 1 and any(acts)


def from_model(t: TensorVal) -> bool:
    """Computed by the model: a module's parameters or call, or a raw tensor the script trains."""
    return bool(t.srcs or t.calls or t.leaf)


class Env:
    def __init__(self, parent: Env | None = None):
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
    def root(self) -> Env:
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


class BudgetExceeded(Exception):
    pass


def literal_number(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    return None


def config_file_name(v: Val) -> Const | None:
    """The file name a path expression ends in, when it names a config file
    (``Path(__file__).with_name("config.yaml")``, ``HERE / "cfg.json"``,
    ``os.path.join(os.path.dirname(__file__), "config.toml")``): the directory is computed at run
    time, and the script's own is the one such idioms name. None otherwise."""
    from traindx.probes.readers.config import CONFIG_SUFFIXES
    if isinstance(v, Const) and isinstance(v.value, str) and "\n" not in v.value \
            and len(v.value) < PATH_MAX_CHARS and v.value.lower().endswith(CONFIG_SUFFIXES):
        return Const(v.value)
    return None
