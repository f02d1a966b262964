# Small transformer encoder for frame-level phone classification (speech-like features)
import csv
import torch
import torch.nn as nn

torch.manual_seed(941)
torch.set_num_threads(1)

N_UTT, T, FEAT, N_PHONES = 1200, 40, 20, 12
g = torch.Generator().manual_seed(1)
protos = torch.randn(N_PHONES, FEAT, generator=g) * 1.5
labels = torch.randint(0, N_PHONES, (N_UTT, T), generator=g)
# phones last a few frames: smooth the label sequence
for t in range(1, T):
    keep = torch.rand(N_UTT, generator=g) < 0.7
    labels[keep, t] = labels[keep, t - 1]
feats = protos[labels] + 2.5 * torch.randn(N_UTT, T, FEAT, generator=g)
tr, cv = slice(0, 1000), slice(1000, 1200)


class Encoder(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.inp = nn.Linear(FEAT, d)
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(d, N_PHONES)

    def forward(self, x):
        return self.out(self.enc(self.inp(x)))


model = Encoder()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
crit = nn.CrossEntropyLoss()
BS = 32

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "cv_loss", "cv_acc"])
    step = 0
    for epoch in range(8):
        model.train()
        perm = torch.randperm(1000)
        for i in range(0, 1000, BS):
            b = perm[i:i + BS]
            logits = model(feats[tr][b])
            loss = crit(logits.reshape(-1, N_PHONES), labels[tr][b].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 8 == 0:
                model.eval()
                with torch.no_grad():
                    cl = model(feats[cv])
                    cv_loss = crit(cl.reshape(-1, N_PHONES), labels[cv].reshape(-1)).item()
                    cv_acc = (cl.argmax(-1) == labels[cv]).float().mean().item()
                model.train()
                w.writerow([step, epoch, f"{loss.item():.4f}", f"{cv_loss:.4f}", f"{cv_acc:.4f}"])
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} cv_loss {cv_loss:.4f} cv_acc {cv_acc:.3f}")
            else:
                w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
