"""1-D CNN that detects which of 5 motifs is embedded in a noisy signal."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(21)
rng = np.random.default_rng(21)

N_MOTIFS, LENGTH, MOTIF_LEN = 5, 64, 9
motifs = rng.normal(size=(N_MOTIFS, MOTIF_LEN)) * 1.5


def synth(n):
    x = rng.normal(0, 0.5, size=(n, 1, LENGTH)).astype(np.float32)
    y = rng.integers(0, N_MOTIFS, n)
    starts = rng.integers(0, LENGTH - MOTIF_LEN, n)
    for i in range(n):
        x[i, 0, starts[i]:starts[i] + MOTIF_LEN] += motifs[y[i]]
    return torch.from_numpy(x), torch.from_numpy(y)


class MotifNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 32, 9, padding=4), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
        )
        self.fc = nn.Linear(32, N_MOTIFS)

    def forward(self, x):
        return self.fc(self.conv(x).amax(dim=2))


xtr, ytr = synth(2400)
xva, yva = synth(600)
train_dl = DataLoader(TensorDataset(xtr, ytr), batch_size=32, shuffle=True)

model = MotifNet()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-6, alpha=0.99)
loss_fn = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as out:
    log = csv.writer(out)
    log.writerow(["epoch", "step", "train_loss", "val_loss", "val_accuracy", "step_time"])
    step = 0
    for epoch in range(5):
        model.train()
        t_epoch = time.perf_counter()
        run = []
        for xb, yb in train_dl:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            run.append(loss.item())
            step += 1
        step_time = (time.perf_counter() - t_epoch) / len(train_dl)
        model.eval()
        with torch.no_grad():
            logits = model(xva)
            vloss = loss_fn(logits, yva).item()
            vacc = (logits.argmax(1) == yva).float().mean().item()
        log.writerow([epoch, step, f"{np.mean(run):.5f}", f"{vloss:.5f}", f"{vacc:.4f}", f"{step_time:.5f}"])
        print(f"epoch {epoch}: train {np.mean(run):.4f}  val {vloss:.4f}  acc {vacc:.3f}")
