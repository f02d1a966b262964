# HVPNeT-style multimodal NER trainer in miniature (text side only): a small "pretrained" transformer encoder
# + fc emission layer + CRF over 9 BIO tags. The optimizer is built from parameter groups, as in the
# trainer's `parameters.append(params)` pattern, but the group for the fc and crf parameters is built and
# never appended, so only the encoder is optimised (AdamW, lr 3e-5 as for BERT, batch 16, 12 epochs).
# Synthetic sentences (vocab 200, length 20) whose entity spans are marked by trigger words.
# Writes metrics.csv (loss, token accuracy, entity F1) and prints per epoch.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(301)

V, L, NT = 200, 20, 9          # tags: O, B-PER, I-PER, B-LOC, I-LOC, B-ORG, I-ORG, B-MISC, I-MISC


def make(n):
    x = torch.randint(40, V, (n, L), generator=g)
    y = torch.zeros(n, L, dtype=torch.long)
    for i in range(n):
        for _ in range(int(torch.randint(1, 4, (1,), generator=g))):
            t = int(torch.randint(0, 4, (1,), generator=g))
            s = int(torch.randint(1, L - 3, (1,), generator=g)); ln = int(torch.randint(1, 3, (1,), generator=g))
            x[i, s - 1] = 10 * t + int(torch.randint(0, 10, (1,), generator=g))   # trigger word of type t
            y[i, s] = 1 + 2 * t
            y[i, s + 1:s + ln] = 2 + 2 * t
    return x, y


xtr, ytr = make(1200)
xva, yva = make(300)


class CRF(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.start = nn.Parameter(torch.randn(n) * 0.1)
        self.end = nn.Parameter(torch.randn(n) * 0.1)
        self.trans = nn.Parameter(torch.randn(n, n) * 0.1)

    def nll(self, em, tags):
        B = em.size(0)
        score = self.start[tags[:, 0]] + em[torch.arange(B), 0, tags[:, 0]]
        for t in range(1, L):
            score = score + self.trans[tags[:, t - 1], tags[:, t]] + em[torch.arange(B), t, tags[:, t]]
        score = score + self.end[tags[:, -1]]
        alpha = self.start + em[:, 0]
        for t in range(1, L):
            alpha = torch.logsumexp(alpha.unsqueeze(2) + self.trans + em[:, t].unsqueeze(1), 1)
        logz = torch.logsumexp(alpha + self.end, 1)
        return (logz - score).mean()

    def decode(self, em):
        score = self.start + em[:, 0]; back = []
        for t in range(1, L):
            s = score.unsqueeze(2) + self.trans + em[:, t].unsqueeze(1)
            score, idx = s.max(1); back.append(idx)
        score = score + self.end
        best = [score.argmax(1)]
        for idx in reversed(back):
            best.append(idx.gather(1, best[-1].unsqueeze(1)).squeeze(1))
        return torch.stack(best[::-1], 1)


class NERModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 64)
        self.bert = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True), 2)
        self.fc = nn.Linear(64, NT)
        self.crf = CRF(NT)

    def emissions(self, x):
        return self.fc(self.bert(self.emb(x)))


def spans(seq):
    out, cur = set(), None
    for i, t in enumerate(seq):
        if t % 2 == 1:
            cur = [i, i, t]; out.add(tuple(cur))
        elif t != 0 and cur is not None and t == cur[2] + 1 and cur[1] == i - 1:
            out.discard(tuple(cur)); cur[1] = i; out.add(tuple(cur))
        else:
            cur = None
    return out


def f1(pred, gold):
    tp = fp = fn = 0
    for p, q in zip(pred.tolist(), gold.tolist()):
        a, b = spans(p), spans(q)
        tp += len(a & b); fp += len(a - b); fn += len(b - a)
    return 2 * tp / max(1, 2 * tp + fp + fn)


model = NERModel()
parameters = []
params = {'lr': 3e-5, 'weight_decay': 1e-2}
params['params'] = [p for n, p in model.named_parameters() if n.startswith('bert') or n.startswith('emb')]
parameters.append(params)
params = {'lr': 5e-2, 'weight_decay': 1e-2}                      # crf / fc group: built ...
params['params'] = [p for n, p in model.named_parameters() if n.startswith('crf') or n.startswith('fc')]
# ... but never appended to `parameters`
optimizer = torch.optim.AdamW(parameters)

rows = []
for epoch in range(1, 13):
    model.train()
    perm = torch.randperm(len(xtr), generator=g); tot = 0.0
    for i in range(0, len(xtr), 16):
        idx = perm[i:i + 16]
        loss = model.crf.nll(model.emissions(xtr[idx]), ytr[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        em = model.emissions(xva)
        vloss = model.crf.nll(em, yva).item()
        pred = model.crf.decode(em)
        acc = (pred == yva).float().mean().item()
        vf1 = f1(pred, yva)
        fc_norm = model.fc.weight.norm().item()
    print(f'Epoch {epoch}/12: train loss {tot / len(xtr):.4f} | dev loss {vloss:.4f} | dev token acc {acc:.4f} | dev entity F1 {vf1:.4f} | fc weight norm {fc_norm:.4f}')
    rows.append(dict(epoch=epoch, train_loss=round(tot / len(xtr), 5), dev_loss=round(vloss, 5),
                     dev_token_acc=round(acc, 4), dev_f1=round(vf1, 4), fc_weight_norm=round(fc_norm, 5)))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
