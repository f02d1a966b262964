# Urban sound tagging: each 10 s clip can contain several sound events at once.
# Input: 48 log-mel band energies averaged over the clip; output: one score per event tag.
import csv

import numpy as np
import torch
from torch import nn

torch.manual_seed(105)
rng = np.random.default_rng(105)

TAGS = ["car_horn", "siren", "dog_bark", "drilling", "engine_idle", "jackhammer", "children", "street_music"]
N_BANDS = 48
n_tags = len(TAGS)

# every tag has a characteristic spectral envelope
band = np.arange(N_BANDS)
centres = rng.uniform(4, 44, n_tags)
widths = rng.uniform(2, 7, n_tags)
envelopes = np.exp(-0.5 * ((band[None, :] - centres[:, None]) / widths[:, None]) ** 2)


def record_clips(n):
    present = (rng.random((n, n_tags)) < 0.22).astype(np.float32)
    empty = present.sum(1) == 0
    present[empty, rng.integers(0, n_tags, empty.sum())] = 1.0
    loudness = rng.uniform(0.6, 1.4, (n, n_tags)) * present
    energy = loudness @ envelopes + 0.2                     # background noise floor
    energy *= rng.lognormal(0, 0.15, energy.shape)
    feats = np.log(energy).astype(np.float32)
    return feats, present


X_tr, Y_tr = record_clips(4000)
X_va, Y_va = record_clips(1000)
mean, std = X_tr.mean(0), X_tr.std(0)
X_tr = torch.tensor((X_tr - mean) / std)
X_va = torch.tensor((X_va - mean) / std)
Y_tr = torch.tensor(Y_tr)
Y_va = torch.tensor(Y_va)
print("clips:", len(X_tr), "train /", len(X_va), "val; mean tags per clip:", round(Y_tr.sum(1).mean().item(), 2))

model = nn.Sequential(
    nn.Linear(N_BANDS, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, n_tags),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)


def f1_scores(logits, targets):
    pred = (torch.sigmoid(logits) > 0.5).float()
    tp = (pred * targets).sum().item()
    fp = (pred * (1 - targets)).sum().item()
    fn = ((1 - pred) * targets).sum().item()
    micro = 2 * tp / max(2 * tp + fp + fn, 1)
    exact = (pred == targets).all(1).float().mean().item()
    return micro, exact


batch_size = 64
epochs = 12
with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "steps", "train_loss", "val_loss", "val_micro_f1", "val_exact_match"])
    steps = 0
    for epoch in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(len(X_tr))
        total = 0.0
        for i in range(0, len(perm), batch_size):
            idx = perm[i:i + batch_size]
            logits = model(X_tr[idx])
            loss = criterion(logits, Y_tr[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
            steps += 1
        model.eval()
        with torch.no_grad():
            val_logits = model(X_va)
            val_loss = criterion(val_logits, Y_va).item()
            micro, exact = f1_scores(val_logits, Y_va)
        train_loss = total / len(X_tr)
        w.writerow([epoch, steps, round(train_loss, 5), round(val_loss, 5), round(micro, 4), round(exact, 4)])
        print(f"epoch {epoch} ({steps} steps): train_loss={train_loss:.4f} val_loss={val_loss:.4f} "
              f"micro_f1={micro:.3f} exact_match={exact:.3f}")
