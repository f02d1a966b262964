import sys
import json
import math
import time
import argparse
import numpy as np
import torch
from torch import nn, optim
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1234)
np.random.seed(1234)

args = argparse.Namespace(epochs=14, batch_size=128, learning_rate_weights=0.002, learning_rate_biases=0.000048,
                          weight_decay=1e-6, lambd=0.0051, projector='128-128', print_freq=10, warmup_epochs=2)

# ---------------- synthetic data: 10 object classes seen under random nuisance (pose/lighting) ----------------
# every sample is an object latent (class prototype + within-class spread) rendered through a fixed random
# nonlinear sensor together with a fresh nuisance vector; two views of a sample share the object latent only
N_CLASS, LAT, NUIS, DIM = 10, 6, 10, 32
rng = np.random.RandomState(1234)
protos = rng.normal(0, 1.0, (N_CLASS, LAT))
W1 = torch.tensor(rng.normal(0, 1 / math.sqrt(LAT + NUIS), (LAT + NUIS, 64)), dtype=torch.float32)
W2 = torch.tensor(rng.normal(0, 1 / math.sqrt(64), (64, DIM)), dtype=torch.float32)
def make(n):
    y = rng.randint(N_CLASS, size=n)
    z = protos[y] + rng.normal(0, 0.5, (n, LAT))
    return torch.tensor(z, dtype=torch.float32), torch.tensor(y)
def render(z):
    nuis = 2.0 * torch.randn(z.shape[0], NUIS)
    x = torch.tanh(torch.cat([z, nuis], 1) @ W1 * 1.5) @ W2
    return x + 0.05 * torch.randn_like(x)
Z_unlab, _ = make(4096)
Z_probe, y_probe = make(1000)
Z_val, y_val = make(1000)
_ref = render(Z_unlab)
mu, sd = _ref.mean(0), _ref.std(0)
X_probe, X_val = (render(Z_probe) - mu) / sd, (render(Z_val) - mu) / sd
X_unlab = Z_unlab  # views are rendered on the fly

def augment(z):
    x = (render(z) - mu) / sd
    mask = (torch.rand_like(x) > 0.1).float()
    return x * mask

# ---------------- model ----------------
def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

class BarlowTwins(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.backbone = nn.Sequential(
            nn.Linear(DIM, 128), nn.BatchNorm1d(128), nn.ReLU(inplace=True),
            nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(inplace=True),
            nn.Linear(128, 64))
        sizes = [64] + list(map(int, args.projector.split('-')))
        layers = []
        for i in range(len(sizes) - 2):
            layers.append(nn.Linear(sizes[i], sizes[i + 1], bias=False))
            layers.append(nn.BatchNorm1d(sizes[i + 1]))
            layers.append(nn.ReLU(inplace=True))
        layers.append(nn.Linear(sizes[-2], sizes[-1], bias=False))
        self.projector = nn.Sequential(*layers)
        self.bn = nn.BatchNorm1d(sizes[-1], affine=False)

    def forward(self, y1, y2):
        z1 = self.projector(self.backbone(y1))
        z2 = self.projector(self.backbone(y2))
        c = self.bn(z1).T @ self.bn(z2)
        c.div_(self.args.batch_size)
        on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
        off_diag = off_diagonal(c).pow_(2).sum()
        loss = on_diag + self.args.lambd * off_diag
        return loss

class LARS(optim.Optimizer):
    def __init__(self, params, lr, weight_decay=0, momentum=0.9, eta=0.001,
                 weight_decay_filter=None, lars_adaptation_filter=None):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                        eta=eta, weight_decay_filter=weight_decay_filter,
                        lars_adaptation_filter=lars_adaptation_filter)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g['params']:
                dp = p.grad
                if dp is None:
                    continue
                if g['weight_decay_filter'] is None or not g['weight_decay_filter'](p):
                    dp = dp.add(p, alpha=g['weight_decay'])
                if g['lars_adaptation_filter'] is None or not g['lars_adaptation_filter'](p):
                    param_norm = torch.norm(p)
                    update_norm = torch.norm(dp)
                    one = torch.ones_like(param_norm)
                    q = torch.where(param_norm > 0.,
                                    torch.where(update_norm > 0,
                                                (g['eta'] * param_norm / update_norm), one), one)
                    dp = dp.mul(q)
                param_state = self.state[p]
                if 'mu' not in param_state:
                    param_state['mu'] = torch.zeros_like(p)
                mu = param_state['mu']
                mu.mul_(g['momentum']).add_(dp)
                p.add_(mu, alpha=-g['lr'])

def exclude_bias_and_norm(p):
    return p.ndim == 1

def adjust_learning_rate(args, optimizer, steps_per_epoch, step):
    max_steps = args.epochs * steps_per_epoch
    warmup_steps = args.warmup_epochs * steps_per_epoch
    base_lr = args.batch_size / 256
    if step < warmup_steps:
        lr = base_lr * step / warmup_steps
    else:
        step -= warmup_steps
        max_steps -= warmup_steps
        q = 0.5 * (1 + math.cos(math.pi * step / max_steps))
        end_lr = base_lr * 0.001
        lr = base_lr * q + end_lr * (1 - q)
    optimizer.param_groups[0]['lr'] = lr * args.learning_rate_weights
    optimizer.param_groups[1]['lr'] = lr * args.learning_rate_biases

def linear_probe(model):
    """frozen backbone, logistic-regression head trained on 1000 labelled samples"""
    model.eval()
    with torch.no_grad():
        f_tr = model.backbone(X_probe)
        f_va = model.backbone(X_val)
    m, s = f_tr.mean(0), f_tr.std(0) + 1e-6
    f_tr, f_va = (f_tr - m) / s, (f_va - m) / s
    g = torch.Generator().manual_seed(0)
    head = nn.Linear(f_tr.shape[1], N_CLASS)
    opt = optim.Adam(head.parameters(), lr=0.01)
    for _ in range(150):
        opt.zero_grad()
        F.cross_entropy(head(f_tr), y_probe).backward()
        opt.step()
    with torch.no_grad():
        out = head(f_va)
        val_loss = F.cross_entropy(out, y_val).item()
        top5 = out.topk(5, 1).indices
        acc1 = (top5[:, 0] == y_val).float().mean().item() * 100
        acc5 = (top5 == y_val[:, None]).any(1).float().mean().item() * 100
    model.train()
    return acc1, acc5, val_loss

model = BarlowTwins(args)
param_weights = []
param_biases = []
for param in model.parameters():
    if param.ndim == 1:
        param_biases.append(param)
    else:
        param_weights.append(param)
parameters = [{'params': param_weights}, {'params': param_biases}]
optimizer = LARS(parameters, lr=0, weight_decay=args.weight_decay,
                 weight_decay_filter=exclude_bias_and_norm,
                 lars_adaptation_filter=exclude_bias_and_norm)
steps_per_epoch = len(X_unlab) // args.batch_size

print(' '.join(sys.argv))
start_time = time.time()
best_acc = argparse.Namespace(top1=0, top5=0)
for epoch in range(0, args.epochs):
    perm = torch.randperm(len(X_unlab))
    for i in range(steps_per_epoch):
        step = epoch * steps_per_epoch + i
        x = X_unlab[perm[i * args.batch_size:(i + 1) * args.batch_size]]
        y1, y2 = augment(x), augment(x)
        adjust_learning_rate(args, optimizer, steps_per_epoch, step)
        optimizer.zero_grad()
        loss = model.forward(y1, y2)
        loss.backward()
        optimizer.step()
        if step % args.print_freq == 0:
            stats = dict(epoch=epoch, step=step,
                         lr_weights=optimizer.param_groups[0]['lr'],
                         lr_biases=optimizer.param_groups[1]['lr'],
                         loss=loss.item(),
                         time=int(time.time() - start_time))
            print(json.dumps(stats))
    acc1, acc5, _ = linear_probe(model)
    best_acc.top1 = max(best_acc.top1, acc1)
    best_acc.top5 = max(best_acc.top5, acc5)
    stats = dict(epoch=epoch, acc1=acc1, acc5=acc5, best_acc1=best_acc.top1, best_acc5=best_acc.top5)
    print(json.dumps(stats))
