import torch
import torch.nn as nn
import torch.nn.functional as F


class CapsLike(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.enc = nn.Linear(64, n_classes * 8)
        self.dec = nn.Linear(n_classes * 8, 64)
        self.n = n_classes

    def forward(self, x):
        caps = self.enc(x).view(-1, self.n, 8)
        return caps.norm(dim=-1), torch.sigmoid(self.dec(caps.flatten(1)))


def margin_loss(lengths, y):
    t = F.one_hot(y, lengths.shape[1]).float()
    return (t * F.relu(0.9 - lengths) ** 2 + 0.5 * (1 - t) * F.relu(lengths - 0.1) ** 2).sum(1).mean()


model = CapsLike()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.rand(128, 64), torch.randint(0, 4, (128,))
for _ in range(3):
    lengths, recon = model(x)
    loss = margin_loss(lengths, y) + 0.0005 * F.mse_loss(recon, x, reduction="sum")  # expect: loss_function=custom; custom_loss=True
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (lengths.argmax(1) == y).float().mean()
# expect-detail: loss_function: plus F.mse_loss
