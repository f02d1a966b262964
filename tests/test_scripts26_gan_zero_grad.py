"""A GAN's discriminator reached by the generator's loss is not a missing zero_grad (issue 12, session 26).

What a user would notice: a pix2pix-style loop (the discriminator's step, then the generator's loss
backpropagated through the discriminator, then the discriminator's zero_grad() before its next backward)
was diagnosed "Gradients never zeroed" at 0.99 although the code zeroes both optimizers. The probe looked at
.grad only at the first backward after the watched optimizer's step, and that is the generator's pass,
which finds the discriminator's last gradient still there; it is cleared before the discriminator's own
backward and never reaches its step. A loop that never zeroes is still reported.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

import traindx.probes as tp


def _gan(zero_d: bool, steps: int = 12):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    optG = torch.optim.Adam(G.parameters(), lr=2e-4)
    optD = torch.optim.Adam(D.parameters(), lr=2e-4)
    real = torch.randn(256, 8)
    with tp.watch(D, optD, level="cheap") as w:
        for i in range(steps):
            z = torch.randn(16, 4)
            b = real[(i * 16) % 256:(i * 16) % 256 + 16]
            fake = G(z)
            d_real, d_fake = D(b), D(fake.detach())
            loss_d = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
                F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
            if zero_d:
                optD.zero_grad()
            w.observe(loss_d)
            loss_d.backward()
            optD.step()
            d_fake = D(fake)                       # the generator's loss goes through the discriminator
            loss_g = F.binary_cross_entropy_with_logits(d_fake, torch.ones_like(d_fake))
            optG.zero_grad()
            loss_g.backward()
            optG.step()
    return {f.fact: f.value for f in w.findings()}


def test_a_discriminator_zeroed_before_its_own_backward_does_not_accumulate():
    facts = _gan(zero_d=True)
    assert facts["grad_accumulates"] is False
    assert facts["zero_grad_called"] is True


def test_a_discriminator_never_zeroed_still_accumulates():
    facts = _gan(zero_d=False)
    assert facts["grad_accumulates"] is True
