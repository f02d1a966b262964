"""Small CNN on synthetic 16x16 "stripes" images (4 orientation classes)."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SEED = 0
IMG_SIZE = 16
N_CLASSES = 4
N_TRAIN = 2000
N_VAL = 500
NOISE = 1.5
LR = 0.05
MOMENTUM = 0.9
WEIGHT_DECAY = 0.0005
BATCH_SIZE = 32
EPOCHS = 8
LOG_EVERY = 20

torch.set_num_threads(1)
torch.manual_seed(SEED)


class StripesDataset(Dataset):
    """Noisy sinusoidal gratings; the class is the orientation."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, N_CLASSES, (n,), generator=g)
        coords = torch.arange(IMG_SIZE, dtype=torch.float32)
        rows, cols = coords[:, None], coords[None, :]
        images = torch.empty(n, 1, IMG_SIZE, IMG_SIZE)
        for i in range(n):
            c = int(self.labels[i])
            freq = 0.5 + 0.5 * torch.rand(1, generator=g).item()
            phase = 2 * math.pi * torch.rand(1, generator=g).item()
            grid = [cols + 0 * rows, rows + 0 * cols, rows + cols, rows - cols][c]
            images[i, 0] = torch.sin(freq * grid + phase)
        images += NOISE * torch.randn(images.shape, generator=g)
        self.images = images

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]


train_ds = StripesDataset(N_TRAIN, seed=SEED)
val_ds = StripesDataset(N_VAL, seed=SEED + 1)
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=250)
steps_per_epoch = len(train_loader)
val_steps = len(val_loader)


class SmallCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


model = SmallCNN(N_CLASSES)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)  # halve the lr every 10 epochs

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def evaluate(loader):
    model.eval()
    loss_sum, correct, total = 0.0, 0, 0
    for images, labels in loader:
        out = model(images)
        loss_sum += criterion(out, labels).item() * len(labels)
        correct += (out.argmax(1) == labels).sum().item()
        total += len(labels)
    return loss_sum / total, correct / total


global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    for step, (images, labels) in enumerate(train_loader, 1):
        outputs = model(images)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        scheduler.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(labels)
        run_correct += (outputs.argmax(1) == labels).sum().item()
        run_n += len(labels)
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate(val_loader)
    t_epoch = time.time() - t0
    print(f"Epoch {epoch:02d}/{EPOCHS} - Train Loss: {train_loss:.4f}, Train Acc: {100 * train_metric:.2f}% "
          f"- Val Loss: {val_loss:.4f}, Val Acc: {100 * val_metric:.2f}%")
