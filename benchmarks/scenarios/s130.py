"""Keyword spotting for a micro-controller target: 1-D CNN over 40x32 MFCC-like frames.

The network is trained with simulated int8 activations after the feature extractor
(the MCU runtime quantises the activations passed from the DSP block to the classifier),
so that the float model matches on-device behaviour.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(130)
torch.set_num_threads(1)

KEYWORDS = ["on", "off", "up", "down", "stop", "go"]
CFG = {"n_mfcc": 20, "frames": 32, "epochs": 8, "batch_size": 64, "lr": 2e-3, "act_bits": 8, "act_range": 4.0}


def synth(n, rng):
    y = rng.integers(0, len(KEYWORDS), n)
    proto = np.random.default_rng(1).normal(0, 1, (len(KEYWORDS), CFG["n_mfcc"], 6))
    x = rng.normal(0, 1.0, (n, CFG["n_mfcc"], CFG["frames"]))
    for i, c in enumerate(y):
        s = rng.integers(0, CFG["frames"] - 12)
        x[i, :, s:s + 12] += np.repeat(proto[c], 2, axis=1) * 1.2
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


def fake_quant(h, bits, rng_max):
    scale = (2 ** (bits - 1) - 1) / rng_max
    return torch.round(h.clamp(-rng_max, rng_max) * scale) / scale


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(CFG["n_mfcc"], 32, 5, padding=2), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.classifier = nn.Linear(32, len(KEYWORDS))

    def forward(self, x):
        h = fake_quant(self.features(x), CFG["act_bits"], CFG["act_range"])
        return self.classifier(h)


def main():
    rng = np.random.default_rng(130)
    x_tr, y_tr = synth(3000, rng)
    x_va, y_va = synth(600, rng)
    model = KWS()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            for i in range(0, len(perm), CFG["batch_size"]):
                model.train()
                idx = perm[i:i + CFG["batch_size"]]
                loss = crit(model(x_tr[idx]), y_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 10 == 0:
                    model.eval()
                    with torch.no_grad():
                        out = model(x_va)
                        vl, va = F.cross_entropy(out, y_va).item(), (out.argmax(1) == y_va).float().mean().item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
