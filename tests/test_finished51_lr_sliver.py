"""A finished run whose log records an LR of (almost) 0 while its script sets a normal rate for a scheduler
to scale (session 51, issue 13): the schedule held the LR at a sliver of its rate (lr_base_ratio read from
the log against the code), which is lr_schedule_collapse, not a learning rate set too low."""

from cli_reports import diagnose_log


_SCRIPT = '''import torch
import torch.nn as nn

EPOCHS = 6
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
total = EPOCHS
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total))
criterion = nn.CrossEntropyLoss()
x = torch.randn(3200, 20)
y = torch.randint(0, 4, (3200,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)
for epoch in range(EPOCHS):
    for i, (xb, yb) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        if i % 20 == 0:
            print(f"epoch {epoch} step {epoch * 100 + i} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")
'''


def _log(lr: str) -> str:
    lines = []
    for epoch in range(6):
        for i in range(0, 100, 20):
            loss = 1.3863 + 0.006 * (((epoch * 5 + i // 20) * 7) % 5 - 2)
            lines.append(f"epoch {epoch} step {epoch * 100 + i} loss {loss:.4f} lr {lr}")
    return "\n".join(lines) + "\n"


def _diagnose(tmp_path, log: str) -> dict:
    return diagnose_log(tmp_path, log, _SCRIPT)


def test_a_logged_lr_of_zero_under_a_scheduler_of_a_normal_rate_is_the_schedules_collapse(tmp_path):
    report = _diagnose(tmp_path, _log("0.00e+00"))
    facts = {f["fact"]: f["value"] for f in report["facts"]}
    assert facts["learning_rate"] == 0.0 and facts["lr_base_ratio"] == 0.0
    causes = {c["id"]: c["confidence"] for c in report["root_causes"]}
    assert report["root_causes"][0]["id"] == "lr_schedule_collapse"
    assert causes.get("lr_too_low", 0.0) < 0.5


def test_a_logged_lr_at_the_scripts_rate_reads_no_sliver(tmp_path):
    report = _diagnose(tmp_path, _log("2.00e-03"))
    assert "lr_base_ratio" not in {f["fact"] for f in report["facts"]}
