"""Server-rack power draw regression from raw telemetry counters.

Features come straight from the BMC export: uptime seconds, network bytes/s, disk IOPS,
fan RPM, inlet temperature and CPU load (%). Target: wall power in kW (standardised).
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(141)
torch.set_num_threads(1)

CFG = {"epochs": 20, "batch_size": 64, "lr": 1e-3, "momentum": 0.9}


def telemetry(n, rng):
    uptime = rng.uniform(1e3, 3e6, n)
    net = rng.lognormal(16, 1.0, n)          # bytes/s
    iops = rng.uniform(100, 20000, n)
    fan = rng.uniform(2000, 12000, n)
    inlet = rng.normal(24, 3, n)
    load = rng.uniform(0, 100, n)
    kw = 2.0 + 0.03 * load + 0.00004 * iops + 0.00015 * fan + 0.05 * (inlet - 24) + 2e-9 * net \
        + rng.normal(0, 0.15, n)
    return np.stack([uptime, net, iops, fan, inlet, load], 1).astype(np.float32), kw


def main():
    rng = np.random.default_rng(141)
    x_tr, y_tr = telemetry(4000, rng)
    x_va, y_va = telemetry(800, rng)
    ym, ys = y_tr.mean(), y_tr.std()
    x_tr, x_va = torch.tensor(x_tr), torch.tensor(x_va)
    t_tr = torch.tensor((y_tr - ym) / ys, dtype=torch.float32)
    t_va = torch.tensor((y_va - ym) / ys, dtype=torch.float32)

    model = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
    crit = nn.MSELoss()
    bs, step = CFG["batch_size"], 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "grad_norm"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            for i in range(0, len(perm), bs):
                idx = perm[i:i + bs]
                loss = crit(model(x_tr[idx]).squeeze(1), t_tr[idx])
                opt.zero_grad()
                loss.backward()
                gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
                opt.step()
                step += 1
                if step < 10 or step % 10 == 0:
                    with torch.no_grad():
                        vl = crit(model(x_va).squeeze(1), t_va).item()
                    w.writerow([step, epoch, f"{loss.item():.6g}", f"{vl:.6g}", f"{gn:.4g}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4g}  val {vl:.4g}  |g| {gn:.3g}")


if __name__ == "__main__":
    main()
