# Sample-level GRU vocoder-like model: predicts the next 8-bit mu-law sample (256-way softmax) of noisy synthetic speech
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(37)
torch.set_num_threads(1)

Q, L, N = 256, 80, 1200
g = torch.Generator().manual_seed(37)
t = torch.arange(L + 1).float()
f0 = 0.03 + 0.05 * torch.rand(N, 1, generator=g)
amp = 0.3 + 0.4 * torch.rand(N, 3, generator=g)
wave = sum(amp[:, k:k + 1] / (k + 1) * torch.sin(2 * math.pi * (k + 1) * f0 * t + 6.28 * torch.rand(N, 1, generator=g))
           for k in range(3))
wave = (wave + 0.04 * torch.randn(N, L + 1, generator=g)).clamp(-0.99, 0.99)
mu = torch.sign(wave) * torch.log1p(255 * wave.abs()) / math.log(256)
q = ((mu + 1) / 2 * 255).round().long()                       # 8-bit mu-law codes
tr, va = q[:1000], q[1000:]


class SampleRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(Q, 32)
        self.gru = nn.GRU(32, 96, batch_first=True)
        self.out = nn.Linear(96, Q)

    def forward(self, x):
        return self.out(self.gru(self.emb(x))[0])


model = SampleRNN()
opt = torch.optim.Adam(model.parameters(), lr=4e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss"])
    step = 0
    for epoch in range(10):
        perm = torch.randperm(len(tr))
        for i in range(0, len(tr), 25):
            b = tr[perm[i:i + 25]]
            loss = crit(model(b[:, :-1]).reshape(-1, Q), b[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", ""])
        with torch.no_grad():
            vl = crit(model(va[:, :-1]).reshape(-1, Q), va[:, 1:].reshape(-1)).item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}"])
        print(f"epoch {epoch + 1:2d} loss {loss.item():.4f} val_loss {vl:.4f}")
