"""A conv/pool feature map handed to nn.Linear unflattened, read from the code alone (issue 12, session 29).

What a user would notice: the script stops at its first forward with "mat1 and mat2 shapes cannot be
multiplied". Given only the code (`--code`), traindx named a training-dynamics cause (frozen random
features); the code reader now reads the missing flatten as ``feature_map_into_linear`` and the scope
deferral reports the run out of scope, as it does once the crash's traceback is seen. A log that shows the
run training keeps the deferral off; the same script with the flatten reports nothing of the kind.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, diagnose_json, facts_by_id

CODE = '''
import torch, torch.nn as nn

class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 12, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(12, 24, 3), nn.ReLU())
        self.gap = nn.AdaptiveMaxPool2d(3)
        self.out = nn.Linear(24 * 3 * 3, 7)

    def forward(self, t):
        z = self.gap(self.enc(t))
        {flatten}
        return self.out(z)

net = Small()
for p in net.enc.parameters():
    p.requires_grad = False
opt = torch.optim.SGD(net.out.parameters(), lr=0.01, momentum=0.9)
xs, ys = torch.randn(96, 1, 30, 30), torch.randint(0, 7, (96,))
for ep in range(4):
    for i in range(0, 96, 16):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(xs[i:i + 16]), ys[i:i + 16])
        loss.backward(); opt.step()
    print(f"ep {ep} loss {loss.item():.4f}")
'''

MISSING = CODE.replace("{flatten}", "pass")
FLATTENED = CODE.replace("{flatten}", "z = z.reshape(z.shape[0], -1)")


def test_missing_flatten_read_from_the_code_is_out_of_scope(tmp_path):
    c = tmp_path / "train.py"
    c.write_text(MISSING)
    rep = diagnose_json("--code", str(c))
    assert facts_by_id(rep)["feature_map_into_linear"]["value"] is True
    assert rep["status"] == "out_of_scope"
    assert rep["root_causes"] == []


def test_flattened_map_is_diagnosed_as_usual(tmp_path):
    c = tmp_path / "train.py"
    c.write_text(FLATTENED)
    rep = diagnose_json("--code", str(c))
    assert "feature_map_into_linear" not in facts_by_id(rep)
    assert rep["status"] != "out_of_scope"


def test_a_log_of_training_losses_keeps_the_deferral_off(tmp_path):
    log = "".join(f"ep {e} loss {1.9 - 0.3 * e:.4f}\n" for e in range(4))
    rep = diagnose_code_and_log(tmp_path, MISSING, log)
    assert facts_by_id(rep)["feature_map_into_linear"]["value"] is True
    assert rep["status"] != "out_of_scope"
