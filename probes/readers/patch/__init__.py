"""The fix as a patch: a unified diff against the user's script, for faults the code reader located.

Torch-free. ``traindx diagnose --script train.py --patch fix.diff`` writes it; traindx never edits
the user's files. Which edit fixes which cause is knowledge: each fix in kb/fixes.yaml may list a
``patch:`` — edits from the vocabulary below, each reading the fact whose source ``code:FILE:LINE``
says where the code reader found the fault, with its settings under ``with:``. The first edit that
applies wins (an edit marked ``fallback: true`` is made only where none listed before it applied); an
edit changes only what the fix needs and refuses (returns False) when the located line does not read
as expected, so a patch is never guessed.

=========================  ===========================================================================
edit                       change
=========================  ===========================================================================
set_learning_rate          the learning-rate literal on the optimizer's line, or where it comes from (a
                           module-level constant, also one unpacked from a tuple; an argparse default;
                           a dict literal's entry; the key of a config file the script reads,
                           :func:`make_config_patch`),
                           moved ``factor`` up/down, to at least / at most the family's usual value
insert_zero_grad           ``OPT.zero_grad()`` inserted before the ``backward()`` of the training loop
drop_output_squash         the softmax/sigmoid before a loss that applies its own removed
set_shuffle                ``shuffle=True`` on the training DataLoader; a hand-made batch index built in
                           file order (``torch.arange(N)``) built as a permutation (``torch.randperm(N)``)
shuffle_before_split       rows stored in label order and cut into parts unmixed: one random permutation applied
                           to every array the cut slices, right before it
insert_train_mode          ``MODEL.train()`` as the first statement of the training loop
set_clip_norm              the clipping ``max_norm`` literal set to ``value``
unfreeze                   each located ``requires_grad = False`` / ``requires_grad_(False)`` set to True;
                           ``module.requires_grad = True`` (a plain attribute) -> ``requires_grad_(True)``
wrap_module_list           a plain list / dict of layers wrapped in ``nn.ModuleList`` / ``nn.ModuleDict``
optimizer_whole_model      an optimizer built over part of the model that trains given all of it
fill_nan_after_write       after the statement writing NaN into the data, the NaN replaced by ``fill``
insert_eval_mode           ``MODEL.eval()`` before the located validation (and ``train()`` back per step where
                           nothing restores it); a ``model.eval`` written without its call, called
optimizer_for_trained_model  the optimizer (and what is built on it) built again after the instance that trains
set_weight_decay           the weight decay literal (script or config) to the optimizer family's usual value
set_dropout                a dropout probability above ``above`` lowered to ``value``
set_label_smoothing        a label smoothing above ``above`` lowered to ``value``
guard_spread_division      ``eps`` added to a divisor that is a spread of the data (std, max - min)
zero_nonfinite_inputs      where nothing located writes the NaN: each training batch's inputs passed through
                           ``torch.nan_to_num`` (NaN and inf -> 0) where the batch is made, as the experiment that
                           zeroes non-finite inputs on a copy does; refused where the script cleans them itself
step_scheduler_per_epoch   an epoch scheduler's ``step()`` moved out of the batch loop to once per epoch
lengthen_schedule          a StepLR / ExponentialLR stepped once per epoch whose LR collapses within the run:
                           its step size or factor (and a factor below ``gamma_min``) set to span the run
reinit_weights             a weight set to one constant or drawn far too wide given PyTorch's default init
insert_clip_norm           ``clip_grad_norm_`` at ``max_norm`` inserted before the optimizer's step (or before a
                           hand-written update over ``model.parameters()``), where nothing clips yet
bound_clip_norm            a clipping that never clips (``max_norm=float("inf")`` to read the norm, or a norm
                           switched off by a value <= 0) given ``max_norm``
=========================  ===========================================================================

Each edit lives with what it touches: ``optimizer.py`` (what the optimizer holds and how it steps),
``loop.py`` (the training loop), ``model.py`` (the model), ``data.py`` (the data); ``source.py`` holds the
script as the edits read it and the helpers they share. A ``with:`` setting written ``{param: ID}`` is read
from kb/parameters, so a threshold the rules use is the patch's too.

:func:`make_patch` returns ``{"file", "diff", "cause", "changes"}`` or None when no edit applies.
The diff's paths are the script's path relative to the current directory, so ``patch -p0 < fix.diff``
and ``git apply -p0 fix.diff`` both apply it there.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import Mapping

from traindx.engine.errors import InputError

from .data import _fill_nan_after_write, _guard_spread, _shuffle, _shuffle_before_split, _zero_nonfinite_inputs
from .loop import _eval_mode, _lengthen_schedule, _step_per_epoch, _train_mode, _zero_grad
from .model import _double_softmax, _dropout, _label_smoothing, _reinit, _unfreeze, _wrap_module_list
from .optimizer import (
    _bound_clip,
    _clip_move,
    _fmt_norm,
    _insert_clip,
    _lr,
    _new_lr,
    _new_weight_decay,
    _optimizer_for_trained_model,
    _optimizer_whole_model,
    _over_clipping,
    _weight_decay,
)
from .source import _NUM, _fmt_lr, _same_number, _Src

#: the edit vocabulary kb/fixes.yaml ``patch:`` entries name
EDITS = {"set_learning_rate": _lr, "insert_zero_grad": _zero_grad, "drop_output_squash": _double_softmax,
         "set_shuffle": _shuffle, "insert_train_mode": _train_mode,
         "insert_eval_mode": _eval_mode, "set_clip_norm": _over_clipping,
         "unfreeze": _unfreeze, "wrap_module_list": _wrap_module_list,
         "optimizer_whole_model": _optimizer_whole_model, "optimizer_for_trained_model": _optimizer_for_trained_model,
         "fill_nan_after_write": _fill_nan_after_write, "set_weight_decay": _weight_decay,
         "set_dropout": _dropout, "set_label_smoothing": _label_smoothing, "guard_spread_division": _guard_spread,
         "step_scheduler_per_epoch": _step_per_epoch, "lengthen_schedule": _lengthen_schedule,
         "reinit_weights": _reinit,
         "insert_clip_norm": _insert_clip, "bound_clip_norm": _bound_clip,
         "zero_nonfinite_inputs": _zero_nonfinite_inputs, "shuffle_before_split": _shuffle_before_split}


def patch_edits(kb, cause: str) -> list[dict]:
    """The ``patch:`` edits of ``cause``'s fix in the knowledge base (empty when it has none)."""
    rc = kb.root_causes.get(cause) or {}
    fix = kb.fixes.get(rc.get("fix")) or {}
    return list(fix.get("patch") or [])


@functools.lru_cache(maxsize=1)
def _core_kb():
    from traindx.engine.loader import load_kb
    return load_kb(entry_point_packs=False)


def make_patch(script: str, facts: Mapping[str, tuple], cause: str, *, display: str | None = None,
               kb=None, configs=()) -> dict | None:
    """A unified diff fixing ``cause`` in ``script``. ``facts``: fact -> (value, source) as the
    session holds them (the code reader's sources carry ``code:FILE:LINE``); ``kb`` the knowledge
    base whose fixes list the edits (default: the core KB). Every listed edit that applies is made.
    ``configs``: the config files the script reads; an edit whose numbers the script only reads from
    one of them (``StepLR(opt, step_size=CFG["lr_step"])``) is made in that file instead.
    Returns ``{"file", "diff", "cause", "changes"}`` or None."""
    edits = [e for e in patch_edits(kb if kb is not None else _core_kb(), cause) if e.get("edit") in EDITS]
    if not edits:
        return None
    try:
        with open(script, encoding="utf-8") as fh:
            text = fh.read()
        src = _Src(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    base = os.path.basename(script)
    # only facts the code reader located in this script
    mine = {k: v for k, v in facts.items() if isinstance(v, tuple) and len(v) == 2
            and str(v[1]).startswith("code:") and os.path.basename(str(v[1]).split(":")[1]) == base}
    applied = False
    for e in edits:
        if applied and e.get("fallback"):   # a general fix, only where nothing more precise applied
            continue
        applied = EDITS[e["edit"]](src, mine, e.get("fact", ""), _settings(e, kb)) or applied
    if not applied:
        return next((p for c in configs if src.config_moves
                     and (p := _config_moves_patch(c, src.config_moves, cause, None)) is not None), None)
    new = src.result()
    if new == text:
        return None
    path = display or _display(script)
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), _ends(new).splitlines(keepends=True),
                                        fromfile=path, tofile=path))
    return {"file": path, "diff": diff, "cause": cause, "changes": src.changes}


def _settings(edit: dict, kb) -> dict:
    """An edit's ``with:`` settings, a ``{param: ID}`` read from the knowledge base's parameters (so a
    threshold the rules use is the patch's too)."""
    kb = kb if kb is not None else _core_kb()
    return {k: kb.param(v["param"]) if isinstance(v, dict) and set(v) == {"param"} else v
            for k, v in (edit.get("with") or {}).items()}


#: the edits a config file can take: edit -> (the move (old, new), how the new value is written, what changed)
_CONFIG_EDITS = {"set_learning_rate": (_new_lr, _fmt_lr, "learning rate"),
                 "set_clip_norm": (_clip_move, _fmt_norm, "gradient clipping max_norm"),
                 "set_weight_decay": (_new_weight_decay, _fmt_lr, "weight decay")}


def make_config_patch(config: str, key: str, facts: Mapping[str, tuple], cause: str, *,
                      display: str | None = None, kb=None) -> dict | None:
    """The edit of ``cause``'s fix made where the run takes the value from a config file (``lr: 0.3``,
    ``max_grad_norm: 1e-4``): the number on ``key``'s line of ``config`` (YAML, JSON or TOML, ``optim.lr``
    for a nested key) moved as in the script. ``facts`` as for :func:`make_patch`, the config's own
    reading of the value among them. Returns ``{"file", "diff", "cause", "changes"}`` or None when no
    edit applies or the line does not read as expected."""
    edits = [e for e in patch_edits(kb if kb is not None else _core_kb(), cause) if e.get("edit") in _CONFIG_EDITS]
    read = _read_config(config) if edits else None
    if read is None:
        return None
    cfg, text = read
    for e in edits:
        move, fmt, what = _CONFIG_EDITS[e["edit"]]
        moved = move(facts, e.get("fact", ""), _settings(e, kb))
        if moved is None or not str(facts.get(e.get("fact", ""), ("", ""))[1]).startswith("config:"):
            continue
        lines = text.splitlines(keepends=True)
        at = _config_number_at(cfg, lines, key, moved[0])
        if at is None:
            continue
        n, m = at
        was, new = m.group(1), fmt(moved[1])
        if config.lower().endswith((".yaml", ".yml")):
            new = _yaml_float(new)
        lines[n - 1] = lines[n - 1][: m.start(1)] + new + lines[n - 1][m.end(1):]
        path = display or _display(config)
        diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), lines, fromfile=path, tofile=path))
        word = "raised" if moved[1] > moved[0] else "lowered"
        return {"file": path, "diff": diff, "cause": cause,
                "changes": [f"line {n}: {key} ({what}) {word} {was} -> {new}"]}
    return None


def _read_config(config: str):
    """(the parsed config, its text), or None where it cannot be read (no patch is guessed then)."""
    from traindx.probes.readers.config import load_config
    try:
        cfg = load_config(config)
        with open(config, encoding="utf-8") as fh:
            return cfg, fh.read()
    except (OSError, UnicodeDecodeError, InputError):
        return None


def _config_number_at(cfg, lines: list[str], key: str, value: float):
    """(line, match of the number) where ``key`` (``optim.lr`` for a nested one) holds ``value`` in a
    config file's ``lines``; None where no line reads so, or several do and the file records none."""
    leaf = re.escape(key.split(".")[-1])
    pattern = re.compile(r"(?<![\w.-])[\"']?" + leaf + r"[\"']?\s*[:=]\s*(" + _NUM + r")")
    found = {i + 1: m for i, line in enumerate(lines) if (m := pattern.search(line))
             and _same_number(float(m.group(1)), value)}
    n = cfg.lines.get(tuple(key.split(".")))   # JSON records no lines: then the one line that reads so
    n = n if n in found else (next(iter(found)) if n is None and len(found) == 1 else None)
    return (n, found[n]) if n is not None else None


def _config_moves_patch(config: str, moves: list, cause: str, display: str | None) -> dict | None:
    """The script's edit made in the config file it reads the numbers from: every (key, move, what) of
    ``moves`` found as a number in ``config``, or no patch. None where nothing would change."""
    read = _read_config(config)
    if read is None:
        return None
    cfg, text = read
    lines, changes = text.splitlines(keepends=True), []
    for key, move, what in moves:
        old = functools.reduce(lambda d, k: d.get(k) if isinstance(d, dict) else None, key.split("."), cfg.data)
        if isinstance(old, bool) or not isinstance(old, (int, float)):
            return None
        at = _config_number_at(cfg, lines, key, float(old))
        if at is None:
            return None
        new = move(old)
        if new == old:
            continue
        n, m = at
        was, text_new = m.group(1), str(new) if isinstance(new, int) else f"{new:.4g}"
        if config.lower().endswith((".yaml", ".yml")):
            text_new = _yaml_float(text_new)
        lines[n - 1] = lines[n - 1][: m.start(1)] + text_new + lines[n - 1][m.end(1):]
        changes.append(f"line {n}: {key} ({what}) {was} -> {text_new}")
    if not changes:
        return None
    path = display or _display(config)
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), lines, fromfile=path, tofile=path))
    return {"file": path, "diff": diff, "cause": cause, "changes": changes}


def _yaml_float(text: str) -> str:
    """A number as YAML 1.1 (PyYAML's safe_load) reads a float: a dot in the mantissa and a signed
    exponent (``1e-4`` is read as the string "1e-4", ``1.0e-4`` as a float)."""
    m = re.fullmatch(r"([-+]?\d+)(?:\.(\d*))?[eE]([-+]?)(\d+)", text)
    if m is None:
        return text
    return f"{m.group(1)}.{m.group(2) or '0'}e{m.group(3) or '+'}{m.group(4)}"


def _ends(s: str) -> str:
    return s


def _display(script: str) -> str:
    rel = os.path.relpath(os.path.abspath(script))
    return script if rel.startswith("..") else rel
