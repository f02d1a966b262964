# CADA-VAE-style aligned VAEs (image features + class attributes) with warm-up schedules for KL, distribution alignment and cross-reconstruction
import csv
import torch
import torch.nn as nn

torch.manual_seed(1)
torch.set_num_threads(1)

C, DX, DA, Z = 40, 128, 24, 12
g = torch.Generator().manual_seed(3)
attr = torch.randn(C, DA, generator=g)
proj = torch.randn(DA, DX, generator=g) / DA ** 0.5
y = torch.randint(0, C, (4000,), generator=g)
feats = torch.relu(attr[y] @ proj + 0.4 * torch.randn(4000, DX, generator=g))
atts = attr[y]


class Enc(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, 2 * Z))

    def forward(self, x):
        mu, logvar = self.net(x).chunk(2, 1)
        return mu, logvar


enc_x, enc_a = Enc(DX), Enc(DA)
dec_x = nn.Sequential(nn.Linear(Z, 256), nn.ReLU(), nn.Linear(256, DX))
dec_a = nn.Sequential(nn.Linear(Z, 256), nn.ReLU(), nn.Linear(256, DA))
params = [p for m in (enc_x, enc_a, dec_x, dec_a) for p in m.parameters()]
opt = torch.optim.Adam(params, lr=1.5e-4, amsgrad=True)
warmup = {"cross_reconstruction": (21, 75, 2.37), "beta": (0, 93, 0.25), "distance": (6, 22, 8.13)}


def factor(name, epoch):
    s, e, f = warmup[name]
    return min(max(0.0, (epoch - s) / (e - s)), 1.0) * f


def rep(mu, logvar):
    return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "reconstruction", "cross_reconstruction", "distance", "KLD"])
    step = 0
    for epoch in range(40):
        fc, fb, fd = factor("cross_reconstruction", epoch), factor("beta", epoch), factor("distance", epoch)
        perm = torch.randperm(4000)
        sums = torch.zeros(5)
        for i in range(0, 4000, 50):
            b = perm[i:i + 50]
            x, a = feats[b], atts[b]
            mx, lx = enc_x(x)
            ma, la = enc_a(a)
            zx, za = rep(mx, lx), rep(ma, la)
            rec = ((dec_x(zx) - x).abs().sum(1) + (dec_a(za) - a).abs().sum(1)).mean()
            cross = ((dec_x(za) - x).abs().sum(1) + (dec_a(zx) - a).abs().sum(1)).mean()
            kld = (0.5 * (1 + lx - mx ** 2 - lx.exp()).sum(1) + 0.5 * (1 + la - ma ** 2 - la.exp()).sum(1)).mean() * -1
            dist = torch.sqrt(((mx - ma) ** 2).sum(1) + ((torch.exp(0.5 * lx) - torch.exp(0.5 * la)) ** 2).sum(1)).mean()
            loss = rec + fb * kld
            if fc > 0:
                loss = loss + fc * cross
            if fd > 0:
                loss = loss + fd * dist
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            sums += torch.tensor([loss.item(), rec.item(), cross.item(), dist.item(), kld.item()])
            w.writerow([step, epoch, f"{loss.item():.3f}", f"{rec.item():.3f}", f"{cross.item():.3f}", f"{dist.item():.3f}", f"{kld.item():.3f}"])
        m = sums / 80
        print(f"epoch {epoch:2d} | loss {m[0]:8.2f} | reconstruction {m[1]:7.2f} | cross_reconstruction {m[2]:7.2f} "
              f"| distance {m[3]:5.2f} | KLD {m[4]:6.2f} | factors cr={fc:.2f} beta={fb:.3f} dist={fd:.2f}")
