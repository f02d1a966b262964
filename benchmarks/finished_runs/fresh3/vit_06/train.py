"""Tiny ViT-style classifier: 16x16 single-channel synthetic 'glyph' images (4 smooth random
templates, jittered by a pixel, buried in noise) cut into 4x4 patches, CLS token, pre-norm
transformer blocks, linear head."""
import math
import time
import warnings
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

with open(Path(__file__).with_name("config.yaml")) as f:
    cfg = yaml.safe_load(f)

SEED = cfg["seed"]
LR = cfg["optim"]["lr"]
WEIGHT_DECAY = cfg["optim"]["weight_decay"]
WARMUP_STEPS = cfg["optim"]["warmup_steps"]
BATCH_SIZE = cfg["data"]["batch_size"]
N_TRAIN = cfg["data"]["n_train"]
N_VAL = cfg["data"]["n_val"]
SIGNAL = cfg["data"]["signal"]
EPOCHS = cfg["train"]["epochs"]
LOG_EVERY = cfg["train"]["log_every"]
IMG = cfg["model"]["img_size"]
PATCH = cfg["model"]["patch_size"]
DIM = cfg["model"]["dim"]
DEPTH = cfg["model"]["depth"]
HEADS = cfg["model"]["heads"]
DROPOUT = cfg["model"]["dropout"]
N_CLASSES = 4

torch.set_num_threads(1)
torch.manual_seed(SEED)
print("config:", cfg)


def make_templates():
    g = torch.Generator().manual_seed(1234)
    t = torch.randn(N_CLASSES, 1, IMG + 4, IMG + 4, generator=g)
    t = F.avg_pool2d(t, 5, stride=1)  # smooth blobs, IMG x IMG
    return t / t.flatten(1).std(dim=1).view(-1, 1, 1, 1)


TEMPLATES = make_templates()


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    shifts = torch.randint(-1, 2, (n, 2), generator=g).tolist()
    x = torch.stack([torch.roll(TEMPLATES[c], (s[0], s[1]), dims=(1, 2)) for c, s in zip(y.tolist(), shifts)])
    x = SIGNAL * x + torch.randn(n, 1, IMG, IMG, generator=g)
    return x, y


X_train, y_train = make_split(N_TRAIN, SEED + 1)
X_val, y_val = make_split(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=256)
steps_per_epoch = len(train_loader)
print(f"train images {tuple(X_train.shape)}  val images {tuple(X_val.shape)}  classes {N_CLASSES}")


class PatchViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(1, DIM, kernel_size=PATCH, stride=PATCH)
        n_patches = (cfg["model"]["img_size"] // PATCH) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.randn(1, n_patches + 1, DIM) * 0.02)
        layer = nn.TransformerEncoderLayer(DIM, HEADS, dim_feedforward=2 * DIM, dropout=DROPOUT,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, DEPTH)
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, N_CLASSES)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        x = self.encoder(x)
        return self.head(self.norm(x[:, 0]))


model = PatchViT()
print(f"PatchViT: {sum(p.numel() for p in model.parameters()):,} parameters, "
      f"{sum(p.numel() for p in model.parameters() if p.requires_grad):,} trainable")
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
total_steps = EPOCHS * steps_per_epoch


def lr_lambda(step):
    if step < WARMUP_STEPS:
        return (step + 1) / WARMUP_STEPS
    progress = (step - WARMUP_STEPS) / max(1, total_steps - WARMUP_STEPS)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)  # x0.1 every 3 epochs


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
    loss = criterion(logits, yb)
    acc = (logits.argmax(-1) == yb).float().mean().item()
    return loss, {"acc": acc}, len(yb)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_acc, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metrics, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_acc += metrics["acc"] * n
        tot_n += n
    return tot_loss / tot_n, {"acc": tot_acc / tot_n}

import json

global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    run_loss, run_n = 0.0, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metrics, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        scheduler.step()
        global_step += 1
        run_loss += loss.item() * n
        run_n += n
        if global_step % LOG_EVERY == 0:
            rec = {"type": "train", "step": global_step, "epoch": epoch, "loss": round(loss.item(), 5), "lr": optimizer.param_groups[0]["lr"]}
            rec.update({k: round(v, 4) for k, v in metrics.items()})
            print(json.dumps(rec))
    val_loss, val_metrics = evaluate()
    rec = {"type": "eval", "step": global_step, "epoch": epoch, "train_loss": round(run_loss / run_n, 5), "val_loss": round(val_loss, 5)}
    rec.update({f"val_{k}": round(v, 4) for k, v in val_metrics.items()})
    print(json.dumps(rec))
