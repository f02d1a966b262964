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


HISTORIES = [healthy_epochs, overfit_epochs, nan_steps, flat_steps, restart_steps]


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
STYLES: dict = {}


def style(name, axis="epoch", roles=("loss", "accuracy") + VAL, percent=False, values=True, note=""):
    """Register a renderer ``fn(records) -> list[str]``. ``axis``: the x the style prints
    (``epoch``: one line per record, numbered as epochs); ``roles``: what it can print;
    ``values``: whether the printed value of each role is the history's (False where the
    style prints a component, e.g. YOLO's box_loss, as its only loss)."""
    def deco(fn):
        STYLES[name] = dict(fn=fn, axis=axis, roles=set(roles), percent=percent, values=values, note=note)
        return fn
    return deco


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


@style("keras2")
def _keras2(recs):
    out = []
    for r in recs:
        out.append(f"Epoch {r['i']}/{len(recs)}")
        parts = [f"loss: {g(r.get('loss'))}"]
        if "accuracy" in r:
            parts.append(f"accuracy: {g(r['accuracy'])}")
        if "val_loss" in r:
            parts.append(f"val_loss: {g(r['val_loss'])}")
        if "val_accuracy" in r:
            parts.append(f"val_accuracy: {g(r['val_accuracy'])}")
        out.append("100/100 [==============================] - 3s 28ms/step - " + " - ".join(parts))
    return out


@style("keras3")
def _keras3(recs):
    out = []
    bar = "\x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m"
    for r in recs:
        out.append(f"Epoch {r['i']}/{len(recs)}")
        parts = []
        if "accuracy" in r:
            parts.append(f"accuracy: {g(r['accuracy'])}")
        parts.append(f"loss: {g(r.get('loss'))}")
        if "val_accuracy" in r:
            parts.append(f"val_accuracy: {g(r['val_accuracy'])}")
        if "val_loss" in r:
            parts.append(f"val_loss: {g(r['val_loss'])}")
        out.append(f"\x1b[1m100/100\x1b[0m {bar} \x1b[1m2s\x1b[0m 16ms/step - " + " - ".join(parts))
    return out


@style("tqdm_postfix", axis="step", roles=("loss", "accuracy", "lr", "val_loss"))
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


@style("lightning", axis="step", roles=("loss", "val_loss", "val_accuracy"))
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


@style("nemo", axis="step", roles=("loss", "lr"))
def _nemo(recs):
    frames = []
    for r in recs:
        frames.append(f"Epoch 0: :  {int(100 * r['i'] / len(recs)):3d}%|████      | {r['step']}/{recs[-1]['step']} "
                      f"[01:02<01:30, reduced_train_loss={g(r.get('loss'), '.3f')}, global_step={r['step'] - 1}.0, "
                      f"consumed_samples={r['step'] * 64}.0, train_step_timing in s=0.21, lr={g(r.get('lr'), '.2e')}]")
    return ["\r".join(frames[i:i + 5]) for i in range(0, len(frames), 5)]


@style("hf_trainer", axis="step", roles=("loss", "grad_norm", "lr", "val_loss", "val_accuracy"))
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


@style("fairseq_legacy", roles=("loss", "lr", "grad_norm", "val_loss"))
def _fairseq(recs):
    out = []
    for r in recs:
        gn = r.get("grad_norm", 1.0)
        out.append(f"| epoch {r['i']:03d} | loss {g(r.get('loss'), '.3f')} | nll_loss {g(r.get('loss'), '.3f')} | "
                   f"ppl 9.21 | wps 12345 | ups 3 | wpb 3984 | bsz 128 | num_updates {r['i'] * 100} | "
                   f"lr {g(r.get('lr'), '.6g')} | gnorm {g(gn, '.3f')} | clip 0 | oom 0 | wall 120 | train_wall 100")
        if "val_loss" in r:
            out.append(f"| epoch {r['i']:03d} | valid on 'valid' subset | loss {g(r['val_loss'], '.3f')} | "
                       f"nll_loss {g(r['val_loss'], '.3f')} | ppl 10.1 | num_updates {r['i'] * 100}")
    return out


@style("fairseq_hydra", roles=("loss", "lr", "grad_norm", "val_loss"))
def _fairseq_h(recs):
    out = []
    for r in recs:
        ts = f"2023-04-0{1 + r['i'] % 8} 12:{r['i'] % 60:02d}:03"
        if "val_loss" in r:
            out.append(f"{ts} | INFO | valid | epoch {r['i']:03d} | valid on 'valid' subset | loss {g(r['val_loss'], '.3f')} | "
                       f"nll_loss {g(r['val_loss'], '.3f')} | ppl 8.61 | wps 40231 | wpb 2048 | bsz 64 | num_updates {r['i'] * 100}")
        out.append(f"{ts} | INFO | train | epoch {r['i']:03d} | loss {g(r.get('loss'), '.3f')} | ppl 9.9 | wps 30123 | "
                   f"ups 4.1 | wpb 3984 | bsz 128 | num_updates {r['i'] * 100} | lr {g(r.get('lr'), '.6g')} | "
                   f"gnorm {g(r.get('grad_norm', 0.9), '.3f')} | train_wall 95 | gb_free 11.2 | wall 410")
    return out


@style("mmengine", axis="step", roles=("loss", "lr", "grad_norm", "val_accuracy"), percent=True)
def _mmengine(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"2023/05/01 12:{j % 60:02d}:00 - mmengine - INFO - Epoch(train)  [{ep}][{j * 10:3d}/{len(rs) * 10}]  "
                       f"lr: {g(r.get('lr'), '.4e')}  eta: 0:{j % 60:02d}:11  time: 0.2031  data_time: 0.0112  "
                       f"memory: 2011  grad_norm: {g(r.get('grad_norm', 1.0), '.4f')}  loss: {g(r.get('loss'), '.4f')}  "
                       f"loss_cls: {g(r.get('loss'), '.4f')}")
            if "val_accuracy" in r:
                out.append(f"2023/05/01 12:{j % 60:02d}:30 - mmengine - INFO - Epoch(val) [{ep}][10/10]    "
                           f"accuracy/top1: {pct(r['val_accuracy'], '.4f')}  accuracy/top5: 95.0000  data_time: 0.01  time: 0.05")
    return out


@style("mmcv_legacy", axis="step", roles=("loss", "lr", "grad_norm"))
def _mmcv(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"2021-03-01 10:11:{j % 60:02d},123 - mmdet - INFO - Epoch [{ep}][{j * 50}/{len(rs) * 50}]\t"
                       f"lr: {g(r.get('lr'), '.3e')}, eta: 1:02:03, time: 0.412, data_time: 0.021, memory: 3912, "
                       f"loss_rpn_cls: 0.0123, loss_bbox: 0.2, loss: {g(r.get('loss'), '.4f')}, grad_norm: {g(r.get('grad_norm', 1.0), '.4f')}")
    return out


@style("detectron2", axis="step", roles=("loss", "lr"))
def _d2(recs):
    return [f"[05/01 12:{r['i'] % 60:02d}:00 d2.utils.events]:  eta: 0:{(60 - r['i']) % 60:02d}:00  iter: {r['step'] - 1}  "
            f"total_loss: {g(r.get('loss'), '.4g')}  loss_cls: 0.3  loss_box_reg: 0.2  time: 0.2021  "
            f"last_time: 0.1990  data_time: 0.0100  last_data_time: 0.0090  lr: {g(r.get('lr'), '.6g')}  max_mem: 2134M"
            for r in recs]


@style("megatron", axis="step", roles=("loss", "lr", "grad_norm"))
def _megatron(recs):
    n = recs[-1]["step"]
    return [f" iteration {r['step']:8d}/{n:8d} | consumed samples: {r['step'] * 64:12d} | elapsed time per iteration (ms): "
            f"301.2 | learning rate: {g(r.get('lr'), '.3E')} | global batch size:    64 | lm loss: {g(r.get('loss'), '.6E')} | "
            f"loss scale: 65536.0 | grad norm: {g(r.get('grad_norm', 1.0), '.3f')} | number of skipped iterations:   0 | "
            f"number of nan iterations:   0 |" for r in recs]


@style("deepspeed", axis="step", roles=("loss", "lr"))
def _deepspeed(recs):
    out = []
    for r in recs:
        out.append(f"[2024-05-01 12:00:{r['i'] % 60:02d},000] [INFO] [logging.py:96:log_dist] [Rank 0] step={r['step']}, "
                   f"skipped=0, lr=[{g(r.get('lr'), '.6g')}], mom=[(0.9, 0.999)]")
        out.append(f"steps: {r['step']} loss: {g(r.get('loss'), '.4f')} iter time (s): 0.210 samples/sec: 304.8")
    return out


@style("timm", axis="step", roles=("loss", "lr", "val_loss", "val_accuracy"), percent=True)
def _timm(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"Train: {ep - 1} [{j * 10:4d}/{len(rs) * 10} ({100 * j // len(rs):3d}%)]  Loss: {g(r.get('loss'), '.3f')} "
                       f"({g(r.get('loss'), '.3f')})  Time: 0.210s,  608.31/s  (0.215s,  595.12/s)  LR: {g(r.get('lr'), '.3e')}  "
                       f"Data: 0.011 (0.012)")
            if has_val(r):
                out.append(f"Test: [  10/10]  Time: 0.101 (0.120)  Loss:  {g(r.get('val_loss'), '.4f')} "
                           f"({g(r.get('val_loss'), '.4f')})  Acc@1: {pct(r.get('val_accuracy'), '.4f')} "
                           f"({pct(r.get('val_accuracy'), '.4f')})  Acc@5: 97.0000 (97.0000)")
    return out


@style("yolo", roles=("loss",), values=False, note="box_loss is the only loss printed")
def _yolo(recs):
    out = []
    for r in recs:
        out.append("")
        out.append("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size")
        lo = r.get("loss")
        out.append(f"{r['i']:>8}/{len(recs):<3}    2.31G  {g(lo, '10.4f')} {g(lo * 0.8 if lo == lo else lo, '10.4f')} "
                   f"{g(lo * 0.6 if lo == lo else lo, '10.4f')}        121        640: 100%|██████████| 50/50 [00:12<00:00,  4.1it/s]")
        out.append("                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): "
                   "100%|██████████| 5/5 [00:01<00:00,  4.5it/s]")
        out.append("                   all        128        929      0.612      0.543      0.581      0.402")
    return out


@style("xgboost", roles=("loss", "val_loss"))
def _xgb(recs):
    return [f"[{r['i'] - 1}]\ttrain-logloss:{g(r.get('loss'), '.5f')}" +
            (f"\tvalid-logloss:{g(r['val_loss'], '.5f')}" if "val_loss" in r else "") for r in recs]


@style("lightgbm", roles=("loss", "val_loss"))
def _lgb(recs):
    return [f"[{r['i']}]\ttraining's binary_logloss: {g(r.get('loss'), '.6g')}" +
            (f"\tvalid_1's binary_logloss: {g(r['val_loss'], '.6g')}" if "val_loss" in r else "") for r in recs]


@style("sklearn_mlp", roles=("loss",))
def _sk(recs):
    out = []
    for r in recs:
        out.append(f"Iteration {r['i']}, loss = {g(r.get('loss'), '.8f')}")
        if "val_accuracy" in r:
            out.append(f"Validation score: {g(r['val_accuracy'], '.6f')}")
    return out


@style("logging_dash")
def _log_dash(recs):
    out = []
    for r in recs:
        s = f"2024-05-01 12:{r['i'] % 60:02d}:00,123 - __main__ - INFO - Epoch {r['i']} - train_loss: {g(r.get('loss'))}"
        if "accuracy" in r:
            s += f" - train_acc: {g(r['accuracy'])}"
        if "val_loss" in r:
            s += f" - val_loss: {g(r['val_loss'])} - val_acc: {g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("logging_bracket", axis="step", roles=("loss", "lr", "grad_norm"))
def _log_br(recs):
    return [f"[2024-05-01 12:{r['i'] % 60:02d}:00] INFO trainer.py:212: step={r['step']} loss={g(r.get('loss'))} "
            f"lr={g(r.get('lr'), '.2e')} grad_norm={g(r.get('grad_norm', 1.0), '.3f')}" for r in recs]


@style("logging_level_first", axis="step", roles=("loss", "accuracy", "val_loss", "val_accuracy"))
def _log_lvl(recs):
    out = []
    for r in recs:
        out.append(f"INFO:train:Step {r['step']}: loss {g(r.get('loss'))}, acc {g(r.get('accuracy'))}")
        if has_val(r):
            out.append(f"INFO:train:Eval at step {r['step']}: loss {g(r.get('val_loss'))}, acc {g(r.get('val_accuracy'))}")
    return out


@style("jsonl", axis="step", roles=("loss", "lr", "grad_norm", "val_loss", "val_accuracy"))
def _jsonl(recs):
    out = []
    for r in recs:
        out.append(json.dumps({"step": r["step"], "loss": r.get("loss"), "lr": r.get("lr"), "grad_norm": r.get("grad_norm", 1.0)}))
        if has_val(r):
            out.append(json.dumps({"step": r["step"], "split": "val", "val_loss": r.get("val_loss"),
                                   "val_acc": r.get("val_accuracy")}))
    return out


@style("rich_table")
def _rich(recs):
    out = ["┏━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━┓",
           "┃ Epoch ┃ Train Loss ┃ Train Acc ┃ Val Loss ┃ Val Acc ┃",
           "┡━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━┩"]
    for r in recs:
        out.append(f"│ {r['i']:>5} │ {g(r.get('loss')):>10} │ {g(r.get('accuracy')):>9} │ {g(r.get('val_loss')) or '-':>8} │ "
                   f"{g(r.get('val_accuracy')) or '-':>7} │")
    out.append("└───────┴────────────┴───────────┴──────────┴─────────┘")
    return out


@style("tabulate_grid", roles=("loss", "val_loss", "val_accuracy"))
def _tab(recs):
    out = ["+---------+--------------+------------+-----------+",
           "|   epoch |   train_loss |   val_loss |   val_acc |",
           "+=========+==============+============+===========+"]
    for r in recs:
        out.append(f"| {r['i']:>7} | {g(r.get('loss')):>12} | {g(r.get('val_loss')):>10} | {g(r.get('val_accuracy')):>9} |")
        out.append("+---------+--------------+------------+-----------+")
    return out


@style("markdown_table")
def _md(recs):
    out = ["| epoch | train loss | train acc | val loss | val acc |", "|---|---|---|---|---|"]
    for r in recs:
        out.append(f"| {r['i']} | {g(r.get('loss'))} | {g(r.get('accuracy'))} | {g(r.get('val_loss'))} | {g(r.get('val_accuracy'))} |")
    return out


@style("csv_stdout")
def _csv(recs):
    out = ["Training started", "epoch,train_loss,train_acc,val_loss,val_acc"]
    for r in recs:
        out.append(f"{r['i']},{g(r.get('loss'))},{g(r.get('accuracy'))},{g(r.get('val_loss'))},{g(r.get('val_accuracy'))}")
    out.append("Training finished")
    return out


@style("kv_units_avg", axis="step", roles=("loss", "lr"))
def _kvu(recs):
    out = []
    run = None
    for r in recs:
        lo = r.get("loss")
        run = lo if run is None or lo != lo else 0.9 * run + 0.1 * lo
        out.append(f"step {r['step']}: loss={g(lo)} (avg {g(run)}) lr={g(r.get('lr'), '.1e')} time 0.21s data 0.01s")
    return out


@style("eta_hours_percent", axis="step", roles=("loss", "accuracy"), percent=True)
def _eta(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"[Epoch {ep}/{recs[-1]['epoch']}][Batch {j}/{len(rs)}] Loss: {g(r.get('loss'))} "
                       f"Acc: {pct(r.get('accuracy'))}% ETA: {j % 3}h {j % 60:02d}m")
    return out


@style("percent_acc", percent=True)
def _pacc(recs):
    out = []
    for r in recs:
        s = f"Epoch {r['i']}/{len(recs)}: Train Loss: {g(r.get('loss'))}, Train Acc: {pct(r.get('accuracy'))}%"
        if has_val(r):
            s += f", Val Loss: {g(r.get('val_loss'))}, Val Acc: {pct(r.get('val_accuracy'))}%"
        out.append(s)
    return out


@style("scientific", axis="step", roles=("loss", "grad_norm", "lr"))
def _sci(recs):
    return [f"step {r['step']:5d} loss {g(r.get('loss'), '.4e')} grad_norm {g(r.get('grad_norm', 1.0), '.4e')} "
            f"lr {g(r.get('lr'), '.4e')}" for r in recs]


@style("chinese", percent=True, roles=("loss", "accuracy", "val_loss", "val_accuracy"))
def _zh(recs):
    out = []
    for r in recs:
        s = f"第 {r['i']} 轮 | 训练损失: {g(r.get('loss'))} | 训练精度: {pct(r.get('accuracy'))}%"
        if has_val(r):
            s += f" | 验证损失: {g(r.get('val_loss'))} | 验证精度: {pct(r.get('val_accuracy'))}%"
        out.append(s)
    return out


@style("chinese_epoch", roles=("loss", "accuracy"))
def _zh2(recs):
    return [f"Epoch {r['i']}, 损失: {g(r.get('loss'))}, 准确率: {g(r.get('accuracy'))}" for r in recs]


@style("japanese")
def _ja(recs):
    out = []
    for r in recs:
        s = f"エポック {r['i']}/{len(recs)} 損失: {g(r.get('loss'))} 精度: {g(r.get('accuracy'))}"
        if has_val(r):
            s += f" 検証損失: {g(r.get('val_loss'))} 検証精度: {g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("korean")
def _ko(recs):
    out = []
    for r in recs:
        s = f"에폭 {r['i']}/{len(recs)} - 손실: {g(r.get('loss'))} - 정확도: {g(r.get('accuracy'))}"
        if has_val(r):
            s += f" - 검증 손실: {g(r.get('val_loss'))} - 검증 정확도: {g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("russian")
def _ru(recs):
    out = []
    for r in recs:
        s = f"Эпоха {r['i']}/{len(recs)}: Потери: {g(r.get('loss'))}, Точность: {g(r.get('accuracy'))}"
        if has_val(r):
            s += f", Потери на валидации: {g(r.get('val_loss'))}, Точность на валидации: {g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("german")
def _de(recs):
    out = []
    for r in recs:
        s = f"Epoche {r['i']}/{len(recs)} - Verlust: {g(r.get('loss'))} - Genauigkeit: {g(r.get('accuracy'))}"
        if has_val(r):
            s += f" - Val-Verlust: {g(r.get('val_loss'))} - Val-Genauigkeit: {g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("ansi_colour", axis="step", roles=("loss", "accuracy", "lr"))
def _ansi(recs):
    return [f"\x1b[32m[train]\x1b[0m step \x1b[1m{r['step']}\x1b[0m | \x1b[33mloss\x1b[0m {g(r.get('loss'))} | "
            f"\x1b[33macc\x1b[0m {g(r.get('accuracy'))} | \x1b[36mlr\x1b[0m {g(r.get('lr'), '.2e')}" for r in recs]


@style("step_of_total", axis="step", roles=("loss", "lr"))
def _sot(recs):
    n = recs[-1]["step"]
    return [f"Step {r['step']}/{n} | loss {g(r.get('loss'))} | lr {g(r.get('lr'), '.2e')}" for r in recs]


@style("epoch_batch_brackets", axis="step", roles=("loss", "accuracy"))
def _ebb(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"[Epoch {ep}/{recs[-1]['epoch']}][Batch {j * 20}/{len(rs) * 20}] loss: {g(r.get('loss'))} acc: {g(r.get('accuracy'))}")
    return out


@style("torch_tensor", roles=("loss", "accuracy", "val_loss"))
def _tensor(recs):
    out = []
    for r in recs:
        s = (f"epoch {r['i']} loss tensor({g(r.get('loss'))}, device='cuda:0', grad_fn=<NllLossBackward0>) "
             f"acc tensor({g(r.get('accuracy'))}, device='cuda:0')")
        out.append(s)
        if "val_loss" in r:
            out.append(f"epoch {r['i']} val_loss tensor({g(r['val_loss'])}, device='cuda:0')")
    return out


@style("numpy_scalars", roles=("loss", "accuracy", "val_loss", "val_accuracy"))
def _np(recs):
    out = []
    for r in recs:
        d = f"'loss': np.float32({g(r.get('loss'))}), 'accuracy': np.float64({g(r.get('accuracy'))})"
        if has_val(r):
            d += f", 'val_loss': np.float32({g(r.get('val_loss'))}), 'val_accuracy': np.float64({g(r.get('val_accuracy'))})"
        out.append(f"epoch {r['i']} {{{d}}}")
    return out


@style("pytorch_mnist", axis="step", roles=("loss", "val_loss", "val_accuracy"), percent=True)
def _mnist(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"Train Epoch: {ep} [{j * 640}/{len(rs) * 640} ({100 * j // len(rs)}%)]\tLoss: {g(r.get('loss'), '.6f')}")
            if has_val(r):
                va = r.get("val_accuracy")
                out.append("")
                out.append(f"Test set: Average loss: {g(r.get('val_loss'))}, Accuracy: {int(va * 10000) if va == va else 0}/10000 "
                           f"({pct(va, '.0f')}%)")
                out.append("")
    return out


@style("caffe", axis="step", roles=("loss", "lr"))
def _caffe(recs):
    out = []
    for r in recs:
        out.append(f"I0501 12:00:{r['i'] % 60:02d}.123456  1234 solver.cpp:218] Iteration {r['step']} (5.1 iter/s, 1.96s/10 iters), "
                   f"loss = {g(r.get('loss'), '.6g')}")
        out.append(f"I0501 12:00:{r['i'] % 60:02d}.123500  1234 solver.cpp:237]     Train net output #0: loss = "
                   f"{g(r.get('loss'), '.6g')} (* 1 = {g(r.get('loss'), '.6g')} loss)")
        out.append(f"I0501 12:00:{r['i'] % 60:02d}.123600  1234 sgd_solver.cpp:105] Iteration {r['step']}, lr = {g(r.get('lr'), '.6g')}")
    return out


@style("darknet", axis="step", roles=("loss",), values=False, note="prints the running average beside the loss")
def _darknet(recs):
    return [f" {r['step']}: {g(r.get('loss'), '.6f')}, {g(r.get('loss'), '.6f')} avg loss, {g(r.get('lr'), '.6f')} rate, "
            f"3.21 seconds, {r['step'] * 64} images, 12.3 hours left" for r in recs]


@style("opennmt", axis="step", roles=("accuracy", "lr"), percent=True)
def _onmt(recs):
    n = recs[-1]["step"]
    return [f"[2024-05-01 12:00:{r['i'] % 60:02d},000 INFO] Step {r['step']:5d}/{n}; acc: {pct(r.get('accuracy'))}; ppl: 12.31; "
            f"xent: {g(r.get('loss'), '.2f')}; lr: {g(r.get('lr'), '.5f')}; 12345/6789 tok/s;     {r['i'] * 10} sec" for r in recs]


@style("fastai", roles=("loss", "val_loss", "val_accuracy"))
def _fastai(recs):
    out = ["epoch     train_loss  valid_loss  accuracy  time    "]
    for r in recs:
        out.append(f"{r['i'] - 1:<10}{g(r.get('loss'), '.6f'):<12}{g(r.get('val_loss'), '.6f'):<12}"
                   f"{g(r.get('val_accuracy'), '.6f'):<10}00:{r['i'] % 60:02d}   ")
    return out


@style("eq_pairs")
def _eq(recs):
    out = []
    for r in recs:
        s = f"epoch {r['i']}: train_loss={g(r.get('loss'))} train_acc={g(r.get('accuracy'))}"
        if has_val(r):
            s += f" val_loss={g(r.get('val_loss'))} val_acc={g(r.get('val_accuracy'))}"
        out.append(s)
    return out


@style("pipe_pairs")
def _pipe(recs):
    out = []
    for r in recs:
        s = f"epoch {r['i']:2d} | train_loss {g(r.get('loss'))} | train_acc {g(r.get('accuracy'))}"
        if has_val(r):
            s += f" | val_loss {g(r.get('val_loss'))} | val_acc {g(r.get('val_accuracy'))}"
        out.append(s + " | time 12.3s")
    return out


@style("tf_estimator", axis="step", roles=("loss",))
def _tfe(recs):
    out = []
    for r in recs:
        out.append(f"INFO:tensorflow:loss = {g(r.get('loss'), '.6g')}, step = {r['step']} (2.112 sec)")
        out.append("INFO:tensorflow:global_step/sec: 4.73")
    return out


@style("ignite", axis="step", roles=("loss", "val_loss", "val_accuracy"))
def _ignite(recs):
    out = []
    for ep, rs in _epochs(recs):
        for r in rs:
            out.append(f"Epoch[{ep}] Iteration[{r['step']}/{recs[-1]['step']}] Loss: {g(r.get('loss'), '.2f')}")
            if has_val(r):
                out.append(f"Validation Results - Epoch: {ep}  Avg accuracy: {g(r.get('val_accuracy'), '.2f')} "
                           f"Avg loss: {g(r.get('val_loss'), '.2f')}")
    return out


@style("paddle_lists", axis="step", roles=("loss", "accuracy"))
def _paddle(recs):
    return [f"Epoch {r['epoch'] - 1} step {r['step']}, loss: [{g(r.get('loss'), '.5f')}], acc: [{g(r.get('accuracy'), '.5f')}]"
            for r in recs]


@style("imagenet_avg", axis="step", roles=("loss", "accuracy"), percent=True)
def _imnet(recs):
    out = []
    for ep, rs in _epochs(recs):
        for j, r in enumerate(rs, 1):
            out.append(f"Epoch: [{ep - 1}][{j * 10:4d}/{len(rs) * 10}]\tTime  0.212 ( 0.305)\tData  0.011 ( 0.020)\t"
                       f"Loss {g(r.get('loss'), '.4e')} ({g(r.get('loss'), '.4e')})\tAcc@1  {pct(r.get('accuracy'))} "
                       f"( {pct(r.get('accuracy'))})\tAcc@5  95.31 ( 94.10)")
    return out


@style("flax_example", percent=True)
def _flax(recs):
    out = []
    for r in recs:
        out.append(f"train epoch: {r['i']}, loss: {g(r.get('loss'))}, accuracy: {pct(r.get('accuracy'))}")
        if has_val(r):
            out.append(f"test epoch: {r['i']}, loss: {g(r.get('val_loss'))}, accuracy: {pct(r.get('val_accuracy'))}")
    return out


@style("srun_rank_prefix", axis="step", roles=("loss", "lr"))
def _srun(recs):
    out = []
    for r in recs:
        out.append(f"0: [rank0]: step {r['step']} | loss {g(r.get('loss'))} | lr {g(r.get('lr'), '.2e')}")
        if r["i"] % 7 == 0:
            out.append("1: [rank1]: NCCL INFO Channel 00/02 :    0   1")
    return out


@style("noisy_traceback")
def _noisy_tb(recs):
    return _eq(recs)


@style("val_block_lines", axis="step", roles=("loss", "val_loss", "val_accuracy"))
def _valblock(recs):
    out = []
    for r in recs:
        out.append(f"it {r['step']:6d}  loss {g(r.get('loss'))}")
        if has_val(r):
            out.append("=" * 40)
            out.append(f"Validation @ {r['step']}")
            out.append(f"  loss     : {g(r.get('val_loss'))}")
            out.append(f"  accuracy : {g(r.get('val_accuracy'))}")
            out.append("=" * 40)
    return out


@style("dataclass_repr", axis="step", roles=("loss", "lr", "grad_norm"))
def _dc(recs):
    return [f"TrainStats(step={r['step']}, loss={g(r.get('loss'))}, lr={g(r.get('lr'), '.2e')}, "
            f"grad_norm={g(r.get('grad_norm', 1.0))}, tokens_per_sec=12345.6)" for r in recs]


@style("hours_eta_tail", axis="step", roles=("loss", "lr"), note="unnamed columns: not expected to read")
def _hours(recs):
    return [f"{r['step']:>6} | {g(r.get('loss'), '.4f')} | {g(r.get('lr'), '.2e')} | 0.21 s/it | ETA 02:{r['i'] % 60:02d}:10"
            for r in recs]


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
                  traceback=name == "noisy_traceback")
    truth = {"history": hist.name, "style": name, "symptom": hist.symptom, "axis": st["axis"], "roles": {},
             "values": st["values"]}
    for role in st["roles"]:
        vals = [r[role] for r in recs if role in r]
        if name in ("tqdm_postfix",) and role == "val_loss":
            vals = [r[role] for r in recs if role in r]
        if vals:
            finite = [v for v in vals if not math.isnan(v)]
            truth["roles"][role] = {"n": len(vals), "last": finite[-1] if finite else None,
                                    "nonfinite": len(vals) - len(finite)}
    return "\n".join(lines) + "\n", truth


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
