"""Credit-default scoring with a deep fully-connected network (15 hidden layers of 64 units).

Features are 24 standardised bureau attributes; classes: repaid / defaulted (balanced sample).
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(148)
torch.set_num_threads(1)

CFG = {"depth": 15, "width": 64, "epochs": 15, "batch_size": 64, "lr": 0.05, "momentum": 0.9}


def bureau(n, rng):
    x = rng.normal(0, 1, (n, 24)).astype(np.float32)
    s = 1.5 * x[:, 0] - 1.2 * x[:, 1] + 0.8 * x[:, 2] * x[:, 3] + 0.9 * np.tanh(x[:, 4] + x[:, 5])
    y = (s + rng.normal(0, 0.5, n) > 0).astype(np.int64)
    return torch.tensor(x), torch.tensor(y)


def build(depth, width):
    layers, d = [], 24
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.Sigmoid()]
        d = width
    layers.append(nn.Linear(d, 2))
    return nn.Sequential(*layers)


def main():
    rng = np.random.default_rng(148)
    x_tr, y_tr = bureau(6000, rng)
    x_va, y_va = bureau(1500, rng)
    model = build(CFG["depth"], CFG["width"])
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
    first, last = model[0], model[-1]
    bs, step = CFG["batch_size"], 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc", "grad_first", "grad_last"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            for k in range(0, len(perm), bs):
                idx = perm[k:k + bs]
                loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
                opt.zero_grad()
                loss.backward()
                g0, g1 = first.weight.grad.norm().item(), last.weight.grad.norm().item()
                opt.step()
                step += 1
                if step % 20 == 0:
                    with torch.no_grad():
                        out = model(x_va)
                        vl = F.cross_entropy(out, y_va).item()
                        va = (out.argmax(1) == y_va).float().mean().item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}", f"{g0:.3e}", f"{g1:.3e}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}  |g0| {g0:.1e} |gL| {g1:.1e}")


if __name__ == "__main__":
    main()
