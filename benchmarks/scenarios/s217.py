# MSCNN crowd counting (multi-scale blob convs, 1x1 density output),
# MSE on density maps, Adam (Keras defaults)
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

S = 32
g = torch.Generator().manual_seed(1)
yy, xx = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing="ij")
def make(n):
    imgs, dens = [], []
    for _ in range(n):
        k = int(torch.randint(2, 25, (1,), generator=g))
        pts = torch.rand(k, 2, generator=g) * (S - 1)
        d = torch.zeros(S, S)
        for (py, px) in pts:
            d += torch.exp(-((yy - py) ** 2 + (xx - px) ** 2) / (2 * 1.5 ** 2)) / (2 * 3.1416 * 1.5 ** 2)
        img = 0.3 * torch.rand(3, S, S, generator=g) + d.unsqueeze(0) * torch.tensor([3.0, 2.0, 1.0]).view(3, 1, 1)
        imgs.append(img * 255.0)
        dens.append(d.unsqueeze(0))
    return torch.stack(imgs), torch.stack(dens)

Xtr, Dtr = make(400)
Xva, Dva = make(100)

class MSB(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.b = nn.ModuleList([nn.Conv2d(cin, cout, k, padding=k // 2) for k in (3, 5, 7)])
    def forward(self, x):
        return F.relu(torch.cat([c(x) for c in self.b], 1))

class MSCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 9, padding=4)
        self.m1 = MSB(32, 16)
        self.m2 = MSB(48, 16)
        self.c2 = nn.Conv2d(48, 32, 1)
        self.out = nn.Conv2d(32, 1, 1)
    def forward(self, x):
        x = F.relu(self.c1(x))
        x = self.m1(x)
        x = self.m2(x)
        x = F.relu(self.c2(x))
        return F.relu(self.out(x))

model = MSCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
bs, step = 16, 0
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_mae", "zero_output_frac"])
    for epoch in range(10):
        model.train()
        p = torch.randperm(len(Xtr))
        for i in range(0, len(p), bs):
            idx = p[i:i + bs]
            pred = model(Xtr[idx])
            loss = F.mse_loss(pred, Dtr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.3e}", "", "", ""])
        model.eval()
        with torch.no_grad():
            pv = model(Xva)
            vl = F.mse_loss(pv, Dva).item()
            mae = (pv.sum((1, 2, 3)) - Dva.sum((1, 2, 3))).abs().mean().item()
            zf = (pv == 0).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.3e}", f"{vl:.3e}", f"{mae:.3f}", f"{zf:.3f}"])
        fh.flush()
        print(f"Epoch {epoch + 1}/10 - loss: {loss.item():.4e} - val_loss: {vl:.4e} - val_mae: {mae:.3f} - pred==0: {zf:.3f}")
