"""A classifier whose softmax output goes into CrossEntropyLoss, read from its code and what it printed
(issue 12, session 27).

What a user would notice: an LSTM classifier ending in ``nn.Sequential(nn.Linear(h, n_class),
nn.Softmax(-1))`` with ``n_class`` a constructor default printed 96% training accuracy beside a training
loss of 1.68 for 12 classes, and traindx named a lack of regularisation at 0.98 with the double softmax
at 0.01. The class count is now read through the trailing softmax and the constructor's default, and a
training loss held at the floor ln(1 + (C - 1)/e) of a cross-entropy on softmaxed outputs while nearly
every answer is right counts for the double softmax. A cross-entropy on logits that learned as much
falls far below that floor and is not reported.
"""
from __future__ import annotations

import math

from conftest import diagnose_code_and_log, diagnose_json

CODE = '''
import torch, torch.nn as nn

C = 12


class Clf(nn.Module):
    def __init__(self, d=16, hidden=32, n_class=C):
        super().__init__()
        self.lstm = nn.LSTM(d, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, n_class), {squash})

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


model = Clf()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(640, 10, 16), torch.randint(0, C, (640,))
for epoch in range(12):
    for i in range(0, 640, 32):
        out = model(x[i:i + 32]); loss = criterion(out, y[i:i + 32])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
'''

FLOOR = math.log(1 + 11 / math.e)


def _log(final_loss: float) -> str:
    rows = []
    for e in range(12):
        acc = 13 + 84 * (e / 11)
        loss = 2.48 - (2.48 - final_loss) * (1 - (1 - e / 11) ** 2)
        rows.append(f"Epoch: {e}  train loss: {loss:.4f}  train acc: {acc:.2f}%  |  "
                    f"test loss: {2.46 - 0.04 * e:.4f}  test acc: {15 + 4 * e:.2f}%")
    return "\n".join(rows) + "\n"


def _confidence(rep, cause):
    return next((c["confidence"] for c in rep["root_causes"] if c["id"] == cause), 0.0)


def test_the_class_count_is_read_through_a_trailing_softmax_and_a_constructor_default(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(CODE.format(squash="nn.Softmax(dim=-1)"))
    rep = diagnose_json("--code", str(p))
    assert next(f["value"] for f in rep["facts"] if f["fact"] == "num_classes") == 12


def test_a_default_the_script_overrides_is_not_the_class_count(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(CODE.format(squash="nn.Softmax(dim=-1)").replace("model = Clf()", "model = Clf(n_class=7)"))
    rep = diagnose_json("--code", str(p))
    assert all(f["value"] != 12 for f in rep["facts"] if f["fact"] == "num_classes")


def test_right_answers_at_the_squash_floor_count_for_the_double_softmax(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.format(squash="nn.Softmax(dim=-1)"), _log(FLOOR * 1.03))
    ids = [c["id"] for c in rep["root_causes"][:2]]
    assert "double_softmax" in ids
    assert _confidence(rep, "double_softmax") > 0.05
    assert _confidence(rep, "insufficient_regularization") < 0.95


def test_a_cross_entropy_on_logits_far_below_the_floor_is_not_blamed_on_a_squash(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.format(squash="nn.Identity()"), _log(0.15))
    assert _confidence(rep, "double_softmax") < 0.05
