"""A CTC loss below zero is a loss fed the wrong thing (issue 12).

What a user would notice: a speech model trained with ``nn.CTCLoss`` printed a loss that fell from 30
to below zero and stayed there, while the word error rate stalled. CTC is the negative log-probability
of a label sequence: it floors at zero, as cross entropy does. Below zero means its targets are not what
it expects (the blank index among the labels). traindx read the fall below zero as a run that converged
("healthy"); it now names the loss as the suspect, as it does for a cross entropy below zero.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, top_cause

CODE = '''
import torch, torch.nn as nn

class Acoustic(nn.Module):
    def __init__(self, n_labels=29):
        super().__init__()
        self.rnn = nn.GRU(16, 64, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(128, n_labels)
    def forward(self, x):
        return self.fc(self.rnn(x)[0])

model = Acoustic()
criterion = nn.CTCLoss(reduction="sum", zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), 1e-3)
for epoch in range(1, 13):
    for i in range(60):
        x = torch.randn(20, 40, 16)
        targets = torch.randint(0, 29, (20, 8))
        out = model(x).log_softmax(-1).transpose(0, 1)
        loss = criterion(out, targets, torch.full((20,), 40), torch.full((20,), 8)) / 20
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if i % 20 == 0:
            print(f"Epoch: [{epoch}][{i}/60] Loss {loss.item():.4f}")
'''


def _log(floor):
    vals = [31.3, 12.0, 5.99, 2.1, 0.80, 0.41, 0.29, 0.15, 0.078, 0.01] + [floor - 0.01 * (k % 4) for k in range(26)]
    return "".join(f"Epoch: [{1 + k // 3}][{20 * (k % 3)}/60] Loss {v:.4f}\n" for k, v in enumerate(vals))


def test_a_ctc_loss_that_goes_below_zero_names_the_loss(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE, _log(-0.30))
    assert rep["status"] != "healthy"
    assert top_cause(rep) == "wrong_loss_function"


def test_a_ctc_loss_that_levels_off_above_zero_is_no_such_case(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE, _log(0.05))
    assert top_cause(rep) != "wrong_loss_function" or rep["root_causes"][0]["confidence"] < 0.5
