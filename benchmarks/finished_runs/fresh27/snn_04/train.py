"""Spiking neural network (leaky integrate-and-fire neurons, surrogate gradients) classifying 8 synthetic
firing-rate patterns. Each sample is a 48-channel rate vector (0.25 + half a class prototype plus Gaussian jitter
sd 0.3, clipped and scaled to at most 0.4 spikes per step) encoded as Bernoulli spike trains over 20 time steps; 5% of the
training labels are resampled at random. Model: 48 -> 128 LIF hidden neurons (decay 0.9, threshold 1, soft reset,
fast-sigmoid surrogate gradient) -> 8 non-spiking leaky readout neurons whose mean membrane potential over the 20
steps are the logits. Adam, cross-entropy, validation accuracy (chance 0.125)."""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
NAME = "snn"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 1e-3, 0.0, 64, 12
N_TRAIN, N_VAL, NIN, NHID, NCLS, T_STEPS = 4000, 1000, 48, 128, 8, 20
BETA, SLOPE, LABEL_NOISE = 0.9, 10.0, 0.05
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

def log_start(info):
    print(f"=> Booting Puma")
    print(f"=> Rails 7.1.3 application starting in development")
    print(f"* Model: {info['name']} ({info['n_params']} params), {info['n_train']} training rows")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print(f'Started POST "/epochs/{ep}" for 127.0.0.1 at {time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime())}')
    print(f"Processing by EpochsController#create as JSON")
    print(f'  Parameters: {{"epoch"=>{ep}, "of"=>{E}, "lr"=>{m["lr"]}}}')
    print(f"  Train Load ({1000 * (m['secs']):.1f}ms)  train_loss={m['tl']:.4f}")
    print(f"Completed 200 OK in {1000 * m['secs']:.0f}ms (val_loss: {m['vl']:.4f} | {MET}: {m['vm']:.4f})")
    print()


def log_end(m):
    print(f"- Gracefully stopping, waiting for requests to finish (best {MET} {m['best']:.4f})")
    print("Exiting")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        data_secs = 0.0
        t_fetch = time.time()
        batches = train_batches()
        for i, batch in enumerate(batches, 1):
            data_secs += time.time() - t_fetch
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)

gen = torch.Generator().manual_seed(1)
protos = torch.rand(NCLS, NIN, generator=gen)


def make_split(n):
    y = torch.randint(0, NCLS, (n,), generator=gen)
    rates = (0.25 + 0.5 * protos[y] + 0.3 * torch.randn(n, NIN, generator=gen)).clamp(0.0, 1.0) * 0.4
    spikes = (torch.rand(n, T_STEPS, NIN, generator=gen) < rates.unsqueeze(1)).float()
    return spikes, y


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < LABEL_NOISE
y_train[flip] = torch.randint(0, NCLS, (int(flip.sum()),), generator=gen)


class SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v > 0).float()

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        return grad / (1.0 + SLOPE * v.abs()) ** 2


class SNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(NIN, NHID)
        self.fc2 = nn.Linear(NHID, NCLS)

    def forward(self, x):
        v1 = torch.zeros(x.shape[0], NHID)
        v2 = torch.zeros(x.shape[0], NCLS)
        out = 0.0
        for t in range(T_STEPS):
            v1 = BETA * v1 + self.fc1(x[:, t])
            s1 = SpikeFn.apply(v1 - 1.0)
            v1 = v1 - s1
            v2 = BETA * v2 + self.fc2(s1)
            out = out + v2
        return out / T_STEPS


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.05)
        nn.init.zeros_(m.bias)


model = SNN()
model.apply(init_weights)
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(x_val)
    return loss_fn(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
