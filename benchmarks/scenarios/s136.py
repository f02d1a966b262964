"""Tablet-coating defect rate regression from spray-pan process logs.

Process logs are exported as CSV by the pan controller; the training and hold-out batches
come from two different export runs and are parsed by the same helper.
"""
import csv
import io

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(136)
torch.set_num_threads(1)

CFG = {"epochs": 10, "batch_size": 32, "lr": 1e-3}
COLUMNS = ["inlet_temp", "exhaust_temp", "spray_rate", "pan_speed", "atomisation_bar", "coat_time_min"]


def export_csv(n, rng):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS + ["defect_pct"])
    for _ in range(n):
        row = [rng.normal(60, 4), rng.normal(42, 3), rng.normal(80, 10), rng.normal(8, 1.5),
               rng.normal(2.0, 0.3), rng.normal(90, 15)]
        defect = 2 + 0.15 * (row[2] - 80) - 0.2 * (row[1] - 42) + 0.5 * (row[4] - 2) ** 2 + rng.normal(0, 0.5)
        w.writerow([f"{v:.3f}" for v in row] + [f"{defect:.3f}"])
    return buf.getvalue()


def parse(text):
    arr = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    return arr[:, :-1], arr[:, -1]


def main():
    rng = np.random.default_rng(136)
    x_tr, y_tr = parse(export_csv(1200, rng))
    x_va, y_va = parse(export_csv(300, rng))
    mu, sd = x_tr.mean(0), x_tr.std(0)
    x_tr = torch.tensor((x_tr - mu) / sd, dtype=torch.float32)
    y_tr = torch.tensor(y_tr, dtype=torch.float32)
    x_va = torch.from_numpy((x_va - mu) / sd)
    y_va = torch.from_numpy(y_va)

    model = nn.Sequential(nn.Linear(len(COLUMNS), 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.MSELoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_mse", "val_mse"])
        for epoch in range(CFG["epochs"]):
            model.train()
            perm = torch.randperm(len(x_tr))
            tot = 0.0
            for i in range(0, len(perm), CFG["batch_size"]):
                idx = perm[i:i + CFG["batch_size"]]
                loss = crit(model(x_tr[idx]).squeeze(1), y_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += loss.item() * len(idx)
            model.eval()
            with torch.no_grad():
                val = crit(model(x_va).squeeze(1), y_va).item()
            w.writerow([epoch, f"{tot / len(x_tr):.5f}", f"{val:.5f}"])
            print(f"epoch {epoch}  train mse {tot / len(x_tr):.4f}  val mse {val:.4f}")


if __name__ == "__main__":
    main()
