"""``users, pos, neg`` are permuted together in the sampling function; ``users, items = torch.split(...)`` in
the model's propagation binds other variables that only share the name ``users``: no array is left behind
(LightGCN's BPR sampler)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(150, 8)

    def computer(self):
        out = self.emb.weight
        users, items = torch.split(out, [100, 50])
        return users, items

    def score(self, u, p, n):
        users, items = self.computer()
        return (users[u] * items[p]).sum(-1) - (users[u] * items[n]).sum(-1)


def sample():
    users = torch.randint(0, 100, (256,))
    pos = torch.randint(0, 50, (256,))
    neg = torch.randint(0, 50, (256,))
    perm = torch.randperm(len(users))
    users, pos, neg = users[perm], pos[perm], neg[perm]
    return users, pos, neg


model = Model()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(10):
    u, p, n = sample()
    opt.zero_grad()
    loss = -nn.functional.logsigmoid(model.score(u, p, n)).mean()
    loss.backward()
    opt.step()
# expect-not: permuted_alone
