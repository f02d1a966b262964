# VAE on 24-D shape descriptors with a KL weight annealed linearly from 1e-4 to 1 over training
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)
torch.set_num_threads(1)

D, Z = 24, 4
g = torch.Generator().manual_seed(23)
latent = torch.randn(6000, 3, generator=g)
mix = torch.randn(3, D, generator=g)
X = torch.tanh(latent @ mix) + 0.05 * torch.randn(6000, D, generator=g)
Xtr, Xva = X[:5000], X[5000:]


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 2 * Z))
        self.dec = nn.Sequential(nn.Linear(Z, 128), nn.ReLU(), nn.Linear(128, D))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, 1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        rec = F.mse_loss(self.dec(z), x, reduction="none").sum(1).mean()
        kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
        return rec, kl


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
EPOCHS, SPE = 30, 50
total_steps = EPOCHS * SPE

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "kl_weight", "loss", "recon", "kl", "val_loss", "val_recon"])
    step = 0
    for epoch in range(EPOCHS):
        perm = torch.randperm(5000)
        for i in range(SPE):
            beta = 1e-4 + (1.0 - 1e-4) * min(1.0, step / (0.8 * total_steps))
            rec, kl = model(Xtr[perm[i * 100:(i + 1) * 100]])
            loss = rec + beta * kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{beta:.5f}", f"{loss.item():.4f}", f"{rec.item():.4f}", f"{kl.item():.4f}", "", ""])
        with torch.no_grad():
            vr, vk = model(Xva)
            vl = (vr + beta * vk).item()
        w.writerow([step, epoch, f"{beta:.5f}", f"{loss.item():.4f}", f"{rec.item():.4f}", f"{kl.item():.4f}",
                    f"{vl:.4f}", f"{vr.item():.4f}"])
        print(f"epoch {epoch:2d} kl_weight {beta:.3f} loss {loss.item():.3f} recon {rec.item():.3f} kl {kl.item():.3f} val_loss {vl:.3f}")
