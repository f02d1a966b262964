# TheDenk/cogvideox-controlnet issue 27 in miniature: a ControlNet trained on top of a frozen, pretrained diffusion
# model; the reporter's training loss "does not decrease after training for 4k steps. It is just fluctuating around
# 0.18-0.22", and the author answers "Sometimes yes, you have to visualize some examples to be sure". The same
# set-up, scaled down to 1-D signals: the base model is a small epsilon-prediction denoiser (DDPM, 100 steps,
# linear betas) pretrained here for 1500 steps on short "clips" (a sum of two sinusoids with random amplitude,
# frequency and phase, 32 samples) and then frozen; the ControlNet is a trainable copy of the base's encoder that also
# reads the control hint (the sign pattern of the clean clip, like an edge map) and adds its features to the base's
# hidden layers through zero-initialised linear layers. The ControlNet is trained with the usual diffusion loss
# (MSE between the true and the predicted noise at a random timestep), AdamW lr 1e-4 after a 100-step warmup,
# batch 32, 4000 steps; a log line every 200 steps with the loss of that step, its 200-step mean and the learning
# rate, and every 1000 steps "validation" on 64 fixed hints: 50-step DDIM samples from the model and the share of
# samples whose sign pattern agrees with the hint (hint agreement). metrics.csv has the loss of every step and the
# validation results.
import csv
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

L, T, HID = 32, 100, 128
betas = torch.linspace(1e-4, 0.02, T)
alphas_bar = torch.cumprod(1 - betas, 0)
tgrid = torch.linspace(0, 1, L)


def sample_clips(n, g=None):
    a = torch.rand(n, 2, 1, generator=g) * 0.6 + 0.4
    fr = torch.rand(n, 2, 1, generator=g) * 3 + 1
    ph = torch.rand(n, 2, 1, generator=g) * 2 * math.pi
    x = (a * torch.sin(2 * math.pi * fr * tgrid + ph)).sum(1)
    return x / 1.2


def hint_of(x):
    return torch.sign(x)


def t_embed(t):
    freqs = torch.exp(torch.arange(8) * -(math.log(1000.0) / 8))
    ang = t.float()[:, None] * freqs[None]
    return torch.cat([ang.sin(), ang.cos()], 1)


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(L + 16, HID)
        self.h1 = nn.Linear(HID, HID)
        self.h2 = nn.Linear(HID, HID)
        self.out = nn.Linear(HID, L)

    def forward(self, x, t, residuals=None):
        h = F.silu(self.inp(torch.cat([x, t_embed(t)], 1)))
        if residuals is not None:
            h = h + residuals[0]
        h = F.silu(self.h1(h))
        if residuals is not None:
            h = h + residuals[1]
        h = F.silu(self.h2(h))
        if residuals is not None:
            h = h + residuals[2]
        return self.out(h)


class ControlNet(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.hint = nn.Linear(L, HID)
        self.inp = nn.Linear(L + 16, HID)
        self.h1 = nn.Linear(HID, HID)
        self.h2 = nn.Linear(HID, HID)
        self.inp.load_state_dict(base.inp.state_dict())
        self.h1.load_state_dict(base.h1.state_dict())
        self.h2.load_state_dict(base.h2.state_dict())
        self.zero = nn.ModuleList([nn.Linear(HID, HID) for _ in range(3)])
        for z in self.zero:
            nn.init.zeros_(z.weight)
            nn.init.zeros_(z.bias)

    def forward(self, x, t, hint):
        h = F.silu(self.inp(torch.cat([x, t_embed(t)], 1)) + self.hint(hint))
        r0 = self.zero[0](h)
        h = F.silu(self.h1(h))
        r1 = self.zero[1](h)
        h = F.silu(self.h2(h))
        r2 = self.zero[2](h)
        return [r0, r1, r2]


def diffusion_loss(pred_fn, x0):
    t = torch.randint(0, T, (x0.shape[0],))
    eps = torch.randn_like(x0)
    ab = alphas_bar[t][:, None]
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * eps
    return F.mse_loss(pred_fn(xt, t), eps)


@torch.no_grad()
def ddim_sample(eps_fn, n, g):
    x = torch.randn(n, L, generator=g)
    ts = torch.linspace(T - 1, 0, 50).long()
    for i, t in enumerate(ts):
        tt = torch.full((n,), int(t))
        eps = eps_fn(x, tt)
        ab = alphas_bar[t]
        x0 = (x - (1 - ab).sqrt() * eps) / ab.sqrt()
        x0 = x0.clamp(-3, 3)
        ab_prev = alphas_bar[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
        x = ab_prev.sqrt() * x0 + (1 - ab_prev).sqrt() * eps
    return x


# pretrained base model (trained here, then frozen)
base = Base()
opt_b = torch.optim.AdamW(base.parameters(), lr=1e-3)
for step in range(1500):
    loss = diffusion_loss(lambda xt, t: base(xt, t), sample_clips(64))
    opt_b.zero_grad()
    loss.backward()
    opt_b.step()
print('pretrained base model: 1500 steps, last loss %.4f; frozen' % loss.item())
for p in base.parameters():
    p.requires_grad_(False)

controlnet = ControlNet(base)
optimizer = torch.optim.AdamW(controlnet.parameters(), lr=1e-4, weight_decay=1e-2)
warmup = 100
sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup))

gv = torch.Generator().manual_seed(123)
val_clips = sample_clips(64, gv)
val_hints = hint_of(val_clips)


def validate(step):
    g = torch.Generator().manual_seed(7)
    x = ddim_sample(lambda xt, t: base(xt, t, controlnet(xt, t, val_hints)), 64, g)
    agree = (torch.sign(x) == val_hints).float().mean().item()
    g = torch.Generator().manual_seed(7)
    x_free = ddim_sample(lambda xt, t: base(xt, t), 64, g)
    agree_free = (torch.sign(x_free) == val_hints).float().mean().item()
    print('Validation at step %d: hint agreement %.3f (base model without ControlNet %.3f)' %
          (step, agree, agree_free))
    return agree


f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['step', 'loss', 'lr', 'hint_agreement'])
wr.writerow([0, '', '', '%.4f' % validate(0)])
max_steps = 4000
window = []
for step in range(1, max_steps + 1):
    x0 = sample_clips(32)
    hint = hint_of(x0)
    loss = diffusion_loss(lambda xt, t: base(xt, t, controlnet(xt, t, hint)), x0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    sched.step()
    window.append(loss.item())
    wr.writerow([step, '%.5f' % loss.item(), '%.3e' % optimizer.param_groups[0]['lr'], ''])
    if step % 200 == 0:
        print('Steps: %d/%d  loss=%.4f  (mean of last 200: %.4f)  lr=%.2e' %
              (step, max_steps, loss.item(), sum(window) / len(window), optimizer.param_groups[0]['lr']))
        window = []
    if step % 1000 == 0:
        wr.writerow([step, '', '', '%.4f' % validate(step)])
f.close()
