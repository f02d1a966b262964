import csv

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

SEED = 4
NUM_CLASSES = 8
IMG = 16


class BlobImages(Dataset):
    """Each class puts a bright blob in its own region of the image."""

    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        angles = np.linspace(0, 2 * np.pi, NUM_CLASSES, endpoint=False)
        self.centers = np.stack([IMG / 2 + 5 * np.sin(angles), IMG / 2 + 5 * np.cos(angles)], 1)
        self.labels = rng.integers(0, NUM_CLASSES, n)
        yy, xx = np.mgrid[0:IMG, 0:IMG]
        self.images = np.empty((n, 1, IMG, IMG), np.float32)
        for i, c in enumerate(self.labels):
            cy, cx = self.centers[c] + rng.normal(0, 1.0, 2)
            blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 2.0 ** 2))
            self.images[i, 0] = blob + rng.normal(0, 0.3, (IMG, IMG))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), int(self.labels[idx])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, 64), nn.ReLU(),
            nn.Linear(64, NUM_CLASSES),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def run_epoch(model, loader, criterion, optimizer=None):
    training = optimizer is not None
    model.train(training)
    tot_loss, tot_correct, tot = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for images, labels in loader:
            probs = model(images)
            loss = criterion(probs, labels)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            tot_loss += loss.item() * labels.size(0)
            tot_correct += (probs.argmax(1) == labels).sum().item()
            tot += labels.size(0)
    return tot_loss / tot, tot_correct / tot


if __name__ == "__main__":
    torch.manual_seed(SEED)
    train_set, val_set = BlobImages(1200, SEED), BlobImages(300, SEED + 100)
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=100)

    model = Net()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    rows = []
    for epoch in range(8):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, optimizer)
        va_loss, va_acc = run_epoch(model, val_loader, criterion)
        rows.append(dict(epoch=epoch, train_loss=tr_loss, val_loss=va_loss, accuracy=tr_acc, val_accuracy=va_acc))
        print(f"epoch {epoch}: loss={tr_loss:.4f} acc={tr_acc:.3f} | val_loss={va_loss:.4f} val_acc={va_acc:.3f}")

    with open("metrics.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
