"""Gait-phase detection from insole pressure sequences (GRU + dropout, 4 phases).

Dropout on the GRU output and before the classifier keeps the model from memorising the
handful of participants in the training set.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(135)
torch.set_num_threads(1)

CFG = {"seq": 25, "hidden": 48, "dropout": 0.5, "epochs": 10, "batch_size": 32, "lr": 3e-3}
PHASES = ["heel_strike", "mid_stance", "toe_off", "swing"]


def synth(n, rng):
    t = np.linspace(0, 1, CFG["seq"])
    y = rng.integers(0, 4, n)
    x = np.empty((n, CFG["seq"], 4), np.float32)
    for i, p in enumerate(y):
        centre = 0.2 + 0.2 * p
        for s in range(4):
            x[i, :, s] = np.exp(-((t - centre - 0.05 * s) ** 2) / 0.01) * rng.uniform(0.6, 1.2)
    x += rng.normal(0, 0.8, x.shape).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class GaitGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, CFG["hidden"], batch_first=True)
        self.drop = nn.Dropout(CFG["dropout"])
        self.fc1 = nn.Linear(CFG["hidden"], 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        _, h = self.gru(x)
        z = self.drop(torch.relu(self.fc1(self.drop(h[-1]))))
        return self.fc2(z)


def main():
    rng = np.random.default_rng(135)
    x_tr, y_tr = synth(1500, rng)
    x_va, y_va = synth(500, rng)
    model = GaitGRU()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            perm = torch.randperm(len(x_tr))
            tl, tc = 0.0, 0
            for i in range(0, len(perm), CFG["batch_size"]):
                idx = perm[i:i + CFG["batch_size"]]
                out = model(x_tr[idx])
                loss = crit(out, y_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(idx)
                tc += (out.argmax(1) == y_tr[idx]).sum().item()
            model.eval()
            with torch.no_grad():
                out = model(x_va)
                vl, va = crit(out, y_va).item(), (out.argmax(1) == y_va).float().mean().item()
            n = len(x_tr)
            w.writerow([epoch, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch}  train {tl / n:.4f}/{tc / n:.3f}  val {vl:.4f}/{va:.3f}")


if __name__ == "__main__":
    main()
