"""ConvNeXt-style classifier on synthetic 16x16 grayscale images: each of 4 classes is an oriented sinusoidal
grating (horizontal, vertical, diagonal, anti-diagonal) with random frequency and phase, random contrast and
strong Gaussian noise; 8% of labels are resampled at random. Patchify stem (2x2 conv, stride 2) + LayerNorm, one ConvNeXt block per stage (7x7 depthwise conv,
LayerNorm, 4x pointwise MLP with GELU, layer scale, residual), a LayerNorm + 2x2 stride-2 downsampling conv between
the two stages (16 and 32 channels), global average pooling, LayerNorm, dropout and a linear head; AdamW +
cross-entropy; accuracy on a held-out set."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
N_TRAIN, LR, WD, DROPOUT, BATCH, EPOCHS = 1600, 0.003, 0.05, 0.5, 32, 10

def log_start(n_params, n_tr, n_va):
    print(f"Trening ConvNeXt: {n_params} parametrów, {n_tr} obrazów treningowych, {n_va} walidacyjnych")


def log_step(epoch, i, n, loss, lr, gstep):
    pass


def log_epoch(epoch, tl, ta, vl, va, lr, el):
    print(f"Epoka {epoch:2d}/{EPOCHS}: strata treningowa {tl:.4f}, dokładność treningowa {ta:.3f} | strata walidacyjna {vl:.4f}, dokładność walidacyjna {va:.3f}")


def log_end(vl, va, el):
    print(f"Koniec treningu po {el:.1f} s, końcowa dokładność walidacyjna: {va:.3f}")


def make_data(n, gen):
    y = torch.randint(0, 4, (n,), generator=gen)
    coords = torch.arange(16).float()
    yy, xx = torch.meshgrid(coords, coords, indexing="ij")
    dirs = torch.tensor([[0.0, 1.0], [1.0, 0.0], [0.7071, 0.7071], [0.7071, -0.7071]])
    freq = 0.6 + 0.8 * torch.rand(n, generator=gen)
    phase = 2 * math.pi * torch.rand(n, generator=gen)
    contrast = 0.5 + torch.rand(n, generator=gen)
    d = dirs[y]
    proj = d[:, 0, None, None] * xx + d[:, 1, None, None] * yy
    img = contrast[:, None, None] * torch.sin(freq[:, None, None] * proj + phase[:, None, None])
    img = img + 2.0 * torch.randn(n, 16, 16, generator=gen)
    flip = torch.rand(n, generator=gen) < 0.08
    y = torch.where(flip, torch.randint(0, 4, (n,), generator=gen), y)
    return img.unsqueeze(1), y


gen = torch.Generator().manual_seed(4)
x_train, y_train = make_data(N_TRAIN, gen)
x_val, y_val = make_data(400, gen)


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.pw1 = nn.Linear(dim, 4 * dim)
        self.pw2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(0.1 * torch.ones(dim))

    def forward(self, x):
        h = self.dw(x).permute(0, 2, 3, 1)
        h = self.pw2(F.gelu(self.pw1(self.norm(h))))
        return x + (self.gamma * h).permute(0, 3, 1, 2)


class ConvNeXt(nn.Module):
    def __init__(self, dims=(16, 32), p=0.0):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, dims[0], 2, stride=2), LayerNorm2d(dims[0]))
        self.stage1 = Block(dims[0])
        self.down = nn.Sequential(LayerNorm2d(dims[0]), nn.Conv2d(dims[0], dims[1], 2, stride=2))
        self.stage2 = Block(dims[1])
        self.norm = nn.LayerNorm(dims[1])
        self.drop = nn.Dropout(p)
        self.head = nn.Linear(dims[1], 4)

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(self.drop(self.norm(x.mean((2, 3)))))


model = ConvNeXt(p=DROPOUT)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
criterion = nn.CrossEntropyLoss()
n_params = sum(p.numel() for p in model.parameters())
steps_per_epoch = (len(y_train) + BATCH - 1) // BATCH
log_start(n_params, len(y_train), len(y_val))


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        loss = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(y_train))
    tot, correct, seen = 0.0, 0, 0
    for i in range(steps_per_epoch):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        logits = model(x_train[idx])
        loss = criterion(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
        seen += len(idx)
        log_step(epoch, i + 1, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"], gstep)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, tot / seen, correct / seen, val_loss, val_acc, optimizer.param_groups[0]["lr"], time.time() - t0)
log_end(val_loss, val_acc, time.time() - t0)
