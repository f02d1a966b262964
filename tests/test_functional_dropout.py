"""Dropout written as a function call (``F.dropout(x, p=0.7, training=self.training)``, as ported
TensorFlow models write it) is no layer of the model, so the live probe that reads the model's
Dropout layers reports none: what the code says wins that disagreement, and heavy dropout that
holds the training accuracy below validation's is named as the slowness it causes."""

from __future__ import annotations

import textwrap

from traindx.engine.api import Session
from traindx.engine.evidence import Finding
from traindx.engine.loader import load_kb
from traindx.probes.readers.code.reader import analyze_code

KB = load_kb(entry_point_packs=False)

MODEL = """\
    import torch, torch.nn as nn, torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 16, 3, padding=1)
            self.fc = nn.Linear(16 * 14 * 14, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv(x)), 2)
            x = F.dropout(x, p=0.7, training=self.training)
            return self.fc(x.flatten(1))

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(100):
        x, y = torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
"""


def _code_dropout(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(MODEL))
    return next(f for f in analyze_code(str(path)).findings if f.fact == "dropout_p")


def test_a_functional_dropout_outranks_a_probe_that_sees_no_dropout_layer(tmp_path):
    code = _code_dropout(tmp_path)
    assert code.value == 0.7
    s = Session(KB)
    s.add_finding(Finding(fact="dropout_p", value=0.0, source="probe:regularization", detail="largest dropout p 0"))
    s.add_finding(code)
    assert s.value("dropout_p") == 0.7


def test_heavy_dropout_with_training_below_validation_is_slow_training_from_the_regularisation(tmp_path):
    s = Session(KB)
    probe = {"loss_trend": "decreasing", "train_accuracy": 0.59, "val_accuracy": 0.73, "num_classes": 10,
             "loss_function": "cross_entropy", "current_loss": 1.09, "initial_loss": 2.44, "dropout_p": 0.0}
    for fact, value in probe.items():
        s.add_finding(Finding(fact=fact, value=value, source="probe:train_val_gap", detail=""))
    s.add_finding(_code_dropout(tmp_path))
    s.run()
    report = s.report()
    assert report["symptom"]["id"] == "slow_training"
    assert report["root_causes"][0]["id"] == "excessive_regularization"
