"""Trajectory forecasting with a Gaussian output head: the model predicts mean and std of each
future (x, y) offset; trained with the Gaussian negative log-likelihood."""
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(5)
torch.set_num_threads(1)

PAST, FUT = 8, 6


def make_tracks(n, g):
    v = torch.randn(n, 2, generator=g) * 0.5
    a = torch.randn(n, 2, generator=g) * 0.05
    t = torch.arange(PAST + FUT).float().view(1, -1, 1)
    pos = v.unsqueeze(1) * t + 0.5 * a.unsqueeze(1) * t ** 2
    pos = pos + 0.03 * torch.randn(pos.shape, generator=g)
    past, fut = pos[:, :PAST], pos[:, PAST:]
    return past - past[:, -1:], fut - past[:, -1:]


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.GRU(2, 64, batch_first=True)
        self.head = nn.Linear(64, FUT * 4)

    def forward(self, past):
        _, h = self.enc(past)
        out = self.head(h[-1]).view(-1, FUT, 4)
        mu, log_sigma = out[..., :2], out[..., 2:].clamp(-6, 3)
        return mu, log_sigma


def nll(mu, log_sigma, y):
    return (log_sigma + 0.5 * ((y - mu) / log_sigma.exp()) ** 2 + 0.5 * math.log(2 * math.pi)).sum(-1).mean()


g = torch.Generator().manual_seed(1)
tr_p, tr_f = make_tracks(6000, g)
va_p, va_f = make_tracks(1000, g)
model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_ade"])
    step = 0
    for epoch in range(20):
        perm = torch.randperm(len(tr_p))
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            mu, ls = model(tr_p[idx])
            loss = nll(mu, ls, tr_f[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            step += 1
            if step % 20 == 0:
                with torch.no_grad():
                    vmu, vls = model(va_p)
                    vl = nll(vmu, vls, va_f).item()
                    ade = (vmu - va_f).norm(dim=-1).mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{ade:.5f}"])
        print(f"Epoch {epoch} | nll_loss {loss.item():+.4f} | val nll {vl:+.4f} | val ADE {ade:.4f}")
