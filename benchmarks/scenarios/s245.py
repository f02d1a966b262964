# Per-site mutability model for antibody-like nucleotide sequences (netam-style, in miniature):
# a 1-D CNN over one-hot sequences (length 80) predicts the per-site log mutation rate that was
# estimated from a large repertoire (small estimation noise). MSE loss, Adam lr 0.02 held constant
# for 60 epochs, batch 32.
# (A ReduceLROnPlateau scheduler is configured in the original code but only used for early stopping.)
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

L, N = 80, 3000
g = torch.Generator().manual_seed(5)
seqs = torch.randint(0, 4, (N, L), generator=g)
X = F.one_hot(seqs, 4).float().transpose(1, 2)           # (N, 4, L)
true_k = torch.randn(1, 4, 5, generator=g) * 0.8
with torch.no_grad():
    log_rate = F.conv1d(X, true_k, padding=2).squeeze(1) - 1.0
    Y = log_rate + 0.01 * torch.randn(log_rate.shape, generator=g)
ds = TensorDataset(X[:2400], Y[:2400])
Xv, Yv = X[2400:], Y[2400:]
loader = DataLoader(ds, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(6))

model = nn.Sequential(nn.Conv1d(4, 32, 5, padding=2), nn.ReLU(), nn.Conv1d(32, 32, 1), nn.ReLU(), nn.Conv1d(32, 1, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.02)

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "val_loss", "lr"])
    for epoch in range(1, 61):
        tot = 0.0
        for xb, yb in loader:
            loss = F.mse_loss(model(xb).squeeze(1), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item() * len(xb)
        with torch.no_grad():
            vl = F.mse_loss(model(Xv).squeeze(1), Yv).item()
        lr = opt.param_groups[0]["lr"]
        print(f"epoch {epoch:3d} train_loss {tot/2400:.5f} val_loss {vl:.5f} lr {lr:g}")
        wr.writerow([epoch, f"{tot/2400:.5f}", f"{vl:.5f}", lr])
        fh.flush()
