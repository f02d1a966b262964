# World Models "V" (convolutional VAE) in miniature, after a Keras reimplementation: synthetic 16x16 grey frames of
# a car-racing-like scene (dark background, a bright road band whose position and slope vary, a car blob at a
# random position, pixel noise), conv encoder -> mu, log_var (z = 8) -> sampled z -> dense + transposed-conv
# decoder with sigmoid output, Adam lr 1e-3, batch 32, 12 epochs over 4000 frames. The loss is written as in the
# Keras code: vae_r_loss = 10 * mean squared error over all pixels of a frame, vae_kl_loss = -0.5 * sum over the
# latent dimensions of (1 + log_var - mu^2 - exp(log_var)), loss = r_loss + kl_loss, both averaged over the batch.
# Prints a Keras-like epoch line (loss, vae_r_loss, vae_kl_loss and their val_ counterparts) plus the number of
# active latent units (variance of mu over the validation set > 0.01) and the validation pixel MSE of a
# "predict the mean training frame" baseline, writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(351)
S = 16
yy, xx = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing='ij')


def frames(n):
    c = 4 + 8 * torch.rand(n, 1, 1, generator=g); sl = 0.6 * (torch.rand(n, 1, 1, generator=g) - 0.5)
    road = ((xx - c - sl * (yy - 8)).abs() < 3).float() * 0.6
    cx = 2 + 12 * torch.rand(n, 1, 1, generator=g); cy = 2 + 12 * torch.rand(n, 1, 1, generator=g)
    car = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 2.0) * 0.9
    x = 0.1 + road + car + 0.03 * torch.randn(n, S, S, generator=g)
    return x.clamp(0, 1).unsqueeze(1)


Xtr, Xva = frames(4000), frames(800)
Z = 8


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 4, 2, 1), nn.ReLU(), nn.Flatten())
        self.mu, self.lv = nn.Linear(32 * 16, Z), nn.Linear(32 * 16, Z)
        self.fc = nn.Linear(Z, 32 * 16)
        self.dec = nn.Sequential(nn.ReLU(), nn.Unflatten(1, (32, 4, 4)), nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        h = self.enc(x); mu, lv = self.mu(h), self.lv(h)
        z = mu + torch.exp(0.5 * lv) * torch.randn_like(mu)
        return self.dec(self.fc(z)), mu, lv


def losses(model, x):
    y, mu, lv = model(x)
    r = 10 * ((x - y) ** 2).mean(dim=(1, 2, 3))
    kl = -0.5 * (1 + lv - mu ** 2 - lv.exp()).sum(1)
    return r.mean(), kl.mean(), mu


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
base = ((Xva - Xtr.mean(0)) ** 2).mean().item()
rows = []
for epoch in range(1, 13):
    model.train(); perm = torch.randperm(len(Xtr), generator=g); sr = sk = 0.0; nb = 0
    for k in range(0, len(Xtr), 32):
        r, kl, _ = losses(model, Xtr[perm[k:k + 32]])
        opt.zero_grad(); (r + kl).backward(); opt.step()
        sr += r.item(); sk += kl.item(); nb += 1
    model.eval()
    with torch.no_grad():
        vr, vk, mu = losses(model, Xva)
        active = int((mu.var(0) > 0.01).sum())
    row = dict(epoch=epoch, loss=(sr + sk) / nb, vae_r_loss=sr / nb, vae_kl_loss=sk / nb, val_loss=(vr + vk).item(),
               val_vae_r_loss=vr.item(), val_vae_kl_loss=vk.item(), active_units=active, mean_frame_r_loss=10 * base)
    rows.append(row)
    print(f"Epoch {epoch}/12 - loss: {row['loss']:.4f} - vae_r_loss: {row['vae_r_loss']:.4f} - vae_kl_loss: {row['vae_kl_loss']:.4e}"
          f" - val_loss: {row['val_loss']:.4f} - val_vae_r_loss: {row['val_vae_r_loss']:.4f} - val_vae_kl_loss: {row['val_vae_kl_loss']:.4e}"
          f" | active z units {active}/{Z} | mean-frame r_loss {10 * base:.4f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
