"""Remaining-useful-life (RUL) regression for milling-tool inserts.

Twelve summary features per cutting pass (spindle current statistics, acoustic emission
bands, vibration RMS) -> remaining passes before the insert must be changed (standardised).
"""
import argparse
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(118)
torch.set_num_threads(1)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--momentum", type=float, default=0.9)
    # shared trainer default, kept from the policy-gradient experiments
    p.add_argument("--max-grad-norm", type=float, default=0.001)
    return p.parse_args()


def make_data(n, rng):
    wear = rng.uniform(0, 1, n)
    feats = np.stack([
        wear + rng.normal(0, 0.1, n),
        wear ** 2 + rng.normal(0, 0.1, n),
        np.sqrt(wear) + rng.normal(0, 0.1, n),
        np.sin(3 * wear) + rng.normal(0, 0.1, n),
    ] + [rng.normal(0, 1, n) for _ in range(8)], 1)
    rul = 300 * (1 - wear) ** 1.5 + rng.normal(0, 8, n)
    return feats.astype(np.float32), rul.astype(np.float32)


class RULNet(nn.Module):
    def __init__(self, d_in):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    args = parse_args()
    rng = np.random.default_rng(118)
    x_tr, y_tr = make_data(3000, rng)
    x_va, y_va = make_data(600, rng)
    mu, sd = x_tr.mean(0), x_tr.std(0)
    ymu, ysd = y_tr.mean(), y_tr.std()
    norm = lambda x, y: (torch.from_numpy((x - mu) / sd), torch.from_numpy((y - ymu) / ysd))
    x_tr, y_tr = norm(x_tr, y_tr)
    x_va, y_va = norm(x_va, y_va)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=args.batch_size, shuffle=True)

    model = RULNet(x_tr.shape[1])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    crit = nn.MSELoss()
    step = 0
    with open("metrics.jsonl", "w") as fh:
        for epoch in range(args.epochs):
            model.train()
            tot, n = 0.0, 0
            for xb, yb in loader:
                loss = crit(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                gnorm = nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                opt.step()
                step += 1
                tot += loss.item() * len(xb)
                n += len(xb)
                if step % 20 == 0:
                    fh.write(json.dumps({"step": step, "epoch": epoch, "train_mse": round(loss.item(), 5),
                                         "grad_norm": round(float(gnorm), 4)}) + "\n")
            model.eval()
            with torch.no_grad():
                val = crit(model(x_va), y_va).item()
                mae = float((model(x_va) - y_va).abs().mean().item() * ysd)
            fh.write(json.dumps({"step": step, "epoch": epoch, "val_mse": round(val, 5),
                                 "val_mae_passes": round(mae, 2)}) + "\n")
            print(f"epoch {epoch:2d} step {step}  train mse {tot / n:.4f}  val mse {val:.4f}  "
                  f"val MAE {mae:.1f} passes  grad norm {float(gnorm):.3f}")


if __name__ == "__main__":
    main()
