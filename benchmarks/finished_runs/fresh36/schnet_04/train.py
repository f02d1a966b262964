# SchNet-style continuous-filter convolution network for molecular energies on synthetic "molecules":
# 9 atoms of 4 elements in a box, energy = per-element reference energies + a Morse-like pair potential.
# Atom embeddings -> 3 interaction blocks (RBF-expanded distances -> filter network -> cfconv) -> atomwise MLP -> sum.
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import json

SEED = 5
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_ATOMS, N_ELEM = 9, 4
N_TRAIN, N_VAL = 3000, 600
CUTOFF, N_RBF = 5.0, 25
FEAT = 32
with open("config.json") as f:
    cfg = json.load(f)
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["max_epochs"]
LR = cfg["optimizer"]["lr"]
WEIGHT_DECAY = cfg["optimizer"]["weight_decay"]
BETAS = tuple(cfg["optimizer"]["betas"])
print("loaded config.json:", cfg)


def make_mols(n, rng):
    Z = rng.randint(0, N_ELEM, size=(n, N_ATOMS))
    R = rng.uniform(0, 5.5, size=(n, N_ATOMS, 3))
    ref = np.array([-37.8, -54.6, -75.1, -0.5])
    De = np.array([4.0, 3.0, 2.0, 1.0])
    r0 = np.array([1.2, 1.4, 1.6, 1.0])
    E = np.zeros(n)
    for m in range(n):
        d = np.linalg.norm(R[m][:, None] - R[m][None], axis=-1)
        for i in range(N_ATOMS):
            E[m] += ref[Z[m, i]]
            for j in range(i + 1, N_ATOMS):
                de = math.sqrt(De[Z[m, i]] * De[Z[m, j]])
                rr = 0.5 * (r0[Z[m, i]] + r0[Z[m, j]])
                E[m] += de * ((1 - math.exp(-1.5 * (d[i, j] - rr))) ** 2 - 1) * (d[i, j] < CUTOFF)
    return Z, R.astype(np.float32), E.astype(np.float32)


rng = np.random.RandomState(SEED)
Z, R, E = make_mols(N_TRAIN + N_VAL, rng)
Z, R, E = torch.tensor(Z), torch.tensor(R), torch.tensor(E)
e_mean, e_std = E[:N_TRAIN].mean(), E[:N_TRAIN].std()


def shifted_softplus(x):
    return F.softplus(x) - math.log(2.0)


class Interaction(nn.Module):
    def __init__(self):
        super().__init__()
        self.filter = nn.Sequential(nn.Linear(N_RBF, FEAT), nn.Softplus(), nn.Linear(FEAT, FEAT))
        self.in2f = nn.Linear(FEAT, FEAT, bias=False)
        self.f2out = nn.Sequential(nn.Linear(FEAT, FEAT), nn.Softplus(), nn.Linear(FEAT, FEAT))

    def forward(self, x, rbf, d, mask):
        W = self.filter(rbf) * (0.5 * (torch.cos(d * math.pi / CUTOFF) + 1.0)).unsqueeze(-1)
        xj = self.in2f(x).unsqueeze(1)                           # (B, 1, N, F)
        agg = (W * xj * mask.unsqueeze(-1)).sum(2)               # cfconv: sum over neighbours j
        return x + self.f2out(agg)


class SchNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(N_ELEM, FEAT)
        self.register_buffer("mu", torch.linspace(0, CUTOFF, N_RBF))
        self.gamma = 10.0
        self.blocks = nn.ModuleList([Interaction() for _ in range(3)])
        self.atomwise = nn.Sequential(nn.Linear(FEAT, FEAT // 2), nn.Softplus(), nn.Linear(FEAT // 2, 1))

    def forward(self, z, r):
        d = torch.cdist(r, r)
        eye = torch.eye(N_ATOMS, dtype=torch.bool)
        mask = ((d < CUTOFF) & ~eye).float()
        rbf = torch.exp(-self.gamma * (d.unsqueeze(-1) - self.mu) ** 2)
        x = self.embed(z)
        for blk in self.blocks:
            x = blk(x, rbf, d, mask)
        return self.atomwise(x).squeeze(-1).sum(1)               # standardized energy


model = SchNet()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, betas=BETAS, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=3)


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(Z[i:i + 200], R[i:i + 200]) for i in range(N_TRAIN, N_TRAIN + N_VAL, 200)])
    model.train()
    tgt = (E[N_TRAIN:] - e_mean) / e_std
    return F.mse_loss(pred, tgt).item(), ((pred - tgt).abs().mean() * e_std).item()


steps = math.ceil(N_TRAIN / BATCH_SIZE)
t_start = time.time()
print("Time,Epoch,Learning rate,Train loss,Validation loss,MAE_energy")
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(N_TRAIN)
    tot, mae_sum = 0.0, 0.0
    for step in range(1, steps + 1):
        idx = perm[(step - 1) * BATCH_SIZE: step * BATCH_SIZE]
        tgt = (E[idx] - e_mean) / e_std
        optimizer.zero_grad()
        pred = model(Z[idx], R[idx])
        loss = F.mse_loss(pred, tgt)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        mae_sum += ((pred.detach() - tgt).abs().sum() * e_std).item()
    tr_loss, tr_mae = tot / N_TRAIN, mae_sum / N_TRAIN
    val_loss, val_mae = evaluate()
    scheduler.step(val_loss)
    print(f"{time.time() - t_start:.3f},{epoch},{optimizer.param_groups[0]['lr']:.6g},{tr_loss:.6f},{val_loss:.6f},{val_mae:.6f}")
