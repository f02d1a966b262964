# keyphrase-generation-rl (catSeq with copy attention) in miniature: a GRU encoder-decoder with attention and a
# pointer-generator copy distribution generates the keyphrases of a synthetic "abstract" (the keyphrase tokens
# are copied from the source), trained with teacher forcing by maximum likelihood (Adam 1e-3, batch 32,
# 120 steps), then the predict step decodes the validation abstracts greedily. The training loader builds the
# source one-hot copy map as a float tensor; predict.py builds it with F.one_hot (int64) and feeds it to the
# same batched matmul. Prints the training log and writes metrics.jsonl, then runs prediction.
import json
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(317)
V, S, T, H = 60, 20, 6, 64        # vocab, source length, target length, hidden; 1 = BOS, 2 = SEP


def batch(n):
    src = torch.randint(3, V, (n, S), generator=g)
    pos = torch.stack([torch.randperm(S, generator=g)[:2] for _ in range(n)]).sort(1).values
    kp = torch.cat([src.gather(1, pos[:, :1]), src.gather(1, pos[:, :1] + 1).clamp(max=V - 1),
                    torch.full((n, 1), 2), src.gather(1, pos[:, 1:]), src.gather(1, (pos[:, 1:] + 1).clamp(max=S - 1)),
                    torch.full((n, 1), 2)], 1)
    return src, kp


class CatSeq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 48)
        self.enc = nn.GRU(48, H, batch_first=True)
        self.dec = nn.GRUCell(48, H)
        self.attn = nn.Linear(H, H, bias=False)
        self.out = nn.Linear(2 * H, V)
        self.pgen = nn.Linear(2 * H, 1)

    def step(self, y_prev, h, mem, src_onehot):
        h = self.dec(self.emb(y_prev), h)
        a = torch.softmax(torch.bmm(mem, self.attn(h).unsqueeze(2)).squeeze(2), 1)          # B x S
        ctx = torch.bmm(a.unsqueeze(1), mem).squeeze(1)
        feat = torch.cat([h, ctx], 1)
        p_gen = torch.sigmoid(self.pgen(feat))
        copy = (src_onehot.transpose(1, 2) @ a.unsqueeze(2)).squeeze(2)         # B x V
        return h, p_gen * torch.softmax(self.out(feat), 1) + (1 - p_gen) * copy

    def encode(self, src):
        mem, h = self.enc(self.emb(src))
        return mem, h[0]


model = CatSeq()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
log = open('metrics.jsonl', 'w')
for it in range(1, 121):
    src, kp = batch(32)
    src_onehot = F.one_hot(src, V).float()             # training data loader: float copy map
    mem, h = model.encode(src)
    y_prev, loss = torch.ones(32, dtype=torch.long), 0.0
    for t in range(T):
        h, p = model.step(y_prev, h, mem, src_onehot)
        loss = loss + F.nll_loss(torch.log(p + 1e-12), kp[:, t])
        y_prev = kp[:, t]
    loss = loss / T
    opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(model.parameters(), 2.0); opt.step()
    if it % 10 == 0:
        log.write(json.dumps(dict(step=it, train_ml_loss=loss.item())) + '\n'); log.flush()
        print(f'Epoch 1; batch: {it}; train ml loss: {loss.item():.4f}')
log.close()

print('Finish training; running predict.py on the validation abstracts ...')
model.eval()
src, kp = batch(16)
with torch.no_grad():
    src_oov_map = F.one_hot(src, V)                      # predict.py: int64 copy map
    mem, h = model.encode(src)
    y_prev, pred = torch.ones(16, dtype=torch.long), []
    for t in range(T):
        h, p = model.step(y_prev, h, mem, src_oov_map)
        y_prev = p.argmax(1); pred.append(y_prev)
print('exact match', (torch.stack(pred, 1) == kp).all(1).float().mean().item())
