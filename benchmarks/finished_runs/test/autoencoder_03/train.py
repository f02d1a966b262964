"""Dense autoencoder on synthetic 48-d data lying near a 6-d nonlinear manifold."""
import numpy as np
import torch
import torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, Dataset

SEED = 0
INPUT_DIM = 48
LATENT_TRUE = 6
BOTTLENECK = 8
N_TRAIN = 3000
N_VAL = 600
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 15
LOG_EVERY = 20
WEIGHT_DECAY = 0.0

torch.set_num_threads(1)
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)
MIXING = rng.normal(size=(LATENT_TRUE, INPUT_DIM)) / np.sqrt(LATENT_TRUE)


class ManifoldDataset(Dataset):
    def __init__(self, n):
        z = rng.normal(size=(n, LATENT_TRUE))
        x = np.tanh(z @ MIXING) + 0.05 * rng.normal(size=(n, INPUT_DIM))
        self.x = torch.tensor(x, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


train_ds = ManifoldDataset(N_TRAIN)
val_ds = ManifoldDataset(N_VAL)
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=300)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Dropout(0.2), nn.Linear(INPUT_DIM, 32), nn.ReLU(), nn.Linear(32, BOTTLENECK))
        self.decoder = nn.Sequential(nn.Linear(BOTTLENECK, 32), nn.ReLU(), nn.Linear(32, INPUT_DIM))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = AutoEncoder()
        self.criterion = nn.MSELoss()

    def forward(self, x):
        return self.model(x)

    def _shared_step(self, batch):
        x = batch
        y = x
        out = self(x)
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
