"""Log-line anomaly classifier: a 2-layer Transformer encoder over 32-token windows of parsed
log templates (5 incident types).

AdamW with linear warm-up to the peak LR followed by cosine decay, gradient clipping at 1.0.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(152)
torch.set_num_threads(1)

VOCAB, SEQ, N_CLS = 120, 32, 5
CFG = {"steps": 450, "batch_size": 48, "peak_lr": 4e-3, "warmup": 100, "d_model": 64}


def windows(n, rng):
    motifs = np.random.default_rng(11).integers(5, VOCAB, (N_CLS, 4))
    x = rng.integers(5, VOCAB, (n, SEQ))
    y = rng.integers(0, N_CLS, n)
    for k in range(n):
        pos = np.sort(rng.choice(SEQ, 4, replace=False))
        x[k, pos] = motifs[y[k]]
    return torch.tensor(x), torch.tensor(y)


class LogTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        d = CFG["d_model"]
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(1, SEQ, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d, N_CLS)

    def forward(self, x):
        h = self.enc(self.tok(x) + self.pos)
        return self.head(h.mean(1))


def lr_at(step):
    if step < CFG["warmup"]:
        return CFG["peak_lr"] * (step + 1) / CFG["warmup"]
    prog = (step - CFG["warmup"]) / (CFG["steps"] - CFG["warmup"])
    return CFG["peak_lr"] * 0.5 * (1 + math.cos(math.pi * prog))


def main():
    rng = np.random.default_rng(152)
    x_tr, y_tr = windows(6000, rng)
    x_va, y_va = windows(600, rng)
    model = LogTransformer()
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["peak_lr"], weight_decay=0.01)
    bs = CFG["batch_size"]
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "lr", "train_loss", "val_loss", "val_acc"])
        for step in range(CFG["steps"]):
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            idx = torch.randint(0, len(x_tr), (bs,))
            model.train()
            loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if (step + 1) % 10 == 0:
                model.eval()
                with torch.no_grad():
                    out = model(x_va)
                    vl = F.cross_entropy(out, y_va).item()
                    va = (out.argmax(1) == y_va).float().mean().item()
                w.writerow([step + 1, f"{lr_at(step):.2e}", f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
                if (step + 1) % 50 == 0:
                    print(f"step {step + 1:4d}  lr {lr_at(step):.1e}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
