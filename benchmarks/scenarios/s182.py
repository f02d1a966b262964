# Linear regression (nn.Linear) on California-housing-like raw columns, mini-batch SGD
import csv
import torch
import torch.nn as nn

torch.manual_seed(2024)
torch.set_num_threads(1)

N = 8000
g = torch.Generator().manual_seed(4)
med_inc = torch.distributions.Gamma(4.0, 1.0).sample((N,)).clamp(0.5, 15)
house_age = torch.randint(1, 53, (N,), generator=g).float()
ave_rooms = 5 + torch.randn(N, generator=g)
ave_bedrms = 1 + 0.1 * torch.randn(N, generator=g)
population = torch.distributions.LogNormal(7.0, 0.7).sample((N,))     # ~300 .. 5000 people
ave_occup = 3 + 0.5 * torch.randn(N, generator=g)
lat = 32 + 10 * torch.rand(N, generator=g)
lon = -124 + 10 * torch.rand(N, generator=g)
X = torch.stack([med_inc, house_age, ave_rooms, ave_bedrms, population, ave_occup, lat, lon], 1)
y = (0.42 * med_inc + 0.01 * house_age - 0.1 * ave_rooms + 0.6 * ave_bedrms - 0.00004 * population
     - 0.004 * ave_occup - 0.4 * (lat - 36) - 0.4 * (lon + 119) + 0.3 * torch.randn(N, generator=g)).unsqueeze(1)

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
crit = nn.MSELoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "grad_norm"])
    step = 0
    for epoch in range(3):
        perm = torch.randperm(N)
        for i in range(0, N, 64):
            b = perm[i:i + 64]
            loss = crit(model(X[b]), y[b])
            opt.zero_grad()
            loss.backward()
            gn = torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.6g}", f"{gn:.6g}"])
            if step % 25 == 0 or step <= 10:
                print(f"epoch {epoch} step {step} loss {loss.item():.6g} grad_norm {gn:.4g}")
print("weights:", model.weight.data)
