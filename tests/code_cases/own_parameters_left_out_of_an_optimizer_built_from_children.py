import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.mlp = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 5))
        self.trans = nn.Parameter(torch.zeros(5, 5))
        self.fixed = nn.Parameter(torch.ones(5), requires_grad=False)

    def emissions(self, words):
        return self.mlp(self.emb(words))

    def nll(self, words, tags):
        e = self.emissions(words).log_softmax(-1) * self.fixed
        gold = e.gather(-1, tags.unsqueeze(-1)).sum() + self.trans[tags[:, :-1], tags[:, 1:]].sum()
        return -gold / words.shape[0]


model = Tagger()
optimizer = torch.optim.Adam(list(model.emb.parameters()) + list(model.mlp.parameters()), lr=1e-3)  # expect: params_not_in_optimizer=['model.trans: the optimizer (line 23) holds only model.emb.parameters(), model.mlp.parameters() while model trains']
words = torch.randint(0, 50, (64, 10))
tags = torch.randint(0, 5, (64, 10))
for step in range(100):
    loss = model.nll(words, tags)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
