# Bernoulli diffusion on binary sequences (sequence_length=256, T=20 forward flip steps);
# training objective = -log p_theta(x_{t-1} | x_t) (math_utils.bernoulli_likelihood)
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

sequence_length, T = 256, 20
betas = torch.linspace(0.01, 0.2, T)

def bernoulli_likelihood(x, p):
    probs = p * x + (1 - p) * (1 - x)
    return torch.prod(probs, dim=-1)

def forward_step(x, t):
    flip = torch.rand_like(x) < betas[t]
    return torch.where(flip, torch.bernoulli(torch.full_like(x, 0.5)), x)

g = torch.Generator().manual_seed(1)
motifs = (torch.rand(8, sequence_length, generator=g) < 0.5).float()
def sample_data(n):
    x = motifs[torch.randint(0, 8, (n,), generator=g)].clone()
    noise = torch.rand(n, sequence_length, generator=g) < 0.03
    x[noise] = 1 - x[noise]
    return x

class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.temb = nn.Embedding(T, 64)
        self.net = nn.Sequential(nn.Linear(sequence_length + 64, 512), nn.ReLU(),
                                 nn.Linear(512, sequence_length))
    def forward(self, x, t):
        return torch.sigmoid(self.net(torch.cat([x, self.temb(t)], 1)))

model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss"])
    for step in range(1, 401):
        x0 = sample_data(64)
        t = torch.randint(1, T, (64,))
        xprev = x0.clone()
        for k in range(int(t.max())):
            nxt = forward_step(xprev, k)
            xprev = torch.where((k < t).unsqueeze(1), nxt, xprev) if k < int(t.max()) - 1 else xprev
        xt = forward_step(xprev, int(t.max()) - 1)
        p = model(xt, t)
        loss = -torch.log(bernoulli_likelihood(xprev, p)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        w.writerow([step, f"{loss.item():.4f}"])
        fh.flush()
        if step % 20 == 0 or step <= 3:
            print(f"step {step}: loss {loss.item():.4f}")
