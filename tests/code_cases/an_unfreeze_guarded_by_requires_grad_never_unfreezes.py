import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())

    def forward(self, x):
        return self.body(x)

    def set_trainable(self, trainable):
        for p in self.parameters():
            if p.requires_grad:
                p.requires_grad = trainable  # expect: unfreeze_guarded=True


encoder = Encoder()
head = nn.Linear(32, 4)
encoder.set_trainable(False)
encoder.set_trainable(True)
opt = torch.optim.Adam([p for p in list(encoder.parameters()) + list(head.parameters()) if p.requires_grad], lr=1e-3)
for _ in range(10):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(head(encoder(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
