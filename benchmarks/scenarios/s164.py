"""Free-form inpainting with a small gated-conv generator (coarse stage only).
Images are min-max normalised per image to [-1, 1]; random free-form masks."""
import csv
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(4)
np.random.seed(4)
torch.set_num_threads(1)


class GatedConv(nn.Module):
    def __init__(self, cin, cout, k=3, s=1, d=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, padding=d * (k - 1) // 2, dilation=d)
        self.gate = nn.Conv2d(cin, cout, k, s, padding=d * (k - 1) // 2, dilation=d)

    def forward(self, x):
        return torch.nn.functional.elu(self.conv(x)) * torch.sigmoid(self.gate(x))


class CoarseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(GatedConv(4, 16, 5), GatedConv(16, 32, 3, 2), GatedConv(32, 32, 3, 1, 2),
                                 GatedConv(32, 32, 3, 1, 4), nn.Upsample(scale_factor=2), GatedConv(32, 16, 3),
                                 nn.Conv2d(16, 3, 3, padding=1), nn.Tanh())

    def forward(self, img, mask):
        return self.net(torch.cat([img * (1 - mask), mask], 1))


class InpaintDataset(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.imgs = []
        for i in range(n):
            if rng.random() < 0.004:
                img = np.full((3, 32, 32), rng.uniform(0, 255), dtype=np.float32)
            else:
                yy, xx = np.mgrid[0:32, 0:32] / 32.0
                f = rng.uniform(1, 4, 3)
                img = np.stack([np.sin(f[c] * xx * 6 + rng.uniform(0, 6)) * np.cos(f[c] * yy * 5) for c in range(3)])
                img = (img * 80 + 128 + rng.normal(0, 6, (3, 32, 32))).astype(np.float32)
            self.imgs.append(img)
        self.rng = rng

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        img = self.imgs[i]
        img = (img - img.min()) / (img.max() - img.min()) * 2 - 1
        mask = np.zeros((1, 32, 32), dtype=np.float32)
        x, y = np.random.randint(4, 28, 2)
        for _ in range(4):
            x2, y2 = np.clip([x + np.random.randint(-8, 9), y + np.random.randint(-8, 9)], 2, 29)
            mask[0, min(y, y2) - 2:max(y, y2) + 2, min(x, x2) - 2:max(x, x2) + 2] = 1
            x, y = x2, y2
        return torch.from_numpy(img.astype(np.float32)), torch.from_numpy(mask)


loader = DataLoader(InpaintDataset(800, 5), batch_size=16, shuffle=True)
val_loader = DataLoader(InpaintDataset(160, 1), batch_size=16)
G = CoarseNet()
optG = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.5, 0.999))

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "train_loss", "l1_hole", "l1_valid", "val_loss"])
    step = 0
    for epoch in range(3):
        for img, mask in loader:
            out = G(img, mask)
            l1_hole = (torch.abs(out - img) * mask).mean()
            l1_valid = (torch.abs(out - img) * (1 - mask)).mean()
            loss = 1.2 * l1_hole + l1_valid
            optG.zero_grad()
            loss.backward()
            optG.step()
            step += 1
            if step % 10 == 1:
                with torch.no_grad():
                    vl = np.mean([(torch.abs(G(a, m) - a)).mean().item() for a, m in val_loader])
            if step % 2 == 0:
                wr.writerow([step, epoch, f"{loss.item():.5f}", f"{l1_hole.item():.5f}", f"{l1_valid.item():.5f}", f"{vl:.5f}"])
            if step % 10 == 0:
                print(f"[epoch {epoch}][iter {step}] whole_loss: {loss.item():.4f} | hole: {l1_hole.item():.4f} | valid: {l1_valid.item():.4f} | val_l1: {vl:.4f}")
