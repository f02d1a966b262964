# LEAF-style learnable audio front-end in miniature: a Gabor filterbank whose centre frequencies and
# bandwidths are nn.Parameters, followed by squared-modulus, log-compressed average pooling and a
# linear classifier. 4 classes of 0.25 s clips at 8 kHz (a tone at 900/1200/1500/1800 Hz in noise).
# Filters are initialised on a mel-like scale between 60 and 500 Hz. Adam lr 1e-2, batch 32.
# As in the reference implementation, the constraint that clamps the Gabor parameters (and builds
# the kernels) runs under torch.no_grad().
import csv, math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

SR, NS, C, NFILT, KW = 8000, 2000, 4, 16, 129
g = torch.Generator().manual_seed(8)
def make(n):
    y = torch.randint(0, C, (n,), generator=g)
    f = 900 + 300 * y.float() + 40 * torch.randn(n, generator=g)
    t = torch.arange(NS) / SR
    x = 0.5 * torch.sin(2 * math.pi * f[:, None] * t + 6.28 * torch.rand(n, 1, generator=g))
    x = x + 0.5 * torch.randn(n, NS, generator=g)
    return x.unsqueeze(1), y

class GaborConv(nn.Module):
    def __init__(self):
        super().__init__()
        mel = torch.linspace(2595 * math.log10(1 + 60 / 700), 2595 * math.log10(1 + 500 / 700), NFILT)
        hz = 700 * (10 ** (mel / 2595) - 1)
        self.center = nn.Parameter(2 * math.pi * hz / SR)        # radians / sample
        self.fwhm = nn.Parameter(torch.full((NFILT,), 6.0))      # samples
    def kernels(self):
        with torch.no_grad():   # GaborConstraint
            mu = self.center.clamp(0.0, math.pi)
            sigma = self.fwhm.clamp(4.0, KW / 2)
            t = torch.arange(-(KW // 2), KW // 2 + 1).float()
            env = torch.exp(-0.5 * (t[None] / sigma[:, None]) ** 2) / (math.sqrt(2 * math.pi) * sigma[:, None])
            re = env * torch.cos(mu[:, None] * t[None])
            im = env * torch.sin(mu[:, None] * t[None])
        return torch.cat([re, im], 0).unsqueeze(1)
    def forward(self, x):
        out = F.conv1d(x, self.kernels(), padding=KW // 2)
        re, im = out[:, :NFILT], out[:, NFILT:]
        return re ** 2 + im ** 2

class Leaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.filt = GaborConv()
        self.cls = nn.Linear(NFILT, C)
    def forward(self, x):
        e = self.filt(x)
        feats = torch.log(F.avg_pool1d(e, 80).mean(-1) + 1e-5)
        return self.cls(feats)

xtr, ytr = make(1600); xva, yva = make(400)
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(9))
model = Leaf()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "loss", "acc", "val_loss", "val_acc", "max_center_hz"])
    for epoch in range(1, 16):
        tl = tc = 0.0
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item()
        with torch.no_grad():
            vo = model(xva); vl = F.cross_entropy(vo, yva).item(); va = (vo.argmax(1) == yva).float().mean().item()
        mc = (model.filt.center.max() * SR / (2 * math.pi)).item()
        print(f"epoch {epoch} loss {tl/1600:.4f} acc {tc/1600:.3f} val_loss {vl:.4f} val_acc {va:.3f} max centre {mc:.0f} Hz")
        wr.writerow([epoch, f"{tl/1600:.4f}", f"{tc/1600:.4f}", f"{vl:.4f}", f"{va:.4f}", f"{mc:.1f}"])
        fh.flush()
