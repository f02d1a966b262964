"""Pump condition monitoring.

Stage 1: a dense autoencoder is pre-trained on plentiful unlabelled vibration spectra.
Stage 2: the encoder is reused for a 5-way fault classifier trained on the small labelled set;
only the encoder's LayerNorms and the new classification layer are tuned.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(106)
rng = np.random.default_rng(106)

N_FREQ, N_LATENT = 64, 6
FAULTS = ["healthy", "imbalance", "misalignment", "bearing_wear", "cavitation"]

mixing = rng.normal(0, 1, (N_LATENT, N_FREQ)) / np.sqrt(N_LATENT)
fault_centres = rng.normal(0, 1.6, (len(FAULTS), N_LATENT))


def spectra(n, labelled=True):
    y = rng.integers(0, len(FAULTS), n)
    z = fault_centres[y] + rng.normal(0, 0.7, (n, N_LATENT))
    x = np.tanh(z @ mixing) + rng.normal(0, 0.1, (n, N_FREQ))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


x_unlab, _ = spectra(6000)
x_lab, y_lab = spectra(1200)
x_val, y_val = spectra(600)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_FREQ, 96)
        self.norm1 = nn.LayerNorm(96)
        self.fc2 = nn.Linear(96, 16)
        self.norm2 = nn.LayerNorm(16)

    def forward(self, x):
        return self.norm2(self.fc2(F.gelu(self.norm1(self.fc1(x)))))


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = nn.Sequential(nn.Linear(16, 96), nn.GELU(), nn.Linear(96, N_FREQ))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class FaultClassifier(nn.Module):
    def __init__(self, encoder, n_classes):
        super().__init__()
        self.encoder = encoder
        self.classifier = nn.Linear(16, n_classes)
        # start the new layer from a uniform prediction so it does not disturb the pre-trained features
        nn.init.zeros_(self.classifier.weight)
        nn.init.zeros_(self.classifier.bias)

    def forward(self, x):
        return self.classifier(self.encoder(x))


log = open("metrics.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["stage", "epoch", "step", "train_loss", "val_loss", "val_acc"])

# ---------------- stage 1: autoencoder pre-training ----------------
ae = AutoEncoder()
opt = torch.optim.Adam(ae.parameters(), lr=2e-3)
step = 0
for epoch in range(3):
    perm = torch.randperm(len(x_unlab))
    losses = []
    for i in range(0, len(perm), 128):
        xb = x_unlab[perm[i:i + 128]]
        loss = F.mse_loss(ae(xb), xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        step += 1
    with torch.no_grad():
        val_rec = F.mse_loss(ae(x_val), x_val).item()
    writer.writerow(["pretrain", epoch, step, f"{np.mean(losses):.5f}", f"{val_rec:.5f}", ""])
    print(f"[pretrain] epoch {epoch}  recon mse {np.mean(losses):.4f}  val {val_rec:.4f}")

# ---------------- stage 2: fine-tune classifier ----------------
model = FaultClassifier(ae.encoder, len(FAULTS))
TUNE = ("norm", "head")
for name, p in model.named_parameters():
    p.requires_grad = any(key in name for key in TUNE)
params = [p for p in model.parameters() if p.requires_grad]
print("tuned tensors:", sum(1 for _ in params), "| trainable params:", sum(p.numel() for p in params))

optimizer = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)
criterion = nn.CrossEntropyLoss()
step = 0
for epoch in range(12):
    model.train()
    perm = torch.randperm(len(x_lab))
    losses = []
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        loss = criterion(model(x_lab[idx]), y_lab[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        step += 1
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        val_loss = criterion(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    writer.writerow(["finetune", epoch, step, f"{np.mean(losses):.5f}", f"{val_loss:.5f}", f"{val_acc:.4f}"])
    print(f"[finetune] epoch {epoch:2d} step {step:3d}  loss {np.mean(losses):.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.3f}")
log.close()
