# Tybalt-style VAE on a gene-expression compendium (2000 samples x 400 genes, 0-1 scaled):
# encoder 400 -> 100 -> (mu, logvar) with latent 30, decoder 30 -> 100 -> 400 with sigmoid;
# loss = 50 * squared-error reconstruction (summed over genes) + KL, averaged over the batch.
# Adam lr 5e-3, batch size 10, 40 epochs, 10% of samples held out for validation.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
G, Z = 400, 30
# low-rank expression programs + sample noise, then 0-1 scaling per gene
W = torch.randn(12, G)
X = torch.randn(2000, 12) @ W + 0.3 * torch.randn(2000, G)
X = (X - X.min(0).values) / (X.max(0).values - X.min(0).values)
x_tr, x_va = X[:1800], X[1800:]

class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(G, 100), nn.ReLU())
        self.mu, self.logvar = nn.Linear(100, Z), nn.Linear(100, Z)
        self.dec = nn.Sequential(nn.Linear(Z, 100), nn.ReLU(), nn.Linear(100, G), nn.Sigmoid())
    def forward(self, x):
        h = self.enc(x); mu, lv = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * (0.5 * lv).exp()
        return self.dec(z), mu, lv

def vae_loss(recon, x, mu, lv):
    bce = F.mse_loss(recon, x, reduction="none").sum(1) * 50
    kl = -0.5 * (1 + lv - mu.pow(2) - lv.exp()).sum(1)
    return (bce + kl).mean()

model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
BATCH = 10
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "val_loss"])
    for epoch in range(1, 41):
        perm = torch.randperm(len(x_tr)); el = []
        for i in range(0, len(perm), BATCH):
            xb = x_tr[perm[i:i + BATCH]]
            recon, mu, lv = model(xb)
            loss = vae_loss(recon, xb, mu, lv)
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1; el.append(loss.item())
            if i + BATCH < len(perm):
                wr.writerow([step, epoch, f"{loss.item():.4f}", ""])
        with torch.no_grad():
            r, m, l = model(x_va); vl = vae_loss(r, x_va, m, l).item()
        wr.writerow([step, epoch, f"{el[-1]:.4f}", f"{vl:.4f}"])
        fh.flush()
        print(f"Epoch {epoch}/40 - loss: {sum(el) / len(el):.4f} - val_loss: {vl:.4f}")
