import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=50, d=16, ctx=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.register_buffer("pe", torch.randn(ctx, d))
        self.register_buffer("mask", torch.triu(torch.ones(ctx, ctx, dtype=torch.bool), 1))
        self.att = nn.MultiheadAttention(d, 2, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pe[:t]
        h, _ = self.att(h, h, h, attn_mask=self.mask[:t, :t])
        return self.out(h)


model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(10):
    x = torch.randint(0, 50, (4, 12))
    loss = F.cross_entropy(model(x)[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: input_lookup_buffer
