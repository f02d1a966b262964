"""``nn.Embedding.from_pretrained`` over numbers the script draws itself: the default freeze=True keeps the
table at its random start for the whole run, and nothing pretrained is loaded."""
import torch
import torch.nn as nn


class MF(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.users = nn.Embedding(n_users, dim)
        self.items = nn.Embedding.from_pretrained(0.1 * torch.randn(n_items, dim))  # expect: frozen_params

    def forward(self, u, i):
        return (self.users(u) * self.items(i)).sum(-1)


model = MF(100, 50, 8)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
u = torch.randint(0, 100, (64,))
i = torch.randint(0, 50, (64,))
r = torch.rand(64)
for _ in range(10):
    opt.zero_grad()
    loss = ((model(u, i) - r) ** 2).mean()
    loss.backward()
    opt.step()
# expect-not: loads_pretrained
# expect-detail: frozen_weights: random init
