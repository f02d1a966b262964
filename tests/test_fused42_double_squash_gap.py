"""Session 42 (fused42): a finished run whose log opens a train/validation accuracy gap while its
training loss has stopped falling well above zero, and whose script feeds a softmax output to
cross-entropy. The gap alone reads as overfitting, whose prior leaves a double softmax almost
nothing; a memoriser's training loss keeps falling toward zero, while a double squash gives the loss
a floor and learns slowly. The report names the double softmax. The same log from a script that
feeds raw logits stays with too little regularization. Script and log are written for this test
(synthetic numbers, no benchmark run's own). Torch-free.
"""

from conftest import diagnose_code_and_log, top_cause

_SCRIPT = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(40, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 6))

    def forward(self, x):
        return {HEAD}


model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
x_all = torch.randn(3000, 40)
y_all = torch.randint(0, 6, (3000,))
x_val, y_val = torch.randn(600, 40), torch.randint(0, 6, (600,))
for epoch in range(14):
    model.train()
    perm = torch.randperm(3000)
    for i in range(0, 3000, 64):
        idx = perm[i:i + 64]
        opt.zero_grad()
        out = model(x_all[idx])
        loss = F.cross_entropy(out, y_all[idx])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        vout = model(x_val)
        val_loss = F.cross_entropy(vout, y_val).item()
        val_acc = (vout.argmax(1) == y_val).float().mean().item()
    print(f"epoch {{epoch + 1}} loss {{loss.item():.4f}} acc {{0.0:.4f}}",
          f"val_loss {{val_loss:.4f}} val_acc {{val_acc:.4f}}")
'''


def _gap_under_a_stalled_loss(epochs=14):
    rows = []
    for e in range(1, epochs + 1):
        loss = 1.79 - 0.5 * min(e, 7) / 7 + 0.004 * ((-1) ** e)
        val_loss = 1.55 - 0.1 * min(e, 7) / 7 + 0.003 * ((-1) ** (e + 1))
        acc = 0.30 + 0.48 * e / epochs
        val_acc = 0.28 + 0.38 * e / epochs
        rows.append(f"epoch {e} loss {loss:.4f} acc {acc:.4f} val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
    return "\n".join(rows)


def test_a_softmax_into_cross_entropy_explains_a_gap_under_a_stalled_loss(tmp_path):
    code = _SCRIPT.replace("{HEAD}", "torch.softmax(self.body(x), dim=-1)")
    rep = diagnose_code_and_log(tmp_path, code, _gap_under_a_stalled_loss())
    assert rep["status"] == "diagnosed" and top_cause(rep) == "double_softmax"


def test_raw_logits_leave_the_same_gap_to_regularization(tmp_path):
    code = _SCRIPT.replace("{HEAD}", "self.body(x)")
    rep = diagnose_code_and_log(tmp_path, code, _gap_under_a_stalled_loss())
    assert top_cause(rep) != "double_softmax"
