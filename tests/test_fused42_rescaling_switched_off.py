"""Session 42 (fused42): a finished run whose script rescales its inputs only behind a switch it sets
to False (``NORMALIZE = False`` ... ``if NORMALIZE: feats = feats / scale``), read with the log of a
regression that barely learns. The positions reach the network in raw pixels; the reader cannot follow
their scale (a matrix product puts them on their pixel grid), but the switched-off rescaling says the author meant them
rescaled. The report names unnormalised inputs; the same script and log with the switch on does not.
Script and log are written for this test (synthetic numbers, no benchmark run's own). Torch-free.
"""

from conftest import diagnose_code_and_log, top_cause

_SCRIPT = '''
import torch
import torch.nn as nn

NORMALIZE = {FLAG}


def scene(n, gen):
    pos = torch.rand(n, 8, 2, generator=gen) @ torch.diag(torch.tensor([640.0, 480.0]))
    rad = torch.rand(n, 8, 1, generator=gen) @ torch.tensor([[32.0]]) + 8
    return torch.cat([pos, rad], -1), gen


gen = torch.Generator().manual_seed(0)
feats, _ = scene(3000, gen)
target = torch.randn(3000, 1)
if NORMALIZE:
    feats = feats / torch.tensor([640.0, 480.0, 40.0])
feats = feats.flatten(1)
x_train, y_train, x_val, y_val = feats[:2500], target[:2500], feats[2500:], target[2500:]
model = nn.Sequential(nn.Linear(24, 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU(), nn.Linear(96, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(15):
    perm = torch.randperm(2500)
    for i in range(0, 2500, 50):
        idx = perm[i:i + 50]
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
    with torch.no_grad():
        vl = nn.functional.mse_loss(model(x_val), y_val).item()
    print(f"epoch {{epoch + 1}} train_mse {{loss.item():.4f}} val_mse {{vl:.4f}}")
'''


def _barely_learns():
    rows = ["epoch 1 train_mse 3252.9000 val_mse 48.3100"]
    for e in range(2, 16):
        tr = 1.13 + 0.02 * ((-1) ** e) + 0.5 / e
        rows.append(f"epoch {e} train_mse {tr:.4f} val_mse {1.09 + 0.01 * ((-1) ** (e + 1)) + 0.3 / e:.4f}")
    return "\n".join(rows)


def test_a_switched_off_rescaling_names_unnormalised_inputs(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SCRIPT.replace("{FLAG}", "False"), _barely_learns())
    assert rep["status"] == "diagnosed" and top_cause(rep) == "unnormalized_inputs"


def test_the_rescaling_switched_on_does_not(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SCRIPT.replace("{FLAG}", "True"), _barely_learns())
    assert top_cause(rep) != "unnormalized_inputs" or rep["status"] != "diagnosed"
