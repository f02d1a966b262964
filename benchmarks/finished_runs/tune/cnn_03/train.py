"""Small CNN on synthetic 16x16 "stripes" images (4 orientation classes)."""
import math
import torch
import torch.nn as nn
import lightning as L
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SEED = 0
IMG_SIZE = 16
N_CLASSES = 4
N_TRAIN = 2000
N_VAL = 500
NOISE = 1.5
LR = 0.002
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


class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = SmallCNN(N_CLASSES)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.model(x)

    def _shared_step(self, batch):
        x, y = batch
        out = self(x)
        loss = self.criterion(out, y)
        metric = (out.argmax(dim=1) == y).float().mean()
        return loss, metric

    def training_step(self, batch, batch_idx):
        loss, metric = self._shared_step(batch)
        self.log("train_loss", loss, prog_bar=True, on_step=True, on_epoch=True)
        self.log("train_acc", metric, on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, metric = self._shared_step(batch)
        self.log("val_loss", loss, prog_bar=True)
        self.log("val_acc", metric, prog_bar=True)

    def on_train_epoch_end(self):
        m = self.trainer.callback_metrics
        print(f"\nEpoch {self.current_epoch}: train_loss={m['train_loss_epoch']:.4f} "
              f"val_loss={m['val_loss']:.4f} val_acc={m['val_acc']:.4f}")

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
        return optimizer


lit_model = LitModel()
trainer = L.Trainer(
    max_epochs=EPOCHS,
    accelerator="cpu",
    devices=1,
    logger=False,
    enable_checkpointing=False,
    log_every_n_steps=LOG_EVERY,
)
trainer.fit(lit_model, train_loader, val_loader)
print("best val_loss:", float(trainer.callback_metrics["val_loss"]))
