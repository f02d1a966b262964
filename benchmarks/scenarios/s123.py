"""Support-chat intent classifier: a tiny Transformer encoder over token ids.

The model returns a dict (logits for analysis, probabilities for the serving API);
the trainer picks the field it needs via `CFG["output_key"]`.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(123)
torch.set_num_threads(1)

CFG = {"vocab": 200, "seq_len": 16, "d_model": 32, "n_classes": 6, "epochs": 6,
       "batch_size": 64, "lr": 1e-3, "output_key": "probs"}


def synth(n, rng):
    y = rng.integers(0, CFG["n_classes"], n)
    x = rng.integers(CFG["n_classes"] * 4 + 1, CFG["vocab"], (n, CFG["seq_len"]))
    for i, c in enumerate(y):
        pos = rng.choice(CFG["seq_len"], 3, replace=False)
        x[i, pos] = 1 + c * 4 + rng.integers(0, 4, 3)   # intent keywords
    return torch.from_numpy(x), torch.from_numpy(y)


class IntentEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        d = CFG["d_model"]
        self.tok = nn.Embedding(CFG["vocab"], d)
        self.pos = nn.Parameter(torch.randn(1, CFG["seq_len"], d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2)
        self.cls = nn.Linear(d, CFG["n_classes"])

    def forward(self, x):
        h = self.enc(self.tok(x) + self.pos).mean(1)
        logits = self.cls(h)
        return {"logits": logits, "probs": logits.softmax(-1)}


def main():
    rng = np.random.default_rng(123)
    x_tr, y_tr = synth(3000, rng)
    x_va, y_va = synth(600, rng)
    model = IntentEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=0.01)
    crit = nn.CrossEntropyLoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            perm = torch.randperm(len(x_tr))
            for i in range(0, len(perm), CFG["batch_size"]):
                idx = perm[i:i + CFG["batch_size"]]
                out = model(x_tr[idx])[CFG["output_key"]]
                loss = crit(out, y_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 10 == 0:
                    model.eval()
                    with torch.no_grad():
                        vo = model(x_va)[CFG["output_key"]]
                        vl = crit(vo, y_va).item()
                        va = (vo.argmax(1) == y_va).float().mean().item()
                    model.train()
                    w.writerow([step, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
