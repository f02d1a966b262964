# Deep Semantic Similarity Model (DSSM) in PyTorch, in miniature: letter-trigram bag-of-words vectors of a
# query and of 1 clicked + 4 unclicked documents go through a tanh MLP (300 -> 128), cosine similarities
# are scaled by gamma = 10 and passed through nn.Softmax in forward(), and the softmax output is fed to
# nn.CrossEntropyLoss with target 0 (the clicked document). SGD lr 0.1, batch 32, 12 epochs on synthetic
# query / document pairs. Prints a line per epoch; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(320)
TRI, J, NT = 1000, 4, 120
topic_words = torch.rand(NT, TRI, generator=g).pow(12)


def bow(topics, n_tok=30):
    p = topic_words[topics] + 0.02
    return torch.zeros(len(topics), TRI).scatter_add_(1, torch.multinomial(p, n_tok, replacement=True, generator=g),
                                                      torch.ones(len(topics), n_tok)).clamp(max=1)


def batch(n):
    t = torch.randint(0, NT, (n,), generator=g)
    q, pos = bow(t, 12), bow(t)
    negs = [bow(torch.randint(0, NT, (n,), generator=g)) for _ in range(J)]
    return q, torch.stack([pos] + negs, 1)


class DSSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(TRI, 300), nn.Tanh(), nn.Linear(300, 128), nn.Tanh())
        self.d = nn.Sequential(nn.Linear(TRI, 300), nn.Tanh(), nn.Linear(300, 128), nn.Tanh())
        self.softmax = nn.Softmax(dim=1)

    def forward(self, q, docs):
        rq = self.q(q).unsqueeze(1)
        rd = self.d(docs)
        return self.softmax(10.0 * F.cosine_similarity(rq, rd, dim=2))      # probabilities


model = DSSM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
qv, dv = batch(500)
rows = []
for epoch in range(1, 13):
    model.train(); tl = 0.0
    for it in range(40):
        q, d = batch(32)
        loss = crit(model(q, d), torch.zeros(32, dtype=torch.long))
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item()
    model.eval()
    with torch.no_grad():
        pv = model(qv, dv)
        vl = crit(pv, torch.zeros(500, dtype=torch.long)).item()
        nll = -torch.log(pv[:, 0] + 1e-12).mean().item()
        p1 = (pv.argmax(1) == 0).float().mean().item()
    rows.append(dict(epoch=epoch, train_loss=tl / 40, val_loss=vl, val_clicked_nll=nll, val_p_at_1=p1))
    print(f'epoch {epoch:2d} | train loss {tl / 40:.4f} | val loss {vl:.4f} | val P@1 {p1:.3f} | '
          f'val -log p(clicked) {nll:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
