"""A finished full-batch run whose script steps an epoch scheduler every iteration and whose training loss
then prints one and the same number for hundreds of iterations (session 51, issue 13): the collapse the
per-batch stepping predicts, seen in the log, decides lr_schedule_collapse; a loss still moving in its
last digits leaves the cause less sure."""

from cli_reports import diagnose_log


_SCRIPT = '''import torch
import torch.nn as nn
from tqdm import tqdm

ITERS = 600
x = torch.rand(576, 2)
y = torch.rand(576, 3)
model = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3), nn.Sigmoid())
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
loss_fn = nn.MSELoss()
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
for it in tqdm(range(1, ITERS + 1), desc="train"):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    if it % 10 == 0:
        print(f"iter {it:5d}  train_loss {loss.item():.3e}")
'''


def _log(moving: bool) -> str:
    lines = []
    for it in range(10, 601, 10):
        loss = 2.853e-2 - 7e-4 * min(it, 60) / 60
        if moving:
            loss -= 1.5e-4 * it / 600 + 4e-5 * ((it // 10) % 3)
        lines.append(f"iter {it:5d}  train_loss {loss:.3e}")
    return "\n".join(lines) + "\n"


def _diagnose(tmp_path, log: str) -> dict:
    return diagnose_log(tmp_path, log, _SCRIPT)


def _collapse(report: dict) -> float:
    return next((c["confidence"] for c in report["root_causes"] if c["id"] == "lr_schedule_collapse"), 0.0)


def test_a_loss_that_stops_dead_under_an_epoch_scheduler_stepped_every_iteration_is_the_collapse(tmp_path):
    dead = _diagnose(tmp_path, _log(moving=False))
    assert dead["status"] == "diagnosed"
    assert dead["root_causes"][0]["id"] == "lr_schedule_collapse"
    rules = {c["rule"] for c in dead["root_causes"][0]["contributions"]}
    assert "scheduler-per-batch-loss-stopped-dead" in rules
    moving = _diagnose(tmp_path, _log(moving=True))
    assert _collapse(moving) < _collapse(dead)
