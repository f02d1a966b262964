# SRGAN generator pre-training (SRResNet, MSE) in miniature: 2x super-resolution of 16x16 -> 32x32
# single-channel images. Adam lr 1e-3, batch 16, 10 epochs of 30 batches.
# StepLR(step_size=epochs // 2, gamma=0.1) as in the original train.py, stepped inside the batch loop.
import csv, math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

class Patches(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        hr = torch.randn(n, 1, 32, 32, generator=g)
        hr = F.avg_pool2d(hr, 3, 1, 1)
        hr = (hr - hr.amin((2, 3), keepdim=True)) / (hr.amax((2, 3), keepdim=True) - hr.amin((2, 3), keepdim=True))
        self.hr = hr
        self.lr = F.avg_pool2d(hr, 2)
    def __len__(self):
        return len(self.hr)
    def __getitem__(self, i):
        return self.lr[i], self.hr[i]

class Res(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.b = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.PReLU(), nn.Conv2d(c, c, 3, padding=1))
    def forward(self, x):
        return x + self.b(x)

class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.PReLU())
        self.body = nn.Sequential(Res(32), Res(32), Res(32))
        self.up = nn.Sequential(nn.Conv2d(32, 128, 3, padding=1), nn.PixelShuffle(2), nn.PReLU())
        self.tail = nn.Conv2d(32, 1, 5, padding=2)
    def forward(self, x):
        h = self.head(x)
        return self.tail(self.up(h + self.body(h)))

EPOCHS = 10
train = DataLoader(Patches(480, 1), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(2))
val = Patches(200, 3)
netG = Generator()
optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-3)
schedulerG = torch.optim.lr_scheduler.StepLR(optimizerG, step_size=EPOCHS // 2, gamma=0.1)

def psnr(mse):
    return 10 * math.log10(1.0 / mse)

with torch.no_grad():
    bic = F.mse_loss(F.interpolate(val.lr, scale_factor=2, mode="bicubic", align_corners=False), val.hr).item()
print(f"bicubic baseline val PSNR {psnr(bic):.2f} dB")
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "g_loss", "lr", "val_mse", "val_psnr"])
    for epoch in range(1, EPOCHS + 1):
        netG.train()
        for lr_img, hr_img in train:
            step += 1
            loss = F.mse_loss(netG(lr_img), hr_img)
            optimizerG.zero_grad()
            loss.backward()
            optimizerG.step()
            schedulerG.step()
            wr.writerow([step, epoch, f"{loss.item():.5f}", f"{optimizerG.param_groups[0]['lr']:.3e}", "", ""])
        netG.eval()
        with torch.no_grad():
            vm = F.mse_loss(netG(val.lr), val.hr).item()
        wr.writerow([step, epoch, f"{loss.item():.5f}", f"{optimizerG.param_groups[0]['lr']:.3e}", f"{vm:.5f}", f"{psnr(vm):.2f}"])
        print(f"[{epoch}/{EPOCHS}] Loss_G: {loss.item():.5f} lr {optimizerG.param_groups[0]['lr']:.3e} val PSNR {psnr(vm):.2f} dB")
        fh.flush()
