"""Wafer-map defect classifier (LeNet-style) for 4 defect patterns on 1x20x20 inspection maps."""
import csv

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(79)
g = torch.Generator().manual_seed(79)

SIZE = 20
PATTERNS = ["center", "edge_ring", "scratch", "donut"]
yy, xx = torch.meshgrid(torch.arange(SIZE).float(), torch.arange(SIZE).float(), indexing="ij")
r = ((yy - SIZE / 2 + 0.5) ** 2 + (xx - SIZE / 2 + 0.5) ** 2).sqrt()


def wafer_maps(n):
    labels = torch.randint(0, len(PATTERNS), (n,), generator=g)
    maps = torch.rand(n, SIZE, SIZE, generator=g) * 0.35
    for i, lab in enumerate(labels.tolist()):
        jitter = torch.rand(1, generator=g).item()
        if lab == 0:
            maps[i] += torch.exp(-r ** 2 / (2 * (2.0 + jitter) ** 2))
        elif lab == 1:
            maps[i] += (r > 7.5 + jitter).float() * (r < 10).float()
        elif lab == 2:
            a = torch.rand(1, generator=g).item() * 3.14
            d = ((xx - SIZE / 2) * torch.sin(torch.tensor(a)) - (yy - SIZE / 2) * torch.cos(torch.tensor(a))).abs()
            maps[i] += (d < 1.2).float()
        else:
            maps[i] += ((r > 3.5 + jitter) & (r < 6.0 + jitter)).float()
    return maps.unsqueeze(1), labels


class DefectNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 5 * 5, 64)
        self.fc2 = nn.Linear(64, len(PATTERNS))

    def forward(self, x):
        x = F.avg_pool2d(torch.tanh(self.conv1(x)), 2)
        x = F.avg_pool2d(torch.tanh(self.conv2(x)), 2)
        x = torch.tanh(self.fc1(x.flatten(1)))
        return self.fc2(x)


x_train, y_train = wafer_maps(1200)
x_val, y_val = wafer_maps(300)

net = DefectNet()
opt = torch.optim.SGD(net.parameters(), lr=2.0)
BATCH = 50

with open("metrics.csv", "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    step = 0
    for epoch in range(6):
        order = torch.randperm(len(x_train), generator=g)
        for b in range(0, len(order), BATCH):
            idx = order[b:b + BATCH]
            logits = net(x_train[idx])
            loss = F.cross_entropy(logits, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (logits.argmax(1) == y_train[idx]).float().mean().item()
            if step % 2 == 0:
                with torch.no_grad():
                    vlogits = net(x_val)
                    vloss = F.cross_entropy(vlogits, y_val).item()
                    vacc = (vlogits.argmax(1) == y_val).float().mean().item()
                out.writerow([step, epoch, f"{loss.item():.5f}", f"{acc:.4f}", f"{vloss:.5f}", f"{vacc:.4f}"])
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
