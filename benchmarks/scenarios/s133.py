"""Next-step forecasting of substation transformer oil temperature with a small
Transformer encoder (causal, 48-step context), AdamW with linear warm-up + cosine decay.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(133)
torch.set_num_threads(1)

CFG = {"ctx": 48, "d_model": 32, "steps": 360, "warmup": 60, "peak_lr": 4e-3, "batch_size": 64,
       "weight_decay": 0.05, "eval_every": 10}


def series(n_days, rng):
    t = np.arange(n_days * 24)
    load = 0.6 + 0.3 * np.sin(2 * np.pi * (t % 24 - 8) / 24) + 0.1 * np.sin(2 * np.pi * t / (24 * 7))
    ambient = 12 + 8 * np.sin(2 * np.pi * t / (24 * 365)) + 4 * np.sin(2 * np.pi * (t % 24 - 14) / 24)
    oil = np.zeros_like(load)
    for i in range(1, len(t)):
        target = ambient[i] + 40 * load[i] ** 2
        oil[i] = oil[i - 1] + 0.15 * (target - oil[i - 1])
    oil += rng.normal(0, 0.4, len(t))
    return ((oil - oil.mean()) / oil.std()).astype(np.float32)


def windows(s, ctx):
    idx = np.arange(len(s) - ctx)
    return np.stack([s[i:i + ctx] for i in idx]), s[idx + ctx]


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        d = CFG["d_model"]
        self.inp = nn.Linear(1, d)
        self.pos = nn.Parameter(torch.randn(1, CFG["ctx"], d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        h = self.enc(self.inp(x.unsqueeze(-1)) + self.pos)
        return self.out(h[:, -1]).squeeze(-1)


def lr_lambda(step):
    if step < CFG["warmup"]:
        return (step + 1) / CFG["warmup"]
    p = (step - CFG["warmup"]) / (CFG["steps"] - CFG["warmup"])
    return 0.5 * (1 + math.cos(math.pi * p))


def main():
    rng = np.random.default_rng(133)
    s = series(120, rng)
    split = int(0.8 * len(s))
    xtr, ytr = map(torch.from_numpy, windows(s[:split], CFG["ctx"]))
    xva, yva = map(torch.from_numpy, windows(s[split:], CFG["ctx"]))
    model = Forecaster()
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["peak_lr"], weight_decay=CFG["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    crit = nn.MSELoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "train_loss", "val_loss", "lr"])
        for step in range(1, CFG["steps"] + 1):
            model.train()
            idx = torch.randint(0, len(xtr), (CFG["batch_size"],))
            loss = crit(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            lr = opt.param_groups[0]["lr"]
            sched.step()
            if step % CFG["eval_every"] == 0:
                model.eval()
                with torch.no_grad():
                    vl = crit(model(xva[::4]), yva[::4]).item()
                w.writerow([step, f"{loss.item():.5f}", f"{vl:.5f}", f"{lr:.2e}"])
                if step % 30 == 0:
                    print(f"step {step:3d}  lr {lr:.2e}  train {loss.item():.4f}  val {vl:.4f}")


if __name__ == "__main__":
    main()
