# dl4mt-tutorial (nyu-dl, Theano) session 2 nmt.py in miniature, ported to PyTorch: GRU
# encoder-decoder with attention (dim_word 32, dim 64 here) on a synthetic translation task
# (source sentences of 5-30 tokens over a 60-word vocabulary, target = a fixed word-by-word
# mapping of the reversed source), batch 16, cost = per-sentence sum of target-word NLL averaged
# over the batch (as in nmt.py), plain SGD with lrate 0.25, clip_c = -1 (gradient clipping off),
# "Epoch  e Update  u Cost  c UD  t" every dispFreq updates, "Valid  v" every validFreq updates,
# and the training loop's NaN check ("NaN detected") that stops training.
import csv, time, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(64); torch.manual_seed(64); torch.set_num_threads(1)
V, EOS = 60, 0
mapping = np.concatenate([[0], 1 + np.random.permutation(V - 1)])
def pair():
    n = np.random.randint(5, 21); s = np.random.randint(1, V, n); t = mapping[s[::-1]]
    return np.append(s, EOS), np.append(t, EOS)
def prepare(pairs):
    ls, lt = max(len(s) for s, _ in pairs), max(len(t) for _, t in pairs)
    x = np.zeros((len(pairs), ls), np.int64); xm = np.zeros((len(pairs), ls), np.float32)
    y = np.zeros((len(pairs), lt), np.int64); ym = np.zeros((len(pairs), lt), np.float32)
    for i, (s, t) in enumerate(pairs): x[i, :len(s)] = s; xm[i, :len(s)] = 1; y[i, :len(t)] = t; ym[i, :len(t)] = 1
    return [torch.tensor(a) for a in (x, xm, y, ym)]
valid = prepare([pair() for _ in range(200)])

class NMT(nn.Module):
    def __init__(self, dw=32, dim=64):
        super().__init__()
        self.Wemb = nn.Embedding(V, dw); self.Wemb_dec = nn.Embedding(V, dw)
        self.enc_f = nn.GRU(dw, dim, batch_first=True); self.enc_r = nn.GRU(dw, dim, batch_first=True)
        self.ff_state = nn.Linear(2 * dim, dim); self.dec = nn.GRUCell(dw + 2 * dim, dim)
        self.att_ctx = nn.Linear(2 * dim, dim); self.att_h = nn.Linear(dim, dim); self.att_v = nn.Linear(dim, 1)
        self.ff_logit = nn.Linear(dim + dw + 2 * dim, V)
    def forward(self, x, xm, y, ym):
        emb = self.Wemb(x)
        hf, _ = self.enc_f(emb); hr, _ = self.enc_r(torch.flip(emb, [1]))
        ctx = torch.cat([hf, torch.flip(hr, [1])], -1) * xm[..., None]
        h = torch.tanh(self.ff_state((ctx * xm[..., None]).sum(1) / xm.sum(1, keepdim=True)))
        pctx = self.att_ctx(ctx); yemb = self.Wemb_dec(y); prev = torch.zeros_like(yemb[:, 0]); cost = 0.0
        for t in range(y.size(1)):
            e = self.att_v(torch.tanh(pctx + self.att_h(h)[:, None])).squeeze(-1).masked_fill(xm == 0, -1e9)
            c = (F.softmax(e, -1)[..., None] * ctx).sum(1)
            h = self.dec(torch.cat([prev, c], -1), h)
            logit = self.ff_logit(torch.cat([h, prev, c], -1))
            cost = cost + F.cross_entropy(logit, y[:, t], reduction='none') * ym[:, t]
            prev = yemb[:, t]
        return cost                                          # per-sentence summed NLL

model = NMT()
lrate, clip_c, dispFreq, validFreq, batch_size = 0.25, -1., 20, 100, 16
opt = torch.optim.SGD(model.parameters(), lr=lrate)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['update', 'cost', 'valid'])
uidx = 0; stop = False
for eidx in range(100):
    for _ in range(200):
        x, xm, y, ym = prepare([pair() for _ in range(batch_size)]); uidx += 1
        ud_start = time.time()
        cost = model(x, xm, y, ym).mean()
        opt.zero_grad(); cost.backward()
        if clip_c > 0.: torch.nn.utils.clip_grad_norm_(model.parameters(), clip_c)
        opt.step(); ud = time.time() - ud_start
        if math.isnan(cost.item()) or math.isinf(cost.item()):
            print('NaN detected'); stop = True; break
        if uidx % dispFreq == 0:
            print('Epoch ', eidx, 'Update ', uidx, 'Cost ', cost.item(), 'UD ', ud)
            wr.writerow([uidx, cost.item(), ''])
        if uidx % validFreq == 0:
            with torch.no_grad(): v = model(*valid).mean().item()
            print('Valid ', v); wr.writerow([uidx, '', v])
        if uidx >= 500: stop = True; break
    if stop: break
