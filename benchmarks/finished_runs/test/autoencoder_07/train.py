"""Dense autoencoder on synthetic 48-d data lying near a 6-d nonlinear manifold."""
import time
import logging
import numpy as np
import torch
import torch.nn as nn
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
BIAS_INIT = -3.0

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
steps_per_epoch = len(train_loader)
val_steps = len(val_loader)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(INPUT_DIM, 32), nn.ReLU(), nn.Linear(32, BOTTLENECK))
        self.decoder = nn.Sequential(nn.Linear(BOTTLENECK, 32), nn.ReLU(), nn.Linear(32, INPUT_DIM))

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = AutoEncoder()
for m in model.modules():
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.bias, BIAS_INIT)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def evaluate():
    model.eval()
    se, ae, n = 0.0, 0.0, 0
    for xb in val_loader:
        recon = model(xb)
        se += criterion(recon, xb).item() * len(xb)
        ae += (recon - xb).abs().mean().item() * len(xb)
        n += len(xb)
    return se / n, ae / n


logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(message)s")
logger = logging.getLogger("train")
logger.info(f"starting training: {EPOCHS} epochs, {steps_per_epoch} iters/epoch, batch size {BATCH_SIZE}")
global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_abs, run_n = 0.0, 0.0, 0
    for step, xb in enumerate(train_loader, 1):
        optimizer.zero_grad()
        recon = model(xb)
        loss = criterion(recon, xb)
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(xb)
        run_abs += (recon - xb).abs().mean().item() * len(xb)
        run_n += len(xb)
        if global_step % LOG_EVERY == 0:
            logger.info(f"iter {global_step}: loss {loss_val:.4f}, lr {lr_now:g}")
    train_loss, train_metric = run_loss / run_n, run_abs / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    logger.info(f"epoch {epoch} finished: train_loss {train_loss:.4f}, val_loss {val_loss:.4f}, val_mae {val_metric:.4f}")
logger.info("training complete")
