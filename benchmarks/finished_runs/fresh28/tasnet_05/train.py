"""Conv-TasNet-style source separation (Luo & Mesgarani 2019) of synthetic two-source mixtures.
Each 256-sample clip at 4 kHz mixes a tonal source (two sinusoids at 150-400 Hz) and a buzzing source (a 700-1200 Hz
square wave under a linear fade), with random gains and white noise sd 0.05. Model: a learned Conv1d encoder (64
filters of length 16, stride 8, ReLU), a temporal convolutional separator (GroupNorm, 1x1 bottleneck to 32 channels,
six residual blocks of 1x1 conv + PReLU + GroupNorm + dilated depthwise conv with dilations 1, 2, 4, 8, 1, 2), a 1x1
conv producing two sigmoid masks, and a transposed-conv decoder. Loss: negative scale-invariant SNR (SI-SNR) with the
sources in a fixed order (tone first), Adam, metric the validation SI-SNR improvement over the mixture in dB."""
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
NAME = "tasnet"
MET = "val_sisnri"
HIGHER = True
LR, BATCH, EPOCHS = 1e-3, 32, 8
N_TRAIN, N_VAL, T, SR = 1600, 400, 256, 4000
N_FILT, KERNEL, STRIDE, BOTTLENECK, HIDDEN = 64, 16, 8, 32, 64
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 10

def log_start(info):
    print("==> default: Running provisioner: train (shell)...")
    print(f"    default: Running: inline script")
    print(f"    default: model {info['name']}, {info['n_params']} params, lr={info['lr']}, batch={info['batch']}")


def log_step(ep, i, n, loss):
    print(f"    default: [{ep}] {i}/{n} loss={loss:.4f}")


def log_epoch(ep, E, m):
    print(f"    default: epoch {ep}/{E} | train {m['tl']:.4f} | val {m['vl']:.4f} | SI-SNRi {m['vm']:.2f} dB | {m['secs']:.1f}s")


def log_end(m):
    print(f"    default: done, best SI-SNRi {m['best']:.2f} dB after {m['el']:.0f}s")

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
            loss = step_fn(batch, ep)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(5)


def make_split(n):
    t = torch.arange(T).float() / SR
    f1 = 150 + 250 * torch.rand(n, 1, generator=gen)
    f2 = 150 + 250 * torch.rand(n, 1, generator=gen)
    f3 = 700 + 500 * torch.rand(n, 1, generator=gen)
    ph = 2 * math.pi * torch.rand(n, 3, generator=gen)
    tone = torch.sin(2 * math.pi * f1 * t + ph[:, :1]) + 0.6 * torch.sin(2 * math.pi * f2 * t + ph[:, 1:2])
    fade = torch.rand(n, 1, generator=gen)
    env = fade + (1 - 2 * fade) * t * SR / T
    buzz = torch.sign(torch.sin(2 * math.pi * f3 * t + ph[:, 2:])) * env
    g = 0.4 + 0.8 * torch.rand(n, 2, generator=gen)
    src = torch.stack([g[:, :1] * tone, g[:, 1:] * buzz], 1)
    mix = src.sum(1) + 0.05 * torch.randn(n, T, generator=gen)
    return mix, src


mix_train, src_train = make_split(N_TRAIN)
mix_val, src_val = make_split(N_VAL)


def si_snr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) * ref / (ref.pow(2).sum(-1, keepdim=True) + eps)
    noise = est - proj
    return 10 * torch.log10(proj.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps) + eps)


class TCNBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.inp = nn.Conv1d(BOTTLENECK, HIDDEN, 1)
        self.act1 = nn.PReLU()
        self.norm1 = nn.GroupNorm(1, HIDDEN)
        self.dconv = nn.Conv1d(HIDDEN, HIDDEN, 3, padding=d, dilation=d, groups=HIDDEN)
        self.act2 = nn.PReLU()
        self.norm2 = nn.GroupNorm(1, HIDDEN)
        self.out = nn.Conv1d(HIDDEN, BOTTLENECK, 1)

    def forward(self, x):
        y = self.norm1(self.act1(self.inp(x)))
        y = self.norm2(self.act2(self.dconv(y)))
        return x + self.out(y)


class TasNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Conv1d(1, N_FILT, KERNEL, stride=STRIDE, bias=False)
        self.bottleneck = nn.Sequential(nn.GroupNorm(1, N_FILT), nn.Conv1d(N_FILT, BOTTLENECK, 1))
        self.separator = nn.Sequential(*[TCNBlock(d) for d in (1, 2, 4, 8, 1, 2)])
        self.mask = nn.Conv1d(BOTTLENECK, 2 * N_FILT, 1)
        self.decoder = nn.ConvTranspose1d(N_FILT, 1, KERNEL, stride=STRIDE, bias=False)

    def forward(self, mix):
        w = F.relu(self.encoder(mix.unsqueeze(1)))
        B, N, L = w.shape
        m = torch.sigmoid(self.mask(self.separator(self.bottleneck(w)))).view(B, 2, N, L)
        est = self.decoder((w.unsqueeze(1) * m).reshape(B * 2, N, L)).view(B, 2, -1)
        return est[..., :T]


model = TasNet()
for module in (model.bottleneck, model.separator, model.mask):  # stage 2: tune encoder/decoder
    for p in module.parameters():
        p.requires_grad = False
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)


def loss_fn(est, src):
    return -si_snr(est, src).mean()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield mix_train[idx], src_train[idx]


def step_fn(batch, ep):
    xb, sb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), sb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    est = model(mix_val)
    base = si_snr(mix_val.unsqueeze(1).expand_as(src_val), src_val)
    return loss_fn(est, src_val).item(), (si_snr(est, src_val) - base).mean().item()


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
