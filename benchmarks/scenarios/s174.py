# Molecular property regression (QM9-like): atoms -> per-atom MLP -> sum pooling -> property, L1 loss, Adam
import csv
import torch
import torch.nn as nn

torch.manual_seed(166)
torch.set_num_threads(1)

N_MOL, MAX_ATOMS, Z_TYPES = 4000, 12, 5
g = torch.Generator().manual_seed(0)
n_atoms = torch.randint(4, MAX_ATOMS + 1, (N_MOL,), generator=g)
z = torch.randint(0, Z_TYPES, (N_MOL, MAX_ATOMS), generator=g)
mask = (torch.arange(MAX_ATOMS).unsqueeze(0) < n_atoms.unsqueeze(1)).float()
pos = torch.randn(N_MOL, MAX_ATOMS, 3, generator=g)
atom_energy = torch.tensor([-0.5, -1.2, -2.0, -0.8, -1.6])
r = pos.norm(dim=-1)
y = ((atom_energy[z] + 0.3 * torch.exp(-r) - 0.1 * r) * mask).sum(1, keepdim=True)
y = y + 0.02 * torch.randn(y.shape, generator=g)
y_mean, y_std = y[:3200].mean(), y[:3200].std()
y = y / y_std


class AtomNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(Z_TYPES, 32)
        self.mlp = nn.Sequential(nn.Linear(32 + 3, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1))

    def forward(self, z, pos, mask):
        h = torch.cat([self.emb(z), pos], -1)
        return (self.mlp(h).squeeze(-1) * mask).sum(1, keepdim=True)


model = AtomNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
l1 = nn.L1Loss()
tr, va = torch.arange(0, 3200), torch.arange(3200, 4000)
BS = 8

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss"])
    step = 0
    for epoch in range(6):
        perm = tr[torch.randperm(len(tr))]
        for i in range(0, len(perm), BS):
            b = perm[i:i + BS]
            loss = l1(model(z[b], pos[b], mask[b]), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 50 == 0:
                with torch.no_grad():
                    vl = l1(model(z[va], pos[va], mask[va]), y[va]).item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}"])
            else:
                w.writerow([step, epoch, f"{loss.item():.5f}", ""])
            if step % 100 == 0:
                print(f"step {step:5d}  train_loss(batch) {loss.item():.4f}  val_loss {vl:.4f}")
