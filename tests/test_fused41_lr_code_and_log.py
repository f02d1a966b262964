"""Session 41 (fused41): a finished run read from its script and its console output together, where
the learning rate the script sets is what the curve alone cannot show. Each script and log is written
for this test (synthetic numbers, no benchmark run's own):

- SGD with momentum 0.9 at a learning rate above SGD's usual range (each step moves about
  lr / (1 - momentum)) under a loss stuck at chance: the learning rate is named, too high;
- Adam at a learning rate below its usual range under a run whose training and validation losses are
  both still falling when it ends: the curve alone reads healthy (a budget cut short), the script
  shows why it had not converged, and the report names the learning rate, too low, with the slow
  symptom it shows. The same log under Adam at 1e-3 stays healthy.
Torch-free.
"""

import math

from conftest import diagnose_code_and_log, report_symptom, top_cause

_CLASSIFIER = '''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 5))
opt = {OPT}
loss_fn = nn.CrossEntropyLoss()
x_all = torch.randn(2000, 32)
y_all = torch.randint(0, 5, (2000,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=64, shuffle=True)

for epoch in range(12):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
    print(f"epoch {{epoch + 1}} loss {{loss.item():.4f}}")
'''


def _stuck_at_chance_log(epochs=12):
    chance = math.log(5)
    return "\n".join(f"epoch {e} loss {chance + 0.004 * ((-1) ** e) + 0.002 * (e % 3):.4f} "
                     f"val_loss {chance + 0.003 * ((-1) ** (e + 1)):.4f} val_acc {0.19 + 0.01 * (e % 3):.4f}"
                     for e in range(1, epochs + 1))


def test_sgd_with_heavy_momentum_above_its_range_names_the_learning_rate(tmp_path):
    code = _CLASSIFIER.replace("{OPT}", "torch.optim.SGD(model.parameters(), lr=1.0, momentum=0.9)")
    rep = diagnose_code_and_log(tmp_path, code, _stuck_at_chance_log())
    assert report_symptom(rep) == "not_learning"
    assert rep["status"] == "diagnosed" and top_cause(rep) == "lr_too_high"


def test_sgd_with_momentum_in_its_usual_range_is_not_named_too_high(tmp_path):
    code = _CLASSIFIER.replace("{OPT}", "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)")
    rep = diagnose_code_and_log(tmp_path, code, _stuck_at_chance_log())
    assert not (rep["status"] == "diagnosed" and top_cause(rep) == "lr_too_high")


_REGRESSOR = '''
import torch
import torch.nn as nn

LR = {LR}
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=LR)
x_all = torch.randn(4000, 16)
y_all = x_all[:, :4].sum(dim=1, keepdim=True)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=32, shuffle=True)

for epoch in range(10):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
'''


def _still_falling_log(epochs=10):
    return "\n".join(f"epoch {e:2d} | train_mse {8.0 * 0.84 ** e + 0.1:.4f} | val_mse {8.3 * 0.85 ** e + 0.12:.4f}"
                     for e in range(1, epochs + 1))


def test_adam_below_its_range_under_a_run_still_falling_at_its_end_names_the_learning_rate(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _REGRESSOR.replace("{LR}", "2e-5"), _still_falling_log())
    assert rep["status"] == "diagnosed" and top_cause(rep) == "lr_too_low"
    assert report_symptom(rep) == "slow_training"


def test_the_same_run_at_adams_usual_learning_rate_stays_healthy(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _REGRESSOR.replace("{LR}", "1e-3"), _still_falling_log())
    assert rep["status"] == "healthy"
