# LeNet-5 (LeCun et al., 1998: tanh convolutions, average-pool subsampling, 120-84-10 classifier) on synthetic
# 28x28 "glyph" digits: ten fixed stroke glyphs, each sample randomly shifted, thickened, re-weighted and
# corrupted by noise and a stray stroke. SGD with momentum, cross-entropy.
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

SEED = 1
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_TRAIN, N_VAL = 1500, 1000
BATCH_SIZE = 64
LR = 0.05
MOMENTUM = 0.9
EPOCHS = 30
ACT = nn.Tanh

rng = np.random.RandomState(SEED)


def stroke(img, p0, p1, w=1.0):
    for t in np.linspace(0, 1, 40):
        x, y = p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1])
        xi, yi = int(round(x)), int(round(y))
        img[max(yi - 1, 0):yi + 1, max(xi - 1, 0):xi + 1] = w


GLYPHS = []
for c in range(10):
    g = np.zeros((28, 28), dtype=np.float32)
    pts = rng.randint(6, 22, size=(4, 2))
    for a, b in zip(pts[:-1], pts[1:]):
        stroke(g, a, b)
    GLYPHS.append(g)


def make_set(n):
    y = rng.randint(0, 10, size=n)
    x = np.zeros((n, 1, 28, 28), dtype=np.float32)
    for i, c in enumerate(y):
        img = np.roll(GLYPHS[c], (rng.randint(-3, 4), rng.randint(-3, 4)), axis=(0, 1))
        if rng.rand() < 0.5:
            img = np.maximum(img, np.roll(img, 1, axis=rng.randint(2)))
        img = img * rng.uniform(0.5, 1.0)
        stray = np.zeros((28, 28), dtype=np.float32)
        stroke(stray, rng.randint(0, 28, 2), rng.randint(0, 28, 2), w=rng.uniform(0.3, 0.8))
        x[i, 0] = np.clip(np.maximum(img, stray) + rng.randn(28, 28) * 0.25, 0, 1)
    x = (x - 0.12) / 0.3
    return torch.tensor(x), torch.tensor(y)


train_x, train_y = make_set(N_TRAIN)
val_x, val_y = make_set(N_VAL)
noisy = torch.rand(N_TRAIN) < 0.4
train_y[noisy] = torch.randint(0, 10, (int(noisy.sum()),))


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, kernel_size=5, padding=2), ACT(), nn.AvgPool2d(2, 2),
            nn.Conv2d(6, 16, kernel_size=5), ACT(), nn.AvgPool2d(2, 2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), ACT(), nn.Linear(120, 84), ACT(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


model = LeNet5()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
n_batches = (N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE


def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
        loss = F.cross_entropy(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    return loss, acc


for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(N_TRAIN)
    t0 = time.time()
    for it in range(n_batches):
        idx = perm[it * BATCH_SIZE:(it + 1) * BATCH_SIZE]
        out = model(train_x[idx])
        loss = F.cross_entropy(out, train_y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (it + 1) % 20 == 0:
            print(f"Epoch[{epoch + 1}] Iteration[{it + 1}/{n_batches}] Loss: {loss.item():.2f}")
    tr_loss, tr_acc = evaluate(train_x, train_y)
    print(f"Training Results - Epoch: {epoch + 1}  Avg accuracy: {tr_acc:.2f} Avg loss: {tr_loss:.2f}")
    val_loss, val_acc = evaluate(val_x, val_y)
    print(f"Validation Results - Epoch: {epoch + 1}  Avg accuracy: {val_acc:.2f} Avg loss: {val_loss:.2f}")
