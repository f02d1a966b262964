# SMD-Nets-style sharp disparity head: per-query-point MLP predicts a bimodal Laplacian mixture
# (mu0, mu1, b0, b1, w0) and is trained with bimodal_loss (negative log-likelihood)
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)

def laplacian(mu, b, labels):
    return 0.5 * torch.exp(-(torch.abs(mu - labels) / b)) / b

def bimodal_loss(mu0, mu1, sigma0, sigma1, w0, w1, labels):
    return -torch.log(w0 * laplacian(mu0, sigma0, labels) + w1 * laplacian(mu1, sigma1, labels) + 1e-12)

# synthetic stereo query points: features from a backbone, normalised disparity in [0, 1];
# points near object boundaries belong to either the foreground or the background surface
g = torch.Generator().manual_seed(2)
def sample(n):
    feat = torch.randn(n, 32, generator=g)
    fg = 0.6 + 0.1 * torch.tanh(feat[:, 0])
    bg = 0.2 + 0.1 * torch.tanh(feat[:, 1])
    edge = torch.sigmoid(4 * feat[:, 2])
    is_fg = torch.rand(n, generator=g) < edge
    disp = torch.where(is_fg, fg, bg) + 0.005 * torch.randn(n, generator=g)
    return feat, disp

Xtr, ytr = sample(20000)
Xva, yva = sample(4000)

class SMDHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(32, 128), nn.LeakyReLU(0.1), nn.Linear(128, 128),
                                 nn.LeakyReLU(0.1), nn.Linear(128, 5))
    def forward(self, x):
        o = self.mlp(x)
        mu0, mu1 = torch.sigmoid(o[:, 0]), torch.sigmoid(o[:, 1])
        s0, s1 = F.softplus(o[:, 2]) + 1e-3, F.softplus(o[:, 3]) + 1e-3
        w0 = torch.sigmoid(o[:, 4])
        return mu0, mu1, s0, s1, w0, 1 - w0

model = SMDHead()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
bs, step = 256, 0
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_epe"])
    for epoch in range(12):
        p = torch.randperm(len(ytr))
        for i in range(0, len(p), bs):
            idx = p[i:i + bs]
            out = model(Xtr[idx])
            loss = bimodal_loss(*out, ytr[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 20 == 0:
                w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            mu0, mu1, s0, s1, w0, w1 = model(Xva)
            vl = bimodal_loss(mu0, mu1, s0, s1, w0, w1, yva).mean().item()
            pred = torch.where(w0 > w1, mu0, mu1)
            epe = (pred - yva).abs().mean().item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}", f"{epe:.4f}"])
        fh.flush()
        print(f"Epoch {epoch}: train loss {loss.item():.4f}  val loss {vl:.4f}  val EPE {epe:.4f}")
