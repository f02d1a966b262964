# SRCNN (Dong et al. 2014) super-resolution, adapted from yjn870/SRCNN-pytorch (models.py / train.py):
# 9-5-5 conv net on bicubic-upsampled low-resolution patches, MSE loss, PSNR metric.
# Synthetic data: smooth random textures with edges, 32x32 grayscale, x2 degradation.
import math, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 0
torch.manual_seed(SEED)

N_TRAIN, N_VAL, SIZE, SCALE = 800, 160, 24, 2
BATCH_SIZE = 32
EPOCHS = 10
LR = 1e-3


def make_images(n, g):
    yy, xx = torch.meshgrid(torch.linspace(0, 1, SIZE), torch.linspace(0, 1, SIZE), indexing="ij")
    imgs = torch.zeros(n, 1, SIZE, SIZE)
    for i in range(n):
        img = torch.zeros(SIZE, SIZE)
        for _ in range(3):
            fx, fy = torch.rand(2, generator=g) * 10 + 2
            ph = torch.rand(1, generator=g) * 6.28
            img += 0.25 * torch.sin(fx * xx * 3.14 + fy * yy * 3.14 + ph)
        # a few hard edges (rectangles) - the detail the net has to restore
        for _ in range(2):
            x0, y0 = torch.randint(0, SIZE - 6, (2,), generator=g)
            w, h = torch.randint(3, 10, (2,), generator=g)
            img[y0:y0 + h, x0:x0 + w] += (torch.rand(1, generator=g) - 0.5) * 1.2
        imgs[i, 0] = img
    imgs = (imgs - imgs.amin(dim=(2, 3), keepdim=True)) / (imgs.amax(dim=(2, 3), keepdim=True) - imgs.amin(dim=(2, 3), keepdim=True))
    return (imgs * 255).round()  # stored as 8-bit like image files


def degrade(hr):
    lr = F.interpolate(hr, scale_factor=1 / SCALE, mode="bicubic", align_corners=False)
    return F.interpolate(lr, size=hr.shape[-2:], mode="bicubic", align_corners=False)


g = torch.Generator().manual_seed(1234)
hr_all = make_images(N_TRAIN + N_VAL, g)
x_all = degrade(hr_all).clamp(0, 255)
x_all, hr_all = x_all / 255.0, hr_all / 255.0
x_train, y_train = x_all[:N_TRAIN], hr_all[:N_TRAIN]
x_val, y_val = x_all[N_TRAIN:], hr_all[N_TRAIN:]


class SRCNN(nn.Module):
    def __init__(self, num_channels=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channels, 24, kernel_size=9, padding=9 // 2)
        self.conv2 = nn.Conv2d(24, 12, kernel_size=5, padding=5 // 2)
        self.conv3 = nn.Conv2d(12, num_channels, kernel_size=5, padding=5 // 2)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        return self.conv3(x)


def calc_psnr(mse):
    return 10.0 * math.log10(1.0 / mse) if mse > 0 else float("inf")


model = SRCNN()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.5)

steps = math.ceil(N_TRAIN / BATCH_SIZE)
bicubic_mse = F.mse_loss(x_val, y_val).item()
print(f"Train on {N_TRAIN} samples, validate on {N_VAL} samples (bicubic baseline val_psnr: {calc_psnr(bicubic_mse):.2f})")
for epoch in range(EPOCHS):
    print(f"Epoch {epoch + 1}/{EPOCHS}")
    model.train()
    perm = torch.randperm(N_TRAIN)
    t0 = time.time()
    tot, seen = 0.0, 0
    for step in range(steps):
        idx = perm[step * BATCH_SIZE:(step + 1) * BATCH_SIZE]
        inputs, labels = x_train[idx], y_train[idx]
        preds = model(inputs)
        loss = criterion(preds, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        seen += len(idx)
        if (step + 1) % 8 == 0 or step + 1 == steps:
            done = int(30 * (step + 1) / steps)
            bar = "=" * (done - 1) + (">" if done < 30 else "=") + "." * (30 - done)
            el = time.time() - t0
            sys.stdout.write(f"\r{step + 1:2d}/{steps} [{bar}] - ETA: {el / (step + 1) * (steps - step - 1):.0f}s - loss: {tot / seen:.4e} - psnr: {calc_psnr(tot / seen):.2f}")
    scheduler.step()
    model.eval()
    with torch.no_grad():
        val_mse = criterion(model(x_val), y_val).item()
    el = time.time() - t0
    sys.stdout.write(f"\r{steps}/{steps} [{'=' * 30}] - {el:.0f}s {1000 * el / steps:.0f}ms/step - loss: {tot / seen:.4e} - psnr: {calc_psnr(tot / seen):.2f} - val_loss: {val_mse:.4e} - val_psnr: {calc_psnr(val_mse):.2f}\n")
print(f"best val_psnr: {calc_psnr(val_mse):.2f}")
