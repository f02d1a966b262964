# Small transformer language model with dropout 0.3 on a synthetic Markov "language"; train ppl is the running average over the epoch
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(1)
torch.set_num_threads(1)

V, T = 40, 32
g = torch.Generator().manual_seed(21)
trans = torch.softmax(torch.randn(V, V, generator=g) * 2.5, 1)   # bigram language


def corpus(n_seq):
    x = torch.zeros(n_seq, T + 1, dtype=torch.long)
    x[:, 0] = torch.randint(0, V, (n_seq,), generator=g)
    for t in range(T):
        x[:, t + 1] = torch.multinomial(trans[x[:, t]], 1, generator=g).squeeze(1)
    return x


train, valid = corpus(2000), corpus(300)


class TinyLM(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, d), nn.Embedding(T, d)
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.3, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.drop = nn.Dropout(0.3)
        self.out = nn.Linear(d, V)
        self.register_buffer("mask", torch.triu(torch.full((T, T), float("-inf")), 1))

    def forward(self, x):
        h = self.drop(self.tok(x) + self.pos(torch.arange(x.shape[1])))
        return self.out(self.blocks(h, mask=self.mask))


model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "train_ppl", "val_loss", "val_ppl"])
    for epoch in range(8):
        model.train()
        perm = torch.randperm(len(train))
        tot, nb = 0.0, 0
        for i in range(0, len(train), 50):
            b = train[perm[i:i + 50]]
            loss = crit(model(b[:, :-1]).reshape(-1, V), b[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            nb += 1
        model.eval()
        with torch.no_grad():
            vl = crit(model(valid[:, :-1]).reshape(-1, V), valid[:, 1:].reshape(-1)).item()
        tl = tot / nb
        w.writerow([epoch, f"{tl:.4f}", f"{math.exp(tl):.3f}", f"{vl:.4f}", f"{math.exp(vl):.3f}"])
        print(f"epoch {epoch}  train ppl {math.exp(tl):.3f}  valid ppl {math.exp(vl):.3f}")
