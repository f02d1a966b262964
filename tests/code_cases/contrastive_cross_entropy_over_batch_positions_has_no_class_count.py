"""Contrastive pre-training (InfoNCE): a cross-entropy over a similarity matrix whose targets are the
rows' own positions (torch.arange). Its classes are the batch's rows, so neither the projection
head's width nor the downstream class-count constant is the loss's class count."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 10          # the downstream probe's classes, not the contrastive loss's
PROJ = 32


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
        self.head = nn.Linear(64, PROJ)

    def forward(self, x):
        return self.head(self.body(x))


enc = Encoder()
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
data = torch.randn(512, 16)
for step in range(100):
    idx = torch.randint(0, 512, (128,))
    v1 = data[idx] + 0.1 * torch.randn(128, 16)
    v2 = data[idx] + 0.1 * torch.randn(128, 16)
    z1 = F.normalize(enc(v1), dim=1)
    z2 = F.normalize(enc(v2), dim=1)
    sim = z1 @ z2.T / 0.2
    targets = torch.arange(sim.shape[0])
    loss = criterion(sim, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: num_classes
