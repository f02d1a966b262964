# LSTM + CTC captcha OCR in miniature, after the MXNet example/warpctc lstm_ocr.py: synthetic 16x48 grayscale
# captcha images of 4 digits (5x3 bitmap glyphs scaled x2, random horizontal spacing, +-1 pixel vertical jitter,
# clutter noise), a small conv front end (2 conv layers, 16 channels, pooling the 16 pixel rows to 4 and the 48 columns to 24)
# and then a 1-layer LSTM (hidden 96) read the image column by column (24 time steps), with a linear layer to 11
# classes (blank + 10 digits), nn.CTCLoss, Adam lr 6e-3, batch 32, 16 epochs of 45 iterations (fresh captchas every
# batch). Prints the mean CTC loss, greedy-decoded sequence accuracy on a fixed validation set and the fraction of blank frames per epoch,
# writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(328)
H, W, T, NC = 16, 48, 24, 11
GLYPH = ['111101101101111', '010110010010111', '111001111100111', '111001111001111', '101101111001001',
         '111100111001111', '111100111101111', '111001010010010', '111101111101111', '111101111001111']
GLYPH = [torch.tensor([float(c) for c in s]).view(5, 3).repeat_interleave(2, 0).repeat_interleave(2, 1) for s in GLYPH]


def captcha(n):
    X = torch.rand(n, H, W, generator=g) * 0.25
    Y = torch.randint(0, 10, (n, 4), generator=g)
    for k in range(n):
        x = int(torch.randint(0, 6, (1,), generator=g))
        for d in Y[k].tolist():
            y = 3 + int(torch.randint(-1, 2, (1,), generator=g))
            X[k, y:y + 10, x:x + 6] = torch.maximum(X[k, y:y + 10, x:x + 6], GLYPH[d] * (0.7 + 0.3 * torch.rand(1, generator=g)))
            x += 6 + int(torch.randint(2, 5, (1,), generator=g))
    return X.transpose(1, 2).contiguous(), Y + 1  # (n, T=W, H), labels 1..10 (0 = blank)


class OCR(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 2)),
                                  nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d((1, 2)))
        self.lstm = nn.LSTM(16 * 4, 96, batch_first=True)
        self.out = nn.Linear(96, NC)

    def forward(self, x):  # x: (n, T, H)
        f = self.conv(x.unsqueeze(1))  # (n, 16, W/2, H/4)
        f = f.permute(0, 2, 1, 3).flatten(2)
        return self.out(self.lstm(f)[0]).log_softmax(-1)  # (n, T, C)


def greedy(logp):
    best = logp.argmax(-1)
    seqs = []
    for row in best.tolist():
        s, prev = [], 0
        for c in row:
            if c != prev and c != 0:
                s.append(c)
            prev = c
        seqs.append(s)
    return seqs, (best == 0).float().mean().item()


Xva, Yva = captcha(300)
model = OCR()
opt = torch.optim.Adam(model.parameters(), lr=6e-3)
ctc = nn.CTCLoss(blank=0)
in_len = torch.full((32,), T, dtype=torch.long)
tgt_len = torch.full((32,), 4, dtype=torch.long)
rows = []
for epoch in range(1, 17):
    model.train()
    ls = []
    for it in range(45):
        x, y = captcha(32)
        logp = model(x)
        loss = ctc(logp.transpose(0, 1), y, in_len, tgt_len)
        opt.zero_grad(); loss.backward(); opt.step()
        ls.append(loss.item())
    model.eval()
    with torch.no_grad():
        seqs, blank = greedy(model(Xva))
    acc = sum(s == t for s, t in zip(seqs, Yva.tolist())) / len(seqs)
    r = dict(epoch=epoch, train_loss=sum(ls) / len(ls), val_seq_acc=acc, blank_frac=blank)
    rows.append(r)
    print(f"epoch {epoch:2d} ctc loss {r['train_loss']:.4f} | val sequence accuracy {acc:.3f} | blank frames {blank:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
