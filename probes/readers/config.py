"""The config reader: hyperparameters from YAML, JSON and TOML files and from argparse defaults.

Evidence source ``config:hyperparameters`` (kb/sources.yaml). Files are parsed, never executed:
YAML with PyYAML's safe loader (composed nodes, so every key keeps its line), JSON with the
standard library, TOML with ``tomllib`` (``tomli`` on Python 3.10); a training script's
``parser.add_argument(..., default=...)`` calls are read with :mod:`ast`.

Public API:

- :func:`analyze_config` ``(path, params=None) -> list[Finding]`` — one finding per fact, with
  ``source="config:<basename>:<dotted.key.path>"``; where several keys set one fact, the best-scored
  key wins (``config.section_key_bonus``, ``config.depth_penalty`` in ``kb/parameters/config.yaml``).
- :func:`argparse_defaults` ``(path, params=None) -> list[Finding]`` — the same facts from the
  defaults of a script's argparse options, ``source="config:<basename>:--option"``.
- :func:`load_config` ``(path) -> ConfigFile`` — the parsed data with the line of every key path
  (used by the code reader to resolve ``cfg["lr"]`` in a script that loads this file).

Key names are matched anywhere in the tree, the way people spell them (``lr``, ``optimizer.lr``,
``training.learning_rate``, ``per_device_train_batch_size``, ``_target_: torch.optim.AdamW`` ...).
A file the user gave that cannot be read — missing, empty, not UTF-8, malformed, not a mapping —
raises :class:`InputError` naming the file and, where the parser says, the line.

Nothing here imports torch.
"""

from __future__ import annotations

import ast
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator

import yaml

from traindx.engine import bounded
from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

#: Bounds on work, not knowledge: a power in a config expression is folded only within these (a
#: bigger one is no hyperparameter), and ${...} interpolations are followed this many levels deep.
_POW_MAX_EXPONENT, _POW_MAX_BASE = 64, 1e6
_INTERPOLATION_DEPTH = 8
#: Presentation: how much of a text value a message quotes, and of a YAML parser's message.
_SHOWN_TEXT_CHARS = 40
_SHOWN_PARSER_CHARS = 120

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib as _toml
else:  # pragma: no cover
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ImportError:  # pragma: no cover
        _toml = None

__all__ = ["analyze_config", "argparse_defaults", "load_config", "read_argparse", "ConfigFile",
           "ArgDefault", "CONFIG_SUFFIXES", "UNRESOLVED"]

#: The evidence source (``kb/sources.yaml``) this module implements, and its facts.
SOURCE_ID = "config:hyperparameters"
FACTS = ("learning_rate", "batch_size", "epochs", "weight_decay", "optimizer", "scheduler", "warmup", "uses_amp",
         "amp_dtype", "label_smoothing", "dropout_p", "clip_max_norm")

#: File name endings this reader understands.
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")

#: Marker for a value that exists but could not be computed statically.
UNRESOLVED = object()


# --------------------------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------------------------

def read_text(path: str | os.PathLike, what: str = "file", params=None) -> str:
    """The file's text, decoded as UTF-8; InputError (with the line) if it is not UTF-8 or is over
    ``limits.max_file_bytes``."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise InputError(f"no such {what}", path=p)
    if os.path.isdir(p):
        raise InputError(f"is a directory, expected a {what}", path=p)
    data = bounded.read_bytes(p, bounded.limits(params).max_file_bytes, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})",
                         path=p, line=line, hint="save the file as UTF-8") from None


@dataclass
class ConfigFile:
    """A parsed config file: ``data`` (plain dicts/lists/scalars) and ``lines``, which maps a key
    path (tuple of keys and list indices) to its 1-based line where the format records it."""

    path: str
    data: Any
    lines: dict = field(default_factory=dict)

    @property
    def basename(self) -> str:
        return os.path.basename(self.path)


def load_config(path: str | os.PathLike, params=None) -> ConfigFile:
    """Parse a YAML/JSON/TOML file into a :class:`ConfigFile`; InputError if it cannot be read.

    Read within the ``limits.*`` parameters (size, YAML nodes after alias expansion, depth)."""
    p = os.fspath(path)
    lim = bounded.limits(params)
    text = read_text(p, "config file", params)
    if not text.strip():
        raise InputError("empty config file", path=p, hint="expected a mapping such as 'lr: 0.1'")
    ext = os.path.splitext(p)[1].lower()
    if ext in (".yaml", ".yml"):
        cfg = _load_yaml(p, text, lim)
    elif ext == ".json":
        cfg = _load_json(p, text, lim)
    elif ext == ".toml":
        cfg = _load_toml(p, text, lim)
    else:
        # Unknown ending: JSON if it looks like JSON, else YAML (a superset of most key: value files).
        cfg = _load_json(p, text, lim) if text.lstrip()[:1] in "{[" else _load_yaml(p, text, lim)
    if cfg.data is None:
        raise InputError("config file holds no settings", path=p,
                         hint="expected a mapping such as 'lr: 0.1'")
    if not isinstance(cfg.data, dict):
        raise InputError(f"expected a mapping of settings at the top level, found "
                         f"{_kind_of(cfg.data)}", path=p, line=1,
                         hint="a config file maps names to values, e.g. 'lr: 0.1'")
    return cfg


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {value[:_SHOWN_TEXT_CHARS]!r}"
    return f"a {type(value).__name__}"


def _load_yaml(path: str, text: str, lim: bounded.Limits) -> ConfigFile:
    with bounded.compose_yaml(text, path, lim, prefix="malformed YAML") as (node, loader):
        if node is None:
            return ConfigFile(path, None)
        lines: dict = {}
        try:
            data = _yaml_node(loader, node, (), lines)
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            raise InputError(f"malformed YAML: {err.problem or err.context}", path=path,
                             line=mark.line + 1 if mark else None) from None
        except (ValueError, OverflowError, TypeError) as err:  # a timestamp with month 13, a 5000-digit int
            raise InputError(f"malformed YAML value: {str(err).splitlines()[0][:_SHOWN_PARSER_CHARS]}", path=path,
                             line=lines and max(lines.values()) or None) from None
        return ConfigFile(path, data, lines)


def _yaml_node(loader: yaml.SafeLoader, node: yaml.Node, key: tuple, lines: dict) -> Any:
    lines.setdefault(key, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # resolves '<<' merge keys
        out: dict = {}
        for knode, vnode in node.value:
            k = loader.construct_object(knode, deep=True)
            if isinstance(k, (list, dict)):
                k = str(k)
            lines[key + (k,)] = knode.start_mark.line + 1
            out[k] = _yaml_node(loader, vnode, key + (k,), lines)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_yaml_node(loader, v, key + (i,), lines) for i, v in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def _load_json(path: str, text: str, lim: bounded.Limits) -> ConfigFile:
    return ConfigFile(path, bounded.loads_json(text, path, lim, prefix="malformed JSON"))


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _load_toml(path: str, text: str, lim: bounded.Limits) -> ConfigFile:
    if _toml is None:  # pragma: no cover - only on 3.10 without tomli
        raise InputError("reading TOML needs Python 3.11 or the 'tomli' package", path=path,
                         hint="pip install tomli")
    if bounded.json_depth(text, lim.max_depth) > lim.max_depth:  # tomllib recurses per level
        raise InputError(f"TOML nested more than {lim.max_depth} levels deep", path=path,
                         line=bounded.depth_line(text, lim.max_depth))
    try:
        data = _toml.loads(text)
    except (RecursionError, MemoryError):
        raise InputError(f"TOML nested more than {lim.max_depth} levels deep", path=path) from None
    except _toml.TOMLDecodeError as err:
        msg = str(err)
        m = _TOML_AT.search(msg)
        line = col = None
        if m:
            line, col = int(m.group(1)), int(m.group(2))
            msg = msg[: m.start()].strip()
        raise InputError(f"malformed TOML: {msg}", path=path, line=line, col=col) from None
    return ConfigFile(path, data)


# --------------------------------------------------------------------------------------------
# Key names -> facts
# --------------------------------------------------------------------------------------------

def _norm(key: Any) -> str:
    return str(key).strip().lower().replace("-", "_")


_LR_KEYS = {"lr", "learning_rate", "base_lr", "init_lr", "initial_lr", "lr0", "learningrate"}
_NC_KEYS = {"num_classes", "n_classes", "nclasses", "num_class", "n_class", "num_labels", "n_labels",
            "number_of_classes", "num_categories", "n_categories"}
_BS_KEYS = {"batch_size", "train_batch_size", "per_device_train_batch_size", "bs", "batchsize",
            "train_bs", "batch", "micro_batch_size", "per_gpu_train_batch_size",
            "samples_per_gpu", "train_batch", "mini_batch_size", "minibatch_size"}
_ACCUM_KEYS = {"gradient_accumulation_steps", "grad_accum_steps", "accumulate_grad_batches",
               "accumulation_steps", "grad_accumulation_steps", "accum_iter", "accum_steps"}
_EPOCH_KEYS = {"epochs", "num_epochs", "max_epochs", "num_train_epochs", "n_epochs",
               "total_epochs", "train_epochs", "nb_epochs", "epoch_num"}
_WD_KEYS = {"weight_decay", "wd", "weightdecay"}
_OPT_KEYS = {"optimizer", "optim", "opt", "optimizer_name", "optimizer_type", "optim_name"}
_SCHED_KEYS = {"scheduler", "lr_scheduler", "lr_scheduler_type", "schedule", "lr_schedule",
               "sched", "scheduler_name", "scheduler_type", "lr_policy", "lr_scheduler_name"}
_CLASS_KEYS = {"name", "type", "_target_", "class_path", "cls", "class", "policy"}
_WARMUP_KEYS = {"warmup", "warmup_steps", "warmup_ratio", "warmup_epochs", "warmup_iters",
                "num_warmup_steps", "warmup_proportion", "lr_warmup_steps", "warmup_updates",
                "warmup_iterations", "lr_warmup_epochs", "warmup_step", "warmup_fraction"}
#: gradient-norm clipping (not clipping by value); 0 or null turns it off in Lightning and HF, so only > 0 is read
_CLIP_KEYS = {"max_grad_norm", "grad_clip", "gradient_clip_val", "clip_grad_norm", "clip_norm", "grad_clip_norm",
              "clip_grad", "grad_norm_clip", "gradient_clipping", "clip_gradient", "max_norm"}
_LS_KEYS = {"label_smoothing", "label_smoothing_factor", "label_smooth", "labelsmoothing"}
_DROPOUT_KEYS = {"dropout", "dropout_p", "dropout_rate", "drop_rate", "dropout_prob",
                 "hidden_dropout_prob", "p_dropout", "attention_dropout", "attn_dropout",
                 "hidden_dropout", "resid_pdrop", "embd_pdrop", "attn_pdrop",
                 "classifier_dropout", "attention_probs_dropout_prob", "drop_out", "dropout_ratio"}
_EVAL_PARENTS = {"val", "valid", "validation", "eval", "evaluation", "test", "testing",
                 "val_dataloader", "test_dataloader", "eval_dataloader", "inference", "predict"}
_EVAL_PREFIXES = ("val_", "valid_", "eval_", "test_", "per_device_eval", "per_gpu_eval")
_SCHED_PARENTS = {"scheduler", "lr_scheduler", "sched", "schedule", "lr_schedule", "warmup"}

_OPT_BASES = ("sparseadam", "adamw", "adamax", "nadam", "radam", "adafactor", "adagrad",
              "adadelta", "adam", "sgd", "rmsprop", "lamb", "lars", "lion", "lbfgs", "asgd",
              "rprop", "novograd", "shampoo", "sophia", "muon", "ranger")


def normalize_optimizer(name: str) -> str:
    """'torch.optim.AdamW' -> 'adamw'; HF 'adamw_torch_fused' -> 'adamw'; 'SGD' -> 'sgd'."""
    s = str(name).strip().rsplit(".", 1)[-1].lower()
    s = re.sub(r"^(paged_|fused_)", "", s)
    for base in _OPT_BASES:
        if s.startswith(base):
            return base
    return s


def normalize_scheduler(name: str) -> str:
    """'torch.optim.lr_scheduler.OneCycleLR' -> 'onecyclelr'; 'SchedulerType.COSINE' -> 'cosine'."""
    return str(name).strip().rsplit(".", 1)[-1].lower()


def _number(value: Any) -> float | int | None:
    """A real number from a config value: YAML 1.1 reads '1e-3' as text, so numeric text counts."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if abs(value) <= sys.float_info.max else None     # past float range: no usable number
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            v = float(value.strip())
        except ValueError:
            return None
        return v if math.isfinite(v) else None
    return None


def _integer(value: Any) -> int | None:
    v = _number(value)
    if v is None or v != int(v):
        return None
    return int(v)


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "off", "none", ""):
        return False
    return None


def _precision(value: Any) -> tuple[bool | None, str | None]:
    """(uses_amp, amp_dtype) from a Lightning/accelerate/HF precision setting."""
    s = str(value).strip().lower() if not isinstance(value, bool) else ("16" if value else "32")
    if s in ("16", "16-mixed", "16_mixed", "fp16", "float16", "half", "16-true", "amp",
             "mixed", "o1", "o2", "o3"):
        return True, "float16"
    if s in ("bf16", "bf16-mixed", "bf16_mixed", "bfloat16", "bf16-true"):
        return True, "bfloat16"
    if s in ("32", "32-true", "fp32", "float32", "64", "64-true", "double", "full", "no", "none",
             "false"):
        return False, "float32"
    return None, None


@dataclass
class _Entry:
    """One candidate value for a fact, with where it came from."""

    fact: str
    value: Any
    where: str       # dotted key path (config) or option string (argparse)
    line: int | None
    raw: Any
    score: float = 0.0
    note: str = ""


def _walk(data: Any, key: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield key + (k,), v
            yield from _walk(v, key + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            if isinstance(v, (dict, list)):
                yield from _walk(v, key + (i,))


_INTERP = re.compile(r"^\$\{([A-Za-z0-9_.\-]+)\}$")


def _resolve_interpolation(value: Any, root: Any, depth: int = 0) -> Any:
    """OmegaConf-style '${optimizer.lr}' pointing inside the same file -> that value."""
    if not isinstance(value, str) or depth > _INTERPOLATION_DEPTH:
        return value
    m = _INTERP.match(value.strip())
    if not m:
        return value
    cur = root
    for part in m.group(1).split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return value
    return _resolve_interpolation(cur, root, depth + 1)


def _class_name(value: Any) -> str | None:
    """A name from 'adam', 'torch.optim.Adam' or a mapping with name/type/_target_/class_path."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict):
        for k, v in value.items():
            if _norm(k) in _CLASS_KEYS and isinstance(v, str) and v.strip():
                return v.strip()
    return None


def _entries(path_key: tuple, value: Any, line: int | None, root: Any, params=None) -> list[_Entry]:
    """Candidate facts for one key path of a config tree, scored by ``config.section_key_bonus`` and
    ``config.depth_penalty`` (``params``: the knowledge base's; None: the shipped ones)."""
    keys = [_norm(k) for k in path_key if not isinstance(k, int)]
    if not keys:
        return []
    leaf, parents = keys[-1], keys[:-1]
    where = ".".join(str(k) for k in path_key)
    value = _resolve_interpolation(value, root)
    in_eval = any(p in _EVAL_PARENTS for p in parents) or leaf.startswith(_EVAL_PREFIXES)
    in_sched = any(p in _SCHED_PARENTS for p in parents)
    # Prefer keys under optimizer/training sections, then shallow ones.
    P = resolve(params)
    in_section = any(("optim" in p or "train" in p or "solver" in p) for p in parents)
    score = float(P["config.section_key_bonus"]) if in_section else 0.0
    score -= float(P["config.depth_penalty"]) * len(parents)
    out: list[_Entry] = []

    def add(fact: str, v: Any, note: str = "") -> None:
        out.append(_Entry(fact, v, where, line, value, score, note))

    for applies, read in _LEAF_READERS:     # the first key family that applies reads the value
        if applies(leaf, parents, in_eval, in_sched):
            read(add, value, leaf)
            break
    _class_entries(add, value, leaf, parents, in_sched)
    return out


def _bounded_fact(fact: str, convert, ok, cast=None):
    """A reader that adds ``fact`` when the value converts (``_number``/``_integer``) and is in range."""
    def read(add, value, leaf):
        v = convert(value)
        if v is not None and ok(v):
            add(fact, cast(v) if cast else v)
    return read


def _read_warmup(add, value, leaf):
    b = _boolean(value)
    n = _number(value)
    if n is not None:
        add("warmup", n > 0)
    elif b is not None:
        add("warmup", b)
    elif isinstance(value, (str, dict)) and value:
        add("warmup", True)  # e.g. mmcv "warmup: linear", or a warmup section


def _read_precision(add, value, leaf):
    amp, dtype = _precision(value)
    if amp is not None:
        add("uses_amp", amp)
        add("amp_dtype", dtype)


def _read_amp_flag(add, value, leaf):
    b = _boolean(value)
    if b is None and isinstance(value, str):
        b, _ = _precision(value)  # apex opt levels "O1"/"O2"
    if b is not None:
        add("uses_amp", b)
        if b and ("bf16" in leaf):
            add("amp_dtype", "bfloat16")
        elif b and ("fp16" in leaf or leaf == "half"):
            add("amp_dtype", "float16")


def _is_smoothing_key(leaf, parents) -> bool:
    return leaf in _LS_KEYS or (leaf == "smoothing" and (not parents or any(
        "loss" in p or "criterion" in p for p in parents)))


_AMP_FLAG_KEYS = ("fp16", "bf16", "amp", "use_amp", "half", "use_fp16", "use_bf16", "mixed_precision_training")

#: (applies(leaf, parents, in_eval, in_sched), read(add, value, leaf)), tried in order
_LEAF_READERS = (
    (lambda leaf, parents, ev, sch: leaf in _LR_KEYS and not ev and not sch,
     _bounded_fact("learning_rate", _number, lambda v: v >= 0, float)),
    (lambda leaf, parents, ev, sch: leaf in _BS_KEYS and not ev,
     _bounded_fact("batch_size", _integer, lambda v: v >= 1)),
    (lambda leaf, parents, ev, sch: leaf in _NC_KEYS,
     _bounded_fact("num_classes", _integer, lambda v: v >= 2)),
    (lambda leaf, parents, ev, sch: leaf in _ACCUM_KEYS,
     _bounded_fact("_accumulation", _integer, lambda v: v >= 1)),
    (lambda leaf, parents, ev, sch: leaf in _EPOCH_KEYS and not ev,
     _bounded_fact("epochs", _integer, lambda v: v >= 0)),
    (lambda leaf, parents, ev, sch: leaf in _WD_KEYS and not sch,
     _bounded_fact("weight_decay", _number, lambda v: v >= 0, float)),
    (lambda leaf, parents, ev, sch: _is_smoothing_key(leaf, parents),
     _bounded_fact("label_smoothing", _number, lambda v: 0 <= v <= 1, float)),
    (lambda leaf, parents, ev, sch: leaf in _DROPOUT_KEYS,
     _bounded_fact("dropout_p", _number, lambda v: 0 <= v <= 1, float)),
    (lambda leaf, parents, ev, sch: leaf in _CLIP_KEYS and not ev and not sch,
     _bounded_fact("clip_max_norm", _number, lambda v: v > 0, float)),
    (lambda leaf, parents, ev, sch: leaf in _WARMUP_KEYS, _read_warmup),
    (lambda leaf, parents, ev, sch: leaf in ("precision", "mixed_precision", "amp_dtype", "autocast_dtype"),
     _read_precision),
    (lambda leaf, parents, ev, sch: leaf in _AMP_FLAG_KEYS, _read_amp_flag),
)


def _class_entries(add, value: Any, leaf: str, parents: list, in_sched: bool) -> None:
    """The optimizer and scheduler named by a class path or a name key."""
    if isinstance(value, str) and leaf in _CLASS_KEYS and not (
            parents and (parents[-1] in _OPT_KEYS or parents[-1] in _SCHED_KEYS)):
        # a Hydra/Lightning class path anywhere: _target_: torch.optim.AdamW
        if value.startswith("torch.optim.lr_scheduler."):
            add("scheduler", normalize_scheduler(value))
        elif value.startswith("torch.optim."):
            add("optimizer", normalize_optimizer(value))
    if leaf in _OPT_KEYS and not in_sched:
        name = _class_name(value)
        if name and not _number(name):
            add("optimizer", normalize_optimizer(name))
    # (a class key under an optimizer mapping is reported through the parent: optimizer: {name: ...})
    if leaf in _SCHED_KEYS:
        name = _class_name(value)
        if name and not _number(name) and _boolean(name) is not False:
            add("scheduler", normalize_scheduler(name))


def _where_mapping_name(entry: _Entry, data: Any) -> _Entry:
    """optimizer: {name: adam} is reported at optimizer.name (the key that holds the name)."""
    if isinstance(entry.raw, dict):
        for k, v in entry.raw.items():
            if _norm(k) in _CLASS_KEYS and isinstance(v, str):
                entry.where = f"{entry.where}.{k}"
                entry.raw = v
                break
    return entry


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v) if isinstance(v, str) else str(v)


def _choose(entries: list[_Entry], basename: str, kind_word: str,
            line_of: dict | None = None) -> list[Finding]:
    """One finding per fact from the candidates (best-scored; max for dropout; any-true warmup)."""
    by_fact: dict[str, list[_Entry]] = {}
    for e in entries:
        by_fact.setdefault(e.fact, []).append(e)
    accum = by_fact.pop("_accumulation", None)
    findings: list[Finding] = []
    order = ["optimizer", "learning_rate", "weight_decay", "batch_size", "epochs", "scheduler",
             "warmup", "uses_amp", "amp_dtype", "label_smoothing", "dropout_p", "num_classes", "clip_max_norm"]
    for fact in order:
        cands = by_fact.get(fact)
        if not cands:
            continue
        if fact == "dropout_p":
            best = max(cands, key=lambda e: e.value)
        elif fact in ("warmup", "uses_amp"):
            trues = [e for e in cands if e.value]
            best = max(trues or cands, key=lambda e: e.score)
        else:
            best = max(cands, key=lambda e: e.score)  # max() keeps the first of equal scores
        value = best.value
        loc = f" (line {best.line})" if best.line else ""
        detail = f"{best.where}: {_fmt(best.raw) if not isinstance(best.raw, dict) else _fmt(value)}" \
                 f" in {basename}{loc}"
        if kind_word == "argparse":
            detail = f"argparse default {best.where}={_fmt(best.raw)} in {basename}{loc}"
        extra: dict = {"key": best.where}
        if best.line:
            extra["line"] = best.line
        if fact == "batch_size" and accum:
            a = max(accum, key=lambda e: e.score)
            if a.value > 1:
                value = best.value * a.value
                detail += (f", times {a.where}={a.value} (gradient accumulation) = effective "
                           f"batch {value}")
                extra["per_step_batch_size"] = best.value
                extra["accumulation_steps"] = a.value
        others = sorted({_fmt(e.value) for e in cands if e.value != best.value})
        if others and fact not in ("warmup", "uses_amp", "dropout_p"):
            detail += f"; other values in the file: {', '.join(others)}"
        if isinstance(best.raw, str) and fact in ("learning_rate", "weight_decay") \
                and kind_word == "config":
            detail += " (written as text; read as a number)"
        findings.append(Finding(fact=fact, value=value,
                                source=f"config:{basename}:{best.where}",
                                detail=detail, extra=extra))
    return findings


def analyze_config(path: str | os.PathLike, params=None) -> list[Finding]:
    """Hyperparameter facts from a YAML/JSON/TOML config file (or a script's argparse defaults,
    when given a ``.py`` file). InputError if the file is missing, empty, not UTF-8, malformed or
    not a mapping. ``params``: the knowledge base's parameters (a pack's included; None: the shipped
    ones)."""
    p = os.fspath(path)
    if p.lower().endswith(".py"):
        return argparse_defaults(p, params)
    cfg = load_config(p, params)
    entries: list[_Entry] = []
    for key, value in _walk(cfg.data):
        for e in _entries(key, value, cfg.lines.get(key), cfg.data, params):
            entries.append(_where_mapping_name(e, cfg.data) if e.fact in (
                "optimizer", "scheduler") else e)
    return _choose(entries, cfg.basename, "config")


# --------------------------------------------------------------------------------------------
# argparse defaults
# --------------------------------------------------------------------------------------------

@dataclass
class ArgDefault:
    """The default of one argparse option: ``value`` (or :data:`UNRESOLVED`), its line, the
    option string as written (``--lr``) and the attribute name (``dest``)."""

    dest: str
    value: Any
    line: int
    option: str


def literal(node: ast.AST, names: dict | None = None) -> Any:
    """A constant computed from an expression without running it: literals, +-*/ on numbers,
    names bound to constants in ``names``; :data:`UNRESOLVED` otherwise."""
    names = names or {}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        return {"True": True, "False": False, "None": None}.get(node.id, UNRESOLVED)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = literal(node.operand, names)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        return UNRESOLVED
    if isinstance(node, ast.BinOp):
        a, b = literal(node.left, names), literal(node.right, names)
        return arith(node.op, a, b)
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [literal(e, names) for e in node.elts]
        if any(v is UNRESOLVED for v in vals):
            return UNRESOLVED
        return tuple(vals) if isinstance(node, ast.Tuple) else vals
    return UNRESOLVED


def arith(op: ast.operator, a: Any, b: Any) -> Any:
    """a OP b for plain numbers (or str + str), safely; UNRESOLVED when not computable."""
    if isinstance(a, str) and isinstance(b, str) and isinstance(op, ast.Add):
        return a + b
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        return UNRESOLVED
    try:
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.FloorDiv):
            return a // b
        if isinstance(op, ast.Mod):
            return a % b
        if isinstance(op, ast.Pow):
            if abs(b) > _POW_MAX_EXPONENT or abs(a) > _POW_MAX_BASE:
                return UNRESOLVED
            return a ** b
    except (ArithmeticError, ValueError):
        return UNRESOLVED
    return UNRESOLVED


def module_constants(tree: ast.Module) -> dict:
    """Module-level NAME = <constant> assignments (LR = 3e-4, BATCH = 64)."""
    names: dict = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            v = literal(stmt.value, names)
            if v is not UNRESOLVED:
                names[stmt.targets[0].id] = v
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.value is not None:
            v = literal(stmt.value, names)
            if v is not UNRESOLVED:
                names[stmt.target.id] = v
    return names


def _convert(value: Any, type_node: ast.AST | None) -> Any:
    """argparse applies ``type`` to string defaults: default='1e-3', type=float -> 0.001."""
    if not isinstance(value, str) or type_node is None or not isinstance(type_node, ast.Name):
        return value
    try:
        if type_node.id == "float":
            return float(value)
        if type_node.id == "int":
            return int(value)
    except ValueError:
        return value
    return value


def read_argparse(tree: ast.Module) -> dict[str, ArgDefault]:
    """``dest -> ArgDefault`` for every ``X.add_argument(...)`` and ``X.set_defaults(...)``."""
    names = module_constants(tree)
    out: dict[str, ArgDefault] = {}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute)
             and n.func.attr in ("add_argument", "set_defaults")]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        if call.func.attr == "set_defaults":
            for k, v in kw.items():
                out[k] = ArgDefault(k, literal(v, names), call.lineno,
                                    out[k].option if k in out else k)
            continue
        opts = [a.value for a in call.args if isinstance(a, ast.Constant)
                and isinstance(a.value, str)]
        if not opts:
            continue
        longs = [o for o in opts if o.startswith("--")]
        shorts = [o for o in opts if o.startswith("-") and not o.startswith("--")]
        if "dest" in kw and isinstance(kw["dest"], ast.Constant):
            dest = str(kw["dest"].value)
        elif longs:
            dest = longs[0][2:].replace("-", "_")
        elif shorts:
            dest = shorts[0][1:].replace("-", "_")
        else:
            dest = opts[0]
        option = (longs or shorts or opts)[0]
        action = kw.get("action")
        action_s = action.value if isinstance(action, ast.Constant) else None
        if "default" in kw:
            value = _convert(literal(kw["default"], names), kw.get("type"))
        elif action_s == "store_true":
            value = False
        elif action_s == "store_false":
            value = True
        else:
            value = None
        out[dest] = ArgDefault(dest, value, call.lineno, option)
    return out


def argparse_defaults(path: str | os.PathLike, params=None) -> list[Finding]:
    """Hyperparameter facts from the defaults of a script's argparse options (read with ast,
    never run). A script that does not parse raises InputError naming the file and line.
    ``params``: as for :func:`analyze_config`."""
    from traindx.probes.readers.code import parse_source  # local: the code package imports this module

    p = os.fspath(path)
    tree = parse_source(p)
    defaults = read_argparse(tree)
    basename = os.path.basename(p)
    entries: list[_Entry] = []
    for d in defaults.values():
        if d.value is UNRESOLVED or d.value is None:
            continue
        for e in _entries((d.dest,), d.value, d.line, {}, params):
            e.where = d.option
            entries.append(e)
    return _choose(entries, basename, "argparse")
