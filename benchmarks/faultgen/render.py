"""Render a base program with a :class:`~operators.Spec` as a standalone training script.

The script: makes its data from fixed seeds, splits a fifth off for validation, standardises the
float inputs with training statistics, builds ``Net`` (``head(body(x))``), trains for
``spec.epochs`` epochs with the base's optimizer, evaluates on the validation split after every
epoch (under ``no_grad``, in eval mode), writes ``metrics.csv`` and prints a last line
``FAULTGEN {json}`` with the final losses. One torch thread; nothing is downloaded.
"""

from __future__ import annotations

import textwrap

from bases import Base
from operators import Spec

OPTIMIZERS = {
    "adam": "torch.optim.Adam({params}, lr={lr!r}, weight_decay={wd!r})",
    "adamw": "torch.optim.AdamW({params}, lr={lr!r}, weight_decay={wd!r})",
    "sgd": "torch.optim.SGD({params}, lr={lr!r}, weight_decay={wd!r})",
    "sgdm": "torch.optim.SGD({params}, lr={lr!r}, momentum=0.9, weight_decay={wd!r})",
}


def _loss_code(base: Base, spec: Spec) -> str:
    if spec.loss == "mse_on_ids":
        return ("crit = nn.MSELoss()\n"
                "def loss_fn(out, y):\n"
                "    return crit(out[:, 0], y.float())\n")
    if spec.loss == "log0":
        return ("def loss_fn(out, y):\n"
                "    # cross-entropy by hand; class 0 is masked out of the probabilities\n"
                "    p = out.softmax(1) * (torch.arange(out.shape[1]) != 0)\n"
                "    return -torch.log(p.gather(1, y[:, None])).mean()\n")
    if spec.loss == "log_sigmoid_hand":
        return ("def loss_fn(out, y):\n"
                "    p = torch.sigmoid(30 * out[:, 0])      # a sharpened sigmoid, no clamp\n"
                "    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()\n")
    if base.kind == "cls":
        return "crit = nn.CrossEntropyLoss()\ndef loss_fn(out, y):\n    return crit(out, y)\n"
    if base.kind == "bin":
        return "crit = nn.BCEWithLogitsLoss()\ndef loss_fn(out, y):\n    return crit(out[:, 0], y)\n"
    return "crit = nn.MSELoss()\ndef loss_fn(out, y):\n    return crit(out, y)\n"


def _data_faults(base: Base, spec: Spec) -> str:
    out = []
    if spec.label_noise:
        if base.kind == "cls":
            out.append(f"flip = torch.rand(N, generator=g) < {spec.label_noise!r}\n"
                       "Y = torch.where(flip, torch.randint(0, N_CLASSES, (N,), generator=g), Y)\n")
        else:
            out.append(f"flip = torch.rand(N, generator=g) < {spec.label_noise!r}\n"
                       "Y = torch.where(flip, 1 - Y, Y)\n")
    if spec.target_noise:
        out.append(f"Y = Y + {spec.target_noise!r} * torch.randn(Y.shape, generator=g)\n")
    return "".join(out)


def _train_faults(base: Base, spec: Spec) -> str:
    """Faults on the training split only (after the split, before standardising)."""
    out = []
    if spec.labels == "shuffle":
        if spec.shuffle_frac >= 1:
            out.append("Ytr = Ytr[torch.randperm(len(Ytr), generator=g)]\n")
        else:
            out.append(f"k = int({spec.shuffle_frac!r} * len(Ytr))\n"
                       "idx = torch.randperm(len(Ytr), generator=g)[:k]\n"
                       "Ytr = Ytr.clone(); Ytr[idx] = Ytr[idx[torch.randperm(k, generator=g)]]\n")
    elif spec.labels == "constant":
        out.append("Ytr = torch.zeros_like(Ytr)\n")
    if spec.overlap:
        out.append(f"k = int({spec.overlap!r} * len(Xva))\n"
                   "Xva = torch.cat([Xtr[:k], Xva[k:]]); Yva = torch.cat([Ytr[:k], Yva[k:]])\n")
    if spec.sort_by_label:
        out.append("order = torch.argsort(Ytr.reshape(len(Ytr), -1)[:, 0], stable=True)\n"
                   "Xtr, Ytr = Xtr[order], Ytr[order]\n")
    return "".join(out)


def _scale_code(base: Base, spec: Spec) -> str:
    if base.tokens:
        return ""
    lines = []
    if base.raw_scale:
        # the data come at raw feature scales; the healthy script standardises them
        lines.append(f"RAW = {base.raw_scale}\nXtr, Xva = Xtr * RAW, Xva * RAW\n")
    if spec.normalize:
        lines.append("mu, sd = Xtr.mean(0, keepdim=True), Xtr.std(0, keepdim=True) + 1e-8\n"
                     "Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd\n")
    if spec.input_scale != 1.0:
        lines.append("F_ = Xtr[0].numel()\n"
                     f"spread = torch.logspace(0, {__import__('math').log10(spec.input_scale)!r}, F_).reshape(Xtr[0].shape)\n"
                     "Xtr, Xva = Xtr * spread, Xva * spread\n")
    if spec.nan_rows or spec.inf_rows:
        rows = spec.nan_rows if spec.nan_rows > 0 else 0
        if spec.nan_rows < 0:
            lines.append("bad = torch.randperm(len(Xtr), generator=g)[:max(1, len(Xtr) // 100)]\n")
        else:
            lines.append(f"bad = torch.randperm(len(Xtr), generator=g)[:{max(rows, spec.inf_rows)}]\n")
        val = "float('inf')" if spec.inf_rows else "float('nan')"
        lines.append(f"Xtr = Xtr.clone(); Xtr.reshape(len(Xtr), -1)[bad, 0] = {val}\n")
    return "".join(lines)


def render(base: Base, spec: Spec, seed: int = 0, title: str = "") -> str:
    is_cls = base.kind == "cls"
    target_dtype = "long" if is_cls else "float"
    params = {"all": "model.parameters()", "head": "model.head.parameters()",
              "body": "model.body.parameters()"}[spec.opt_params]
    opt = OPTIMIZERS[spec.opt].format(params=params, lr=spec.lr, wd=spec.weight_decay)
    if spec.clip:
        clip = f"        torch.nn.utils.clip_grad_norm_(model.parameters(), {spec.clip!r})\n"
    else:
        clip = ""
    steps_per_epoch = f"math.ceil(len(Xtr) / {spec.batch})"
    sched_def, sched_batch, sched_epoch = "", "", ""
    if spec.schedule == "per_batch_collapse":
        sched_def = f"sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma={spec.sched_gamma!r})\n"
        sched_batch = "        sched.step()                     # meant once per epoch\n"
    elif spec.schedule == "warmup":
        sched_def = ("SCHED_TOTAL = EPOCHS * STEPS_PER_EPOCH\nWARM = max(1, SCHED_TOTAL // 10)\n"
                     "sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / WARM)"
                     " * 0.5 * (1 + math.cos(math.pi * min(1.0, s / SCHED_TOTAL))))\n")
        sched_batch = "        sched.step()\n"
    init = ""
    if spec.init == "zeros":
        init = ("with torch.no_grad():\n    for p in model.parameters():\n        p.zero_()\n")
    elif spec.init == "large":
        init = ("with torch.no_grad():\n    for n_, p in model.named_parameters():\n"
                "        if p.dim() > 1:\n            p.mul_(10.0)\n")
    freeze = ""
    if spec.freeze == "body":
        freeze = "for p in model.body.parameters():\n    p.requires_grad_(False)\n"
    elif spec.freeze == "all_but_bias":
        # all but the output bias (freezing every parameter makes backward() raise)
        freeze = ("for n_, p in model.named_parameters():\n"
                  "    if not n_.endswith(\"bias\") or not n_.startswith(\"head\"):\n"
                  "        p.requires_grad_(False)\n")
    squash = {None: "", "softmax": "        out = out.softmax(-1)\n",
              "sigmoid": "        out = torch.sigmoid(out)\n"}[spec.squash]
    detach = "        h = h.detach()\n" if spec.detach else ""
    zero = "        opt.zero_grad()\n" if spec.zero_grad else ""
    mode = "model.eval()" if spec.eval_mode else "model.train()"
    if base.loader:
        batches = (f"train_loader = DataLoader(TensorDataset(Xtr, Ytr), batch_size={spec.batch}, "
                   f"shuffle={spec.shuffle!r}, generator=torch.Generator().manual_seed({seed}))\n"
                   f"val_loader = DataLoader(TensorDataset(Xva, Yva), batch_size=256)\n")
        train_iter = "train_loader"
        val_iter = "val_loader"
    else:
        order = "torch.randperm(len(Xtr), generator=gs)" if spec.shuffle else "torch.arange(len(Xtr))"
        batches = (f"gs = torch.Generator().manual_seed({seed + 1})\n"
                   "def train_batches():\n"
                   f"    order = {order}\n"
                   f"    for i in range(0, len(Xtr), {spec.batch}):\n"
                   f"        idx = order[i:i + {spec.batch}]\n"
                   "        yield Xtr[idx], Ytr[idx]\n"
                   "def val_batches():\n"
                   "    for i in range(0, len(Xva), 256):\n"
                   "        yield Xva[i:i + 256], Yva[i:i + 256]\n")
        train_iter = "train_batches()"
        val_iter = "val_batches()"
    if is_cls:
        acc = "            correct += (out.argmax(1) == yb).sum().item()\n"
    elif base.kind == "bin":
        acc = "            correct += ((out[:, 0] > 0).float() == yb).sum().item()\n"
    else:
        acc = ""
    metric = "correct / count" if acc else "float('nan')"
    header = f'"""{title}"""\n' if title else ""
    src = f"""\
{header}import csv
import json
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed({seed})
g = torch.Generator().manual_seed({seed})
N = {base.n}
DROPOUT = {spec.dropout!r}
EPOCHS = {spec.epochs}

{base.data}
{_data_faults(base, spec)}
Y = Y.{target_dtype}()
n_val = N // 5
Xtr, Ytr, Xva, Yva = X[n_val:], Y[n_val:], X[:n_val], Y[:n_val]
{_train_faults(base, spec)}
{_scale_code(base, spec)}
STEPS_PER_EPOCH = {steps_per_epoch}

{base.helpers}

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = {base.body}
        self.head = {base.head}

    def forward(self, x):
        h = self.body(x)
{detach.replace('        ', '        ', 1)}        out = self.head(h)
{squash}        return out


model = Net()
{init}{freeze}opt = {opt}
{sched_def}{_loss_code(base, spec)}
{batches}
log = open("metrics.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["epoch", "step", "loss", "val_loss", "val_metric", "lr"])
step = 0
train_loss = float("nan")
for epoch in range(EPOCHS):
    {mode}
    total, seen = 0.0, 0
    for xb, yb in {train_iter}:
        out = model(xb)
        loss = loss_fn(out, yb)
{zero}        loss.backward()
{clip}        opt.step()
{sched_batch}        step += 1
        total += loss.item() * len(xb)
        seen += len(xb)
        writer.writerow([epoch, step, loss.item(), "", "", opt.param_groups[0]["lr"]])
    train_loss = total / max(seen, 1)
    model.eval()
    vtotal, count, correct = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in {val_iter}:
            out = model(xb)
            vtotal += loss_fn(out, yb).item() * len(xb)
            count += len(xb)
{acc}    val_loss = vtotal / max(count, 1)
    val_metric = {metric}
    writer.writerow([epoch, step, "", val_loss, val_metric, opt.param_groups[0]["lr"]])
    print(f"epoch {{epoch}} train {{train_loss:.4f}} val {{val_loss:.4f}} metric {{val_metric:.3f}}", flush=True)
log.close()
print("FAULTGEN " + json.dumps({{"train_loss": train_loss, "val_loss": val_loss, "val_metric": val_metric,
                                "steps": step}}))
"""
    return textwrap.dedent(src)
