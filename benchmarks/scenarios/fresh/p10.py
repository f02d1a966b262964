"""Leaf-disease classifier on synthetic 24x24 colour patches, CNN with BatchNorm."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
SEED = 10
CLASSES = ["healthy", "rust", "blight", "mildew"]
S = 24


def render(n_per_class, rng):
    yy, xx = np.mgrid[0:S, 0:S]
    imgs, labels = [], []
    for c in range(len(CLASSES)):
        for _ in range(n_per_class):
            img = np.zeros((3, S, S), np.float32)
            img[1] = 0.6 + rng.normal(0, 0.05)
            if c == 1:
                for _ in range(rng.integers(4, 8)):
                    cy, cx = rng.uniform(2, S - 2, 2)
                    img[0] += 0.8 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 2.0)
            elif c == 2:
                cy, cx = rng.uniform(6, S - 6, 2)
                m = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 20.0)
                img[1] -= 0.5 * m
                img[0] += 0.3 * m
            elif c == 3:
                img += 0.25 * (rng.random((1, S, S)) > 0.6)
            img += rng.normal(0, 0.08, img.shape)
            imgs.append(img)
            labels.append(c)
    return torch.tensor(np.stack(imgs)), torch.tensor(labels)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(), nn.MaxPool2d(2))


def accuracy(logits, y):
    return (logits.argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    x_tr, y_tr = render(300, rng)
    x_va, y_va = render(75, rng)
    train_dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=True)
    val_dl = DataLoader(TensorDataset(x_va, y_va), batch_size=50)

    model = nn.Sequential(block(3, 16), block(16, 32), block(32, 32), nn.Flatten(),
                          nn.Linear(32 * 3 * 3, len(CLASSES)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        model.train()
        for epoch in range(8):
            tl, ta, nb = 0.0, 0.0, 0
            for xb, yb in train_dl:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item()
                ta += accuracy(out, yb)
                nb += 1
            vl, va, vb = 0.0, 0.0, 0
            with torch.no_grad():
                for xb, yb in val_dl:
                    out = model(xb)
                    vl += crit(out, yb).item()
                    va += accuracy(out, yb)
                    vb += 1
            w.writerow([epoch, round(tl / nb, 5), round(ta / nb, 4), round(vl / vb, 5), round(va / vb, 4)])
            print(f"epoch {epoch}  train {tl/nb:.4f}/{ta/nb:.3f}  val {vl/vb:.4f}/{va/vb:.3f}")


if __name__ == "__main__":
    main()
