"""Turbine vibration state classifier (GRU over short accelerometer windows).

Windows of 40 samples from a nacelle accelerometer are classified into four operating
states. Training uses Adam with ReduceLROnPlateau so that the learning rate adapts when
progress stalls.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(117)
torch.set_num_threads(1)
rng = np.random.default_rng(117)

CONFIG = {
    "window": 40,
    "hidden": 32,
    "batch_size": 32,
    "epochs": 10,
    "lr": 3e-3,
    "plateau_patience": 4,
    "plateau_factor": 0.5,
}
STATES = ["idle", "nominal", "imbalance", "misalignment"]


def synth(n):
    t = np.arange(CONFIG["window"]) / 20.0
    y = rng.integers(0, len(STATES), n)
    x = np.empty((n, CONFIG["window"], 2), np.float32)
    for i, s in enumerate(y):
        f0 = [0.3, 1.0, 1.0, 1.0][s] * rng.uniform(0.9, 1.1)
        a1 = [0.1, 0.5, 1.2, 0.5][s]
        a2 = [0.0, 0.1, 0.1, 0.6][s]
        ph = rng.uniform(0, 2 * np.pi)
        x[i, :, 0] = a1 * np.sin(2 * np.pi * f0 * t + ph) + a2 * np.sin(4 * np.pi * f0 * t + ph)
        x[i, :, 1] = a1 * np.cos(2 * np.pi * f0 * t + ph)
    x += rng.normal(0, 0.25, x.shape).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class StateGRU(nn.Module):
    def __init__(self, hidden, n_cls):
        super().__init__()
        self.gru = nn.GRU(2, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


def batches(x, y, bs):
    idx = torch.randperm(len(x))
    for i in range(0, len(x), bs):
        j = idx[i:i + bs]
        yield x[j], y[j]


def evaluate(model, x, y, crit):
    model.eval()
    with torch.no_grad():
        out = model(x)
        return crit(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    x_tr, y_tr = synth(1600)
    x_va, y_va = synth(400)
    model = StateGRU(CONFIG["hidden"], len(STATES))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="min", factor=CONFIG["plateau_factor"], patience=CONFIG["plateau_patience"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc", "lr"])
        for epoch in range(CONFIG["epochs"]):
            model.train()
            for xb, yb in batches(x_tr, y_tr, CONFIG["batch_size"]):
                loss = crit(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step(loss.item())
                step += 1
                if step % 10 == 0:
                    vl, va = evaluate(model, x_va, y_va, crit)
                    model.train()
                    lr = opt.param_groups[0]["lr"]
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}", f"{lr:.3e}"])
            print(f"epoch {epoch}  step {step}  train {loss.item():.4f}  val {vl:.4f} acc {va:.3f}  lr {lr:.2e}")


if __name__ == "__main__":
    main()
