# RealNVP-style normalizing flow (affine couplings) fitted by maximum likelihood to low-noise 6-D data
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(202)
torch.set_num_threads(1)

D = 6
g = torch.Generator().manual_seed(17)


def sample(n):                         # data close to a 2-D curved manifold embedded in 6-D, small noise
    u = torch.rand(n, 2, generator=g) * 2 - 1
    x = torch.stack([u[:, 0], u[:, 1], u[:, 0] ** 2, u[:, 0] * u[:, 1], torch.sin(2 * u[:, 1]), u[:, 1] ** 2 - u[:, 0]], 1)
    return x + 0.05 * torch.randn(n, D, generator=g)


train, valid = sample(6000), sample(1000)


class Coupling(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * D))

    def forward(self, x):                # x -> z, log|det J|
        st = self.net(x * self.mask)
        s, t = torch.tanh(st[:, :D]) * (1 - self.mask), st[:, D:] * (1 - self.mask)
        return x * self.mask + (1 - self.mask) * (x * torch.exp(s) + t), s.sum(1)


masks = [torch.tensor([1., 0, 1, 0, 1, 0]), torch.tensor([0., 1, 0, 1, 0, 1])] * 3
flow = nn.ModuleList([Coupling(m) for m in masks])


def nll(x):
    logdet = torch.zeros(x.shape[0])
    for layer in flow:
        x, ld = layer(x)
        logdet = logdet + ld
    logpz = -0.5 * (x ** 2).sum(1) - 0.5 * D * math.log(2 * math.pi)
    return -(logpz + logdet).mean()


opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "train_loss", "val_loss"])
    step = 0
    for epoch in range(12):
        perm = torch.randperm(len(train))
        for i in range(0, len(train), 128):
            loss = nll(train[perm[i:i + 128]])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 50 == 0:
                with torch.no_grad():
                    vl = nll(valid).item()
                w.writerow([step, f"{loss.item():.4f}", f"{vl:.4f}"])
                print(f"STEP: {step}; train loss: {loss.item():.4f}; validation loss: {vl:.4f}")
            else:
                w.writerow([step, f"{loss.item():.4f}", ""])
