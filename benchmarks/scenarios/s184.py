# LSTM emotion classifier (13 classes)
import csv
import torch
import torch.nn as nn

torch.manual_seed(68)
torch.set_num_threads(1)

V, C, L = 3000, 13, 24
g = torch.Generator().manual_seed(13)
cue_words = torch.randint(1, V, (C, 6), generator=g)      # a few emotion-bearing words per class


def sentences(n):
    y = torch.randint(0, C, (n,), generator=g)
    x = torch.randint(1, V, (n, L), generator=g)           # mostly content words unrelated to the emotion
    for i in range(n):
        k = int(torch.randint(1, 3, (1,), generator=g))
        pos = torch.randperm(L, generator=g)[:k]
        x[i, pos] = cue_words[y[i], torch.randint(0, 6, (k,), generator=g)]
        if torch.rand(1, generator=g) < 0.35:              # ambiguous texts: cue word of another emotion
            x[i, torch.randint(0, L, (1,), generator=g)] = cue_words[torch.randint(0, C, (1,), generator=g), 0]
    return x, y


Xtr, ytr = sentences(520)
Xva, yva = sentences(400)


class LSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 100)
        self.lstm = nn.LSTM(100, 128, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(256, C)

    def forward(self, x):
        _, (h, _) = self.lstm(self.emb(x))
        return self.fc(torch.cat([h[0], h[1]], 1))


model = LSTMClassifier()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(25):
        model.train()
        perm = torch.randperm(len(Xtr))
        tl, tc = 0.0, 0
        for i in range(0, len(perm), 32):
            b = perm[i:i + 32]
            out = model(Xtr[b])
            loss = crit(out, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(b)
            tc += (out.argmax(1) == ytr[b]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item()
            va = (vo.argmax(1) == yva).float().mean().item()
        w.writerow([epoch, f"{tl / len(Xtr):.4f}", f"{tc / len(Xtr):.4f}", f"{vl:.4f}", f"{va:.4f}"])
        print(f"Epoch {epoch + 1:02} | Train Loss {tl / len(Xtr):.3f} | Train Acc {100 * tc / len(Xtr):.1f}% "
              f"| Val. Loss {vl:.3f} | Val. Acc {100 * va:.1f}%")
