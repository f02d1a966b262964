"""SIREN (sinusoidal representation network) fitting a synthetic 40x40 grey-level image from its pixel
coordinates: the image is a product of sinusoids plus a bright disk plus a vertical ramp; 80% of the
pixels (random) are the training set, the other 20% the validation set. Three sine layers of width 64
(omega_0 = 30, the SIREN initialisation), linear output, MSE loss, Adam on random mini-batches of pixels.
Reported: MSE and PSNR (peak-to-peak range 2) on the held-out pixels."""
import math
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, NOISE, OMEGA = 1e-4, 16, 12, 0.0, 30.0

def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Bắt đầu huấn luyện SIREN: {n_params} tham số, {n_tr} điểm ảnh huấn luyện, {n_va} điểm ảnh kiểm định (lr={lr:g}, batch={batch})")


def log_step(epoch, i, n, loss, gstep, el):
    if i % 20 == 0:
        print(f"  Epoch {epoch} - bước {i}/{n}: mất mát = {loss:.5f}")


def log_epoch(epoch, epochs, tl, tp, vl, vp, el):
    print(f"Epoch {epoch}/{epochs} xong | mất mát huấn luyện {tl:.5f} (PSNR {tp:.2f} dB) | mất mát kiểm định {vl:.5f} (PSNR {vp:.2f} dB) | thời gian {el:.1f} giây")


def log_end(vl, vp, el):
    print(f"Hoàn tất sau {el:.1f} giây. PSNR kiểm định cuối cùng: {vp:.2f} dB")

H = W = 40
gen = torch.Generator().manual_seed(5)
ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
img = 0.5 * torch.sin(3 * math.pi * xs) * torch.cos(2 * math.pi * ys)
img = img + 0.6 * ((xs - 0.3) ** 2 + (ys + 0.2) ** 2 < 0.16).float() - 0.3 * ys
img = img + NOISE * torch.randn(H, W, generator=gen)
coords = torch.stack([xs, ys], dim=-1).reshape(-1, 2)
values = img.reshape(-1, 1)
perm = torch.randperm(H * W, generator=gen)
n_train = int(0.8 * H * W)
x_train, y_train = coords[perm[:n_train]], values[perm[:n_train]]
x_val, y_val = coords[perm[n_train:]], values[perm[n_train:]]


class SineLayer(nn.Module):
    def __init__(self, n_in, n_out, omega_0=30.0, is_first=False):
        super().__init__()
        self.omega_0 = omega_0
        self.linear = nn.Linear(n_in, n_out)
        with torch.no_grad():
            bound = 1 / n_in if is_first else math.sqrt(6 / n_in) / omega_0
            self.linear.weight.uniform_(-bound, bound)

    def forward(self, x):
        return torch.sin(self.omega_0 * self.linear(x))


class Siren(nn.Module):
    def __init__(self, hidden=64, layers=3, omega_0=30.0):
        super().__init__()
        net = [SineLayer(2, hidden, omega_0, is_first=True)]
        net += [SineLayer(hidden, hidden, omega_0) for _ in range(layers - 1)]
        self.net = nn.Sequential(*net)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(self.net(x))


model = Siren(omega_0=OMEGA)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (n_train + BATCH - 1) // BATCH
log_start(n_params, n_train, len(x_val), LR, BATCH, EPOCHS)


def psnr(mse):
    return 10 * math.log10(4.0 / max(mse, 1e-12))


gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(n_train)
    total = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        optimizer.zero_grad()
        loss = ((model(x_train[idx]) - y_train[idx]) ** 2).mean()
        loss.backward()
        optimizer.step()
        gstep += 1
        total += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        val_mse = ((model(x_val) - y_val) ** 2).mean().item()
    train_mse = total / n_train
    log_epoch(epoch, EPOCHS, train_mse, psnr(train_mse), val_mse, psnr(val_mse), time.time() - t0)
log_end(val_mse, psnr(val_mse), time.time() - t0)
