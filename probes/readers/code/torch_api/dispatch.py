"""Calls to library callables (torch, torchvision, numpy, yaml, ...), dispatched by the callee's
canonical name (:func:`~.names.canonical`) through two tables:

- :data:`EXACT_CALLS`: a canonical name -> the handler for it;
- :data:`PATTERN_CALLS`: ordered (what it matches, handler) rules for families of names (a prefix
  such as ``torch.optim.lr_scheduler.``, a suffix such as ``OrderedDict``), the first that handles a
  call wins.

A handler is a method ``(self, call: LibraryCall) -> Val | None``; ``None`` means "not mine after
all" (``copy.deepcopy()`` without an argument) and the pattern rules are tried next. No name in
:data:`EXACT_CALLS` is matched by a pattern rule listed before the place it held in the former
if-chain, so trying exact names first keeps the old precedence. What no rule handles is a call to
something imported from elsewhere (:meth:`LibraryCalls.call_unmodelled`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from collections.abc import Callable

from ..text import snippet
from ..values import (
    AccelVal, Const, CtxVal, Env, IterVal, ListVal, ModuleVal, ParamsVal, ParserVal, Part, Ref,
    SamplerVal, ScalerVal, TensorVal, Unknown, Val, config_file_name)
from .names import ALBU_NON_AUG, AUG_NAMES, LOSS_FUNCS
from .scale import CLIPS, clip_scale, draw_scale, function_scale


@dataclass
class LibraryCall:
    """One call to a library callable: ``q`` its canonical name, ``raw`` the name as written."""

    q: str
    raw: str
    args: list
    kwargs: dict
    node: ast.Call
    env: Env

    @property
    def last(self) -> str:
        return self.q.rsplit(".", 1)[-1]

    @property
    def line(self) -> int:
        return self.node.lineno


#: canonical callee name -> handler method of :class:`LibraryCalls`
EXACT_CALLS: dict[str, str] = {
    "itertools.chain": "chain_parameters",
    "copy.deepcopy": "copy_value", "copy.copy": "copy_value",
    **{q: "load_config_call" for q in (
        "yaml.safe_load", "yaml.load", "yaml.full_load", "json.load", "json.loads", "tomllib.load",
        "toml.load", "tomli.load", "yaml.unsafe_load")},
    **{q: "unwrap_model" for q in (
        "torch.nn.DataParallel", "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.DataParallel", "torch.compile")},
    "torch.nn.Parameter": "new_parameter", "torch.nn.parameter.Parameter": "new_parameter",
    **{q: "clip_gradients" for q in (
        "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
        "torch.nn.utils.clip_grad_norm")},
    "torch.utils.data.DataLoader": "new_loader",
    "torch.utils.data.TensorDataset": "tensor_dataset",
    "amp.autocast": "new_autocast",
    "amp.GradScaler": "new_grad_scaler",
    **{q: "no_grad_context" for q in (
        "torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad")},
    "torch.enable_grad": "enable_grad_context",
    "torch.set_grad_enabled": "set_grad_enabled_context",
    "torch.autograd.set_grad_enabled": "set_grad_enabled_context",
    "torch.autograd.backward": "autograd_backward",
    "torch.set_default_dtype": "set_default_dtype",
    "accelerate.Accelerator": "new_accelerator",
    **{q: "join_config_path" for q in ("os.path.join", "posixpath.join", "ntpath.join")},
}

_OPTIMIZER_LIBRARIES = ("transformers.", "bitsandbytes.", "apex.", "lion_pytorch.", "torch_optimizer.",
                        "timm.optim.")
_OPTIMIZER_NAMES = re.compile(r"(Paged)?(Fused)?(Adam|AdamW|SGD|Lion|LAMB|Lamb|Adafactor|RMSprop|Novograd)")
_MODEL_LIBRARIES = ("torchvision.models.", "timm.", "transformers.", "segmentation_models_pytorch.",
                    "torch.hub.load")
_PLAIN_LIBRARIES = ("math.", "random.", "os.", "time.", "logging.", "sys.")
_NOT_MODELS = ("torch.", "torchvision.", "torchaudio.", "torchtext.", "sklearn.", "pandas.", "numpy.",
               "collections.", "pathlib.", "dataclasses.", "typing.")

#: ordered (what the rule matches, handler method); the first handler that returns a value wins
PATTERN_CALLS: list[tuple[Callable[[LibraryCall], bool], str]] = [
    (lambda c: c.q.startswith("builtins."), "builtin"),
    (lambda c: c.last == "tqdm" or c.q.endswith((".tqdm", ".track")), "progress_bar"),
    (lambda c: c.q.endswith("ArgumentParser"), "new_parser"),
    (lambda c: c.q.endswith("OmegaConf.load"), "load_config_call"),
    (lambda c: c.q.endswith("OrderedDict"), "ordered_dict"),
    (lambda c: c.q.startswith("torch.nn.") and c.q.count(".") == 2, "nn_object"),
    (lambda c: c.q.startswith("torch.nn.functional."), "functional"),
    (lambda c: c.q.startswith("torch.nn.init."), "nn_init"),
    (lambda c: c.q.startswith("torch.optim.lr_scheduler."), "torch_scheduler"),
    (lambda c: c.q.startswith("torch.optim.") and c.q.count(".") == 2 and c.last[:1].isupper()
     and c.last != "Optimizer", "torch_optimizer"),
    (lambda c: c.q.startswith(("transformers.", "diffusers.")) and "schedule" in c.last,
     "library_scheduler"),
    (lambda c: c.q.startswith(_OPTIMIZER_LIBRARIES) and bool(_OPTIMIZER_NAMES.match(c.last)),
     "library_optimizer"),
    (lambda c: c.q.startswith("torch.utils.data.") and c.last.endswith("Sampler"), "sampler"),
    (lambda c: c.q.startswith(("torchvision.transforms.", "albumentations.")), "transform"),
    (lambda c: c.q.startswith(_MODEL_LIBRARIES) or c.last == "from_pretrained", "library_model"),
    (lambda c: c.q.startswith("torch.") and c.q.count(".") == 1, "torch_function"),
    (lambda c: c.q.startswith(("numpy.", "np.")) or c.raw.split(".")[0] in ("np", "numpy"),
     "numpy_function"),
    (lambda c: c.q.startswith(_PLAIN_LIBRARIES), "plain_library"),
    (lambda c: c.last[:1].isupper() and not c.q.startswith(_NOT_MODELS), "imported_model"),
]


class LibraryCalls:
    """Calls to library functions and classes (torch, torchvision, numpy, yaml, ...)."""

    def call_library(self, q: str, raw: str, args: list, kwargs: dict, node: ast.Call,
                     env: Env) -> Val:
        """The value of a call to library callable ``q`` (canonical) written ``raw``."""
        call = LibraryCall(q, raw, args, kwargs, node, env)
        handler = EXACT_CALLS.get(q)
        if handler is not None:
            out = getattr(self, "lib_" + handler)(call)
            if out is not None:
                return out
        for matches, handler in PATTERN_CALLS:
            if matches(call):
                out = getattr(self, "lib_" + handler)(call)
                if out is not None:
                    return out
        return self.call_unmodelled(call)

    def call_unmodelled(self, c: LibraryCall) -> Val:
        """A library call no rule knows: tensors in, a tensor out (its squashing forgotten)."""
        tens = [v for v in list(c.args) + list(c.kwargs.values()) if isinstance(v, TensorVal)]
        if tens:
            return self.fresh_tensor(replace(self.join_tensors(tens), act=None, act_src=None), c.node)
        return Unknown(snippet(c.node))

    # ---- Python libraries -------------------------------------------------------------------------

    def lib_builtin(self, c: LibraryCall) -> Val:
        return self.call_builtin(c.last, c.args, c.kwargs, c.node, c.env)

    def lib_progress_bar(self, c: LibraryCall) -> Val:
        return IterVal("wrap", [c.args[0]]) if c.args else Unknown("tqdm")

    def lib_chain_parameters(self, c: LibraryCall) -> Val | None:
        if not c.args:
            return None
        parts: list[Part] = []
        for a in c.args:
            parts.extend(self.parameter_parts(a, c.node))
        return ParamsVal(parts)

    def lib_copy_value(self, c: LibraryCall) -> Val | None:
        if not c.args:
            return None
        return self.clone_module(c.args[0]) if isinstance(c.args[0], ModuleVal) else c.args[0]

    def lib_new_parser(self, c: LibraryCall) -> Val:
        return ParserVal()

    def lib_load_config_call(self, c: LibraryCall) -> Val | None:
        return self.load_config_value(c.args[0], c.node) if c.args else None

    def lib_join_config_path(self, c: LibraryCall) -> Val | None:
        """``os.path.join(os.path.dirname(__file__), "config.yaml")``: the config file's name."""
        return config_file_name(c.args[-1]) if c.args else None

    def lib_ordered_dict(self, c: LibraryCall) -> Val:
        src = c.args[0] if c.args else None
        if isinstance(src, ListVal):
            keys, items = [], []
            for pair in src.items:
                if isinstance(pair, ListVal) and len(pair.items) == 2:
                    k = pair.items[0]
                    keys.append(k.value if isinstance(k, Const) else None)
                    items.append(pair.items[1])
            return ListVal(items, kind="dict", keys=keys)
        return ListVal([], kind="dict", keys=[])

    def lib_numpy_function(self, c: LibraryCall) -> Val:
        if c.last in ("default_rng", "RandomState", "Generator"):
            return Ref("numpy.random")   # rng.normal(...) is numpy.random.normal(...)
        if ".random." in c.q or c.last in ("zeros", "ones", "full", "eye", "linspace", "logspace"):
            scale = draw_scale(c.last, c.args, c.kwargs)
            if scale is not None:
                return TensorVal(data=True, scale=scale)
        tens = [v for v in c.args if isinstance(v, TensorVal)]
        scale = clip_scale(c.args, c.kwargs) if c.last in CLIPS else function_scale(
            c.last, c.args[0]) if c.args else None
        if not tens:   # np.array([out.detach().numpy() for ...]): the tensors inside a list
            tens = [x for v in c.args if isinstance(v, ListVal) for x in v.items
                    if isinstance(x, TensorVal) and (x.srcs or x.cuts)]
        if tens:
            t = self.cut_graph(self.join_tensors(tens), c.line, f"{snippet(c.node, 40)}")
            return replace(t, scale=scale)
        if scale is not None:   # np.array([...numbers]), np.cos(angles): data on a known scale
            return TensorVal(data=True, scale=scale)
        return Unknown("ndarray")

    def lib_plain_library(self, c: LibraryCall) -> Val:
        if c.q.startswith("math.") and all(isinstance(a, Const) for a in c.args) and c.args:
            return self.fold_math(c.last, c.args)
        return Unknown(snippet(c.node))

    # ---- torch.nn ------------------------------------------------------------------------------

    def lib_unwrap_model(self, c: LibraryCall) -> Val | None:
        """DataParallel(model), torch.compile(model): the model itself."""
        return c.args[0] if c.args else None

    def lib_new_parameter(self, c: LibraryCall) -> Val:
        """``nn.Parameter(torch.randn(a, b) * s)``: a parameter the script draws itself from a normal,
        recorded (line, std, shape) beside the explicit inits, for the scale it starts at."""
        x = c.args[0] if c.args else None
        if isinstance(x, TensorVal) and x.scale is not None and c.node.args:
            shape = self.normal_draw_shape(c.node.args[0], c.env)
            if shape:
                self.records["param_draw"].append((c.line, c.node.col_offset, x.scale, shape, snippet(c.node, 60)))
        grad = c.kwargs.get("requires_grad")
        if isinstance(grad, Const) and grad.value is False:
            return TensorVal()   # nn.Parameter(x, requires_grad=False): a constant the run never trains
        return TensorVal(param=True)

    def normal_draw_shape(self, node: ast.AST, env: Env) -> tuple | None:
        """The sizes of a ``randn`` draw that ``node`` only scales (``randn(a, b) * s``, ``randn(a, b) / s``)
        when each is a number the reader knows; None for anything added to it (an identity plus noise:
        its std is not the tensor's scale) or any other draw."""
        while isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            node = node.left if isinstance(node.left, (ast.Call, ast.BinOp)) else node.right
        if not (isinstance(node, ast.Call) and snippet(node.func).rsplit(".", 1)[-1] == "randn"):
            return None
        args = node.args
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        sizes = [self.eval_expr(a, env) for a in args if isinstance(a, (ast.Name, ast.Constant, ast.Attribute,
                                                                        ast.Subscript, ast.BinOp))]
        if not sizes or len(sizes) != len(args) or not all(
                isinstance(v, Const) and isinstance(v.value, int) and not isinstance(v.value, bool) for v in sizes):
            return None
        return tuple(v.value for v in sizes)

    def lib_nn_object(self, c: LibraryCall) -> Val:
        return self.make_nn_object(c.last, c.args, c.kwargs, c.node)

    def lib_functional(self, c: LibraryCall) -> Val:
        last, node = c.last, c.node
        if last in LOSS_FUNCS:
            return self.call_loss(LOSS_FUNCS[last], snippet(node.func), c.line, c.args, c.kwargs, node)
        if last.endswith("_loss") or last in ("cosine_embedding_loss", "ctc_loss"):
            return self.call_loss("other", snippet(node.func), c.line, c.args, c.kwargs, node)
        return self.call_tensor_function(last, c.args, c.kwargs, node, c.q)

    def lib_nn_init(self, c: LibraryCall) -> Val:
        args, last = c.args, c.last
        if args and last in ("zeros_", "ones_", "constant_"):
            val = Const(0) if last == "zeros_" else Const(1) if last == "ones_" else (
                args[1] if len(args) > 1 else c.kwargs.get("val", Unknown("?")))
            self.record_init(c.node.args[0] if c.node.args else c.node, args[0], last, c.node, val)
        elif args and last in ("normal_", "trunc_normal_"):
            std = args[2] if len(args) > 2 else c.kwargs.get("std", Const(1.0))   # torch's default std
            self.record_init(c.node.args[0] if c.node.args else c.node, args[0], last, c.node, std)
        return args[0] if args else Const(None)

    def lib_clip_gradients(self, c: LibraryCall) -> Val:
        return self.record_clipping(c.last, c.args[1:], c.kwargs, c.node)

    def lib_torch_function(self, c: LibraryCall) -> Val:
        return self.call_tensor_function(c.last, c.args, c.kwargs, c.node, c.q)

    # ---- optimizers, schedulers, data ---------------------------------------------------------------

    def lib_torch_scheduler(self, c: LibraryCall) -> Val:
        return self.make_scheduler(c.last.lower(), c.args, c.kwargs, c.node)

    def lib_torch_optimizer(self, c: LibraryCall) -> Val:
        return self.make_optimizer(c.last.lower(), c.args, c.kwargs, c.node)

    def lib_library_scheduler(self, c: LibraryCall) -> Val:
        return self.make_scheduler(c.last, c.args, c.kwargs, c.node)

    def lib_library_optimizer(self, c: LibraryCall) -> Val:
        from traindx.probes.readers.config import normalize_optimizer

        return self.make_optimizer(normalize_optimizer(c.last), c.args, c.kwargs, c.node)

    def lib_new_loader(self, c: LibraryCall) -> Val:
        return self.make_loader(c.args, c.kwargs, c.node)

    def lib_tensor_dataset(self, c: LibraryCall) -> None:
        """``TensorDataset(inputs, targets)``: the inputs' scale, when the script made them."""
        if c.args:
            self.record_input_scale(c.args[0], c.node)
        return None

    def lib_sampler(self, c: LibraryCall) -> Val:
        last = c.last
        if last in ("RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler"):
            return SamplerVal(last, True)
        if last == "SequentialSampler":
            return SamplerVal(last, False)
        if last == "DistributedSampler":
            sh = c.kwargs.get("shuffle", Const(True))
            return SamplerVal(last, sh.value if isinstance(sh, Const) else None)
        return SamplerVal(last, None)

    def lib_transform(self, c: LibraryCall) -> Val:
        last = c.last
        if last in AUG_NAMES or (c.q.startswith("albumentations.") and last[:1].isupper()
                                 and last not in ALBU_NON_AUG):
            self.records["aug"].append((c.line, snippet(c.node, 60)))
        return Unknown("transform")

    # ---- autograd and mixed precision --------------------------------------------------------------

    def lib_new_autocast(self, c: LibraryCall) -> Val:
        return self.make_autocast(c.raw, c.args, c.kwargs, c.node)

    def lib_new_grad_scaler(self, c: LibraryCall) -> Val:
        en = c.kwargs.get("enabled", Const(True))
        sc = ScalerVal(c.line, en.value if isinstance(en, Const) and not en.soft else (
            en.value if isinstance(en, Const) else None))
        if isinstance(en, Const) and en.soft:
            self.add_unresolved(f"line {c.line}: GradScaler enabled={snippet(c.node, 40)} follows a "
                                f"command-line option ({en.origin})")
        self.scalers.append(sc)
        return sc

    def lib_no_grad_context(self, c: LibraryCall) -> Val:
        mode = c.args[0] if c.args else c.kwargs.get("mode", Const(True))
        if isinstance(mode, Const) and mode.value is False:
            return CtxVal("enablegrad", c.line, snippet(c.node))
        return CtxVal("nograd", c.line, f"{snippet(c.node, 40)} (line {c.line})")

    def lib_enable_grad_context(self, c: LibraryCall) -> Val:
        return CtxVal("enablegrad", c.line, snippet(c.node))

    def lib_set_grad_enabled_context(self, c: LibraryCall) -> Val:
        flag = c.args[0] if c.args else c.kwargs.get("mode")
        if isinstance(flag, Const):
            if flag.value:
                return CtxVal("enablegrad", c.line, snippet(c.node))
            return CtxVal("nograd", c.line, f"{snippet(c.node, 40)} (line {c.line})")
        return Unknown("grad mode")

    def lib_autograd_backward(self, c: LibraryCall) -> Val | None:
        if not c.args:
            return None
        self.record_event("backward", c.node, text=snippet(c.node),
                          obj=c.args[0] if isinstance(c.args[0], TensorVal) else None)
        return Const(None)

    def lib_set_default_dtype(self, c: LibraryCall) -> Val | None:
        if not (c.args and isinstance(c.args[0], Ref)):
            return None
        qual = c.args[0].qual
        if qual.endswith(("float16", "half", "bfloat16")):
            self.records["amp"].append((c.line, "bfloat16" if "bfloat" in qual else "float16",
                                        snippet(c.node, 60), "cast"))
        return Const(None)

    def lib_new_accelerator(self, c: LibraryCall) -> Val:
        mp = c.kwargs.get("mixed_precision")
        if isinstance(mp, Const) and isinstance(mp.value, str) and mp.value in ("fp16", "bf16"):
            self.records["amp"].append((c.line, "float16" if mp.value == "fp16" else "bfloat16",
                                        snippet(c.node, 60), "accelerate"))
        return AccelVal(c.line)

    # ---- models from elsewhere ----------------------------------------------------------------------

    def lib_library_model(self, c: LibraryCall) -> Val:
        """torchvision/timm/transformers models: parameters, but nothing of them visible here."""
        if c.q.startswith("timm.") and c.last != "create_model":
            return Unknown(snippet(c.node))
        return self._new_outside_model("external", c)

    def lib_imported_model(self, c: LibraryCall) -> Val:
        """A class-looking name imported from elsewhere is probably a model."""
        return self._new_outside_model("opaque", c)

    def _new_outside_model(self, kind: str, c: LibraryCall) -> ModuleVal:
        mv = ModuleVal(kind=kind, qual=snippet(c.node.func, 60), line=c.line, text=snippet(c.node))
        mv.params = True
        self.modules.append(mv)
        return mv
