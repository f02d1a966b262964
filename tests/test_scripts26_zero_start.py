"""A zero-initialised last layer of a block is a deliberate start, not a symmetry fault (issue 12, session 26).

What a user would notice: a normalizing flow whose coupling networks end in a zero-initialised layer (Glow,
RealNVP; also zero-gamma residual branches and a new classifier head started at uniform predictions) trained
normally, and traindx called it "bad weight initialization" at 0.96 and stopped the run after 100 steps. Each
output of such a layer gets its own gradient from the loss and nothing after it reads its units as alike, so
no symmetry is kept; the code reader already read it so, and the live probe now agrees. A zero hidden layer,
or every layer constant, is still reported.
"""
from __future__ import annotations

import torch
import torch.nn as nn
from test_probes import blobs, fit, sgd

from traindx.probes.live import model_config as MC


class Coupling(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, d))
        nn.init.zeros_(self.net[-1].weight)

    def forward(self, x):
        return x + self.net(x)


class Flowish(nn.Module):
    def __init__(self, d=8, c=4):
        super().__init__()
        self.blocks = nn.Sequential(Coupling(d), Coupling(d))
        self.head = nn.Linear(d, c)

    def forward(self, x):
        return self.head(self.blocks(x))


def test_a_zero_last_layer_of_each_block_is_no_constant_init():
    torch.manual_seed(0)
    m = Flowish()
    facts, *_ = fit(m, sgd(m), blobs())
    assert facts["init_constant"] is False
    assert 0.3 < facts["init_scale_ratio"] < 3         # the zero start has no scale to compare


def test_a_zero_classifier_head_after_random_layers_is_a_uniform_start():
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    nn.init.zeros_(m[2].weight)
    assert MC.init_constant(m) == []


def test_a_zero_hidden_layer_and_an_all_zero_model_are_still_constant():
    m = Flowish()
    nn.init.zeros_(m.blocks[0].net[2].weight)             # hidden: a layer of its block comes after it
    assert MC.init_constant(m) == ["blocks.0.net.2.weight"]
    z = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    for p in z.parameters():
        nn.init.zeros_(p)
    assert MC.init_constant(z) == ["0.weight", "2.weight"]   # nothing random in the block: symmetry
