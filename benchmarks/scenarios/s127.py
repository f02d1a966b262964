"""Fine-tuning a pre-trained tabular encoder for equipment-failure type prediction.

Stage 1 pre-trains the encoder on a plentiful proxy task (predicting the maintenance
category from the same sensor summaries). Stage 2 swaps the head and fine-tunes on the
scarcer failure-type labels, keeping only the input embedding layers frozen.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(127)
torch.set_num_threads(1)

CFG = {"d_in": 20, "width": 96, "pretrain_epochs": 4, "finetune_epochs": 12, "batch_size": 64,
       "lr": 2e-3, "freeze_patterns": ("emb",)}


class Encoder(nn.Module):
    def __init__(self, d_in, width):
        super().__init__()
        self.embed_in = nn.Linear(d_in, width)        # input embedding
        self.embedder = nn.Sequential(nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                      nn.Linear(width, width), nn.ReLU())

    def forward(self, x):
        return self.embedder(self.embed_in(x))


class Model(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.encoder = Encoder(CFG["d_in"], CFG["width"])
        self.head = nn.Linear(CFG["width"], n_out)

    def forward(self, x):
        return self.head(self.encoder(x))


def synth(n, rng, task):
    ref = np.random.default_rng(7)
    w = ref.normal(0, 1, (CFG["d_in"], 32))
    x = rng.normal(0, 1, (n, CFG["d_in"]))
    h = np.tanh(x @ w / 3)
    if task == "proxy":
        y = np.argmax(h[:, :4], 1)
    else:
        y = np.argmax(h[:, 4:9] * h[:, 9:14], 1)
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


def fit(model, x, y, xv, yv, epochs, writer, stage):
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(x))
        tot = 0.0
        for i in range(0, len(x), CFG["batch_size"]):
            idx = perm[i:i + CFG["batch_size"]]
            loss = crit(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            out = model(xv)
            vl, va = crit(out, yv).item(), (out.argmax(1) == yv).float().mean().item()
        writer.writerow([stage, epoch, f"{tot / len(x):.5f}", f"{vl:.5f}", f"{va:.4f}"])
        print(f"[{stage}] epoch {epoch:2d}  train {tot / len(x):.4f}  val {vl:.4f}  acc {va:.3f}")


def main():
    rng = np.random.default_rng(127)
    xp, yp = synth(4000, rng, "proxy")
    xpv, ypv = synth(500, rng, "proxy")
    xf, yf = synth(2000, rng, "failure")
    xfv, yfv = synth(500, rng, "failure")
    model = Model(4)
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["stage", "epoch", "train_loss", "val_loss", "val_acc"])
        fit(model, xp, yp, xpv, ypv, CFG["pretrain_epochs"], w, "pretrain")

        model.head = nn.Linear(CFG["width"], 5)
        frozen = []
        for name, p in model.named_parameters():
            if any(pat in name for pat in CFG["freeze_patterns"]):
                p.requires_grad = False
                frozen.append(name)
        print("frozen:", len(frozen), "tensors")
        fit(model, xf, yf, xfv, yfv, CFG["finetune_epochs"], w, "finetune")


if __name__ == "__main__":
    main()
