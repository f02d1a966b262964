"""Soil-texture classification from lab spectroscopy summaries (MLP with dropout).

Hyper-parameters follow the TF1 reference implementation, which expressed dropout as a
keep probability.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(125)
torch.set_num_threads(1)

HPARAMS = {"hidden": [128, 128], "keep_prob": 0.9, "lr": 1e-3, "batch_size": 64, "epochs": 20}
TEXTURES = ["sand", "loamy_sand", "sandy_loam", "loam", "silt_loam", "clay"]


def synth(n, rng):
    # texture grade is a non-linear function of the 16 band summaries (reference lab model)
    ref = np.random.default_rng(0)
    w1, w2 = ref.normal(0, 1, (16, 24)), ref.normal(0, 1, (24, len(TEXTURES)))
    x = rng.normal(0, 1, (n, 16))
    y = np.argmax(np.tanh(x @ w1) @ w2, 1)
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


def mlp(d_in, hidden, n_out, keep_prob):
    layers, d = [], d_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(keep_prob)]
        d = h
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def evaluate(model, x, y, crit):
    model.eval()
    with torch.no_grad():
        out = model(x)
    return crit(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    rng = np.random.default_rng(125)
    x_tr, y_tr = synth(3000, rng)
    x_va, y_va = synth(800, rng)
    model = mlp(16, HPARAMS["hidden"], len(TEXTURES), HPARAMS["keep_prob"])
    opt = torch.optim.Adam(model.parameters(), lr=HPARAMS["lr"])
    crit = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=HPARAMS["batch_size"], shuffle=True)
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(HPARAMS["epochs"]):
            model.train()
            tl, tc, n = 0.0, 0, 0
            for xb, yb in loader:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(yb)
                tc += (out.argmax(1) == yb).sum().item()
                n += len(yb)
            vl, va = evaluate(model, x_va, y_va, crit)
            w.writerow([epoch, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch:2d}  train {tl / n:.4f}/{tc / n:.3f}  val {vl:.4f}/{va:.3f}")


if __name__ == "__main__":
    main()
