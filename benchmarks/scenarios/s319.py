# CS224n assignment-3 window-based NER model in miniature: each token is classified (PER / ORG / LOC / MISC / O)
# from the concatenated embeddings of a 3-token window, hidden layer 200 (tanh, dropout 0.5) -> softmax, Adam
# 1e-3, batch 64, 10 epochs. The embedding matrix is loaded from "pretrained" 50-d vectors and passed to the
# model as a constant (embeddings = self.pretrained_embeddings), so it is never updated; the pretrained vectors
# of many words are near-duplicates. Prints the assignment's epoch lines; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(319)
Vw, C, Dm, W = 600, 5, 50, 3
word_type = torch.multinomial(torch.tensor([0.12, 0.1, 0.1, 0.08, 0.6]), Vw, replacement=True, generator=g)
clusters = torch.randn(60, Dm, generator=g)
pretrained = clusters[torch.randint(0, 60, (Vw,), generator=g)] + 0.05 * torch.randn(Vw, Dm, generator=g)


def sentences(n, L=20):
    w = torch.randint(0, Vw, (n, L), generator=g)
    y = word_type[w].clone()
    flip = torch.rand(n, L, generator=g) < 0.08                  # context-dependent / ambiguous tokens
    y[flip] = torch.randint(0, C, (int(flip.sum()),), generator=g)
    return w, y


def windows(w, y):
    pad = F.pad(w, (1, 1), value=0)
    return torch.stack([pad[:, i:i + w.shape[1]] for i in range(W)], 2).reshape(-1, W), y.reshape(-1)


xtr, ytr = windows(*sentences(600))
xdv, ydv = windows(*sentences(150))


class WindowModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('embeddings', pretrained.clone())     # constant, not a trainable variable
        self.h = nn.Linear(W * Dm, 200)
        self.o = nn.Linear(200, C)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        e = self.embeddings[x].flatten(1)
        return self.o(self.drop(torch.tanh(self.h(e))))


model = WindowModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
n_trainable = sum(p.numel() for p in model.parameters())
print(f'trainable parameters: {n_trainable} (embedding matrix {Vw}x{Dm} is not among them)')


def entity_f1(pred, gold):
    tp = ((pred == gold) & (gold != 4)).sum().item()
    return 2 * tp / max(1, (pred != 4).sum().item() + (gold != 4).sum().item())


rows = []
for epoch in range(1, 11):
    model.train(); p = torch.randperm(len(xtr), generator=g); tl, nb = 0.0, 0
    for b in range(0, len(p), 64):
        i = p[b:b + 64]
        loss = F.cross_entropy(model(xtr[i]), ytr[i])
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        dl = F.cross_entropy(model(xdv), ydv).item()
        pred = model(xdv).argmax(1)
    acc, f1 = (pred == ydv).float().mean().item(), entity_f1(pred, ydv)
    rows.append(dict(epoch=epoch, train_loss=tl / nb, dev_loss=dl, dev_token_acc=acc, dev_entity_f1=f1))
    print(f'Epoch {epoch} out of 10 | loss = {tl / nb:.4f} | dev loss = {dl:.4f} | token acc {acc:.4f} | '
          f'Entity level P/R/F1: {f1:.2f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
