"""Network-intrusion classifier on flow statistics (5 traffic classes), deep MLP."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

CONFIG = {
    "seed": 113,
    "n_features": 24,
    "classes": ["benign", "dos", "portscan", "bruteforce", "exfiltration"],
    "hidden": 64,
    "depth": 18,
    "lr": 0.05,
    "momentum": 0.9,
    "batch_size": 64,
    "epochs": 8,
}

torch.manual_seed(CONFIG["seed"])
rng = np.random.default_rng(CONFIG["seed"])


def generate_flows(n, n_feat, n_cls, prototypes):
    y = rng.integers(0, n_cls, n)
    x = prototypes[y] + rng.normal(0, 1.0, (n, n_feat))
    # a couple of heavy-tailed byte counters, log-scaled as in the flow exporter
    x[:, :3] = np.sign(x[:, :3]) * np.log1p(np.abs(x[:, :3]) * 5)
    return x.astype(np.float32), y


class FlowNet(nn.Module):
    def __init__(self, n_in, hidden, depth, n_out):
        super().__init__()
        layers = [nn.Linear(n_in, hidden), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.Tanh()]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.out(self.body(x))


def run():
    n_cls, n_feat = len(CONFIG["classes"]), CONFIG["n_features"]
    protos = rng.normal(0, 1.0, (n_cls, n_feat))
    x_tr, y_tr = generate_flows(4000, n_feat, n_cls, protos)
    x_va, y_va = generate_flows(1000, n_feat, n_cls, protos)
    mean, std = x_tr.mean(0), x_tr.std(0)
    x_tr, x_va = (x_tr - mean) / std, (x_va - mean) / std
    x_tr, y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
    x_va, y_va = torch.from_numpy(x_va), torch.from_numpy(y_va)

    model = FlowNet(n_feat, CONFIG["hidden"], CONFIG["depth"], n_cls)
    opt = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=CONFIG["momentum"])
    loss_fn = nn.CrossEntropyLoss()
    print(f"{sum(p.numel() for p in model.parameters())} params, chance loss {math.log(n_cls):.3f}")

    bs = CONFIG["batch_size"]
    with open("metrics.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=["epoch", "step", "train_loss", "train_acc",
                                            "val_loss", "val_acc", "grad_norm"])
        wr.writeheader()
        step = 0
        for epoch in range(CONFIG["epochs"]):
            model.train()
            perm = torch.randperm(len(x_tr))
            s_loss, s_hit, gn_sum, nb = 0.0, 0, 0.0, 0
            for i in range(0, len(perm), bs):
                idx = perm[i:i + bs]
                logits = model(x_tr[idx])
                loss = loss_fn(logits, y_tr[idx])
                opt.zero_grad()
                loss.backward()
                gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
                opt.step()
                step += 1
                nb += 1
                gn_sum += gn
                s_loss += loss.item() * len(idx)
                s_hit += (logits.argmax(1) == y_tr[idx]).sum().item()
            model.eval()
            with torch.no_grad():
                vl = model(x_va)
                val_loss = loss_fn(vl, y_va).item()
                val_acc = (vl.argmax(1) == y_va).float().mean().item()
            row = {"epoch": epoch, "step": step,
                   "train_loss": round(s_loss / len(x_tr), 4), "train_acc": round(s_hit / len(x_tr), 4),
                   "val_loss": round(val_loss, 4), "val_acc": round(val_acc, 4),
                   "grad_norm": round(gn_sum / nb, 5)}
            wr.writerow(row)
            print(row)


if __name__ == "__main__":
    run()
