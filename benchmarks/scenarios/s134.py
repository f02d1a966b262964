"""Fish-freshness grading from e-nose readings (3 grades), trained on the few samples the
lab can label per day, so mini-batches are tiny (batch_size=4) with Adam and a modest LR.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(134)
torch.set_num_threads(1)

CFG = {"batch_size": 4, "lr": 5e-4, "epochs": 6, "log_every": 20}
GRADES = ["fresh", "acceptable", "spoiled"]


def synth(n, rng):
    days = rng.uniform(0, 10, n)
    grade = np.digitize(days, [3.5, 7.0])
    sensors = np.stack([np.exp(0.25 * days), 0.5 * days, np.log1p(days), np.sqrt(days)] +
                       [rng.normal(0, 1, n) for _ in range(4)], 1)
    sensors[:, :4] += rng.normal(0, 0.25, (n, 4))
    return sensors.astype(np.float32), grade


def main():
    rng = np.random.default_rng(134)
    x_tr, y_tr = synth(600, rng)
    x_va, y_va = synth(300, rng)
    mu, sd = x_tr.mean(0), x_tr.std(0)
    x_tr, x_va = (x_tr - mu) / sd, (x_va - mu) / sd
    loader = DataLoader(TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr)),
                        batch_size=CFG["batch_size"], shuffle=True)
    xv, yv = torch.from_numpy(x_va), torch.from_numpy(y_va)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            for xb, yb in loader:
                model.train()
                loss = crit(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % CFG["log_every"] == 0:
                    model.eval()
                    with torch.no_grad():
                        out = model(xv)
                        vl, va = crit(out, yv).item(), (out.argmax(1) == yv).float().mean().item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  batch loss {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
