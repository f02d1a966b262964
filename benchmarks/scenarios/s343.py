# Denoising diffusion (DDPM) in miniature with the linear learning-rate warm-up of a 3D-diffusion training script
# (lr = peak * step / warmup_steps for the first steps, then cosine decay): an MLP noise predictor (3 hidden layers of
# 256 SiLU units, sinusoidal time embedding) on a synthetic 2-D data set (8-arm pinwheel of 20000 points), 100 noise
# levels (linear beta 1e-3..0.2), epsilon-prediction MSE, Adam with peak lr 3e-3, warm-up over the first 1200
# steps, 3600 steps of batch 256. Prints the mean loss and the current learning rate every 200 steps and, every
# 600 steps, a sample-quality score (mean distance from 800 generated points to their nearest data point, lower is
# better; 0.0 would be perfect, the data scale is about 1), writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(343)


def pinwheel(n, arms=8):
    k = torch.randint(0, arms, (n,), generator=g).float()
    r = 0.3 + torch.rand(n, generator=g) * 0.9
    ang = 2 * math.pi * k / arms + 1.2 * r
    x = torch.stack([r * torch.cos(ang), r * torch.sin(ang)], 1)
    return x + 0.03 * torch.randn(n, 2, generator=g)


data = pinwheel(20000)
ref = data[:4000]
T = 100
betas = torch.linspace(1e-4, 0.02, T) * 10
alphas = 1 - betas
abar = torch.cumprod(alphas, 0)


class EpsNet(nn.Module):
    def __init__(self, h=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 + 32, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 2))

    def forward(self, x, t):
        f = torch.exp(-math.log(1000) * torch.arange(16) / 16)[None] * t[:, None].float()
        return self.net(torch.cat([x, torch.sin(f), torch.cos(f)], 1))


@torch.no_grad()
def sample_score(model, n=800):
    x = torch.randn(n, 2, generator=g)
    for t in reversed(range(T)):
        eps = model(x, torch.full((n,), t))
        x = (x - betas[t] / (1 - abar[t]).sqrt() * eps) / alphas[t].sqrt()
        if t > 0:
            x = x + betas[t].sqrt() * torch.randn(n, 2, generator=g)
    return torch.cdist(x, ref).min(1).values.mean().item()


model = EpsNet()
PEAK, WARM, STEPS = 3e-3, 1200, 3600
opt = torch.optim.Adam(model.parameters(), lr=0.0)
rows, window = [], []
for step in range(1, STEPS + 1):
    lr = PEAK * step / WARM if step <= WARM else PEAK * 0.5 * (1 + math.cos(math.pi * (step - WARM) / (STEPS - WARM)))
    for pg in opt.param_groups:
        pg['lr'] = lr
    x0 = data[torch.randint(0, len(data), (256,), generator=g)]
    t = torch.randint(0, T, (256,), generator=g)
    eps = torch.randn(256, 2, generator=g)
    xt = abar[t, None].sqrt() * x0 + (1 - abar[t, None]).sqrt() * eps
    loss = ((model(xt, t) - eps) ** 2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    window.append(loss.item())
    if step % 200 == 0:
        r = dict(step=step, loss=sum(window) / len(window), lr=lr, sample_nn_dist=float('nan'))
        msg = f"step {step:4d} | loss {r['loss']:.4f} | lr {lr:.2e}"
        if step % 600 == 0:
            r['sample_nn_dist'] = sample_score(model)
            msg += f" | sample NN distance {r['sample_nn_dist']:.4f}"
        print(msg)
        rows.append(r); window = []
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
