"""Support-ticket auto-tagger: 48-d text embeddings (pre-computed) -> 6 independent tags, MLP with sigmoid outputs."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(94)
rng = np.random.default_rng(94)

DIM = 48
TAGS = ["billing", "login", "bug", "refund", "shipping", "urgent"]
TAG_PRIOR = 0.05          # roughly how often a tag is present

# each tag fires when a ticket is close to one of a few "topic" directions in embedding space
centres = rng.normal(size=(len(TAGS), 3, DIM))
centres /= np.linalg.norm(centres, axis=-1, keepdims=True)


def tickets(n):
    x = rng.normal(size=(n, DIM))
    # pull some tickets towards a topic centre so that tags are learnable
    for i in range(n):
        if rng.random() < 0.35:
            k, j = rng.integers(len(TAGS)), rng.integers(3)
            x[i] += rng.uniform(2.0, 4.0) * centres[k, j] * math.sqrt(DIM) / 4
    x = (x - x.mean(0)) / x.std(0)
    score = np.einsum("nd,kjd->nkj", x, centres).max(-1)
    y = (score > 2.2).astype(np.float32)
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


x_tr, y_tr = tickets(3000)
x_va, y_va = tickets(800)
print("tag prevalence (train):", np.round(y_tr.mean(0).numpy(), 3))


class Tagger(nn.Module):
    def __init__(self, d_in=DIM, hidden=128, n_tags=len(TAGS)):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_tags),
        )

    def forward(self, x):
        return self.net(x)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        # start from the tag prior so early batches are not dominated by the easy negatives
        nn.init.constant_(m.bias, -math.log((1 - TAG_PRIOR) / TAG_PRIOR))


def micro_f1(logits, y):
    pred = (logits > 0).float()
    tp = (pred * y).sum()
    return (2 * tp / (pred.sum() + y.sum()).clamp(min=1)).item()


model = Tagger()
model.apply(init_weights)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.BCEWithLogitsLoss()
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=64, shuffle=True)

with open("metrics.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["epoch", "train_loss", "val_loss", "val_micro_f1", "lr"])
    for epoch in range(8):
        model.train()
        running, n = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            running += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            vlogits = model(x_va)
            val_loss = loss_fn(vlogits, y_va).item()
            f1 = micro_f1(vlogits, y_va)
        writer.writerow([epoch, f"{running / n:.5f}", f"{val_loss:.5f}", f"{f1:.4f}", opt.param_groups[0]["lr"]])
        print(f"epoch {epoch}: train {running / n:.4f}  val {val_loss:.4f}  micro-F1 {f1:.3f}")
