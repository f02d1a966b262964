"""Battery state-of-health estimator: LSTM over 40-step charge-curve windows.

Each window holds (voltage, current, temperature) samples from a constant-current charge;
the target is state of health in [0.7, 1.0], rescaled to zero mean / unit variance.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(144)
torch.set_num_threads(1)

CFG = {"epochs": 30, "batch_size": 128, "lr": 0.1, "hidden": 32, "steps": 40}


def charge_windows(n, rng):
    soh = rng.uniform(0.7, 1.0, n)
    t = np.linspace(0, 1, CFG["steps"])
    v = 3.4 + 0.8 * (1 - np.exp(-t[None] * (3.0 / soh[:, None]))) + rng.normal(0, 0.01, (n, CFG["steps"]))
    i = 1.0 - 0.5 * t[None] * (1.2 - soh[:, None]) + rng.normal(0, 0.02, (n, CFG["steps"]))
    temp = 25 + 8 * t[None] * (1.3 - soh[:, None]) + rng.normal(0, 0.3, (n, CFG["steps"]))
    x = np.stack([(v - 3.9) / 0.3, i - 0.9, (temp - 27) / 3], -1)
    return torch.tensor(x, dtype=torch.float32), soh


class SoHNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, CFG["hidden"], batch_first=True)
        self.fc = nn.Linear(CFG["hidden"], 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1]).squeeze(1)


def main():
    rng = np.random.default_rng(144)
    x_tr, s_tr = charge_windows(2048, rng)
    x_va, s_va = charge_windows(512, rng)
    m, sd = s_tr.mean(), s_tr.std()
    y_tr = torch.tensor((s_tr - m) / sd, dtype=torch.float32)
    y_va = torch.tensor((s_va - m) / sd, dtype=torch.float32)
    model = SoHNet()
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"])
    crit = nn.MSELoss()
    bs, step = CFG["batch_size"], 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_mae_soh"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            model.train()
            for k in range(0, len(perm), bs):
                idx = perm[k:k + bs]
                loss = crit(model(x_tr[idx]), y_tr[idx])
                loss.backward()
                opt.step()
                step += 1
                if step % 4 == 0:
                    model.eval()
                    with torch.no_grad():
                        pv = model(x_va)
                        vl = crit(pv, y_va).item()
                        mae = (pv - y_va).abs().mean().item() * sd
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{mae:.4f}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4f}  val {vl:.4f}  MAE {mae:.4f}")


if __name__ == "__main__":
    main()
