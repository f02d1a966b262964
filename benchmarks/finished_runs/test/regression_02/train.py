"""Regression MLP on a synthetic nonlinear function of 8 features."""
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L

SEED = 0
N_FEATURES = 8
N_TRAIN = 3000
N_VAL = 800
HIDDEN = 64
LR = 0.003
BATCH_SIZE = 64
EPOCHS = 20
LOG_EVERY = 25
WEIGHT_DECAY = 0.0

torch.set_num_threads(1)
torch.manual_seed(SEED)


def target_fn(x):
    return 2.0 * torch.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2 - x[:, 4]


X_all = torch.randn(N_TRAIN + N_VAL, N_FEATURES)
y_all = target_fn(X_all) + 0.1 * torch.randn(N_TRAIN + N_VAL)
X_train, y_train = X_all[:N_TRAIN], y_all[:N_TRAIN]
X_val, y_val = X_all[N_TRAIN:], y_all[N_TRAIN:]
y_mean, y_std = y_train.mean(), y_train.std()
y_train = (y_train - y_mean) / y_std
y_val = (y_val - y_mean) / y_std
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=400)


def make_mlp():
    return nn.Sequential(
        nn.Linear(N_FEATURES, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, 1),
    )


class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = make_mlp()
        self.criterion = nn.MSELoss()

    def forward(self, x):
        return self.model(x)

    def _shared_step(self, batch):
        x, y = batch
        out = self(x).squeeze(-1)
        loss = self.criterion(out, y)
        metric = (out - y).abs().mean()
        return loss, metric

    def training_step(self, batch, batch_idx):
        loss, metric = self._shared_step(batch)
        self.log("train_loss", loss, prog_bar=True, on_step=True, on_epoch=True)
        self.log("train_mae", metric, on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, metric = self._shared_step(batch)
        self.log("val_loss", loss, prog_bar=True)
        self.log("val_mae", metric, prog_bar=True)

    def on_train_epoch_end(self):
        m = self.trainer.callback_metrics
        print(f"\nEpoch {self.current_epoch}: train_loss={m['train_loss_epoch']:.4f} "
              f"val_loss={m['val_loss']:.4f} val_mae={m['val_mae']:.4f}")

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
        # halve the learning rate every 5 epochs
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


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
