"""Binarized neural network (BinaryConnect / BinaryNet style) on a synthetic 4-class tabular task: 24 standardised
features, labels from a fixed random teacher MLP (24 -> 32 tanh -> 4, argmax), 5% of training labels resampled. The
student keeps real-valued latent weights but uses their signs (+-1) in the forward pass of its two hidden layers and
binarizes the hidden activations with sign(); gradients pass through both binarizations with the straight-through
estimator (hardtanh gradient, clipped to |x| <= 1). Layout: real Linear 24 -> 256, BN, sign, BinaryLinear 256 -> 256,
BN, sign, real Linear 256 -> 4. Adam, cross-entropy, validation accuracy (chance 0.25)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "bnn"
MET = "val_acc"
LR, BATCH, EPOCHS = 0.005, 50, 10
N_TRAIN, N_VAL, D = 8000, 2000, 24


def log_start(info):
    print(f"##teamcity[blockOpened name='train {info['name']}' description='{info['n_params']} params']")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"##teamcity[progressMessage 'epoch {ep}/{E}']")
    print(f"##teamcity[buildStatisticValue key='train_loss' value='{m['tl']:.5f}']")
    print(f"##teamcity[buildStatisticValue key='val_loss' value='{m['vl']:.5f}']")
    print(f"##teamcity[buildStatisticValue key='{MET}' value='{m['vm']:.4f}']")


def log_end(m):
    print(f"##teamcity[blockClosed name='train {NAME}']")
    print(f"##teamcity[buildStatus text='{MET} {m['vm']:.4f}']")

gen = torch.Generator().manual_seed(3)
W1 = torch.randn(D, 32, generator=gen) / math.sqrt(D) * 2.0
W2 = torch.randn(32, 4, generator=gen)
X = torch.randn(N_TRAIN + N_VAL, D, generator=gen)
Y = (torch.tanh(X @ W1) @ W2).argmax(1)
x_tr, y_tr = X[:N_TRAIN], Y[:N_TRAIN].clone()
x_va, y_va = X[N_TRAIN:], Y[N_TRAIN:]
flip = torch.rand(N_TRAIN, generator=gen) < 0.05
y_tr[flip] = torch.randint(0, 4, (int(flip.sum()),), generator=gen)



class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


def binarize(x):
    return SignSTE.apply(x)


class BinaryLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, binarize(self.weight), self.bias)


class BNN(nn.Module):
    def __init__(self, h=256):
        super().__init__()
        self.fc1 = nn.Linear(D, h)
        self.bn1 = nn.BatchNorm1d(h)
        self.fc2 = BinaryLinear(h, h)
        self.bn2 = nn.BatchNorm1d(h)
        self.fc3 = nn.Linear(h, 4)

    def forward(self, x):
        h = binarize(self.bn1(self.fc1(x)))
        h = binarize(self.bn2(self.fc2(h)))
        return self.fc3(h)


model = BNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
n_b = N_TRAIN // BATCH
for ep in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(N_TRAIN, generator=gen)
    tot = 0.0
    for i in range(n_b):
        idx = order[i * BATCH:(i + 1) * BATCH]
        opt.zero_grad()
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        loss.backward()
        opt.step()
        with torch.no_grad():
            model.fc2.weight.clamp_(-1, 1)
        tot += loss.item()
        gstep += 1
        log_step(ep, i + 1, n_b, loss.item(), LR, gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        out = model(x_va)
        vl = F.cross_entropy(out, y_va).item()
        acc = (out.argmax(1) == y_va).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / n_b, "vl": vl, "vm": acc, "lr": LR, "el": time.time() - t0})
log_end({"vm": acc, "vl": vl, "el": time.time() - t0})
