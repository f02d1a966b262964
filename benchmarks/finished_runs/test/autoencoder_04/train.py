"""Dense autoencoder on synthetic 48-d data lying near a 6-d nonlinear manifold."""
import time
import math
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
LR = 1e-06
BATCH_SIZE = 64
EPOCHS = 15
LOG_EVERY = 20

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


TOKENS_PER_SAMPLE = INPUT_DIM
def get_perplexity(loss_base2):
    try:
        return 2 ** loss_base2
    except OverflowError:
        return float("inf")

LN2 = math.log(2)
best_val = float("inf")
t_train_start = time.time()
global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_abs, run_n = 0.0, 0.0, 0
    gnorm_sum = 0.0
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
        gnorm_sum += gnorm
        if step % LOG_EVERY == 0:
            elapsed = max(time.time() - t0, 1e-6)
            lb2 = loss_val / LN2
            print(f"| epoch {epoch:03d}:  {step:>5d} / {steps_per_epoch} loss={lb2:.3f}, ppl={get_perplexity(lb2):.2f}, "
                  f"wps={step * BATCH_SIZE * TOKENS_PER_SAMPLE / elapsed:.0f}, ups={step / elapsed:.0f}, wpb={BATCH_SIZE * TOKENS_PER_SAMPLE}, bsz={BATCH_SIZE}, "
                  f"num_updates={global_step}, lr={lr_now:g}, gnorm={gnorm:.3f}, clip=0.000, train_wall={time.time() - t_train_start:.0f}")
    train_loss, train_metric = run_loss / run_n, run_abs / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    tl2, vl2 = train_loss / LN2, val_loss / LN2
    best_val = min(best_val, vl2)
    print(f"| epoch {epoch:03d} | loss {tl2:.3f} | ppl {get_perplexity(tl2):.2f} | wps {steps_per_epoch * BATCH_SIZE * TOKENS_PER_SAMPLE / t_epoch:.0f} | "
          f"ups {steps_per_epoch / t_epoch:.0f} | num_updates {global_step} | lr {lr_now:g} | gnorm {gnorm_sum / steps_per_epoch:.3f} | "
          f"train_wall {time.time() - t_train_start:.0f} | wall {time.time() - t_train_start:.0f}")
    print(f"| epoch {epoch:03d} | valid on 'valid' subset | loss {vl2:.3f} | ppl {get_perplexity(vl2):.2f} | num_updates {global_step} | best_loss {best_val:.3f}")
print(f"| done training in {time.time() - t_train_start:.1f} seconds")
