"""Sparse autoencoder with an L1 penalty on the code. Synthetic data: each 24-d sample is a sparse
non-negative combination of 3 of 48 random unit 'atoms' plus small noise. Encoder Linear(24,96)+ReLU,
decoder Linear(96,24) with unit-norm columns; loss = MSE(recon) + l1 * mean |code|. Reported: reconstruction
MSE, L0 (mean number of active code units) and dead units (never active on the validation set)."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, L1, BATCH, EPOCHS = 1e-5, 0.02, 64, 20


def log_start(n_params, n):
    print(f"Start training van sparse autoencoder ({n_params} parameters, {n} voorbeelden)")


def log_step(epoch, i, n, loss):
    pass


def log_epoch(epoch, tl, mse, l0, dead, el):
    print(f"Epoch {epoch:2d}: trainingsverlies = {tl:.4f}, validatie-MSE = {mse:.4f}, gemiddeld actieve eenheden = {l0:.1f}, dode eenheden = {dead}")


def log_end(mse, l0, dead):
    print(f"Klaar. Eind-MSE {mse:.4f}")


def make_data(n, gen):
    atoms = F.normalize(torch.randn(48, 24, generator=torch.Generator().manual_seed(7)), dim=1)
    idx = torch.stack([torch.randperm(48, generator=gen)[:3] for _ in range(n)])
    coef = torch.rand(n, 3, generator=gen) * 2 + 0.5
    x = (coef.unsqueeze(-1) * atoms[idx]).sum(1)
    return x + 0.05 * torch.randn(n, 24, generator=gen)


gen = torch.Generator().manual_seed(1)
x_train = make_data(3000, gen)
x_val = make_data(600, gen)
mu, sd = x_train.mean(0), x_train.std(0)
x_train, x_val = (x_train - mu) / sd, (x_val - mu) / sd


class SAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(24, 96)
        self.dec = nn.Linear(96, 24)

    def forward(self, x):
        h = F.relu(self.enc(x))
        return self.dec(h), h


model = SAE()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_batches = (len(x_train) + BATCH - 1) // BATCH
log_start(sum(p.numel() for p in model.parameters()), len(x_train))

t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(len(x_train))
    tot = 0.0
    for i in range(n_batches):
        xb = x_train[perm[i * BATCH:(i + 1) * BATCH]]
        recon, h = model(xb)
        loss = F.mse_loss(recon, xb) + L1 * h.abs().sum(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            model.dec.weight.data = F.normalize(model.dec.weight.data, dim=0)
        tot += loss.item()
        log_step(epoch, i + 1, n_batches, loss.item())
    with torch.no_grad():
        recon, h = model(x_val)
        mse = F.mse_loss(recon, x_val).item()
        l0 = (h > 0).float().sum(1).mean().item()
        dead = int(((h > 0).sum(0) == 0).sum().item())
    log_epoch(epoch, tot / n_batches, mse, l0, dead, time.time() - t0)
log_end(mse, l0, dead)
