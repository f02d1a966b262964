"""Ordinal regression with CORAL (rank-consistent ordinal regression, Cao, Mirjalili & Raschka 2020):
a small MLP produces one shared logit; K-1 learned biases turn it into K-1 binary "y > k" tasks trained
with binary cross-entropy. Synthetic tabular data: 12 features, 6 ordered grades from a noisy latent score.
Metrics: MAE in grades and exact accuracy."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=25, batch_size=64, lr=0.001, weight_decay=1e-05, hidden=64, dropout=0.3, num_classes=6, label_noise=0.6)
NUM_CLASSES = CFG["num_classes"]
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s [%(name)s] %(message)s")
_log = logging.getLogger("train")


def log_info(msg):
    _log.info(msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    _log.info("Epoch %d/%d - %s - lr %.2e", epoch, n_epochs, " - ".join(f"{k} {v:.4f}" for k, v in m.items()), lr)


def log_end(summary):
    _log.info("finished: %s", summary)



def make_data(n, g):
    x = torch.randn(n, 12, generator=g)
    w = torch.tensor([1.2, -0.8, 0.6, 0.5, -0.4, 0.3, 0.0, 0.0, 0.2, -0.2, 0.0, 0.1])
    latent = x @ w + 0.5 * torch.tanh(x[:, 0] * x[:, 1]) + CFG["label_noise"] * torch.randn(n, generator=g)
    cuts = torch.tensor([-1.6, -0.7, 0.0, 0.7, 1.6])
    y = torch.bucketize(latent, cuts)
    return x, y


g = torch.Generator().manual_seed(1)
x_tr, y_tr = make_data(4000, g)
x_va, y_va = make_data(1000, g)
mean, std = x_tr.mean(0), x_tr.std(0)
x_tr, x_va = (x_tr - mean) / std, (x_va - mean) / std


class CoralLayer(nn.Module):
    def __init__(self, size_in, num_classes):
        super().__init__()
        self.coral_weights = nn.Linear(size_in, 1, bias=False)
        self.coral_bias = nn.Parameter(torch.arange(num_classes - 1, 0, -1).float() / (num_classes - 1))

    def forward(self, x):
        return self.coral_weights(x) + self.coral_bias


class OrdinalMLP(nn.Module):
    def __init__(self, hidden, num_classes, dropout):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(12, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
        )
        self.fc = CoralLayer(hidden, num_classes)

    def forward(self, x):
        logits = self.fc(self.features(x))
        return logits


def levels_from_labels(y, num_classes):
    # grade y -> K-1 binary targets [y > 0, y > 1, ..., y > K-2]
    return (y.unsqueeze(1) > torch.arange(num_classes - 1).unsqueeze(0)).float()


def coral_loss(logits, levels):
    return F.binary_cross_entropy_with_logits(logits, levels, reduction="none").sum(1).mean()


def proba_to_label(logits):
    return (torch.sigmoid(logits) > 0.5).sum(1)


model = OrdinalMLP(CFG["hidden"], NUM_CLASSES, CFG["dropout"])
opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
log_info(f"train {len(x_tr)} val {len(x_va)} grades {NUM_CLASSES} | Adam lr={CFG['lr']} batch={CFG['batch_size']}")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_va)
        loss = coral_loss(logits, levels_from_labels(y_va, NUM_CLASSES)).item()
        pred = proba_to_label(logits)
        mae = (pred - y_va).abs().float().mean().item()
        acc = (pred == y_va).float().mean().item()
    return loss, mae, acc


for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n, err = 0.0, 0, 0.0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for xb, yb in bar:
        levels = levels_from_labels(yb, NUM_CLASSES)
        logits = model(xb)
        loss = coral_loss(logits, levels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
        n += len(xb)
        err += (proba_to_label(logits.detach()) - yb).abs().float().sum().item()
        on_batch(bar, loss.item())
    val_loss, val_mae, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "mae": err / n, "val_loss": val_loss,
                                     "val_mae": val_mae, "val_acc": val_acc}, opt.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "best_val_mae": round(val_mae, 4)})
