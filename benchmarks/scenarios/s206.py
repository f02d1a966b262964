# Frame VAE for a video-prediction model (moving-blob frames, 16x16), ELBO = recon BCE + KL, logged every 100 iterations
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
torch.set_num_threads(1)

S, Z = 16, 16
yy, xx = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing="ij")


def frames(n, gen=None):
    c = torch.rand(n, 2, generator=gen) * (S - 4) + 2
    r = 1.5 + 1.5 * torch.rand(n, 1, 1, generator=gen)
    d = (xx[None] - c[:, 0, None, None]) ** 2 + (yy[None] - c[:, 1, None, None]) ** 2
    return torch.sigmoid(3 * (r ** 2 - d)).reshape(n, -1)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(S * S, 256), nn.ReLU(), nn.Linear(256, 2 * Z))
        self.dec = nn.Sequential(nn.Linear(Z, 256), nn.ReLU(), nn.Linear(256, S * S))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, 1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        rec = F.binary_cross_entropy_with_logits(self.dec(z), x, reduction="none").sum(1).mean()
        kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
        return rec, kl


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
val = frames(500, torch.Generator().manual_seed(99))
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["iter", "loss", "recon", "kl", "val_recon", "val_kl"])
    for it in range(1, 3001):
        rec, kl = model(frames(64))
        loss = rec + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 100 == 0:
            with torch.no_grad():
                vr, vk = model(val)
            w.writerow([it, f"{loss.item():.3f}", f"{rec.item():.3f}", f"{kl.item():.3f}", f"{vr.item():.3f}", f"{vk.item():.3f}"])
            print(f"iter {it:5d} | loss {loss.item():8.3f} | recon {rec.item():8.3f} | kl {kl.item():6.3f} | val recon {vr.item():8.3f} | val kl {vk.item():6.3f}")
        else:
            w.writerow([it, f"{loss.item():.3f}", f"{rec.item():.3f}", f"{kl.item():.3f}", "", ""])
