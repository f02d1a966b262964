"""Session 43 (fused43): a self-supervised script that writes its own optimizer (``class LARS(torch.optim.Optimizer)``,
two parameter groups split by shape) and sets the rate itself each step (``optimizer.param_groups[0]['lr'] = ...``
after building it with ``lr=0``), beside a small probe optimizer for a linear read-out. The model's parameters are all
in the hand-written optimizer, and the constructor's zero is a placeholder, not the run's rate: the report names
neither trainable parameters missing from the optimizer nor a learning rate too low on a run that learns. A stock
optimizer built with ``lr=0`` that nothing ever raises still reads as a zero rate. Script and log are written for
this test (synthetic numbers, no benchmark run's own). Torch-free.
"""

import json

from conftest import diagnose_code_and_log, facts_by_id

_SCRIPT = '''
import json
import torch
from torch import nn, optim

torch.manual_seed(0)
X = torch.randn(2048, 16)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32))

    def forward(self, a, b):
        za, zb = self.projector(self.backbone(a)), self.projector(self.backbone(b))
        return ((za - zb) ** 2).mean() + (za.std(0) - 1).abs().mean()


class LARS(optim.Optimizer):
    def __init__(self, params, lr, momentum=0.9, eta=0.001):
        super().__init__(params, dict(lr=lr, momentum=momentum, eta=eta))

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g['params']:
                if p.grad is None:
                    continue
                q = g['eta'] * torch.norm(p) / (torch.norm(p.grad) + 1e-9)
                p.add_(p.grad * q, alpha=-g['lr'])


def set_rate(optimizer, step, total):
    lr = 0.2 * min(1.0, step / 100) * (1 - step / total)
    optimizer.param_groups[0]['lr'] = lr
    optimizer.param_groups[1]['lr'] = lr * 0.01


def probe(model):
    head = nn.Linear(32, 4)
    opt = optim.Adam(head.parameters(), lr=0.01)
    with torch.no_grad():
        f = model.backbone(X[:256])
    for _ in range(20):
        opt.zero_grad()
        head(f).pow(2).mean().backward()
        opt.step()


model = Net()
weights, biases = [], []
for p in model.parameters():
    (biases if p.ndim == 1 else weights).append(p)
optimizer = LARS([{'params': weights}, {'params': biases}], lr=0)
total = 10 * 32
for epoch in range(10):
    perm = torch.randperm(2048)
    for i in range(32):
        step = epoch * 32 + i
        x = X[perm[i * 64:(i + 1) * 64]]
        set_rate(optimizer, step, total)
        optimizer.zero_grad()
        loss = model(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
        loss.backward()
        optimizer.step()
        if step % 16 == 0:
            print(json.dumps(dict(epoch=epoch, step=step, loss=loss.item())))
    probe(model)
'''


def _learns():
    rows = []
    for k in range(20):
        rows.append(json.dumps({"epoch": k // 2, "step": 16 * k, "loss": round(2.0 * 0.82 ** k + 0.3, 4)}))
    return "\n".join(rows) + "\n"


def test_a_hand_written_optimizer_holds_the_model_and_its_zero_rate_is_a_placeholder(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SCRIPT, _learns())
    facts = facts_by_id(rep)
    assert facts["optimizer"]["value"] == "lars"
    assert facts["params_not_in_optimizer"]["value"] == []
    assert "learning_rate" not in facts
    named = [c["id"] for c in rep["root_causes"] if c["confidence"] > 0.5]
    assert "params_not_in_optimizer" not in named and "lr_too_low" not in named


def test_a_zero_rate_nothing_raises_is_still_read(tmp_path):
    script = _SCRIPT.replace("        set_rate(optimizer, step, total)\n", "")
    writes = "    optimizer.param_groups[0]['lr'] = lr\n    optimizer.param_groups[1]['lr'] = lr * 0.01\n"
    script = script.replace(writes, "    return lr\n")
    assert "['lr'] =" not in script
    facts = facts_by_id(diagnose_code_and_log(tmp_path, script, _learns()))
    assert facts["learning_rate"]["value"] == 0.0
