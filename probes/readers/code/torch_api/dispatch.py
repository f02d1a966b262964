"""Calls to library callables (torch, torchvision, numpy, yaml, ...), dispatched by the callee's
canonical name through tables: exact names first, then ordered prefix/suffix rules.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..text import snippet
from ..values import (
    AccelVal, Const, CtxVal, Env, IterVal, ListVal, ModuleVal, ParamsVal, ParserVal, Part, Ref,
    SamplerVal, ScalerVal, TensorVal, Unknown, Val)
from .names import ALBU_NON_AUG, AUG_NAMES, LOSS_FUNCS


class LibraryCalls:
    """Calls to library functions and classes (torch, torchvision, numpy, yaml, ...)."""

    def call_library(self, q: str, raw: str, args: list, kwargs: dict, node: ast.Call,
                 env: Env) -> Val:
        line = node.lineno
        last = q.rsplit(".", 1)[-1]
        # builtins ------------------------------------------------------------------------
        if q.startswith("builtins."):
            return self.call_builtin(last, args, kwargs, node, env)
        if last == "tqdm" or q.endswith(".tqdm") or q.endswith(".track"):
            return IterVal("wrap", [args[0]]) if args else Unknown("tqdm")
        if q in ("itertools.chain",) and args:
            parts: list[Part] = []
            for a in args:
                parts.extend(self.parameter_parts(a, node))
            return ParamsVal(parts)
        if q in ("copy.deepcopy", "copy.copy") and args:
            return self.clone_module(args[0]) if isinstance(args[0], ModuleVal) else args[0]
        if q in ("argparse.ArgumentParser",) or q.endswith("ArgumentParser"):
            return ParserVal()
        if q in ("yaml.safe_load", "yaml.load", "yaml.full_load", "json.load", "json.loads",
                 "tomllib.load", "toml.load", "tomli.load", "yaml.unsafe_load") and args:
            return self.load_config_value(args[0], node)
        if q.endswith("OmegaConf.load") and args:
            return self.load_config_value(args[0], node)
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
            return self.make_nn_object(last, args, kwargs, node)
        if q.startswith("torch.nn.functional."):
            if last in LOSS_FUNCS:
                return self.call_loss(LOSS_FUNCS[last], snippet(node.func), line, args, kwargs,
                                      node)
            if last.endswith("_loss") or last in ("cosine_embedding_loss", "ctc_loss"):
                return self.call_loss("other", snippet(node.func), line, args, kwargs, node)
            return self.call_tensor_function(last, args, kwargs, node, q)
        if q.startswith("torch.nn.init."):
            if args and last in ("zeros_", "ones_", "constant_"):
                val = Const(0) if last == "zeros_" else Const(1) if last == "ones_" else (
                    args[1] if len(args) > 1 else kwargs.get("val", Unknown("?")))
                self.record_init(node.args[0] if node.args else node, args[0], last, node, val)
            return args[0] if args else Const(None)
        if q in ("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                 "torch.nn.utils.clip_grad_norm"):
            return self.record_clipping(last, args[1:], kwargs, node)
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
            if last in AUG_NAMES or (q.startswith("albumentations.") and last[:1].isupper()
                                      and last not in ALBU_NON_AUG):
                self.records["aug"].append((line, snippet(node, 60)))
            return Unknown("transform")
        # mixed precision -----------------------------------------------------------------------
        if q in ("amp.autocast",):
            return self.make_autocast(raw, args, kwargs, node)
        if q in ("amp.GradScaler",):
            en = kwargs.get("enabled", Const(True))
            sc = ScalerVal(line, en.value if isinstance(en, Const) and not en.soft else (
                en.value if isinstance(en, Const) else None))
            if isinstance(en, Const) and en.soft:
                self.add_unresolved(f"line {line}: GradScaler enabled={snippet(node, 40)} follows a "
                           f"command-line option ({en.origin})")
            self.scalers.append(sc)
            return sc
        if q in ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                 "torch.autograd.grad_mode.no_grad"):
            mode = args[0] if args else kwargs.get("mode", Const(True))
            if isinstance(mode, Const) and mode.value is False:
                return CtxVal("enablegrad", line, snippet(node))
            return CtxVal("nograd", line, f"{snippet(node, 40)} (line {line})")
        if q in ("torch.enable_grad",):
            return CtxVal("enablegrad", line, snippet(node))
        if q in ("torch.set_grad_enabled", "torch.autograd.set_grad_enabled"):
            flag = args[0] if args else kwargs.get("mode")
            if isinstance(flag, Const):
                if flag.value:
                    return CtxVal("enablegrad", line, snippet(node))
                return CtxVal("nograd", line, f"{snippet(node, 40)} (line {line})")
            return Unknown("grad mode")
        if q in ("torch.autograd.backward",) and args:
            self.record_event("backward", node, text=snippet(node),
                       obj=args[0] if isinstance(args[0], TensorVal) else None)
            return Const(None)
        if q == "torch.set_default_dtype" and args and isinstance(args[0], Ref):
            if args[0].qual.endswith(("float16", "half", "bfloat16")):
                self.records["amp"].append((line, "bfloat16" if "bfloat" in args[0].qual else
                                        "float16", snippet(node, 60), "cast"))
            return Const(None)
        if q in ("accelerate.Accelerator",):
            mp = kwargs.get("mixed_precision")
            if isinstance(mp, Const) and isinstance(mp.value, str) and mp.value in ("fp16",
                                                                                    "bf16"):
                self.records["amp"].append((line, "float16" if mp.value == "fp16" else "bfloat16",
                                        snippet(node, 60), "accelerate"))
            return AccelVal(line)
        # models from libraries --------------------------------------------------------------
        if q.startswith(("torchvision.models.", "timm.", "transformers.",
                         "segmentation_models_pytorch.", "torch.hub.load")) \
                or last == "from_pretrained":
            if q.startswith("timm.") and last != "create_model":
                return Unknown(snippet(node))
            mv = ModuleVal(kind="external", qual=snippet(node.func, 60), line=line,
                           text=snippet(node))
            mv.params = True
            self.modules.append(mv)
            return mv
        # torch tensor functions ----------------------------------------------------------------
        if q.startswith("torch.") and q.count(".") == 1:
            return self.call_tensor_function(last, args, kwargs, node, q)
        if q.startswith(("numpy.", "np.")) or raw.split(".")[0] in ("np", "numpy"):
            tens = [v for v in args if isinstance(v, TensorVal)]
            if tens:
                return self.cut_graph(self.join_tensors(tens), line, f"{snippet(node, 40)}")
            return Unknown("ndarray")
        if q.startswith("math.") or q.startswith("random.") or q.startswith("os.") \
                or q.startswith("time.") or q.startswith("logging.") or q.startswith("sys."):
            if q.startswith("math.") and all(isinstance(a, Const) for a in args) and args:
                return self.fold_math(last, args)
            return Unknown(snippet(node))
        # things imported from elsewhere: a class-looking name is probably a model
        if last[:1].isupper() and not q.startswith(("torch.", "torchvision.", "torchaudio.",
                                                    "torchtext.", "sklearn.", "pandas.",
                                                    "numpy.", "collections.", "pathlib.",
                                                    "dataclasses.", "typing.")):
            mv = ModuleVal(kind="opaque", qual=snippet(node.func, 60), line=line,
                           text=snippet(node))
            mv.params = True
            self.modules.append(mv)
            return mv
        tens = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorVal)]
        if tens:
            return self.fresh_tensor(replace(self.join_tensors(tens), act=None, act_src=None), node)
        return Unknown(snippet(node))
