"""Print styles: the same metric histories rendered the ways people print them; a generalisation check.

A handful of metric *histories* (a healthy run, a NaN at step k, an overfitting run, a flat run at
chance, a run resumed from a checkpoint) are each rendered in many *print styles* written from
what real frameworks and habits print (Keras 2/3, tqdm, Lightning, NeMo, HF Trainer, fairseq,
mmengine/mmcv, detectron2, Megatron/DeepSpeed, timm, YOLO, XGBoost/LightGBM, sklearn, caffe,
darknet, OpenNMT, fastai, logging-module lines, JSON lines, rich/tabulate/markdown tables, CSV on
stdout, localized labels, ANSI colour, tensors, numpy scalars, ...), with realistic noise
between the lines. Every rendered log carries its ground truth: which roles (``loss``,
``val_loss``, ``accuracy``, ``val_accuracy``, ``lr``, ``grad_norm``) it prints, their values
and the axis (step or epoch); every history its intended symptom.

The styles are not tuning material for one wording each: they are a check that the console
reader generalises by the *shape* of a line.

A style is one row of a table (:class:`Row`: header, line template, separators, number format,
lines before/after, a footer); adding a style is adding a row. Only the few that keep state between
lines (``\r``-joined progress frames, running averages, dict reprs) are functions.

    python benchmarks/print_styles.py --list                 # the styles
    python benchmarks/print_styles.py --render OUT_DIR       # write every log (+ truth.json)
    python benchmarks/print_styles.py --check                # read each with traindx's log reader
    python benchmarks/print_styles.py --check --diagnose     # ... and compare the symptom too
    python benchmarks/print_styles.py --check --style keras2 --history nan_steps -v

``--check`` reads each log with ``traindx.engine.frontends.gather.read_log`` (what
``traindx diagnose --log`` calls) and prints one line per style: logs read, roles right (every
printed role found, no validation metric taken for a training one), values right (each role's
last finite value and non-finite count), and with ``--diagnose`` the report's symptom against the
history's.
"""

# ruff: noqa: E501  (the rendered lines are as long as the frameworks print them)
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field

# ------------------------------------------------------------------------------------ histories
TRAIN = ("loss", "accuracy", "lr", "grad_norm")
VAL = ("val_loss", "val_accuracy")


@dataclass
class History:
    name: str
    symptom: str
    axis: str                   # the natural axis: "epoch" (one record per epoch) or "step"
    records: list = field(default_factory=list)   # dicts: i, epoch, step, total_*, roles...


def _rec(i, epoch, step, n_epochs, n_steps, **m):
    r = {"i": i, "epoch": epoch, "step": step, "n_epochs": n_epochs, "n_steps": n_steps}
    r.update({k: v for k, v in m.items() if v is not None})
    return r


def _wiggle(i: int, amp: float) -> float:
    return amp * math.sin(i * 2.399) * (0.6 + 0.4 * math.cos(i * 0.77))


def healthy_epochs() -> History:
    h = History("healthy_epochs", "healthy", "epoch")
    n = 20
    for e in range(1, n + 1):
        f = e / n
        loss = 0.25 + 2.0 * math.exp(-4.5 * f) + _wiggle(e, 0.01)
        vloss = 0.32 + 2.0 * math.exp(-4.2 * f) + _wiggle(e + 3, 0.01)
        h.records.append(_rec(e, e, e * 100, n, n * 100, loss=loss, accuracy=0.95 - 0.8 * math.exp(-4.5 * f),
                              val_loss=vloss, val_accuracy=0.92 - 0.8 * math.exp(-4.2 * f), lr=1e-3))
    return h


def overfit_epochs() -> History:
    h = History("overfit_epochs", "overfitting", "epoch")
    n = 30
    for e in range(1, n + 1):
        f = e / n
        loss = 0.02 + 1.4 * math.exp(-6 * f) + _wiggle(e, 0.004)
        vloss = 0.55 + 1.0 * math.exp(-12 * f) + 0.9 * max(0.0, f - 0.25) ** 1.3 + _wiggle(e, 0.01)
        acc = 0.995 - 0.6 * math.exp(-6 * f)
        vacc = 0.80 - 0.45 * math.exp(-12 * f) - 0.08 * max(0.0, f - 0.25)
        h.records.append(_rec(e, e, e * 50, n, n * 50, loss=loss, accuracy=acc, val_loss=vloss,
                              val_accuracy=vacc, lr=1e-3))
    return h


def nan_steps() -> History:
    h = History("nan_steps", "explosion", "step")
    n, k = 60, 41
    for i in range(1, n + 1):
        step = i * 10
        if i < k - 4:
            loss = 0.9 + 1.5 * math.exp(-i / 12) + _wiggle(i, 0.03)
            gn = 1.5 + _wiggle(i, 0.3)
        elif i < k:
            loss = 1.2 * 4.0 ** (i - k + 5)
            gn = 20.0 * 8.0 ** (i - k + 5)
        else:
            loss, gn = math.nan, math.nan
        r = _rec(i, 1 + (step - 1) // 200, step, 3, n * 10, loss=loss, lr=3e-3, grad_norm=gn,
                 accuracy=0.1 if math.isnan(loss) else max(0.05, 0.6 - 0.5 * math.exp(-i / 12)))
        if i % 10 == 0:
            r["val_loss"] = math.nan if i >= k else loss + 0.1
            r["val_accuracy"] = 0.1 if i >= k else 0.55
        h.records.append(r)
    return h


def flat_steps() -> History:
    h = History("flat_steps", "not_learning", "step")
    n = 60
    for i in range(1, n + 1):
        step = i * 20
        r = _rec(i, 1 + (step - 1) // 400, step, 3, n * 20, loss=2.3026 + _wiggle(i, 0.003),
                 accuracy=0.10 + _wiggle(i + 5, 0.006), lr=1e-4, grad_norm=1e-6 * (1 + 0.1 * math.sin(i)))
        if i % 10 == 0:
            r["val_loss"] = 2.3026 + _wiggle(i + 1, 0.001)
            r["val_accuracy"] = 0.10
        h.records.append(r)
    return h


def restart_steps() -> History:
    """A run resumed from its step-300 checkpoint after a crash at step ~400: the step goes back."""
    h = History("restart_steps", "healthy", "step")
    steps = list(range(10, 410, 10)) + list(range(310, 810, 10))
    for i, step in enumerate(steps, 1):
        f = step / 800
        r = _rec(i, 1 + (step - 1) // 200, step, 4, 800, loss=0.3 + 2.0 * math.exp(-4 * f) + _wiggle(step, 0.02),
                 accuracy=0.93 - 0.8 * math.exp(-4 * f), lr=5e-4, grad_norm=1.0 + _wiggle(step, 0.1))
        if step % 100 == 0:
            r["val_loss"] = 0.36 + 2.0 * math.exp(-4 * f)
            r["val_accuracy"] = 0.90 - 0.8 * math.exp(-4 * f)
        h.records.append(r)
    return h


def alarming_healthy_steps() -> History:
    """Healthy, though it looks alarming: the loss rises while the LR warms up, one spike (grad norm
    10x) is gone two logs later, and the curve is noisy; validation tracks training."""
    h = History("alarming_healthy_steps", "healthy", "step")
    n = 60
    for i in range(1, n + 1):
        step = i * 10
        loss = 2.3 + 0.08 * i if i <= 5 else 0.35 + 2.0 * math.exp(-(i - 5) / 12)
        loss += {24: 1.6, 25: 0.5}.get(i, 0.0) + _wiggle(i, 0.12)
        gn = 1.2 + _wiggle(i, 0.4) + (12.0 if i in (24, 25) else 0.0)
        r = _rec(i, 1 + (step - 1) // 200, step, 3, n * 10, loss=loss, lr=1e-3 * min(1.0, i / 8), grad_norm=gn,
                 accuracy=max(0.1, 0.9 - 0.8 * math.exp(-max(0, i - 5) / 12)))
        if i % 10 == 0:
            r["val_loss"] = 0.42 + 2.0 * math.exp(-(i - 5) / 12)
            r["val_accuracy"] = 0.87 - 0.8 * math.exp(-(i - 5) / 12)
        h.records.append(r)
    return h


HISTORIES = [healthy_epochs, overfit_epochs, nan_steps, flat_steps, restart_steps, alarming_healthy_steps]


# ------------------------------------------------------------------------------------ helpers
def g(v, fmt=".4f") -> str:
    if v is None:
        return ""
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return format(v, fmt)


def pct(v, fmt=".2f") -> str:
    return g(v * 100 if v is not None and not math.isnan(v) else v, fmt)


def has_val(r) -> bool:
    return "val_loss" in r or "val_accuracy" in r


def x_of(r, axis):
    return r["epoch_i"] if axis == "epoch" else r["step"]


NOISE = [
    "/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:560: UserWarning: This DataLoader will "
    "create 8 worker processes in total. Our suggested max number of worker in current system is 4.",
    "  warnings.warn(_create_warning_msg(",
    "",
    "Saving checkpoint to runs/exp3/checkpoint-last.pt",
    "wandb: WARNING Step must only increase in log calls.",
    "100%|██████████| 157/157 [00:03<00:00, 45.12it/s]",
    "[W reducer.cpp:1300] Warning: find_unused_parameters=True was specified in DDP constructor.",
    "INFO: Using 16bit Automatic Mixed Precision (AMP)",
    "  0%|          | 0/391 [00:00<?, ?it/s]",
    "Downloading: 100%|██████████| 440M/440M [00:12<00:00, 36.1MB/s]",
]
TRACEBACK = [
    "Exception in thread Thread-4 (upload):",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
    "    self.run()",
    '  File "/opt/conda/lib/python3.10/site-packages/wandb/sdk/internal/file_pusher.py", line 88, in run',
    "    self._upload()",
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Read timed out.",
]


def noisy(lines: list, seed: int, traceback: bool = False) -> list:
    rnd = random.Random(seed)
    out = [NOISE[0], NOISE[1], NOISE[7]]
    for i, ln in enumerate(lines):
        out.append(ln)
        if rnd.random() < 0.12:
            out.append(rnd.choice(NOISE))
        if traceback and i == len(lines) // 2:
            out.extend(TRACEBACK)
    return out


# ------------------------------------------------------------------------------------ styles
# A style is one row of ``TABLE``: a :class:`Row` of templates (or, for the few that keep state
# between lines -- progress frames joined by ``\r``, running averages, dict reprs -- a function).
# Templates are ``str.format`` strings whose fields are Python expressions over one record:
# ``{loss}``, ``{val_accuracy}`` (``None`` when the record has no such metric), ``{i}`` (1-based
# record number), ``{step}``, ``{epoch}``, ``{n}`` (records), ``{N}`` (last step), ``{E}`` (last
# epoch), ``{r}`` (the record), ``{get('grad_norm', 1.0)}``; with ``per="batch"`` also ``{ep}``,
# ``{j}`` (batch within the epoch, 1-based) and ``{nb}`` (batches in it). A float without a format
# spec is written with the row's ``fmt``; ``nan``/``inf`` print as Python prints them; ``pc(x)``
# is a fraction in percent; ``g(x, spec)`` formats a number to a string (to align it as text).
import string  # noqa: E402

STYLES: dict = {}


@dataclass
class Row:
    """One print style. ``line``: the pieces of a record's line, each a template or a
    ``(template, cond)`` pair kept only where ``cond`` holds (a role name: the record has it;
    ``"val"``: it has a validation metric; else an expression), joined by ``sep`` between
    ``lead`` and ``tail``; ``pre``/``post``: lines before/after it (same pairs); ``head``/``foot``:
    lines before/after the whole log; ``per="batch"``: records numbered within their epoch.
    ``axis``/``roles``/``percent``/``values``/``note``: the truth (see :func:`render`)."""
    name: str
    line: tuple = ()
    sep: str = ""
    lead: str = ""
    tail: str = ""
    pre: tuple = ()
    post: tuple = ()
    head: tuple = ()
    foot: tuple = ()
    fmt: str = ".4f"
    per: str = "record"
    axis: str = "epoch"
    roles: tuple = ("loss", "accuracy") + VAL
    percent: bool = False
    values: bool = True
    note: str = ""
    traceback: bool = False
    newline: str = "\n"
    fn: object = None


def _pc(v):
    return None if v is None else v * 100


_FUNCS = {"g": g, "pc": _pc, "int": int, "round": round, "abs": abs, "max": max, "min": min}


class _Fmt(string.Formatter):
    """``str.format`` whose fields are expressions over a record (see the section's comment)."""

    def __init__(self, fmt: str):
        self.fmt = fmt

    def get_field(self, field_name, args, kwargs):
        return eval(field_name, _FUNCS, kwargs), field_name  # noqa: S307 (our own templates)

    def format_field(self, value, spec):
        if value is None:
            return ""
        if isinstance(value, float):
            return g(value, spec or self.fmt)
        return format(value, spec)


def _cond_ok(cond, ns) -> bool:
    if cond in TRAIN + VAL:
        return ns[cond] is not None
    if cond == "val":
        return has_val(ns["r"])
    return bool(eval(cond, _FUNCS, ns))  # noqa: S307


def _fill(pieces, fm: _Fmt, ns) -> list:
    out = []
    for p in pieces:
        tmpl, cond = (p, None) if isinstance(p, str) else p
        if cond is None or _cond_ok(cond, ns):
            out.append(fm.vformat(tmpl, (), ns))
    return out


def _row_lines(row: Row, recs: list) -> list:
    fm = _Fmt(row.fmt)
    base = {"n": len(recs), "N": recs[-1]["step"], "E": recs[-1]["epoch"]}
    groups = _epochs(recs) if row.per == "batch" else [(None, recs)]
    out = [fm.vformat(h, (), base) for h in row.head]
    for ep, rs in groups:
        for j, r in enumerate(rs, 1):
            ns = dict(base, **{k: None for k in TRAIN + VAL})
            ns.update(r, r=r, get=r.get, ep=ep, j=j, nb=len(rs))
            out += _fill(row.pre, fm, ns)
            if row.line:
                out.append(fm.vformat(row.lead, (), ns) + row.sep.join(_fill(row.line, fm, ns))
                           + fm.vformat(row.tail, (), ns))
            out += _fill(row.post, fm, ns)
    out += [fm.vformat(f, (), base) for f in row.foot]
    return out


def _register(rows) -> None:
    for row in rows:
        fn = row.fn or (lambda recs, row=row: _row_lines(row, recs))
        STYLES[row.name] = dict(fn=fn, axis=row.axis, roles=set(row.roles), percent=row.percent,
                                values=row.values, note=row.note, traceback=row.traceback,
                                newline=row.newline)


def _epochs(recs):
    """Group step records into (epoch_number, [records])."""
    out, cur, last = [], [], None
    for r in recs:
        if last is not None and r["epoch"] != last:
            out.append((last, cur))
            cur = []
        cur.append(r)
        last = r["epoch"]
    if cur:
        out.append((last, cur))
    return out


# -- the styles that keep state between lines (progress frames, running averages, reprs)
def _tqdm(recs):
    out = []
    for ep, rs in _epochs(recs):
        frames = []
        for j, r in enumerate(rs, 1):
            p = int(100 * j / len(rs))
            post = f"loss={g(r.get('loss'), '.3f')}, acc={g(r.get('accuracy'), '.3f')}, lr={g(r.get('lr'), '.1e')}"
            frames.append(f"Epoch {ep}: {p:3d}%|{'█' * (p // 10):<10}| {j}/{len(rs)} [00:{j:02d}<00:10, 9.8it/s, {post}]")
        out.append("\r".join(frames))
        vs = [r for r in rs if "val_loss" in r]
        if vs:
            out.append(f"Validation: val_loss={g(vs[-1]['val_loss'], '.4f')}")
    return out


def _lightning(recs):
    out = []
    last_val = {}
    for ep, rs in _epochs(recs):
        frames = []
        for j, r in enumerate(rs, 1):
            p = int(100 * j / len(rs))
            if has_val(r):
                last_val = r
            post = f"v_num=3, train_loss_step={g(r.get('loss'), '.3f')}"
            if last_val:
                post += f", val_loss={g(last_val.get('val_loss'), '.3f')}, val_acc={g(last_val.get('val_accuracy'), '.3f')}"
            frames.append(f"Epoch {ep - 1}: {p:3d}%|{'█' * (p // 10):<10}| {j}/{len(rs)} [00:{j:02d}<00:00, 20.1it/s, {post}]")
        out.append("\r".join(frames))
    return out


def _nemo(recs):
    frames = []
    for r in recs:
        frames.append(f"Epoch 0: :  {int(100 * r['i'] / len(recs)):3d}%|████      | {r['step']}/{recs[-1]['step']} "
                      f"[01:02<01:30, reduced_train_loss={g(r.get('loss'), '.3f')}, global_step={r['step'] - 1}.0, "
                      f"consumed_samples={r['step'] * 64}.0, train_step_timing in s=0.21, lr={g(r.get('lr'), '.2e')}]")
    return ["\r".join(frames[i:i + 5]) for i in range(0, len(frames), 5)]


def _hf(recs):
    out = []
    for r in recs:
        ep = r["step"] / recs[-1]["step"] * 3
        d = {"loss": r.get("loss"), "grad_norm": r.get("grad_norm"), "learning_rate": r.get("lr"), "epoch": round(ep, 2)}
        out.append(repr({k: v for k, v in d.items() if v is not None}).replace("nan", "nan"))
        if has_val(r):
            out.append(repr({"eval_loss": r.get("val_loss"), "eval_accuracy": r.get("val_accuracy"),
                             "eval_runtime": 3.21, "eval_samples_per_second": 311.5, "epoch": round(ep, 2)}))
    return out


def _jsonl(recs):
    out = []
    for r in recs:
        out.append(json.dumps({"step": r["step"], "loss": r.get("loss"), "lr": r.get("lr"), "grad_norm": r.get("grad_norm", 1.0)}))
        if has_val(r):
            out.append(json.dumps({"step": r["step"], "split": "val", "val_loss": r.get("val_loss"),
                                   "val_acc": r.get("val_accuracy")}))
    return out


def _kvu(recs):
    out = []
    run = None
    for r in recs:
        lo = r.get("loss")
        run = lo if run is None or lo != lo else 0.9 * run + 0.1 * lo
        out.append(f"step {r['step']}: loss={g(lo)} (avg {g(run)}) lr={g(r.get('lr'), '.1e')} time 0.21s data 0.01s")
    return out


_STEP = dict(axis="step")
_KERAS_BAR = "\x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m"
_VAL_BLOCK = ("=" * 40, "Validation @ {step}", "  loss     : {val_loss}", "  accuracy : {val_accuracy}", "=" * 40)

#: session 19's styles (styles19), in their order; every rendered byte as it was
TABLE_19 = [
    Row("keras2", pre=("Epoch {i}/{n}",), sep=" - ",
        line=("100/100 [==============================] - 3s 28ms/step - loss: {loss}", ("accuracy: {accuracy}", "accuracy"),
              ("val_loss: {val_loss}", "val_loss"), ("val_accuracy: {val_accuracy}", "val_accuracy"))),
    Row("keras3", pre=("Epoch {i}/{n}",), sep=" - ", lead="\x1b[1m100/100\x1b[0m " + _KERAS_BAR + " \x1b[1m2s\x1b[0m 16ms/step - ",
        line=(("accuracy: {accuracy}", "accuracy"), "loss: {loss}", ("val_accuracy: {val_accuracy}", "val_accuracy"),
              ("val_loss: {val_loss}", "val_loss"))),
    Row("tqdm_postfix", fn=_tqdm, roles=("loss", "accuracy", "lr", "val_loss"), **_STEP),
    Row("lightning", fn=_lightning, roles=("loss", "val_loss", "val_accuracy"), **_STEP),
    Row("nemo", fn=_nemo, roles=("loss", "lr"), **_STEP),
    Row("hf_trainer", fn=_hf, roles=("loss", "grad_norm", "lr", "val_loss", "val_accuracy"), **_STEP),
    Row("fairseq_legacy", roles=("loss", "lr", "grad_norm", "val_loss"),
        line=("| epoch {i:03d} | loss {loss:.3f} | nll_loss {loss:.3f} | ppl 9.21 | wps 12345 | ups 3 | wpb 3984 | bsz 128 | "
              "num_updates {i * 100} | lr {lr:.6g} | gnorm {get('grad_norm', 1.0):.3f} | clip 0 | oom 0 | wall 120 | train_wall 100",),
        post=(("| epoch {i:03d} | valid on 'valid' subset | loss {val_loss:.3f} | nll_loss {val_loss:.3f} | ppl 10.1 | "
               "num_updates {i * 100}", "val_loss"),)),
    Row("fairseq_hydra", roles=("loss", "lr", "grad_norm", "val_loss"),
        pre=(("2023-04-0{1 + i % 8} 12:{i % 60:02d}:03 | INFO | valid | epoch {i:03d} | valid on 'valid' subset | "
              "loss {val_loss:.3f} | nll_loss {val_loss:.3f} | ppl 8.61 | wps 40231 | wpb 2048 | bsz 64 | num_updates {i * 100}",
              "val_loss"),),
        line=("2023-04-0{1 + i % 8} 12:{i % 60:02d}:03 | INFO | train | epoch {i:03d} | loss {loss:.3f} | ppl 9.9 | wps 30123 | "
              "ups 4.1 | wpb 3984 | bsz 128 | num_updates {i * 100} | lr {lr:.6g} | gnorm {get('grad_norm', 0.9):.3f} | "
              "train_wall 95 | gb_free 11.2 | wall 410",)),
    Row("mmengine", per="batch", roles=("loss", "lr", "grad_norm", "val_accuracy"), percent=True, **_STEP,
        line=("2023/05/01 12:{j % 60:02d}:00 - mmengine - INFO - Epoch(train)  [{ep}][{j * 10:3d}/{nb * 10}]  lr: {lr:.4e}  "
              "eta: 0:{j % 60:02d}:11  time: 0.2031  data_time: 0.0112  memory: 2011  grad_norm: {get('grad_norm', 1.0):.4f}  "
              "loss: {loss:.4f}  loss_cls: {loss:.4f}",),
        post=(("2023/05/01 12:{j % 60:02d}:30 - mmengine - INFO - Epoch(val) [{ep}][10/10]    accuracy/top1: "
               "{pc(val_accuracy):.4f}  accuracy/top5: 95.0000  data_time: 0.01  time: 0.05", "val_accuracy"),)),
    Row("mmcv_legacy", per="batch", roles=("loss", "lr", "grad_norm"), **_STEP,
        line=("2021-03-01 10:11:{j % 60:02d},123 - mmdet - INFO - Epoch [{ep}][{j * 50}/{nb * 50}]\tlr: {lr:.3e}, eta: 1:02:03, "
              "time: 0.412, data_time: 0.021, memory: 3912, loss_rpn_cls: 0.0123, loss_bbox: 0.2, loss: {loss:.4f}, "
              "grad_norm: {get('grad_norm', 1.0):.4f}",)),
    Row("detectron2", roles=("loss", "lr"), **_STEP,
        line=("[05/01 12:{i % 60:02d}:00 d2.utils.events]:  eta: 0:{(60 - i) % 60:02d}:00  iter: {step - 1}  total_loss: {loss:.4g}  "
              "loss_cls: 0.3  loss_box_reg: 0.2  time: 0.2021  last_time: 0.1990  data_time: 0.0100  last_data_time: 0.0090  "
              "lr: {lr:.6g}  max_mem: 2134M",)),
    Row("megatron", roles=("loss", "lr", "grad_norm"), **_STEP,
        line=(" iteration {step:8d}/{N:8d} | consumed samples: {step * 64:12d} | elapsed time per iteration (ms): 301.2 | "
              "learning rate: {lr:.3E} | global batch size:    64 | lm loss: {loss:.6E} | loss scale: 65536.0 | "
              "grad norm: {get('grad_norm', 1.0):.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |",)),
    Row("deepspeed", roles=("loss", "lr"), **_STEP,
        line=("[2024-05-01 12:00:{i % 60:02d},000] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
              "lr=[{lr:.6g}], mom=[(0.9, 0.999)]",),
        post=("steps: {step} loss: {loss:.4f} iter time (s): 0.210 samples/sec: 304.8",)),
    Row("timm", per="batch", roles=("loss", "lr", "val_loss", "val_accuracy"), percent=True, **_STEP,
        line=("Train: {ep - 1} [{j * 10:4d}/{nb * 10} ({100 * j // nb:3d}%)]  Loss: {loss:.3f} ({loss:.3f})  Time: 0.210s,  "
              "608.31/s  (0.215s,  595.12/s)  LR: {lr:.3e}  Data: 0.011 (0.012)",),
        post=(("Test: [  10/10]  Time: 0.101 (0.120)  Loss:  {val_loss:.4f} ({val_loss:.4f})  Acc@1: {pc(val_accuracy):.4f} "
               "({pc(val_accuracy):.4f})  Acc@5: 97.0000 (97.0000)", "val"),)),
    Row("yolo", roles=("loss",), values=False, note="box_loss is the only loss printed",
        pre=("", "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"),
        line=("{i:>8}/{n:<3}    2.31G  {loss:10.4f} {loss * 0.8:10.4f} {loss * 0.6:10.4f}        121        640: "
              "100%|██████████| 50/50 [00:12<00:00,  4.1it/s]",),
        post=("                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): "
              "100%|██████████| 5/5 [00:01<00:00,  4.5it/s]",
              "                   all        128        929      0.612      0.543      0.581      0.402")),
    Row("xgboost", roles=("loss", "val_loss"),
        line=("[{i - 1}]\ttrain-logloss:{loss:.5f}", ("\tvalid-logloss:{val_loss:.5f}", "val_loss"))),
    Row("lightgbm", roles=("loss", "val_loss"),
        line=("[{i}]\ttraining's binary_logloss: {loss:.6g}", ("\tvalid_1's binary_logloss: {val_loss:.6g}", "val_loss"))),
    Row("sklearn_mlp", roles=("loss",), line=("Iteration {i}, loss = {loss:.8f}",),
        post=(("Validation score: {val_accuracy:.6f}", "val_accuracy"),)),
    Row("logging_dash", line=("2024-05-01 12:{i % 60:02d}:00,123 - __main__ - INFO - Epoch {i} - train_loss: {loss}",
                              (" - train_acc: {accuracy}", "accuracy"), (" - val_loss: {val_loss} - val_acc: {val_accuracy}", "val_loss"))),
    Row("logging_bracket", roles=("loss", "lr", "grad_norm"), **_STEP,
        line=("[2024-05-01 12:{i % 60:02d}:00] INFO trainer.py:212: step={step} loss={loss} lr={lr:.2e} "
              "grad_norm={get('grad_norm', 1.0):.3f}",)),
    Row("logging_level_first", roles=("loss", "accuracy", "val_loss", "val_accuracy"), **_STEP,
        line=("INFO:train:Step {step}: loss {loss}, acc {accuracy}",),
        post=(("INFO:train:Eval at step {step}: loss {val_loss}, acc {val_accuracy}", "val"),)),
    Row("jsonl", fn=_jsonl, roles=("loss", "lr", "grad_norm", "val_loss", "val_accuracy"), **_STEP),
    Row("rich_table", head=("┏━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━┓",
                            "┃ Epoch ┃ Train Loss ┃ Train Acc ┃ Val Loss ┃ Val Acc ┃",
                            "┡━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━┩"),
        line=("│ {i:>5} │ {g(loss):>10} │ {g(accuracy):>9} │ {g(val_loss) or '-':>8} │ {g(val_accuracy) or '-':>7} │",),
        foot=("└───────┴────────────┴───────────┴──────────┴─────────┘",)),
    Row("tabulate_grid", roles=("loss", "val_loss", "val_accuracy"),
        head=("+---------+--------------+------------+-----------+", "|   epoch |   train_loss |   val_loss |   val_acc |",
              "+=========+==============+============+===========+"),
        line=("| {i:>7} | {g(loss):>12} | {g(val_loss):>10} | {g(val_accuracy):>9} |",),
        post=("+---------+--------------+------------+-----------+",)),
    Row("markdown_table", head=("| epoch | train loss | train acc | val loss | val acc |", "|---|---|---|---|---|"),
        line=("| {i} | {loss} | {accuracy} | {val_loss} | {val_accuracy} |",)),
    Row("csv_stdout", head=("Training started", "epoch,train_loss,train_acc,val_loss,val_acc"),
        line=("{i},{loss},{accuracy},{val_loss},{val_accuracy}",), foot=("Training finished",)),
    Row("kv_units_avg", fn=_kvu, roles=("loss", "lr"), **_STEP),
    Row("eta_hours_percent", per="batch", roles=("loss", "accuracy"), percent=True, **_STEP,
        line=("[Epoch {ep}/{E}][Batch {j}/{nb}] Loss: {loss} Acc: {pc(accuracy):.2f}% ETA: {j % 3}h {j % 60:02d}m",)),
    Row("percent_acc", percent=True,
        line=("Epoch {i}/{n}: Train Loss: {loss}, Train Acc: {pc(accuracy):.2f}%",
              (", Val Loss: {val_loss}, Val Acc: {pc(val_accuracy):.2f}%", "val"))),
    Row("scientific", roles=("loss", "grad_norm", "lr"), **_STEP,
        line=("step {step:5d} loss {loss:.4e} grad_norm {get('grad_norm', 1.0):.4e} lr {lr:.4e}",)),
    Row("chinese", percent=True, roles=("loss", "accuracy", "val_loss", "val_accuracy"),
        line=("第 {i} 轮 | 训练损失: {loss} | 训练精度: {pc(accuracy):.2f}%", (" | 验证损失: {val_loss} | 验证精度: {pc(val_accuracy):.2f}%", "val"))),
    Row("chinese_epoch", roles=("loss", "accuracy"), line=("Epoch {i}, 损失: {loss}, 准确率: {accuracy}",)),
    Row("japanese", line=("エポック {i}/{n} 損失: {loss} 精度: {accuracy}", (" 検証損失: {val_loss} 検証精度: {val_accuracy}", "val"))),
    Row("korean", line=("에폭 {i}/{n} - 손실: {loss} - 정확도: {accuracy}", (" - 검증 손실: {val_loss} - 검증 정확도: {val_accuracy}", "val"))),
    Row("russian", line=("Эпоха {i}/{n}: Потери: {loss}, Точность: {accuracy}",
                         (", Потери на валидации: {val_loss}, Точность на валидации: {val_accuracy}", "val"))),
    Row("german", line=("Epoche {i}/{n} - Verlust: {loss} - Genauigkeit: {accuracy}",
                        (" - Val-Verlust: {val_loss} - Val-Genauigkeit: {val_accuracy}", "val"))),
    Row("ansi_colour", roles=("loss", "accuracy", "lr"), **_STEP,
        line=("\x1b[32m[train]\x1b[0m step \x1b[1m{step}\x1b[0m | \x1b[33mloss\x1b[0m {loss} | \x1b[33macc\x1b[0m {accuracy} | "
              "\x1b[36mlr\x1b[0m {lr:.2e}",)),
    Row("step_of_total", roles=("loss", "lr"), line=("Step {step}/{N} | loss {loss} | lr {lr:.2e}",), **_STEP),
    Row("epoch_batch_brackets", per="batch", roles=("loss", "accuracy"), **_STEP,
        line=("[Epoch {ep}/{E}][Batch {j * 20}/{nb * 20}] loss: {loss} acc: {accuracy}",)),
    Row("torch_tensor", roles=("loss", "accuracy", "val_loss"),
        line=("epoch {i} loss tensor({loss}, device='cuda:0', grad_fn=<NllLossBackward0>) acc tensor({accuracy}, device='cuda:0')",),
        post=(("epoch {i} val_loss tensor({val_loss}, device='cuda:0')", "val_loss"),)),
    Row("numpy_scalars", roles=("loss", "accuracy", "val_loss", "val_accuracy"), lead="epoch {i} {{", tail="}}", sep=", ",
        line=("'loss': np.float32({loss}), 'accuracy': np.float64({accuracy})",
              ("'val_loss': np.float32({val_loss}), 'val_accuracy': np.float64({val_accuracy})", "val"))),
    Row("pytorch_mnist", per="batch", roles=("loss", "val_loss", "val_accuracy"), percent=True, **_STEP,
        line=("Train Epoch: {ep} [{j * 640}/{nb * 640} ({100 * j // nb}%)]\tLoss: {loss:.6f}",),
        post=(("", "val"), ("Test set: Average loss: {val_loss}, Accuracy: {int(val_accuracy * 10000) if val_accuracy == val_accuracy else 0}"
                            "/10000 ({pc(val_accuracy):.0f}%)", "val"), ("", "val"))),
    Row("caffe", roles=("loss", "lr"), **_STEP,
        line=("I0501 12:00:{i % 60:02d}.123456  1234 solver.cpp:218] Iteration {step} (5.1 iter/s, 1.96s/10 iters), loss = {loss:.6g}",),
        post=("I0501 12:00:{i % 60:02d}.123500  1234 solver.cpp:237]     Train net output #0: loss = {loss:.6g} (* 1 = {loss:.6g} loss)",
              "I0501 12:00:{i % 60:02d}.123600  1234 sgd_solver.cpp:105] Iteration {step}, lr = {lr:.6g}")),
    Row("darknet", roles=("loss",), values=False, note="prints the running average beside the loss", **_STEP,
        line=(" {step}: {loss:.6f}, {loss:.6f} avg loss, {lr:.6f} rate, 3.21 seconds, {step * 64} images, 12.3 hours left",)),
    Row("opennmt", roles=("accuracy", "lr"), percent=True, **_STEP,
        line=("[2024-05-01 12:00:{i % 60:02d},000 INFO] Step {step:5d}/{N}; acc: {pc(accuracy):.2f}; ppl: 12.31; xent: {loss:.2f}; "
              "lr: {lr:.5f}; 12345/6789 tok/s;     {i * 10} sec",)),
    Row("fastai", roles=("loss", "val_loss", "val_accuracy"), head=("epoch     train_loss  valid_loss  accuracy  time    ",),
        line=("{i - 1:<10}{g(loss, '.6f'):<12}{g(val_loss, '.6f'):<12}{g(val_accuracy, '.6f'):<10}00:{i % 60:02d}   ",)),
    Row("eq_pairs", line=("epoch {i}: train_loss={loss} train_acc={accuracy}", (" val_loss={val_loss} val_acc={val_accuracy}", "val"))),
    Row("pipe_pairs", tail=" | time 12.3s",
        line=("epoch {i:2d} | train_loss {loss} | train_acc {accuracy}", (" | val_loss {val_loss} | val_acc {val_accuracy}", "val"))),
    Row("tf_estimator", roles=("loss",), **_STEP,
        line=("INFO:tensorflow:loss = {loss:.6g}, step = {step} (2.112 sec)",), post=("INFO:tensorflow:global_step/sec: 4.73",)),
    Row("ignite", per="batch", roles=("loss", "val_loss", "val_accuracy"), **_STEP,
        line=("Epoch[{ep}] Iteration[{step}/{N}] Loss: {loss:.2f}",),
        post=(("Validation Results - Epoch: {ep}  Avg accuracy: {val_accuracy:.2f} Avg loss: {val_loss:.2f}", "val"),)),
    Row("paddle_lists", roles=("loss", "accuracy"), **_STEP,
        line=("Epoch {epoch - 1} step {step}, loss: [{loss:.5f}], acc: [{accuracy:.5f}]",)),
    Row("imagenet_avg", per="batch", roles=("loss", "accuracy"), percent=True, **_STEP,
        line=("Epoch: [{ep - 1}][{j * 10:4d}/{nb * 10}]\tTime  0.212 ( 0.305)\tData  0.011 ( 0.020)\tLoss {loss:.4e} ({loss:.4e})\t"
              "Acc@1  {pc(accuracy):.2f} ( {pc(accuracy):.2f})\tAcc@5  95.31 ( 94.10)",)),
    Row("flax_example", percent=True, line=("train epoch: {i}, loss: {loss}, accuracy: {pc(accuracy):.2f}",),
        post=(("test epoch: {i}, loss: {val_loss}, accuracy: {pc(val_accuracy):.2f}", "val"),)),
    Row("srun_rank_prefix", roles=("loss", "lr"), **_STEP,
        line=("0: [rank0]: step {step} | loss {loss} | lr {lr:.2e}",), post=(("1: [rank1]: NCCL INFO Channel 00/02 :    0   1", "i % 7 == 0"),)),
    Row("noisy_traceback", traceback=True,
        line=("epoch {i}: train_loss={loss} train_acc={accuracy}", (" val_loss={val_loss} val_acc={val_accuracy}", "val"))),
    Row("val_block_lines", roles=("loss", "val_loss", "val_accuracy"), **_STEP,
        line=("it {step:6d}  loss {loss}",), post=tuple((t, "val") for t in _VAL_BLOCK)),
    Row("dataclass_repr", roles=("loss", "lr", "grad_norm"), **_STEP,
        line=("TrainStats(step={step}, loss={loss}, lr={lr:.2e}, grad_norm={get('grad_norm', 1.0)}, tokens_per_sec=12345.6)",)),
    Row("hours_eta_tail", roles=("loss", "lr"), note="unnamed columns: not expected to read", **_STEP,
        line=("{step:>6} | {loss:.4f} | {lr:.2e} | 0.21 s/it | ETA 02:{i % 60:02d}:10",)),
]
_register(TABLE_19)


# -- session 20's styles (styles20): frameworks and habits session 19 did not cover
def _skorch(recs):
    """skorch's history table: the best value so far of each column is coloured."""
    out = ["  epoch    train_loss    valid_acc    valid_loss     dur",
           "-------  ------------  -----------  ------------  ------"]
    best = {}
    for r in recs:
        cells = []
        for k, w, better in (("loss", 12, min), ("val_accuracy", 11, max), ("val_loss", 12, min)):
            v = r.get(k)
            s = g(v)
            if v is not None and v == v and (k not in best or better(v, best[k]) == v):
                best[k] = v
                s = {"loss": "\x1b[36m", "val_accuracy": "\x1b[32m", "val_loss": "\x1b[35m"}[k] + s + "\x1b[0m"
                w += 9
            cells.append(f"{s:>{w}}")
        out.append(f"{r['i']:>7}  " + "  ".join(cells) + "  0.1234")
    return out


def _torchtune(recs):
    """torchtune's bar: ``{epoch}|{step}|Loss: x`` as the description, frames joined by ``\\r``."""
    frames = [f"{r['epoch']}|{r['step']}|Loss: {g(r.get('loss'), '.6f')}: {int(100 * r['i'] / len(recs)):3d}%|█         | "
              f"{r['step']}/{recs[-1]['step']} [01:02<00:30,  1.60it/s]" for r in recs]
    return ["\r".join(frames[i:i + 10]) for i in range(0, len(frames), 10)]


def _hf_after_bar(recs):
    """HF Trainer's dict printed while tqdm's bar is on the line: the dict follows the bar."""
    out = []
    for r in recs:
        p = int(100 * r["i"] / len(recs))
        bar = f"{p:3d}%|{'█' * (p // 10):<10}| {r['step']}/{recs[-1]['step']} [01:02<30:00,  1.60it/s]"
        d = {"loss": r.get("loss"), "grad_norm": r.get("grad_norm"), "learning_rate": r.get("lr"),
             "epoch": round(r["step"] / recs[-1]["step"] * 3, 2)}
        out.append(bar + repr({k: v for k, v in d.items() if v is not None}))
        if has_val(r):
            out.append(bar + repr({"eval_loss": r.get("val_loss"), "eval_accuracy": r.get("val_accuracy"),
                                   "eval_runtime": 3.2, "epoch": d["epoch"]}))
    return out


def _mixed_cr(recs):
    """Progress bars and the epoch's metric line on one physical line, separated by ``\\r``."""
    out = []
    for r in recs:
        bars = "\r".join(f"{p:3d}%|{'█' * (p // 10):<10}| {p}/100 [00:0{p // 20}<00:05]" for p in (10, 50, 100))
        s = f"Epoch {r['i']}: loss {g(r.get('loss'))} acc {g(r.get('accuracy'))}"
        if has_val(r):
            s += f" val_loss {g(r.get('val_loss'))} val_acc {g(r.get('val_accuracy'))}"
        out.append(bars + "\r" + s)
    return out


_TF = "shape=(), dtype=float32"
_GLUE = "05/01/2024 12:00:03 - INFO - __main__ -   "
TABLE_20 = [
    Row("fastai_error_rate", roles=("loss", "val_loss"), head=("epoch     train_loss  valid_loss  error_rate  time    ",),
        line=("{i - 1:<10}{g(loss, '.6f'):<12}{g(val_loss, '.6f'):<12}{g(1 - val_accuracy, '.6f') if val_accuracy is not None else '':<12}00:{i % 60:02d}   ",)),
    Row("val_block_indented", line=("Epoch {i}/{n} train loss {loss} acc {accuracy}",),
        post=(("  validation:", "val"), ("    loss: {val_loss}", "val"), ("    acc: {val_accuracy}", "val"))),
    Row("keras_val_wrapped", pre=("Epoch {i}/{n}",),
        line=("100/100 [==============================] - 3s 28ms/step - loss: {loss} - accuracy: {accuracy}",),
        post=((" - val_loss: {val_loss} - val_accuracy: {val_accuracy}", "val"),)),
    Row("keras_verbose2", pre=("Epoch {i}/{n}",), sep=" - ", tail=" - 3s/epoch - 28ms/step",
        line=("100/100 - 3s - loss: {loss} - accuracy: {accuracy}", ("val_loss: {val_loss} - val_accuracy: {val_accuracy}", "val"))),
    Row("paddle_hapi", pre=("Epoch {i}/{n}",),
        line=("step 938/938 [==============================] - loss: {loss} - acc: {accuracy} - 12ms/step",),
        post=(("Eval begin...", "val"), ("step 157/157 [==============================] - loss: {val_loss} - acc: {val_accuracy} - 5ms/step", "val"),
              ("Eval samples: 10000", "val"))),
    Row("mindspore", roles=("loss",), **_STEP, line=("epoch: {epoch} step: {step}, loss is {loss}",),
        post=(("epoch time: 12345.678 ms, per step time: 6.584 ms", "i % 10 == 0"),)),
    Row("oneflow_libai", roles=("loss", "lr"), **_STEP,
        line=("[05/01 12:{i % 60:02d}:00 lb.utils.events]:  eta: 0:10:00  iteration: {step - 1}/{N}  consumed_samples: {step * 32}  "
              "total_loss: {loss}  time: 0.2012 s/iter  data_time: 0.0101 s/iter total_throughput: 159.04 samples/s  lr: {lr:.2e}",)),
    Row("catalyst", roles=("loss", "accuracy", "lr") + VAL,
        line=("train ({i}/{n}) accuracy01: {accuracy} | accuracy01/std: 0.0112 | loss: {loss} | loss/std: 0.0534 | lr: {lr} | momentum: 0.9",),
        post=(("valid ({i}/{n}) accuracy01: {val_accuracy} | accuracy01/std: 0.0121 | loss: {val_loss} | loss/std: 0.0610", "val"),)),
    Row("ignite_results", per="batch", roles=("loss", "val_loss", "val_accuracy"), **_STEP,
        note="the training accuracy is printed only at evaluations: not in the truth",
        line=("Epoch[{ep}] Iteration[{j * 100}/{nb * 100}] Loss: {loss:.2f}",),
        post=(("Training Results - Epoch[{ep}] Avg accuracy: {accuracy:.2f} Avg loss: {loss:.2f}", "val"),
              ("Validation Results - Epoch[{ep}] Avg accuracy: {val_accuracy:.2f} Avg loss: {val_loss:.2f}", "val"))),
    Row("skorch", fn=_skorch, roles=("loss", "val_loss", "val_accuracy")),
    Row("flax_clu", roles=("loss", "accuracy", "lr", "val_loss", "val_accuracy"), **_STEP,
        line=("[{step}] train/accuracy={accuracy}, train/learning_rate={lr}, train/loss={loss}",),
        post=(("[{step}] eval/accuracy={val_accuracy}, eval/loss={val_loss}", "val"),)),
    Row("haiku_slash", roles=("accuracy", "val_accuracy"), **_STEP,
        post=(("[Step {step}] Train / Test accuracy: {accuracy:.3f} / {val_accuracy:.3f}.", "val_accuracy"),
              ("[Step {step}] Train accuracy: {accuracy:.3f}.", "val_accuracy is None"))),
    Row("tf_eager_tensor", roles=("loss", "accuracy"), **_STEP,
        line=("Epoch {epoch} step {step}: loss: tf.Tensor({loss}, " + _TF + ") accuracy: tf.Tensor({accuracy}, " + _TF + ")",)),
    Row("allennlp", roles=("loss", "accuracy") + VAL,
        line=("accuracy: {accuracy}, batch_loss: {loss}, loss: {loss} ||: 100%|##########| 938/938 [00:12<00:00, 75.12it/s]",),
        post=(("Validating", "val"),
              ("accuracy: {val_accuracy}, batch_loss: {val_loss}, loss: {val_loss} ||: 100%|##########| 157/157 [00:01<00:00, 98.1it/s]", "val"),
              ("                       Training |  Validation", "val"),
              ("accuracy           |     {accuracy:.3f}  |     {val_accuracy:.3f}", "val"),
              ("loss               |     {loss:.3f}  |     {val_loss:.3f}", "val"))),
    Row("speechbrain", roles=("loss", "lr", "val_loss"),
        line=("epoch: {i}, lr: {lr:.2e} - train loss: {loss:.2f}", (" - valid loss: {val_loss:.2f}, valid error: 4.52e-01", "val"))),
    Row("detectron2_json", roles=("loss", "lr"), **_STEP,
        line=('{{"data_time": 0.0101, "eta_seconds": {(N - step) * 2}, "iteration": {step - 1}, "loss_box_reg": 0.2, "loss_cls": 0.3, '
              '"lr": {lr}, "time": 0.2021, "total_loss": {loss}}}',)),
    Row("yolov5", roles=("loss",), values=False, note="box is the only loss printed",
        pre=("", "     Epoch   gpu_mem       box       obj       cls    labels  img_size"),
        line=("{i - 1:>10}/{n - 1:<3}   3.21G  {loss:8.4g}   0.07123   0.03123       123       640: 100%|██████████| 50/50 [00:12<00:00,  4.1it/s]",),
        post=("               Class     Images     Labels          P          R     mAP@.5 mAP@.5:.95: 100%|██████████| 5/5 [00:01<00:00,  4.5it/s]",
              "                 all        128        929      0.612      0.543      0.581      0.402")),
    Row("yolov8_cls", roles=("loss", "val_accuracy"),
        pre=("", "      Epoch    GPU_mem       loss  Instances       Size"),
        line=("{i:>8}/{n:<3}    1.21G  {loss:9.4g}         32        224: 100%|██████████| 50/50 [00:12<00:00,  4.1it/s]",),
        post=(("               classes   top1_acc   top5_acc: 100%|██████████| 5/5 [00:01<00:00,  4.5it/s]", "val"),
              ("                   all  {val_accuracy:9.3g}      0.995", "val"))),
    Row("torchtune_bar", fn=_torchtune, roles=("loss",), **_STEP),
    Row("hf_dict_after_bar", fn=_hf_after_bar, roles=("loss", "grad_norm", "lr", "val_loss", "val_accuracy"), **_STEP),
    Row("nanogpt", roles=("loss", "val_loss"), **_STEP,
        pre=(("step {step}: train loss {loss:.4f}, val loss {val_loss:.4f}", "val"),),
        line=("iter {step}: loss {loss:.4f}, time 12.34ms, mfu 3.21%",)),
    Row("r_luz", pre=("Epoch {i}/{n}",), line=("Train metrics: Loss: {loss} - Acc: {accuracy}",),
        post=(("Valid metrics: Loss: {val_loss} - Acc: {val_accuracy}", "val"),)),
    Row("julia_info_block", pre=("┌ Info: Epoch {i}",), line=("│   loss = {loss}",),
        post=("│   acc = {accuracy}", ("│   val_loss = {val_loss}", "val"), ("│   val_acc = {val_accuracy}", "val"), "└ @ Main ~/train.jl:42")),
    Row("julia_flux_println", line=("Epoch {i}: loss = {loss}, acc = {accuracy}", (", val_loss = {val_loss}, val_acc = {val_accuracy}", "val"))),
    Row("crlf_windows", newline="\r\n", tail=" | time 12.3s",
        line=("epoch {i:2d} | train_loss {loss} | train_acc {accuracy}", (" | val_loss {val_loss} | val_acc {val_accuracy}", "val"))),
    Row("mixed_cr_progress", fn=_mixed_cr),
    Row("ts_iso_t", roles=("loss", "lr", "grad_norm"), **_STEP,
        line=("2024-05-01T12:{i % 60:02d}:03.123456Z step={step} loss={loss} lr={lr:.2e} grad_norm={get('grad_norm', 1.0):.3f}",)),
    Row("ts_clock_brackets", line=("[12:{i % 60:02d}:03] Epoch {i} | loss: {loss} | acc: {accuracy}", (" | val_loss: {val_loss} | val_acc: {val_accuracy}", "val"))),
    Row("ts_unix_seconds", roles=("loss", "lr"), **_STEP, line=("{1714564800.123 + i * 12.5:.3f} step={step} loss={loss} lr={lr:.1e}",)),
    Row("ts_syslog", line=("May  1 12:{i % 60:02d}:03 node01 python[1234]: epoch {i} loss {loss} acc {accuracy}",
                           (" val_loss {val_loss} val_acc {val_accuracy}", "val"))),
    Row("absl_glog", roles=("loss", "accuracy"), **_STEP,
        line=("I0501 12:{i % 60:02d}:03.123456 140234 train.py:123] step {step}: loss = {loss}, accuracy = {accuracy}",)),
    Row("loguru", line=("2024-05-01 12:{i % 60:02d}:03.123 | INFO     | __main__:train:42 - Epoch {i}: train_loss={loss}, train_acc={accuracy}",
                        (", val_loss={val_loss}, val_acc={val_accuracy}", "val"))),
    Row("hf_glue_logger", roles=("loss", "val_loss", "val_accuracy"),
        line=(_GLUE + "***** epoch {i} *****",),
        post=(_GLUE + "  loss = {loss}", (_GLUE + "  eval_loss = {val_loss}", "val"), (_GLUE + "  eval_acc = {val_accuracy}", "val"))),
    Row("tf1_minibatch", roles=("loss", "accuracy"), **_STEP,
        line=("Step {step}, Minibatch Loss= {loss}, Training Accuracy= {accuracy:.3f}",)),
    Row("gluon_bare_splits", roles=("loss", "accuracy", "val_accuracy"),
        line=("[Epoch {i}] train={accuracy:.6f}", (" val={val_accuracy:.6f}", "val_accuracy"), " loss={loss:.6f} time: 12.34")),
    Row("chainer_report", roles=("loss", "accuracy") + VAL,
        head=("epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time",),
        line=("{i:<12}{g(loss, '.6g'):<12}{g(val_loss, '.6g'):<22}{g(accuracy, '.6g'):<15}{g(val_accuracy, '.6g'):<26}{i * 12.3:.4g}",)),
    Row("dgl_pipes", roles=("loss", "accuracy", "val_accuracy"),
        line=("Epoch {i:05d} | Loss {loss} | Train Acc {accuracy}", (" | Val Acc {val_accuracy}", "val_accuracy"), " | Time(s) 0.0123")),
    Row("pyg_bare_splits", roles=("loss", "accuracy", "val_accuracy"),
        line=("Epoch: {i:03d}, Loss: {loss}, Train: {accuracy}", (", Val: {val_accuracy}, Test: 0.7800", "val_accuracy"))),
    Row("accelerate_eval_dict", roles=("val_accuracy",), post=(("epoch {i - 1}: {{'accuracy': {val_accuracy}, 'f1': 0.8123}}", "val_accuracy"),)),
    Row("unnamed_after_epoch", note="unnamed columns: not expected to read", line=("Epoch {i}  {loss}  {accuracy}  {val_loss}  {val_accuracy}",)),
    Row("hours_eta_unnamed", roles=("loss", "lr"), note="unnamed columns: not expected to read", **_STEP,
        line=("{step:>6} {loss:.4f} {lr:.2e}  {i * 0.01:.2f} hours  eta 0:{(60 - i) % 60:02d}:00",)),
]
_register(TABLE_20)


# ------------------------------------------------------------------------------------ rendering
def render(hist: History, name: str) -> tuple:
    """(text, truth) for one history in one style."""
    st = STYLES[name]
    recs = []
    for i, r in enumerate(hist.records, 1):
        rr = dict(r)
        rr["i"] = i
        recs.append(rr)
    lines = st["fn"](recs)
    lines = noisy(lines, seed=hash((hist.name, name)) % 10_000 if False else len(name) * 31 + len(hist.name),
                  traceback=st["traceback"])
    truth = {"history": hist.name, "style": name, "symptom": hist.symptom, "axis": st["axis"], "roles": {},
             "values": st["values"]}
    for role in sorted(st["roles"]):
        vals = [r[role] for r in recs if role in r]
        if name in ("tqdm_postfix",) and role == "val_loss":
            vals = [r[role] for r in recs if role in r]
        if vals:
            finite = [v for v in vals if not math.isnan(v)]
            truth["roles"][role] = {"n": len(vals), "last": finite[-1] if finite else None,
                                    "nonfinite": len(vals) - len(finite)}
    return st["newline"].join(lines) + st["newline"], truth


def all_cases(styles=None, histories=None):
    for hf in HISTORIES:
        h = hf()
        if histories and h.name not in histories:
            continue
        for name in STYLES:
            if styles and name not in styles:
                continue
            yield h, name


# ------------------------------------------------------------------------------------ checking
def check_read(path: str, truth: dict) -> dict:
    """Read ``path`` as ``traindx diagnose --log`` does; compare with ``truth``."""
    from traindx.engine.errors import InputError
    from traindx.probes.readers.logs import read_log
    res = {"read": False, "roles_ok": False, "values_ok": False, "missing": [], "wrong": [], "error": None}
    try:
        log = read_log(path)
    except InputError as e:
        res["error"] = str(e)[:160]
        return res
    except Exception as e:  # a crash is a finding too
        res["error"] = f"CRASH {type(e).__name__}: {e}"[:160]
        return res
    res["read"] = True
    res["x_label"] = log.x_label
    res["found"] = sorted(r for r in log.series if r in TRAIN + VAL)
    want = truth["roles"]
    res["missing"] = sorted(r for r in want if r not in log.series)
    extra_val = [r for r in log.series if r in VAL and r not in want]
    res["roles_ok"] = not res["missing"] and not extra_val
    if extra_val:
        res["wrong"].append(f"unexpected {extra_val}")
    ok = True
    for role, t in want.items():
        s = log.series.get(role)
        if s is None:
            ok = False
            continue
        if truth["values"] or role != "loss":
            if t["last"] is not None:
                got = s.last_value if s.last_value is not None and math.isfinite(s.last_value) else None
                if got is None:   # the series ends on non-finite values
                    got = _last_finite(s)
                if got is None or abs(got - t["last"]) > 0.02 * abs(t["last"]) + 0.006:   # printed rounded
                    ok = False
                    res["wrong"].append(f"{role} last {got} want {t['last']:.6g}")
            if (s.nonfinite > 0) != (t["nonfinite"] > 0):
                ok = False
                res["wrong"].append(f"{role} nonfinite {s.nonfinite} want {t['nonfinite']}")
            if role in TRAIN and not (0.5 * t["n"] <= s.rows <= 1.5 * t["n"] + 1):  # an evaluation may repeat
                ok = False
                res["wrong"].append(f"{role} rows {s.rows} want {t['n']}")
    res["values_ok"] = ok and res["roles_ok"]
    return res


def _last_finite(s):
    for p in reversed(s.points):
        if p.n > p.nonfinite and math.isfinite(p.mean):
            return p.mean
    return None


def check_symptom(path: str) -> str:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run_finished import _diagnose, _symptom
    rep = _diagnose(["--log", path])
    if rep.get("status") == "error":
        return "unread"
    return _symptom(rep) or "none"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--render", metavar="DIR")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--diagnose", action="store_true", help="with --check: run the diagnosis, compare symptoms")
    ap.add_argument("--style", action="append")
    ap.add_argument("--history", action="append")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="with --check: write per-log results")
    a = ap.parse_args(argv)
    if a.list:
        for n, st in STYLES.items():
            print(f"{n:22s} axis={st['axis']:5s} roles={','.join(sorted(st['roles']))} {st['note']}")
        print(f"{len(STYLES)} styles x {len(HISTORIES)} histories")
        return 0
    if a.render:
        os.makedirs(a.render, exist_ok=True)
        truths = {}
        for h, name in all_cases(a.style, a.history):
            text, truth = render(h, name)
            fn = f"{name}__{h.name}.log"
            with open(os.path.join(a.render, fn), "w", encoding="utf-8") as f:
                f.write(text)
            truths[fn] = truth
        with open(os.path.join(a.render, "truth.json"), "w") as f:
            json.dump(truths, f, indent=1)
        print(f"{len(truths)} logs written to {a.render}")
        return 0
    if not a.check:
        ap.print_help()
        return 0
    per_style: dict = {}
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for h, name in all_cases(a.style, a.history):
            text, truth = render(h, name)
            path = os.path.join(tmp, f"{name}__{h.name}.log")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            r = check_read(path, truth)
            if a.diagnose:
                r["symptom"] = check_symptom(path)
                r["symptom_ok"] = r["symptom"] == h.symptom
            r.update(style=name, history=h.name, want_symptom=h.symptom)
            results.append(r)
            per_style.setdefault(name, []).append(r)
            if a.verbose:
                print(f"  {name:22s} {h.name:15s} read={r['read']!s:5s} roles={r['roles_ok']!s:5s} "
                      f"values={r['values_ok']!s:5s} found={r.get('found')} {r.get('x_label', '')} "
                      f"{'sym=' + r['symptom'] + '/' + h.symptom if a.diagnose else ''} {r['error'] or ''} {r['wrong']}")
    print(f"{'style':22s} read roles values" + ("  symptom" if a.diagnose else ""))
    tot = dict(read=0, roles=0, values=0, sym=0, n=0)
    styles_read = 0
    for name, rs in per_style.items():
        n = len(rs)
        rd = sum(r["read"] for r in rs)
        ro = sum(r["roles_ok"] for r in rs)
        va = sum(r["values_ok"] for r in rs)
        sy = sum(r.get("symptom_ok", False) for r in rs)
        styles_read += rd == n
        tot["read"] += rd
        tot["roles"] += ro
        tot["values"] += va
        tot["sym"] += sy
        tot["n"] += n
        line = f"{name:22s} {rd}/{n}  {ro}/{n}   {va}/{n}"
        if a.diagnose:
            line += f"    {sy}/{n}"
        print(line)
    print(f"TOTAL logs: read {tot['read']}/{tot['n']}  roles {tot['roles']}/{tot['n']}  values {tot['values']}/{tot['n']}"
          + (f"  symptom {tot['sym']}/{tot['n']}" if a.diagnose else ""))
    print(f"styles read on every history: {styles_read}/{len(per_style)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
