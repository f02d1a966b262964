"""Soil type from 16 reflectance bands with a deep fully-connected network."""
import csv
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(66)

N_BANDS, N_TYPES, DEPTH, WIDTH = 16, 6, 12, 128

bands = torch.randn(3000, N_BANDS)
mixing = torch.randn(N_BANDS, N_TYPES)
soil = (bands @ mixing + 0.5 * torch.randn(3000, N_TYPES)).argmax(1)
train_set, val_set = random_split(TensorDataset(bands, soil), [2400, 600], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
val_x, val_y = val_set[:]


def build_mlp(d_in, d_out, depth, width):
    layers, d = [], d_in
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    layers.append(nn.Linear(d, d_out))
    return nn.Sequential(*layers)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, mean=0.0, std=2.0 / math.sqrt(m.in_features))
        nn.init.zeros_(m.bias)


model = build_mlp(N_BANDS, N_TYPES, DEPTH, WIDTH)
model.apply(weights_init)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "grad_norm", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(4):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
            optimizer.step()
            row = [step, epoch, f"{loss.item():.6g}", f"{grad_norm:.6g}", "", ""]
            if step % 10 == 0:
                with torch.no_grad():
                    out = model(val_x)
                    row[4] = f"{criterion(out, val_y).item():.6g}"
                    row[5] = f"{(out.argmax(1) == val_y).float().mean().item():.4f}"
            w.writerow(row)
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  grad norm {grad_norm:.3g}")
print(f"chance-level loss: {math.log(N_TYPES):.4f}")
