"""Code reader idioms of unfamiliar model code (session 31, finish31).

What a user would notice: a mechanism in the script that the reader's interpreter did not follow, so the
diagnosis missed it or blamed the wrong one.

- Layers gathered into one list before a loop over them (``[*self.towers, self.bias_table]``,
  ``list(self.towers) + [self.bias_table]``): the loop variable was no longer known to be those layers,
  so zeroing embedding tables of a linear (wide) part read as a constant init of hidden weights.
- Raw inputs rounded to integers (``(x * 40 + 100).round()``) or picked elementwise by ``torch.where``
  from two sources of known scale: the inputs' scale was lost, so unnormalised inputs went unseen.
"""
from __future__ import annotations

from conftest import diagnose_json

WIDE = '''
import torch, torch.nn as nn

SIZES = [6, 9, 4]


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.towers = nn.ModuleList([nn.{layer} for n in SIZES])
        self.bias_table = nn.Embedding(54, 1)
        for t in {loop}:
            nn.init.zeros_(t.weight)
        self.mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, ids, num):
        out = self.mlp(num) + self.bias_table(ids[:, 0] * 9 + ids[:, 1])
        return (out + sum(t(ids[:, j]) for j, t in enumerate(self.towers))).squeeze(1)


ids = torch.randint(0, 4, (512, 3))
num = torch.randn(512, 3)
y = (torch.rand(512) < 0.5).float()
model = Wide()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for ep in range(5):
    perm = torch.randperm(512)
    for i in range(0, 512, 64):
        b = perm[i:i + 64]
        loss = nn.functional.binary_cross_entropy_with_logits(model(ids[b], num[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def _facts(tmp_path, text):
    p = tmp_path / "train.py"
    p.write_text(text)
    rep = diagnose_json("--code", str(p))
    return {f["fact"]: f["value"] for f in rep["facts"]}


def test_embedding_tables_gathered_by_star_unpacking_are_no_constant_hidden_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Embedding(n, 1)", loop="[*self.towers, self.bias_table]"))
    assert facts["init_constant"] is False


def test_embedding_tables_gathered_by_list_concatenation_are_no_constant_hidden_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Embedding(n, 1)", loop="list(self.towers) + [self.bias_table]"))
    assert facts["init_constant"] is False


def test_hidden_layers_gathered_the_same_way_and_zeroed_are_still_a_constant_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Linear(3, 3)", loop="list(self.towers) + [self.bias_table]"))
    assert facts["init_constant"] is True


PIXELS = '''
import torch, torch.nn as nn


def make(n):
    y = torch.randint(0, 4, (n,))
    wave = torch.sin(torch.rand(n, 1, 8, 8))
    blob = torch.cos(torch.rand(n, 1, 8, 8))
    img = 0.9 * torch.randn(n, 4, 8, 8)
    img[torch.arange(n), y] += {pick}
    return img, y


X, Y = make(600)
X = {raw}
net = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(512, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for ep in range(8):
    perm = torch.randperm(600)
    for i in range(0, 600, 50):
        b = perm[i:i + 50]
        loss = nn.functional.cross_entropy(net(X[b]), Y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_raw_intensities_rounded_to_integers_keep_their_scale(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="wave[:, 0]", raw="(X * 40 + 100).round()"))
    assert facts["input_scale"] > 100


def test_a_pattern_picked_by_where_keeps_the_scale_of_its_branches(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="torch.where(Y[:, None, None] > 1, wave[:, 0], blob[:, 0])",
                                           raw="X.floor() * 30 + 90"))
    assert facts["input_scale"] > 90


def test_rounded_inputs_in_the_unit_range_are_not_raw(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="wave[:, 0]", raw="(X * 0.1).round() / 4"))
    assert facts.get("input_scale", 1) < 5
