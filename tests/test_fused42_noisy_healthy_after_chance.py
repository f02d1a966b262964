"""Session 42 (fused42): a finished classifier run at batch 8 whose per-batch losses swing (spikes of
2x-3x) while the epoch means and the validation loss fall and the training and validation
accuracies rise level. The log's first record comes after the first 25 steps, which already learned:
the first printed loss (0.75) is under random chance for three classes (ln 3 = 1.10), so a
validation loss of about 0.5 is not "half of where training started", yet it is under half of
chance. Small-batch noise that costs nothing on held-out data is healthy; the same swings with the
validation loss left above half of chance stay instability. Script and log are written for this
test (synthetic numbers, no benchmark run's own). Torch-free.
"""

from conftest import diagnose_code_and_log, report_symptom

_SCRIPT = '''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_fn = nn.CrossEntropyLoss()
x_all, y_all = torch.randn(1200, 24), torch.randint(0, 3, (1200,))
x_val, y_val = torch.randn(300, 24), torch.randint(0, 3, (300,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=8, shuffle=True)
for epoch in range(8):
    model.train()
    for i, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        if (i + 1) % 25 == 0:
            print(f"  epoch {{epoch + 1}}, batch {{i + 1}}/150: loss = {{loss.item():.4f}}")
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        vl = loss_fn(out, y_val).item()
        va = (out.argmax(1) == y_val).float().mean().item()
    print(f"Epoch {{epoch + 1}}: train loss {{0.0:.4f}}, acc {{0.0:.3f}}; val loss {{vl:.4f}}, val acc {{va:.3f}}")
'''

_SWINGS = [0.0, -0.15, -0.05, 1.3, -0.12, 0.2, 0.55, 0.05, 0.1, 0.25, 0.3, -0.15]


def _noisy_log(val_end):
    rows = []
    for e in range(1, 9):
        level = 0.75 - 0.3 * (e - 1) / 7
        for k, b in enumerate(range(25, 151, 25)):
            swing = _SWINGS[(6 * (e - 1) + k) % len(_SWINGS)] * (1.0 - 0.04 * e)
            rows.append(f"  epoch {e}, batch {b}/150: loss = {level + swing:.4f}")
        tr = 0.82 - 0.30 * (e - 1) / 7
        va_loss = 0.67 - (0.67 - val_end) * (e - 1) / 7
        acc = 0.61 + 0.21 * (e - 1) / 7
        rows.append(f"Epoch {e}: train loss {tr:.4f}, acc {acc:.3f}; val loss {va_loss:.4f}, val acc {acc + 0.01:.3f}")
    return "\n".join(rows)


def test_small_batch_swings_with_validation_under_half_of_chance_are_healthy(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SCRIPT, _noisy_log(0.47))
    assert rep["status"] == "healthy" and report_symptom(rep) == "healthy"


def test_the_same_swings_with_validation_above_half_of_chance_stay_instability(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SCRIPT, _noisy_log(0.62))
    assert rep["status"] != "healthy" and report_symptom(rep) == "instability"
