# OpenNMT-style transformer NMT in miniature: a 2+2-layer nn.Transformer (d_model 64, 4 heads) on a toy
# translation task (target = source sequence reversed, with a fixed token mapping), vocab 40, length 12.
# The run switches -optim to adam but keeps the default -learning_rate 1.0 meant for SGD, no warm-up
# or decay. Batch 64, 400 steps, OpenNMT-like report lines (acc, ppl, xent, lr).
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(285)

V, L, BOS, PAD = 40, 12, 1, 0
mapping = torch.randperm(V - 2, generator=g) + 2


def batch(n):
    src = torch.randint(2, V, (n, L), generator=g)
    tgt = mapping[src.flip(1) - 2]
    tgt_in = torch.cat([torch.full((n, 1), BOS), tgt[:, :-1]], 1)
    return src, tgt_in, tgt


class NMT(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.emb = nn.Embedding(V, d); self.pos = nn.Parameter(torch.randn(L, d) * 0.02)
        self.tf = nn.Transformer(d, 4, 2, 2, 128, dropout=0.1, batch_first=True)
        self.gen = nn.Linear(d, V)

    def forward(self, src, tgt_in):
        mask = self.tf.generate_square_subsequent_mask(L)
        h = self.tf(self.emb(src) + self.pos, self.emb(tgt_in) + self.pos, tgt_mask=mask)
        return self.gen(h)


model = NMT()
opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.998))     # -optim adam, -learning_rate 1
vsrc, vin, vtgt = batch(512)
for step in range(1, 401):
    model.train()
    src, tgt_in, tgt = batch(64)
    out = model(src, tgt_in)
    loss = F.cross_entropy(out.reshape(-1, V), tgt.reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 25 == 0:
        acc = (out.argmax(-1) == tgt).float().mean().item() * 100
        xent = loss.item()
        print('[INFO] Step {:4d}/  400; acc: {:6.2f}; ppl: {:9.2f}; xent: {:6.2f}; lr: 1.00000'.format(
            step, acc, math.exp(min(xent, 50)), xent))
    if step % 100 == 0:
        model.eval()
        with torch.no_grad():
            vo = model(vsrc, vin)
            vx = F.cross_entropy(vo.reshape(-1, V), vtgt.reshape(-1)).item()
            va = (vo.argmax(-1) == vtgt).float().mean().item() * 100
        print('[INFO] Validation perplexity: {:.2f}'.format(math.exp(min(vx, 50))))
        print('[INFO] Validation accuracy: {:.2f}'.format(va))
