# Keyword Transformer (KWT) in miniature: 12 keywords, 40 MFCC x 32 frames per clip, each frame is a
# token for a 2-layer transformer encoder (d=48, 4 heads, dropout 0.1) with a class token.
# Training uses SpecAugment (2 time masks of up to 6 frames, 2 frequency masks of up to 6 bins) and
# label smoothing 0.1; validation uses clean inputs. AdamW lr 1e-3, wd 0.01, batch 64, 10 epochs.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
C, NM, NT = 12, 40, 32
g = torch.Generator().manual_seed(11)
proto = F.avg_pool2d(torch.randn(C, 1, NM, NT, generator=g), 5, 1, 2).squeeze(1) * 1.2

class Clips(Dataset):
    def __init__(self, n, augment):
        self.y = torch.randint(0, C, (n,), generator=g)
        shift = torch.randint(-3, 4, (n,), generator=g)
        self.x = torch.stack([torch.roll(proto[c], int(s), 1) for c, s in zip(self.y, shift)]) + 1.0 * torch.randn(n, NM, NT, generator=g)
        self.augment = augment
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        x = self.x[i].clone()
        if self.augment:
            for _ in range(2):
                w = torch.randint(0, 7, (1,)).item(); t0 = torch.randint(0, NT - w + 1, (1,)).item(); x[:, t0:t0 + w] = 0
                w = torch.randint(0, 7, (1,)).item(); f0 = torch.randint(0, NM - w + 1, (1,)).item(); x[f0:f0 + w, :] = 0
        return x, self.y[i]

class KWT(nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.proj = nn.Linear(NM, d)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(0.02 * torch.randn(1, NT + 1, d))
        layer = nn.TransformerEncoderLayer(d, 4, 96, dropout=0.1, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, C)
    def forward(self, x):
        t = self.proj(x.transpose(1, 2))
        t = torch.cat([self.cls.expand(len(t), -1, -1), t], 1) + self.pos
        return self.head(self.enc(t)[:, 0])

train = DataLoader(Clips(2400, True), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(12))
val = Clips(600, False)
model = KWT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(1, 11):
        model.train(); tl = tc = 0.0
        for xb, yb in train:
            out = model(xb)
            loss = F.cross_entropy(out, yb, label_smoothing=0.1)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(val.x); vl = F.cross_entropy(vo, val.y, label_smoothing=0.1).item(); va = (vo.argmax(1) == val.y).float().mean().item()
        print(f"epoch {epoch} train_loss {tl/2400:.4f} train_acc {tc/2400:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
        wr.writerow([epoch, f"{tl/2400:.4f}", f"{tc/2400:.4f}", f"{vl:.4f}", f"{va:.4f}"])
        fh.flush()
