# Binary image classifier (cats vs dogs style) on 128-d pre-extracted image embeddings with a small
# MLP head (128-32-1, dropout 0.2). SGD lr 0.0005 momentum 0.9, weight decay 5e-4, batch 64, 30 epochs.
# Labels carry ~8% annotation noise.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(21)
D, NTR, NVA = 128, 24000, 2000
w1 = torch.randn(D, 16, generator=g) / D ** 0.5
w2 = torch.randn(16, generator=g)
def make(n):
    x = torch.randn(n, D, generator=g)
    s = torch.tanh(x @ w1) @ w2
    y = (s > 0).float()
    flip = torch.rand(n, generator=g) < 0.08
    y[flip] = 1 - y[flip]
    return x, y
xtr, ytr = make(NTR); xva, yva = make(NVA)
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(22))
model = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.0005, momentum=0.9, weight_decay=5e-4)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "val_loss", "val_acc", "val_precision", "val_recall"])
    for epoch in range(1, 31):
        model.train(); tl = 0.0
        for xb, yb in loader:
            loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb)
        model.eval()
        with torch.no_grad():
            lo = model(xva).squeeze(1); vl = F.binary_cross_entropy_with_logits(lo, yva).item()
            p = (lo > 0).float(); acc = (p == yva).float().mean().item()
            prec = ((p == 1) & (yva == 1)).sum().item() / max(1, (p == 1).sum().item())
            rec = ((p == 1) & (yva == 1)).sum().item() / max(1, (yva == 1).sum().item())
        print(f"Epoch {epoch}: train_loss {tl/NTR:.4f} val_loss {vl:.4f} val_acc {acc:.4f} precision {prec:.3f} recall {rec:.3f}")
        wr.writerow([epoch, f"{tl/NTR:.4f}", f"{vl:.4f}", f"{acc:.4f}", f"{prec:.4f}", f"{rec:.4f}"])
        fh.flush()
