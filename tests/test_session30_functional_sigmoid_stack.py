"""Sigmoid stacks the code reader did not count (session 30, finish30).

What a user would notice: a deep residual-free MLP whose blocks each end in ``torch.sigmoid`` (a block
class stacked eight times by a list comprehension), or a ``nn.Sequential`` of eight ``Linear + Sigmoid``
pairs made by a comprehension, sits at chance (loss ln 4) from the first epoch. traindx read the
sigmoid depth as one (or not at all) and named no cause; the code reader now counts a block whose
``forward`` returns a functional sigmoid as a sigmoid layer, and a comprehension's ``range`` multiplies
the blocks it builds, so the deep-sigmoid rule names vanishing gradients. The same stack of ReLU blocks,
and a sigmoid used as a gate, are not counted.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id, top_cause

BLOCKS = '''
import torch, torch.nn as nn


class Squash(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        out = {act}
        return out


class Deep(nn.Module):
    def __init__(self, width=48, depth=8):
        super().__init__()
        self.inp = nn.Linear(16, width)
        self.blocks = nn.ModuleList([Squash(width) for _ in range(depth)])
        self.out = nn.Linear(width, 4)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h)
        return self.out(h)


model = Deep()
'''

SEQUENTIAL = '''
import torch, torch.nn as nn

model = nn.Sequential(nn.Linear(16, 48),
                      *[nn.Sequential(nn.Linear(48, 48), nn.Sigmoid()) for _ in range(8)],
                      nn.Linear(48, 4))
'''

TRAIN = '''
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(2048, 16), torch.randint(0, 4, (2048,))
for epoch in range(15):
    for i in range(0, 2048, 64):
        loss = nn.functional.cross_entropy(model(x[i:i + 64]), y[i:i + 64])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''
BLOCKS += TRAIN
SEQUENTIAL += TRAIN

LOG = "".join(f"epoch {e} loss {1.3863 + 0.0004 * ((e * 7) % 5 - 2):.4f}\n" for e in range(15))


def test_blocks_returning_a_functional_sigmoid_count_as_a_sigmoid_stack(tmp_path):
    rep = diagnose_code_and_log(tmp_path, BLOCKS.replace("{act}", "torch.sigmoid(self.fc(x))"), LOG)
    assert facts_by_id(rep)["sigmoid_depth"]["value"] == 8
    assert top_cause(rep) == "vanishing_gradients"


def test_a_comprehension_of_sigmoid_layers_counts_each_layer(tmp_path):
    rep = diagnose_code_and_log(tmp_path, SEQUENTIAL, LOG)
    assert facts_by_id(rep)["sigmoid_depth"]["value"] == 8
    assert top_cause(rep) == "vanishing_gradients"


def test_relu_blocks_and_sigmoid_gates_are_not_a_sigmoid_stack(tmp_path):
    relu = BLOCKS.replace("{act}", "torch.relu(self.fc(x))")
    assert "sigmoid_depth" not in facts_by_id(diagnose_code_and_log(tmp_path, relu, LOG))
    gate = BLOCKS.replace("{act}", "torch.sigmoid(self.fc(x))\n        out = out * x + (1 - out) * x")
    assert "sigmoid_depth" not in facts_by_id(diagnose_code_and_log(tmp_path, gate, LOG))
