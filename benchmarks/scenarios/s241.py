# LSTM written from scratch (tutorial style: every gate has its own weight matrix acting on
# [h_{t-1}, x_t]) for sequence classification: the class (one of 4) is the symbol shown at the first
# time step, followed by 24 steps of distractor symbols. Weights are initialised with
# torch.randn (standard normal) as in the numpy version of the tutorial (output layer x0.01). Adam lr 1e-3, batch 64.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

V, C, T, H = 10, 4, 25, 64

def make(n, g):
    y = torch.randint(0, C, (n,), generator=g)
    seq = torch.randint(C, V, (n, T), generator=g)
    seq[:, 0] = y
    return F.one_hot(seq, V).float(), y

class ScratchLSTM(nn.Module):
    def __init__(self, nin, nh, nout):
        super().__init__()
        z = nin + nh
        self.Wf = nn.Parameter(torch.randn(z, nh)); self.bf = nn.Parameter(torch.zeros(nh))
        self.Wi = nn.Parameter(torch.randn(z, nh)); self.bi = nn.Parameter(torch.zeros(nh))
        self.Wc = nn.Parameter(torch.randn(z, nh)); self.bc = nn.Parameter(torch.zeros(nh))
        self.Wo = nn.Parameter(torch.randn(z, nh)); self.bo = nn.Parameter(torch.zeros(nh))
        self.Wy = nn.Parameter(torch.randn(nh, nout) * 0.01); self.by = nn.Parameter(torch.zeros(nout))
        self.nh = nh

    def forward(self, x):
        n = x.shape[0]
        h = torch.zeros(n, self.nh); c = torch.zeros(n, self.nh)
        for t in range(x.shape[1]):
            z = torch.cat([h, x[:, t]], 1)
            f = torch.sigmoid(z @ self.Wf + self.bf)
            i = torch.sigmoid(z @ self.Wi + self.bi)
            cbar = torch.tanh(z @ self.Wc + self.bc)
            o = torch.sigmoid(z @ self.Wo + self.bo)
            c = f * c + i * cbar
            h = o * torch.tanh(c)
        return h @ self.Wy + self.by

model = ScratchLSTM(V, H, C)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
g = torch.Generator().manual_seed(1)
xv, yv = make(1000, torch.Generator().manual_seed(7))

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "loss", "acc", "val_loss", "val_acc"])
    for step in range(1, 1201):
        x, y = make(64, g)
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = (out.argmax(1) == y).float().mean().item()
        vl = va = ""
        if step % 100 == 0:
            with torch.no_grad():
                vo = model(xv)
                vl = f"{F.cross_entropy(vo, yv).item():.4f}"
                va = f"{(vo.argmax(1) == yv).float().mean().item():.4f}"
            print(f"step {step} loss {loss.item():.4f} acc {acc:.3f} val_loss {vl} val_acc {va}")
        wr.writerow([step, f"{loss.item():.4f}", f"{acc:.4f}", vl, va])
