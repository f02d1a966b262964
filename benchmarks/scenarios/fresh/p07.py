"""Multi-label tagging of product records (6 independent tags) with an MLP."""
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(7)
rng = np.random.default_rng(7)
N_FEAT, N_TAGS = 32, 6


def make(n, W, b):
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    z = np.tanh(x @ W[0]) @ W[1] + b
    y = (z + rng.normal(0, 0.3, z.shape) > 0).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


W = (rng.normal(size=(N_FEAT, 24)) / np.sqrt(N_FEAT), rng.normal(size=(24, N_TAGS)) / 2)
b = rng.normal(0, 0.5, N_TAGS)
xtr, ytr = make(4000, W, b)
xva, yva = make(800, W, b)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(N_FEAT, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.out = nn.Linear(128, N_TAGS)

    def forward(self, x):
        return torch.sigmoid(self.out(self.body(x)))


model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.BCEWithLogitsLoss()
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)

step = 0
with open("metrics.jsonl", "w") as f:
    for epoch in range(12):
        model.train()
        for xb, yb in dl:
            probs = model(xb)
            loss = crit(probs, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 20 == 0:
                f.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5)}) + "\n")
        model.eval()
        with torch.no_grad():
            pv = model(xva)
            vl = crit(pv, yva).item()
            acc = ((pv > 0.5).float() == yva).float().mean().item()
        f.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                            "val_loss": round(vl, 5), "val_accuracy": round(acc, 4)}) + "\n")
        print(f"epoch {epoch:2d}  loss {loss.item():.4f}  val_loss {vl:.4f}  val_tag_acc {acc:.3f}")
