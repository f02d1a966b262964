"""River-gauge nowcasting: predict the water level 6 h ahead from the last 96 hourly readings
of rainfall, upstream level and soil moisture with a ReLU RNN."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(9)
rng = np.random.default_rng(103)

SEQ_LEN = 96
N_TRAIN, N_VAL = 2048, 256
HIDDEN = 64
BATCH = 32
LR = 0.02
MAX_STEPS = 450
LOG_EVERY = 5


def make_catchment(n):
    """AR(1) sensor channels; the target is a lagged, smoothed response to them."""
    x = np.zeros((n, SEQ_LEN, 3), np.float32)
    noise = rng.normal(0, 1, (n, SEQ_LEN, 3))
    for t in range(1, SEQ_LEN):
        x[:, t] = 0.9 * x[:, t - 1] + 0.44 * noise[:, t]
    rain_recent = x[:, -20:, 0].mean(1)
    upstream = x[:, :, 1].mean(1)
    soil = np.tanh(x[:, -48:, 2].mean(1))
    level = rain_recent * (1.0 + 0.5 * soil) + 0.5 * upstream + rng.normal(0, 0.05, n)
    return torch.from_numpy(x), torch.tensor(level, dtype=torch.float32)


x_train, y_train = make_catchment(N_TRAIN)
x_val, y_val = make_catchment(N_VAL)
mu, sd = y_train.mean(), y_train.std()
y_train, y_val = (y_train - mu) / sd, (y_val - mu) / sd


class GaugeRNN(nn.Module):
    def __init__(self, n_in=3, hidden=HIDDEN):
        super().__init__()
        self.rnn = nn.RNN(n_in, hidden, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(hidden, 1)
        for name, p in self.rnn.named_parameters():
            if "weight" in name:
                nn.init.xavier_normal_(p)
            else:
                nn.init.zeros_(p)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]).squeeze(-1)


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return math.sqrt(total)


model = GaugeRNN()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
loss_fn = nn.MSELoss()

with open("metrics.csv", "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["step", "train_loss", "grad_norm", "val_loss"])
    for step in range(1, MAX_STEPS + 1):
        model.train()
        idx = torch.randint(0, N_TRAIN, (BATCH,))
        pred = model(x_train[idx])
        loss = loss_fn(pred, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        gn = grad_norm(model)
        optimizer.step()

        model.eval()
        with torch.no_grad():
            val = loss_fn(model(x_val), y_val).item()
        log.writerow([step, f"{loss.item():.6g}", f"{gn:.6g}", f"{val:.6g}"])
        if step % LOG_EVERY == 0 or not math.isfinite(loss.item()):
            f.flush()
            print(f"step {step:4d}  loss {loss.item():.4g}  grad_norm {gn:.4g}  val_loss {val:.4g}")
        if not math.isfinite(loss.item()):
            print(f"non-finite loss at step {step}, stopping")
            break
