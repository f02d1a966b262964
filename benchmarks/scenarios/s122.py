"""Floor-marking arrow recogniser for warehouse AGVs.

Small CNN on 16x16 grayscale crops of painted floor arrows (up / down / left / right),
trained with the standard flip + brightness augmentation used by the other AGV vision
models.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(122)
torch.set_num_threads(1)

CLASSES = ["up", "down", "left", "right"]
AUG = {"hflip": 0.5, "brightness": 0.2}
CFG = {"epochs": 8, "batch_size": 32, "lr": 2e-3}


def draw_arrow(direction, rng):
    img = np.zeros((16, 16), np.float32)
    c = 8 + rng.integers(-2, 3, 2)
    L = rng.integers(4, 7)
    # shaft pointing up, then rotate
    img[c[0] - L:c[0] + L, c[1] - 1:c[1] + 1] = 1.0
    for k in range(4):
        r = c[0] - L + k
        img[r, max(c[1] - k - 1, 0):c[1] + k + 1] = 1.0
    img = np.rot90(img, {0: 0, 1: 2, 2: 1, 3: 3}[direction]).copy()
    return img + rng.normal(0, 0.15, img.shape).astype(np.float32)


class ArrowCrops(Dataset):
    def __init__(self, n, seed, augment):
        rng = np.random.default_rng(seed)
        self.y = rng.integers(0, len(CLASSES), n)
        self.x = np.stack([draw_arrow(d, rng) for d in self.y])[:, None]
        self.augment = augment
        self.rng = np.random.default_rng(seed + 7)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i]
        if self.augment:
            if self.rng.random() < AUG["hflip"]:
                img = img[:, :, ::-1]
            img = img * (1 + self.rng.uniform(-AUG["brightness"], AUG["brightness"]))
        return torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)), int(self.y[i])


class ArrowNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, len(CLASSES))

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def main():
    train_dl = DataLoader(ArrowCrops(2400, 1, augment=True), batch_size=CFG["batch_size"], shuffle=True)
    val_dl = DataLoader(ArrowCrops(600, 2, augment=False), batch_size=200)
    model = ArrowNet()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
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
            model.eval()
            vl, vc, vn = 0.0, 0, 0
            with torch.no_grad():
                for xb, yb in val_dl:
                    out = model(xb)
                    vl += crit(out, yb).item() * len(yb)
                    vc += (out.argmax(1) == yb).sum().item()
                    vn += len(yb)
            w.writerow([epoch, f"{tl / tn:.5f}", f"{tc / tn:.4f}", f"{vl / vn:.5f}", f"{vc / vn:.4f}"])
            print(f"epoch {epoch}  train {tl / tn:.4f}/{tc / tn:.3f}  val {vl / vn:.4f}/{vc / vn:.3f}")


if __name__ == "__main__":
    main()
