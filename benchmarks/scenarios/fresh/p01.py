"""Customer churn classifier (tabular MLP, 3 outcome classes)."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
CFG = dict(seed=11, n_train=4000, n_val=1000, n_feat=24, hidden=128, batch_size=128,
           epochs=10, lr=0.15, weight_decay=1e-5)


def make_data(n, rng, w1, w2):
    x = rng.normal(size=(n, CFG["n_feat"])).astype(np.float32)
    h = np.tanh(x @ w1)
    logits = h @ w2
    y = logits.argmax(1)
    return torch.from_numpy(x), torch.from_numpy(y).long()


def main():
    torch.manual_seed(CFG["seed"])
    rng = np.random.default_rng(CFG["seed"])
    w1 = rng.normal(size=(CFG["n_feat"], 16)) / np.sqrt(CFG["n_feat"])
    w2 = rng.normal(size=(16, 3))
    xtr, ytr = make_data(CFG["n_train"], rng, w1, w2)
    xva, yva = make_data(CFG["n_val"], rng, w1, w2)
    tr = DataLoader(TensorDataset(xtr, ytr), batch_size=CFG["batch_size"], shuffle=True)

    model = nn.Sequential(
        nn.Linear(CFG["n_feat"], CFG["hidden"]), nn.ReLU(),
        nn.Linear(CFG["hidden"], CFG["hidden"]), nn.ReLU(),
        nn.Linear(CFG["hidden"], 3),
    )
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
    crit = nn.CrossEntropyLoss()

    f = open("metrics.csv", "w", newline="")
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "accuracy", "val_loss", "val_accuracy", "lr"])
    step = 0
    t0 = time.time()
    for epoch in range(CFG["epochs"]):
        model.train()
        for xb, yb in tr:
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                acc = (out.argmax(1) == yb).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{acc:.4f}", "", "", CFG["lr"]])
        model.eval()
        with torch.no_grad():
            vo = model(xva)
            vl = crit(vo, yva).item()
            va = (vo.argmax(1) == yva).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.5f}", "", f"{vl:.5f}", f"{va:.4f}", CFG["lr"]])
        f.flush()
        print(f"epoch {epoch:2d} step {step:4d}  loss {loss.item():.4f}  val_loss {vl:.4f}  val_acc {va:.3f}  ({time.time()-t0:.1f}s)")
    f.close()


if __name__ == "__main__":
    main()
