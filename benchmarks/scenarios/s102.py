# Cell morphology classifier for 16x16 fluorescence crops (round / ring / elongated / budding / clustered).
import csv
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(102)
rng = np.random.default_rng(102)

CLASSES = ["round", "ring", "elongated", "budding", "clustered"]
SIZE = 16
yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)


def blob(cx, cy, rx, ry, angle=0.0):
    c, s = np.cos(angle), np.sin(angle)
    dx, dy = xx - cx, yy - cy
    u, v = c * dx + s * dy, -s * dx + c * dy
    return np.exp(-((u / rx) ** 2 + (v / ry) ** 2))


def render(label):
    cx, cy = rng.uniform(5.5, 10.5, 2)
    r = rng.uniform(2.5, 3.5)
    if label == 0:
        img = blob(cx, cy, r, r)
    elif label == 1:
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
        img = np.exp(-((d - r) / 0.9) ** 2)
    elif label == 2:
        img = blob(cx, cy, r * 1.8, r * 0.55, rng.uniform(0, np.pi))
    elif label == 3:
        a = np.arctan2(7.5 - cy, 7.5 - cx) + rng.uniform(-1.0, 1.0)   # bud grows towards the crop centre
        img = blob(cx, cy, r, r) + blob(cx + 1.5 * r * np.cos(a), cy + 1.5 * r * np.sin(a), r * 0.6, r * 0.6)
    else:
        img = sum(blob(cx + rng.normal(0, 2.5), cy + rng.normal(0, 2.5), 1.2, 1.2) for _ in range(4))
    img = img * rng.uniform(0.7, 1.3) + rng.normal(0, 0.15, img.shape)
    return img.astype(np.float32)


def make_split(n):
    labels = rng.integers(0, len(CLASSES), n)
    imgs = np.stack([render(l) for l in labels])[:, None]
    return torch.from_numpy(imgs), torch.from_numpy(labels).long()


x_train, y_train = make_split(2400)
x_val, y_val = make_split(600)
m, s = x_train.mean(), x_train.std()
x_train, x_val = (x_train - m) / s, (x_val - m) / s

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=48, shuffle=True, drop_last=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=200)


class CellNet(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 12, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(12)
        self.conv2 = nn.Conv2d(12, 24, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(24)
        self.drop = nn.Dropout(0.3)
        self.fc1 = nn.Linear(24 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


def evaluate(model, loader, criterion):
    model.eval()
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            total += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return total / n, correct / n


model = CellNet(len(CLASSES))
criterion = nn.CrossEntropyLoss()
EPOCHS = 8
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, epochs=EPOCHS,
                                                steps_per_epoch=len(train_loader))

fh = open("metrics.csv", "w", newline="")
writer = csv.writer(fh)
writer.writerow(["epoch", "step", "lr", "train_loss", "train_acc", "val_loss", "val_acc", "epoch_time_s"])
step = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    run_loss, run_correct, seen = 0.0, 0, 0
    for xb, yb in train_loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        step += 1
        run_loss += loss.item() * len(yb)
        run_correct += (logits.argmax(1) == yb).sum().item()
        seen += len(yb)
    val_loss, val_acc = evaluate(model, val_loader, criterion)
    lr = scheduler.get_last_lr()[0]
    writer.writerow([epoch, step, f"{lr:.5f}", f"{run_loss / seen:.4f}", f"{run_correct / seen:.4f}",
                     f"{val_loss:.4f}", f"{val_acc:.4f}", f"{time.time() - t0:.2f}"])
    fh.flush()
    print(f"[{epoch}/{EPOCHS}] step {step} lr {lr:.4f} | train loss {run_loss / seen:.4f} acc {run_correct / seen:.3f}"
          f" | val loss {val_loss:.4f} acc {val_acc:.3f}")
fh.close()
