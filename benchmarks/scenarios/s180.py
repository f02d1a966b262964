# Tabular regression (categorical embeddings + continuous columns) trained in half precision
import csv
import torch
import torch.nn as nn

torch.manual_seed(1551)
torch.set_num_threads(1)

N = 5000
g = torch.Generator().manual_seed(2)
cat_a = torch.randint(0, 12, (N,), generator=g)          # e.g. neighbourhood
cat_b = torch.randint(0, 5, (N,), generator=g)           # e.g. building type
cont = torch.randn(N, 6, generator=g)                    # already normalised continuous columns
eff_a, eff_b = torch.randn(12, generator=g) * 40, torch.randn(5, generator=g) * 25
target = 300 + eff_a[cat_a] + eff_b[cat_b] + cont @ torch.tensor([30., -20., 15., 10., 0., 5.]) + 10 * torch.randn(N, generator=g)
target = target.unsqueeze(1)                              # price in $1000s


class TabularModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb_a, self.emb_b = nn.Embedding(12, 6), nn.Embedding(5, 3)
        self.bn = nn.BatchNorm1d(6)
        self.layers = nn.Sequential(nn.Linear(15, 200), nn.ReLU(), nn.Linear(200, 100), nn.ReLU(), nn.Linear(100, 1))

    def forward(self, a, b, x):
        return self.layers(torch.cat([self.emb_a(a), self.emb_b(b), self.bn(x)], 1))


model = TabularModel().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.MSELoss()
tr, va = torch.arange(0, 4000), torch.arange(4000, 5000)
cont_h, target_h = cont.half(), target.half()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "valid_loss"])
    step = 0
    for epoch in range(4):
        model.train()
        perm = tr[torch.randperm(len(tr))]
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            loss = crit(model(cat_a[b], cat_b[b], cont_h[b]), target_h[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", ""])
        model.eval()
        with torch.no_grad():
            vl = crit(model(cat_a[va], cat_b[va], cont_h[va]), target_h[va]).item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}"])
        print(f"epoch {epoch} train_loss {loss.item():.4f} valid_loss {vl:.4f}")
