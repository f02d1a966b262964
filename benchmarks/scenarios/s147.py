"""Binary attribute classifier ("smiling") on 20x20 grey face crops, CelebA-style layout.

Images live in one folder as 000001.jpg ... and attributes in list_attr.csv (sorted by file
name). Here the folder is simulated in memory.
"""
import csv
import hashlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(147)
torch.set_num_threads(1)

CFG = {"epochs": 6, "batch_size": 64, "lr": 1e-3, "n_images": 3000}


def render_face(smiling, rng):
    yy, xx = np.mgrid[0:20, 0:20] / 19.0 * 2 - 1
    img = np.exp(-(xx ** 2 + (yy * 0.8) ** 2) / 0.6) * rng.uniform(0.6, 1.0)
    for ex in (-0.35, 0.35):
        img -= 0.5 * np.exp(-((xx - ex) ** 2 + (yy + 0.25) ** 2) / 0.01)
    curve = 0.25 * (xx ** 2) if smiling else -0.25 * (xx ** 2)
    img -= 0.6 * np.exp(-((yy - 0.45 + curve) ** 2) / 0.004) * (np.abs(xx) < 0.45)
    return (img + rng.normal(0, 0.15, img.shape)).astype(np.float32)


class FakeFolder:
    """In-memory stand-in for the image folder + attribute csv."""
    def __init__(self, n, rng):
        self.names = [f"{k:06d}.jpg" for k in range(1, n + 1)]
        self.attr = {nm: int(rng.random() < 0.5) for nm in self.names}
        self.files = {nm: render_face(self.attr[nm], rng) for nm in self.names}

    def listdir(self):
        # entries come back in directory order, like os.listdir
        return sorted(self.names, key=lambda s: hashlib.md5(s.encode()).hexdigest())

    def read_attr_csv(self):
        return [self.attr[nm] for nm in sorted(self.names)]


class CelebSmile(Dataset):
    def __init__(self, folder, idx):
        paths = [p for p in folder.listdir() if p.endswith(".jpg")]
        labels = folder.read_attr_csv()
        self.images = [folder.files[paths[i]] for i in idx]
        self.labels = [labels[i] for i in idx]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, k):
        return torch.from_numpy(self.images[k])[None], torch.tensor(self.labels[k])


def main():
    rng = np.random.default_rng(147)
    folder = FakeFolder(CFG["n_images"], rng)
    idx = rng.permutation(CFG["n_images"])
    tr = CelebSmile(folder, idx[:2400])
    va = CelebSmile(folder, idx[2400:])
    tr_dl = DataLoader(tr, batch_size=CFG["batch_size"], shuffle=True)
    va_dl = DataLoader(va, batch_size=300)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(32 * 25, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in tr_dl:
                out = model(xb)
                loss = F.cross_entropy(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 10 == 0:
                    tacc = (out.argmax(1) == yb).float().mean().item()
                    model.eval()
                    with torch.no_grad():
                        vl, vc, n = 0.0, 0, 0
                        for xv, yv in va_dl:
                            o = model(xv)
                            vl += F.cross_entropy(o, yv, reduction="sum").item()
                            vc += (o.argmax(1) == yv).sum().item(); n += len(yv)
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{tacc:.4f}", f"{vl / n:.5f}", f"{vc / n:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl / n:.4f}  acc {vc / n:.3f}")


if __name__ == "__main__":
    main()
