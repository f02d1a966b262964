"""2x super-resolution for thermal-camera frames (SRCNN-style, 8x8 -> 16x16 patches).

Adam with a StepLR schedule (decay x0.1 halfway through training), as in the reference SRGAN
training script.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(149)
torch.set_num_threads(1)

CFG = {"epochs": 20, "batch_size": 32, "lr": 1e-3}


def thermal_patches(n, rng):
    yy, xx = np.mgrid[0:16, 0:16] / 15.0
    hr = np.zeros((n, 1, 16, 16), dtype=np.float32)
    for k in range(n):
        for _ in range(rng.integers(1, 4)):
            cx, cy, s = rng.uniform(0, 1, 2).tolist() + [rng.uniform(0.02, 0.08)]
            hr[k, 0] += rng.uniform(0.3, 1.0) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / s)
        hr[k, 0] += 0.2 * (np.sin(xx * rng.uniform(4, 12)) > 0.6) + rng.normal(0, 0.02, (16, 16))
    hr = torch.tensor(hr)
    lr = F.avg_pool2d(hr, 2)
    return lr, hr


class SRNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(32, 4, 3, padding=1))
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        up = F.interpolate(x, scale_factor=2, mode="nearest")
        return up + self.shuffle(self.body(x))


def main():
    rng = np.random.default_rng(149)
    lr_tr, hr_tr = thermal_patches(2000, rng)
    lr_va, hr_va = thermal_patches(400, rng)
    dl = DataLoader(TensorDataset(lr_tr, hr_tr), batch_size=CFG["batch_size"], shuffle=True)
    model = SRNet()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=CFG["epochs"] // 2, gamma=0.1)
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "lr", "train_loss", "val_loss", "val_psnr"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in dl:
                loss = F.mse_loss(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                step += 1
                if step % 10 == 0:
                    model.eval()
                    with torch.no_grad():
                        vl = F.mse_loss(model(lr_va), hr_va).item()
                    model.train()
                    psnr = 10 * np.log10(hr_va.max().item() ** 2 / vl)
                    w.writerow([step, epoch, f"{opt.param_groups[0]['lr']:.3e}", f"{loss.item():.6f}",
                                f"{vl:.6f}", f"{psnr:.3f}"])
            print(f"epoch {epoch:2d} step {step}  lr {opt.param_groups[0]['lr']:.1e}  train {loss.item():.5f}  val {vl:.5f}  PSNR {psnr:.2f}")


if __name__ == "__main__":
    main()
