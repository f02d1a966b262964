"""Leaf-disease classification (4 classes) with a small BatchNorm CNN.

Validation also reports an uncertainty estimate (Monte-Carlo dropout) that the agronomy
team uses to flag crops for manual review.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(128)
torch.set_num_threads(1)

CLASSES = ["healthy", "rust", "blight", "mildew"]
CFG = {"epochs": 6, "batch_size": 32, "lr": 2e-3, "mc_samples": 4}


def synth_leaf(cls, rng):
    yy, xx = np.mgrid[0:16, 0:16] / 16
    img = np.stack([0.2 + 0.1 * yy, 0.6 + 0.1 * xx, 0.2 * np.ones_like(xx)])
    if cls == 1:   # orange pustules
        for _ in range(6):
            cy, cx = rng.integers(2, 14, 2)
            img[0, cy - 1:cy + 1, cx - 1:cx + 1] += 0.5
    elif cls == 2:  # brown lesion, darker overall
        img *= 0.75
        cy, cx = rng.integers(4, 12, 2)
        img[:, cy - 3:cy + 3, cx - 3:cx + 3] *= 0.6
    elif cls == 3:  # white powder, brighter overall
        img += 0.25 * (rng.random((1, 16, 16)) > 0.6)
    img = img * rng.uniform(0.85, 1.15) + rng.normal(0, 0.06, img.shape)
    return img.astype(np.float32)


def load_split(n_per_class, rng):
    # exported from the labelling tool one class folder after another
    xs, ys = [], []
    for c in range(len(CLASSES)):
        xs += [synth_leaf(c, rng) for _ in range(n_per_class)]
        ys += [c] * n_per_class
    return torch.from_numpy(np.stack(xs)), torch.tensor(ys)


def build():
    def block(ci, co):
        return [nn.Conv2d(ci, co, 3, padding=1), nn.BatchNorm2d(co), nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*block(3, 16), *block(16, 32), nn.Flatten(), nn.Dropout(0.3),
                         nn.Linear(32 * 16, len(CLASSES)))


@torch.no_grad()
def evaluate(model, loader, crit):
    model.eval()
    tot, correct, n, unc = 0.0, 0, 0, 0.0
    for xb, yb in loader:
        model.train()                      # keep dropout active for MC sampling
        probs = torch.stack([model(xb).softmax(1) for _ in range(CFG["mc_samples"])])
        mean = probs.mean(0)
        tot += nn.functional.nll_loss(mean.clamp_min(1e-8).log(), yb, reduction="sum").item()
        correct += (mean.argmax(1) == yb).sum().item()
        unc += probs.std(0).sum(1).sum().item()
        n += len(yb)
    return tot / n, correct / n, unc / n


def main():
    rng = np.random.default_rng(128)
    x_tr, y_tr = load_split(300, rng)
    x_va, y_va = load_split(75, rng)
    train_dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(x_va, y_va), batch_size=CFG["batch_size"])
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc", "mc_uncertainty"])
        for epoch in range(CFG["epochs"]):
            model.train()
            tl, tc, tn = 0.0, 0, 0
            for xb, yb in train_dl:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(yb)
                tc += (out.argmax(1) == yb).sum().item()
                tn += len(yb)
            vl, va, unc = evaluate(model, val_dl, crit)
            w.writerow([epoch, f"{tl / tn:.5f}", f"{tc / tn:.4f}", f"{vl:.5f}", f"{va:.4f}", f"{unc:.4f}"])
            print(f"epoch {epoch}  train {tl / tn:.4f}/{tc / tn:.3f}  val {vl:.4f}/{va:.3f}  unc {unc:.3f}")


if __name__ == "__main__":
    main()
