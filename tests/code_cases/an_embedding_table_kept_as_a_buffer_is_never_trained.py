import torch
import torch.nn as nn
import torch.nn.functional as F

table = torch.randn(100, 8)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("vectors", table.clone())
        self.out = nn.Linear(8, 3)

    def forward(self, tokens):
        return self.out(F.embedding(tokens, self.vectors))  # expect: input_lookup_buffer=True


model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(10):
    x, y = torch.randint(0, 100, (8,)), torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
