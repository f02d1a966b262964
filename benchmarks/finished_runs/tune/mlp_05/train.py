"""Tabular classification: 3-class MLP on synthetic features (teacher network labels)."""
import numpy as np
import torch
import torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
N_FEATURES = 20
N_CLASSES = 3
N_TRAIN = 4000
N_VAL = 1000
HIDDEN = 128
DROPOUT = 0.1
LR = 0.001
WEIGHT_DECAY = 0.0
BATCH_SIZE = 64
EPOCHS = 12
LOG_EVERY = 20

torch.set_num_threads(1)
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

# ---- synthetic tabular data: labels come from a random "teacher" network
W_teacher = rng.normal(size=(N_FEATURES, 6))
V_teacher = rng.normal(size=(6, N_CLASSES))


def make_split(n):
    x = rng.normal(size=(n, N_FEATURES))
    h = np.tanh(x @ W_teacher)
    y = (h @ V_teacher).argmax(axis=1)
    return x.astype(np.float32), y.astype(np.int64)


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)

mean, std = x_train.mean(axis=0), x_train.std(axis=0)
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std

train_ds = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
val_ds = TensorDataset(torch.from_numpy(x_val), torch.from_numpy(y_val))
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(d_hidden, d_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(d_hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = MLP(N_FEATURES, HIDDEN, N_CLASSES, DROPOUT)
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
# reuse the hidden layers as a fixed feature extractor; only the output layer is tuned
for layer in list(lit_model.model.net)[:-1]:
    for p in layer.parameters():
        p.requires_grad = False

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
