"""Binary segmentation of bright cells in synthetic microscopy tiles (tiny fully-convolutional net)."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
S = 32


class CellTiles(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[0:S, 0:S]
        self.img = np.zeros((n, 1, S, S), np.float32)
        self.mask = np.zeros((n, 1, S, S), np.float32)
        for i in range(n):
            for _ in range(rng.integers(1, 5)):
                cy, cx = rng.uniform(4, S - 4, 2)
                r = rng.uniform(2, 5)
                m = ((yy - cy) ** 2 + (xx - cx) ** 2) < r ** 2
                self.mask[i, 0][m] = 1.0
            self.img[i, 0] = self.mask[i, 0] * rng.uniform(0.6, 1.0) + rng.normal(0, 0.15, (S, S))

    def __len__(self):
        return len(self.img)

    def __getitem__(self, i):
        return torch.from_numpy(self.img[i]), torch.from_numpy(self.mask[i])


class TinyFCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 1, 1),
        )

    def forward(self, x):
        return self.net(x)


def pixel_bce(logits, target):
    p = torch.sigmoid(logits)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


def dice(logits, target):
    pred = (logits > 0).float()
    inter = (pred * target).sum()
    return (2 * inter / (pred.sum() + target.sum() + 1e-6)).item()


def main():
    torch.manual_seed(13)
    tr = DataLoader(CellTiles(600, 13), batch_size=16, shuffle=True)
    va = DataLoader(CellTiles(120, 14), batch_size=60)
    model = TinyFCN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "loss", "val_loss", "val_dice"])
        step = 0
        for epoch in range(8):
            model.train()
            for x, m in tr:
                logits = model(x)
                loss = pixel_bce(logits, m)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 2 == 0:
                    w.writerow([step, epoch, f"{loss.item():.6g}", "", ""])
            model.eval()
            with torch.no_grad():
                vl, vd, nb = 0.0, 0.0, 0
                for x, m in va:
                    lo = model(x)
                    vl += pixel_bce(lo, m).item()
                    vd += dice(lo, m)
                    nb += 1
            w.writerow([step, epoch, f"{loss.item():.6g}", f"{vl/nb:.6g}", f"{vd/nb:.4f}"])
            fh.flush()
            print(f"epoch {epoch}  loss {loss.item():.5f}  val_loss {vl/nb:.5f}  val_dice {vd/nb:.3f}")


if __name__ == "__main__":
    main()
