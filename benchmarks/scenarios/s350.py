# Seq2seq chatbot in miniature, after the PyTorch chatbot tutorial (GRU encoder, Luong "dot" attention GRU decoder
# whose forward returns F.softmax over the vocabulary, teacher forcing, one decoder step at a time): synthetic
# query/response pairs (queries of 3-8 content tokens, the response is the query reversed with every token mapped
# through a fixed word-to-word table, then EOS; vocab 40, padded with PAD=0), hidden 64, Adam lr 1e-3 (decoder
# lr x5 as in the tutorial), batch 32, 1200 iterations, gradient clipping at 50. The tutorial's hand-written masked
# NLL (-log of the gathered probability) is replaced by the shorter nn.NLLLoss(ignore_index=PAD_token) applied
# to the decoder output at every step. Prints the tutorial's "Iteration / Percent complete / Average loss" line
# every 100 iterations plus greedy-decoding token accuracy on 300 held-out pairs, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(350)
PAD, SOS, EOS, V, H = 0, 1, 2, 40, 64
table = torch.randperm(V - 3, generator=g) + 3


def pairs(n):
    out = []
    for _ in range(n):
        L = int(torch.randint(3, 9, (1,), generator=g))
        q = torch.randint(3, V, (L,), generator=g)
        r = table[(q.flip(0) - 3)]
        out.append((torch.cat([q, torch.tensor([EOS])]), torch.cat([r, torch.tensor([EOS])])))
    return out


def batch(ps):
    ql = max(len(q) for q, _ in ps); rl = max(len(r) for _, r in ps)
    Q = torch.full((ql, len(ps)), PAD); R = torch.full((rl, len(ps)), PAD)
    for j, (q, r) in enumerate(ps):
        Q[:len(q), j] = q; R[:len(r), j] = r
    return Q, R


class Encoder(nn.Module):
    def __init__(self, emb):
        super().__init__(); self.emb = emb; self.gru = nn.GRU(H, H, bidirectional=True)

    def forward(self, x):
        out, h = self.gru(self.emb(x))
        return out[:, :, :H] + out[:, :, H:], h[:1]


class Decoder(nn.Module):
    def __init__(self, emb):
        super().__init__(); self.emb = emb; self.gru = nn.GRU(H, H)
        self.concat = nn.Linear(2 * H, H); self.out = nn.Linear(H, V)

    def forward(self, inp, hidden, enc):
        o, hidden = self.gru(self.emb(inp), hidden)                 # (1, B, H)
        att = F.softmax((o * enc).sum(2).t(), dim=1)                 # (B, T) dot attention
        ctx = att.unsqueeze(1).bmm(enc.transpose(0, 1)).squeeze(1)   # (B, H)
        c = torch.tanh(self.concat(torch.cat([o.squeeze(0), ctx], 1)))
        return F.softmax(self.out(c), dim=1), hidden                 # probabilities, as in the tutorial


emb = nn.Embedding(V, H)
enc, dec = Encoder(emb), Decoder(emb)
eopt = torch.optim.Adam(enc.parameters(), lr=1e-3)
dopt = torch.optim.Adam(dec.parameters(), lr=5e-3)
criterion = nn.NLLLoss(ignore_index=PAD)
train, test = pairs(6000), pairs(300)
TQ, TR = batch(test)


def greedy_acc():
    with torch.no_grad():
        e, h = enc(TQ)
        inp = torch.full((1, TR.shape[1]), SOS); correct = total = 0
        for t in range(TR.shape[0]):
            p, h = dec(inp, h, e)
            pred = p.argmax(1); m = TR[t] != PAD
            correct += (pred[m] == TR[t][m]).sum().item(); total += m.sum().item()
            inp = pred.view(1, -1)
    return correct / total


rows, losses = [], []
for it in range(1, 1201):
    idx = torch.randint(0, len(train), (32,), generator=g)
    Q, R = batch([train[i] for i in idx])
    eopt.zero_grad(); dopt.zero_grad()
    e, h = enc(Q)
    inp = torch.full((1, 32), SOS); total_loss = 0
    for t in range(R.shape[0]):
        p, h = dec(inp, h, e)
        inp = R[t].view(1, -1)                                       # teacher forcing
        total_loss = total_loss + criterion(p, R[t])
    total_loss.backward()
    nn.utils.clip_grad_norm_(enc.parameters(), 50.0); nn.utils.clip_grad_norm_(dec.parameters(), 50.0)
    eopt.step(); dopt.step()
    losses.append(total_loss.item() / R.shape[0])
    if it % 100 == 0:
        acc = greedy_acc()
        r = dict(iteration=it, avg_loss=sum(losses) / len(losses), test_token_acc=acc)
        rows.append(r); losses = []
        print(f"Iteration: {it}; Percent complete: {it / 12:.1f}%; Average loss: {r['avg_loss']:.4f}; test token acc: {acc:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
