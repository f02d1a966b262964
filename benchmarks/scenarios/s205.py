# DDPM on a 2-D eight-Gaussian toy dataset: MLP noise predictor, epsilon-MSE loss, periodic sample-quality eval
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(286)
torch.set_num_threads(1)

T = 100
betas = torch.linspace(1e-4, 0.05, T)
alphas = 1 - betas
abar = torch.cumprod(alphas, 0)


def sample_data(n, gen=None):
    k = torch.randint(0, 8, (n,), generator=gen)
    ang = k.float() * (2 * math.pi / 8)
    return torch.stack([2 * torch.cos(ang), 2 * torch.sin(ang)], 1) + 0.08 * torch.randn(n, 2, generator=gen)


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(), nn.Linear(128, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, (t.float() / T).unsqueeze(1)], 1))


@torch.no_grad()
def sample(model, n):
    x = torch.randn(n, 2)
    for t in reversed(range(T)):
        eps = model(x, torch.full((n,), t))
        x = (x - betas[t] / torch.sqrt(1 - abar[t]) * eps) / torch.sqrt(alphas[t])
        if t > 0:
            x = x + torch.sqrt(betas[t]) * torch.randn_like(x)
    return x


def sliced_wasserstein(a, b, n_proj=64):
    d = torch.nn.functional.normalize(torch.randn(2, n_proj), dim=0)
    pa, pb = torch.sort(a @ d, 0)[0], torch.sort(b @ d, 0)[0]
    return (pa - pb).abs().mean().item()


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ref = sample_data(1000, torch.Generator().manual_seed(1))
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "eval_swd"])
    run_loss = 0.0
    for step in range(1, 4001):
        x0 = sample_data(256)
        t = torch.randint(0, T, (256,))
        eps = torch.randn_like(x0)
        xt = torch.sqrt(abar[t]).unsqueeze(1) * x0 + torch.sqrt(1 - abar[t]).unsqueeze(1) * eps
        loss = ((model(xt, t) - eps) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        run_loss += loss.item()
        swd = ""
        if step % 500 == 0:
            torch.manual_seed(step)
            swd = f"{sliced_wasserstein(sample(model, 1000), ref):.4f}"
            print(f"step {step:5d} | loss {run_loss / 500:.4f} | sample SWD to data {swd}")
            run_loss = 0.0
        w.writerow([step, f"{loss.item():.4f}", swd])
