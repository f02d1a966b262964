"""Firewall-log intent classifier: tiny Transformer encoder over sequences of 24 event tokens, 4 intents."""
import csv
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(99)
np.random.seed(99)
torch.manual_seed(99)

CONFIG = {
    "vocab": 40,
    "seq_len": 24,
    "d_model": 48,
    "n_heads": 4,
    "n_layers": 2,
    "dropout": 0.1,
    "batch_size": 32,
    "epochs": 7,
    "base_lr": 2e-5,           # per 1024 samples, linear scaling rule
    "weight_decay": 0.01,
}
INTENTS = ["benign", "scan", "brute_force", "exfiltration"]
LOGIN_FAIL, PORT_PROBE, BIG_UPLOAD, LOGIN_OK = 1, 2, 3, 4


def make_log(intent):
    seq = np.random.randint(5, CONFIG["vocab"], CONFIG["seq_len"])
    pos = np.random.permutation(CONFIG["seq_len"])
    if intent == 1:                                   # scan: many port probes
        seq[pos[:np.random.randint(5, 9)]] = PORT_PROBE
    elif intent == 2:                                 # brute force: failed logins then a success
        k = np.random.randint(4, 8)
        where = np.sort(pos[:k + 1])
        seq[where[:-1]] = LOGIN_FAIL
        seq[where[-1]] = LOGIN_OK
    elif intent == 3:                                 # exfiltration: a login followed later by uploads
        where = np.sort(pos[:4])
        seq[where[0]] = LOGIN_OK
        seq[where[1:]] = BIG_UPLOAD
    else:                                             # benign traffic also contains the odd special event
        n = np.random.randint(0, 4)
        seq[pos[:n]] = np.random.choice([LOGIN_FAIL, PORT_PROBE, BIG_UPLOAD, LOGIN_OK], n)
    return seq


def make_split(n):
    y = np.random.randint(0, len(INTENTS), n)
    x = np.stack([make_log(c) for c in y])
    return torch.from_numpy(x).long(), torch.from_numpy(y).long()


class LogTransformer(nn.Module):
    def __init__(self, cfg, n_classes):
        super().__init__()
        d = cfg["d_model"]
        self.tok = nn.Embedding(cfg["vocab"], d)
        self.pos = nn.Parameter(torch.randn(1, cfg["seq_len"] + 1, d) * 0.02)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        layer = nn.TransformerEncoderLayer(d, cfg["n_heads"], dim_feedforward=2 * d, dropout=cfg["dropout"],
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg["n_layers"], enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        h = self.tok(x)
        h = torch.cat([self.cls.expand(len(x), -1, -1), h], 1) + self.pos
        h = self.encoder(h)
        return self.head(self.norm(h[:, 0]))


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        lr = cfg["base_lr"] * cfg["batch_size"] / 1024
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg["weight_decay"])
        print(f"effective lr = {lr:.2e}")

    def train_epoch(self, x, y):
        self.model.train()
        perm = torch.randperm(len(x))
        losses = []
        for i in range(0, len(x), self.cfg["batch_size"]):
            b = perm[i:i + self.cfg["batch_size"]]
            loss = F.cross_entropy(self.model(x[b]), y[b])
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return float(np.mean(losses)), len(losses)

    @torch.no_grad()
    def evaluate(self, x, y):
        self.model.eval()
        logits = self.model(x)
        return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


if __name__ == "__main__":
    x_tr, y_tr = make_split(1600)
    x_va, y_va = make_split(300)
    trainer = Trainer(LogTransformer(CONFIG, len(INTENTS)), CONFIG)
    steps = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "steps", "train_loss", "val_loss", "val_acc", "lr"])
        for epoch in range(CONFIG["epochs"]):
            tl, n = trainer.train_epoch(x_tr, y_tr)
            steps += n
            vl, va = trainer.evaluate(x_va, y_va)
            w.writerow([epoch, steps, f"{tl:.5f}", f"{vl:.5f}", f"{va:.4f}", trainer.opt.param_groups[0]["lr"]])
            print(f"epoch {epoch}  steps {steps}  train {tl:.4f}  val {vl:.4f}  acc {va:.3f}")
    print(f"ln({len(INTENTS)}) = {math.log(len(INTENTS)):.4f}")
