"""Heteroscedastic regression with a Gaussian negative log-likelihood. Synthetic data: 6 input features, the
target's mean is a smooth nonlinear function of the first three and its noise standard deviation grows with the
fourth (0.05 to 0.65). An MLP outputs a mean and a variance per example and is trained on the Gaussian NLL;
reported: NLL, RMSE of the mean, and coverage of the 90% predictive interval (should be ~0.90)."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(n_train=4000, n_val=1000, epochs=30, batch_size=64, lr=0.002, weight_decay=1.0, hidden=64)
def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n):
    print(f"Epoch {epoch}/{n_epochs}")
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    n = m.pop("_steps", 0)
    print(f"\x1b[1m{n}/{n}\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m1s\x1b[0m 4ms/step - " + " - ".join(f"{k.replace('train_', '')}: {v:.4f}" for k, v in m.items()))


def log_end(summary):
    print(summary)


def make_data(n, gen):
    x = torch.randn(n, 6, generator=gen)
    mean = torch.sin(1.5 * x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.3 * x[:, 1]
    sigma = 0.05 + 0.6 * torch.sigmoid(2.0 * x[:, 3])
    y = mean + sigma * torch.randn(n, generator=gen)
    x = x * torch.tensor([2.0, 0.5, 1.0, 3.0, 1.0, 1.0]) + torch.tensor([1.0, 0.0, -2.0, 0.5, 0.0, 4.0])
    return x, y


gen = torch.Generator().manual_seed(5)
x_train, y_train = make_data(CFG["n_train"], gen)
x_val, y_val = make_data(CFG["n_val"], gen)
feat_mean, feat_std = x_train.mean(0), x_train.std(0)
x_train = (x_train - feat_mean) / feat_std
x_val = (x_val - feat_mean) / feat_std


class MeanVarNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        out = self.head(self.body(x))
        mu, raw = out[:, 0], out[:, 1]
        var = F.softplus(raw) + 1e-6
        return mu, var


def gaussian_nll(mu, var, y):
    return (0.5 * torch.log(2 * math.pi * var) + 0.5 * (y - mu) ** 2 / var).mean()


model = MeanVarNet(CFG["hidden"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
n_batches = math.ceil(CFG["n_train"] / CFG["batch_size"])
total = n_batches * CFG["epochs"]
log_info(f"Gaussian-NLL regressor: {CFG['n_train']} train / {CFG['n_val']} val, {sum(p.numel() for p in model.parameters())} params, "
         f"batch {CFG['batch_size']}, lr {CFG['lr']}, {CFG['epochs']} epochs")


def evaluate():
    model.eval()
    with torch.no_grad():
        mu, var = model(x_val)
        nll = gaussian_nll(mu, var, y_val).item()
        rmse = (mu - y_val).pow(2).mean().sqrt().item()
        cover = ((y_val - mu).abs() <= 1.645 * var.sqrt()).float().mean().item()
    return nll, rmse, cover


t0 = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(CFG["n_train"])
    tot = 0.0
    for i in progress(range(n_batches), epoch, CFG["epochs"], n_batches):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        mu, var = model(x_train[idx])
        loss = gaussian_nll(mu, var, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        on_step(epoch, CFG["epochs"], i, n_batches, loss.item(), optimizer.param_groups[0]["lr"], gstep, total)
    val_nll, val_rmse, val_cover = evaluate()
    log_epoch(epoch, CFG["epochs"], {"_steps": n_batches, "train_nll": tot / CFG["n_train"], "val_nll": val_nll,
                                     "val_rmse": val_rmse, "val_cover90": val_cover}, optimizer.param_groups[0]["lr"])

log_end(f"{CFG['epochs']} epochs in {time.time() - t0:.1f}s, final val_nll={val_nll:.4f}")
