"""A loss that never moves in a script that starts its weights at one constant (issue 12, session 29).

What a user would notice: the loss printed at every report is the same number to the last digit,
from the first report to the last. The script zeroes its weights (``nn.init.zeros_``) and trains with a
small plain-SGD rate. Read from the code and the printed log, traindx named the small learning rate;
a loss frozen since its first record is what the constant start explains (all-zero weights pass no
gradient), and a small rate still moves weights that get gradients. The same log with a loss that
creeps down keeps the learning rate in question.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, top_cause

CODE = '''
import torch, torch.nn as nn

mlp = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
for layer in mlp:
    if isinstance(layer, nn.Linear):
        nn.init.zeros_(layer.weight)
        nn.init.zeros_(layer.bias)
opt = torch.optim.SGD(mlp.parameters(), lr=5e-5, momentum=0.9)
for it in range(2000):
    xb, yb = torch.randn(32, 20), torch.randint(0, 10, (32,))
    loss = nn.functional.cross_entropy(mlp(xb), yb)
    opt.zero_grad(); loss.backward(); opt.step()
    if it % 100 == 0:
        print(f"it {it} loss {loss.item():.6f}")
'''


def test_frozen_loss_under_a_constant_start_names_the_initialisation(tmp_path):
    log = "".join(f"it {it} loss 2.302585\n" for it in range(0, 2000, 100))
    assert top_cause(diagnose_code_and_log(tmp_path, CODE, log)) == "bad_initialization"


def test_a_creeping_loss_keeps_the_rule_off(tmp_path):
    log = "".join(f"it {it} loss {2.302585 - 0.004 * k - 0.002 * (k % 2):.6f}\n"
                  for k, it in enumerate(range(0, 2000, 100)))
    rep = diagnose_code_and_log(tmp_path, CODE, log)
    assert "frozen-loss-under-constant-init" not in str(rep)
