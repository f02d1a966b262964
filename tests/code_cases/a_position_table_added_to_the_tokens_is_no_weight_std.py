import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, vocab, length, width, tags):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.where = nn.Parameter(torch.randn(length, width))
        self.start = nn.Parameter(torch.randn(1, 1, width))
        self.keys = nn.Parameter(torch.randn(width, width))  # expect: init_weight_std=1.0
        self.mix = nn.GRU(width, width, batch_first=True)
        self.out = nn.Linear(width, tags)

    def forward(self, x):
        h = self.tokens(x) + self.where[: x.shape[1]].unsqueeze(0)
        h = torch.cat([self.start.expand(x.shape[0], -1, -1), h], dim=1)
        h = self.mix(h + self.keys.mean(0))[0][:, 1:]
        return self.out(h @ self.keys)


net = Tagger(50, 24, 32, 5)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randint(0, 50, (64, 24)), torch.randint(0, 5, (64, 24))
for _ in range(25):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x).reshape(-1, 5), y.reshape(-1))
    loss.backward()
    opt.step()
