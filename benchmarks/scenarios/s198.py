# BYOL-A-style audio encoder (conv on log-mel frames) + linear head; encoder is frozen for a linear-eval warm-up, then unfrozen for fine-tuning
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)
torch.set_num_threads(1)

C, NMEL, T = 8, 32, 24
g = torch.Generator().manual_seed(21)
N = 3200
y = torch.randint(0, C, (N,), generator=g)
band = torch.randn(C, NMEL, generator=g)
mod = torch.randn(C, T, generator=g)
X = (band[y].unsqueeze(2) * torch.tanh(mod[y]).unsqueeze(1)) * 0.6 + torch.randn(N, NMEL, T, generator=g)
X = X.unsqueeze(1)
Xtr, ytr, Xva, yva = X[:2800], y[:2800], X[2800:], y[2800:]


class AudioNTT(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Linear(16 * (NMEL // 4), d), nn.ReLU())

    def forward(self, x):
        x = self.features(x)                      # (B, 16, NMEL/4, T/4)
        x = x.permute(0, 3, 1, 2).flatten(2)      # (B, T/4, 16*NMEL/4)
        x = self.fc(x)
        return x.mean(1) + x.amax(1)

    def set_trainable(self, trainable):
        for p in self.parameters():
            if p.requires_grad:
                p.requires_grad = trainable


encoder = AudioNTT()
head = nn.Linear(64, C)


def run(epochs, tag, w, step):
    params = [p for p in list(encoder.parameters()) + list(head.parameters()) if p.requires_grad]
    opt = torch.optim.Adam(params, lr=5e-3)
    for ep in range(epochs):
        encoder.train()
        perm = torch.randperm(2800)
        tl = 0.0
        for i in range(0, 2800, 64):
            b = perm[i:i + 64]
            loss = F.cross_entropy(head(encoder(Xtr[b])), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tl += loss.item()
            w.writerow([step, tag, f"{loss.item():.4f}", "", ""])
        encoder.eval()
        with torch.no_grad():
            lo = head(encoder(Xva))
            vl = F.cross_entropy(lo, yva).item()
            acc = (lo.argmax(1) == yva).float().mean().item()
        w.writerow([step, tag, f"{loss.item():.4f}", f"{vl:.4f}", f"{acc:.4f}"])
        print(f"[{tag}] epoch {ep + 1}: train loss {tl / 44:.4f} | val loss {vl:.4f} | val acc {acc:.4f}")
    return step


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "phase", "loss", "val_loss", "val_acc"])
    encoder.set_trainable(False)
    step = run(3, "linear-eval", w, 0)
    encoder.set_trainable(True)
    run(12, "fine-tune", w, step)
