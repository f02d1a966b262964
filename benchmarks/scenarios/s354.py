# Short-text classification in miniature, after a question about a BERT classifier (about 14k text records, 20
# unique labels with some much more frequent than others, 25% stratified validation split, dropout 0.2 on the
# attention and hidden layers, small learning rate): synthetic records of 12-30 tokens from a 2000-word vocabulary,
# each label owning a few keywords mixed with frequent filler words and confusable shared words, imbalanced label
# frequencies, a few records mislabelled. Model: EmbeddingBag (mean, dim 64) with token dropout 0.2 -> dropout 0.2
# -> Linear 128 -> ReLU -> dropout 0.2 -> Linear 20, Adam lr 3e-4, batch 64, 40 epochs. The training loss is the
# running mean over the epoch (dropout on); validation runs in eval mode. Prints every 4th epoch: training loss,
# validation loss and weighted F1 on the validation split, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(354)
V, C, D = 2000, 20, 64
prior = torch.softmax(torch.linspace(1.5, -1.5, C), 0)
keys = torch.randperm(V - 200, generator=g)[:C * 6].view(C, 6) + 200      # 6 keywords per label
shared = torch.randint(200, V, (C, 6), generator=g)                        # words shared with other labels


def records(n):
    y = torch.multinomial(prior, n, replacement=True, generator=g)
    docs = []
    for k in range(n):
        L = int(torch.randint(12, 31, (1,), generator=g))
        kind = torch.rand(L, generator=g)
        tok = torch.randint(0, 200, (L,), generator=g)                                     # filler
        kw = keys[y[k], torch.randint(0, 6, (L,), generator=g)]
        other = shared[torch.randint(0, C, (L,), generator=g), torch.randint(0, 6, (L,), generator=g)]
        tok = torch.where(kind < 0.12, kw, torch.where(kind < 0.45, other, tok))
        docs.append(tok)
    flip = torch.rand(n, generator=g) < 0.05
    y = torch.where(flip, torch.randint(0, C, (n,), generator=g), y)
    return docs, y


def pack(docs):
    return torch.cat(docs), torch.tensor([0] + [len(d) for d in docs[:-1]]).cumsum(0)


tr_docs, Ytr = records(6000)
va_docs, Yva = records(2000)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(V, D, mode='mean')
        self.mlp = nn.Sequential(nn.Dropout(0.2), nn.Linear(D, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, C))

    def forward(self, docs):
        if self.training:
            docs = [d[torch.rand(len(d)) >= 0.2] if len(d) > 5 else d for d in docs]  # token dropout
        tok, off = pack(docs)
        return self.mlp(self.emb(tok, off))


def weighted_f1(pred, y):
    f1s, ws = [], []
    for c in range(C):
        tp = ((pred == c) & (y == c)).sum().item(); fp = ((pred == c) & (y != c)).sum().item(); fn = ((pred != c) & (y == c)).sum().item()
        f1s.append(2 * tp / max(1, 2 * tp + fp + fn)); ws.append((y == c).sum().item())
    return sum(f * w for f, w in zip(f1s, ws)) / sum(ws)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
rows = []
for epoch in range(1, 41):
    model.train(); perm = torch.randperm(len(tr_docs), generator=g); tl = 0.0
    for k in range(0, len(perm), 64):
        i = perm[k:k + 64]
        loss = F.cross_entropy(model([tr_docs[j] for j in i]), Ytr[i])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(i)
    model.eval()
    with torch.no_grad():
        out = model(va_docs); vl = F.cross_entropy(out, Yva).item()
        f1 = weighted_f1(out.argmax(1), Yva)
    r = dict(epoch=epoch, train_loss=tl / len(perm), val_loss=vl, val_f1_weighted=f1)
    rows.append(r)
    if epoch % 4 == 0 or epoch == 1:
        print(f"epoch {epoch:2d}: training loss {r['train_loss']:.4f} | validation loss {vl:.4f} | F1 score - weighted {f1:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
