"""1-D Fourier neural operator (Li et al.) learning the solution operator of the heat equation on a periodic grid:
input u0(x) on 64 points (random Fourier series, 16 modes with 1/k amplitudes) plus the grid coordinate, target
u(x, T) = each Fourier mode damped by exp(-nu (2 pi k)^2 T) plus measurement noise sd 0.01. Lifting layer to 24
channels, three spectral-convolution layers (12 retained modes, complex weights) each with a pointwise 1x1 conv and GELU,
projection MLP. MSE loss, metric: relative L2 error (||pred - u_T|| / ||u_T||) on 200 held-out functions."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "fno"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, WIDTH, MODES = 0.0003, 20, 12, 1000, 200, 24, 12
N_GRID = 64
MET = "rel_l2"
HIGHER = False



def log_start(info):
    print(f"ចាប់ផ្តើមការបណ្តុះបណ្តាល {info['name']}: ប៉ារ៉ាម៉ែត្រ {info['n_params']}, ទំហំបាច់ {info['batch']}, អត្រារៀន {info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 25 == 0:
        print(f"  វគ្គ {ep} ជំហាន {i}/{n} ការខាតបង់ {loss:.5f}")


def log_epoch(ep, E, m):
    print(f"វគ្គ {ep}/{E} | ការខាតបង់ហ្វឹកហ្វឺន {m['tl']:.5f} | ការខាតបង់ផ្ទៀងផ្ទាត់ {m['vl']:.5f} | "
          f"{MET} ផ្ទៀងផ្ទាត់ {m['vm']:.4f} | {m['et']:.1f} វិនាទី")


def log_end(m):
    print(f"បានបញ្ចប់ការបណ្តុះបណ្តាល ក្នុងរយៈពេល {m['el']:.1f} វិនាទី")


gen = torch.Generator().manual_seed(3)
grid = torch.linspace(0, 1, N_GRID + 1)[:-1]


def make(n):
    k = torch.arange(1, 17).float()
    a = torch.randn(n, 16, generator=gen) / k
    b = torch.randn(n, 16, generator=gen) / k
    ang = 2 * math.pi * k[None, :, None] * grid[None, None, :]
    damp = torch.exp(-0.002 * (2 * math.pi * k) ** 2)[None, :, None]
    u0 = (a[:, :, None] * torch.sin(ang) + b[:, :, None] * torch.cos(ang)).sum(1)
    uT = (damp * (a[:, :, None] * torch.sin(ang) + b[:, :, None] * torch.cos(ang))).sum(1)
    uT = uT + 0.01 * torch.randn(n, N_GRID, generator=gen)
    x = torch.stack([u0, grid.expand(n, N_GRID)], -1)
    return x, uT


x_train, y_train = make(N_TRAIN)
x_val, y_val = make(N_VAL)


class SpectralConv1d(nn.Module):
    def __init__(self, cin, cout, modes):
        super().__init__()
        self.modes = modes
        scale = 1.0 / (cin * cout)
        self.weight = nn.Parameter(scale * torch.rand(cin, cout, modes, dtype=torch.cfloat))

    def forward(self, x):
        x_ft = torch.fft.rfft(x, dim=-1)
        out_ft = torch.zeros(x.shape[0], self.weight.shape[1], x.shape[-1] // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :self.modes] = torch.einsum("bim,iom->bom", x_ft[:, :, :self.modes], self.weight)
        return torch.fft.irfft(out_ft, n=x.shape[-1], dim=-1)


class FNO1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.lift = nn.Linear(2, WIDTH)
        self.spec = nn.ModuleList([SpectralConv1d(WIDTH, WIDTH, MODES) for _ in range(3)])
        self.pw = nn.ModuleList([nn.Conv1d(WIDTH, WIDTH, 1) for _ in range(3)])
        self.proj = nn.Sequential(nn.Linear(WIDTH, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, x):
        h = self.lift(x).permute(0, 2, 1)
        for k, (s, w) in enumerate(zip(self.spec, self.pw)):
            h = s(h) + w(h)
            if k < 2:
                h = F.gelu(h)
        return self.proj(h.permute(0, 2, 1)).squeeze(-1)


def rel_l2(pred, y):
    return ((pred - y).norm(dim=1) / y.norm(dim=1)).mean().item()


model = FNO1d()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, yb = x_train[idx], y_train[idx]
    optimizer.zero_grad()
    pred = model(xb)
    loss = criterion(pred, yb)
    loss.backward()
    optimizer.step()
    return loss.item(), rel_l2(pred.detach(), yb)


@torch.no_grad()
def evaluate():
    model.eval()
    pred = model(x_val)
    vl = criterion(pred, y_val).item()
    model.train()
    return vl, rel_l2(pred, y_val)


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=N_VAL, lr=LR, batch=BATCH, epochs=EPOCHS))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt, mtot = 0.0, 0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        loss, mb = train_batch(idx, epoch)
        gstep += 1
        tot += loss * len(idx)
        mtot += mb * len(idx)
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss, optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    if scheduler is not None:
        scheduler.step()
    tv = time.time()
    vl, vm = evaluate()
    tl = tot / cnt
    tm = mtot / cnt
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
