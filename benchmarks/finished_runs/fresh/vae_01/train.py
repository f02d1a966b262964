"""Small VAE on synthetic 20-d data lying near a 2-d nonlinear manifold."""
import math
import time
import logging
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

SEED = 0
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 12
WEIGHT_DECAY = 0.0
LOG_EVERY = 16
N_TRAIN = 2000
N_VAL = 500
DATA_DIM = 20
TRUE_LATENT = 2
LATENT = 4
HIDDEN = 64
BETA = 0.5

torch.set_num_threads(1)
torch.manual_seed(SEED)

MIX = torch.randn(TRUE_LATENT, DATA_DIM)
SHIFT = torch.randn(DATA_DIM)


def make_split(n):
    z = torch.randn(n, TRUE_LATENT)
    x = torch.tanh(z @ MIX + 0.5 * SHIFT) + 0.05 * torch.randn(n, DATA_DIM)
    return x


X_train = make_split(N_TRAIN)
X_val = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(X_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val), batch_size=250)
steps_per_epoch = len(train_loader)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(DATA_DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, DATA_DIM))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


model = VAE()


def forward_loss(batch):
    (xb,) = batch
    recon, mu, logvar = model(xb)
    rec = F.mse_loss(recon, xb, reduction="none").sum(dim=1).mean()
    kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)).mean()
    loss = rec + BETA * kl
    return loss, F.mse_loss(recon, xb).item(), len(xb)


optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


global_step = 0
total_steps = EPOCHS * steps_per_epoch
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s")
logger = logging.getLogger("trainer")
logger.info("training for %d epochs (%d iterations/epoch, batch size %d)", EPOCHS, steps_per_epoch, BATCH_SIZE)
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    batches = train_loader
    t_step = time.time()
    for step, batch in enumerate(batches, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
        step_ms = (time.time() - t_step) * 1000
        t_step = time.time()
        if global_step % LOG_EVERY == 0:
            logger.info("Epoch[%d] Iter[%d/%d] loss=%.4f lr=%.2e", epoch, step, steps_per_epoch, loss_val, lr_now)
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    logger.info("Epoch[%d] done in %.1fs train_loss=%.4f train_recon=%.4f val_loss=%.4f val_recon=%.4f", epoch, t_epoch, train_loss, train_metric, val_loss, val_metric)
logger.info("finished")
