"""Finished runs read from what they left behind (session 48, issue 11): millisecond hiccups are no
stalls, a held-out AUC says whether the model learned, a slow run whose validation still improves is
slow, and a smooth fall argues against an LR read as too high."""

import json
import math

from click.testing import CliRunner

from traindx.engine.frontends import gather
from traindx.engine.frontends.cli import main


def _diagnose(tmp_path, log: str, script: str | None = None) -> dict:
    (tmp_path / "console.log").write_text(log, encoding="utf-8")
    args = ["diagnose", "--log", str(tmp_path / "console.log"), "--non-interactive", "--format", "json"]
    if script is not None:
        (tmp_path / "train.py").write_text(script, encoding="utf-8")
        args[1:1] = ["--code", str(tmp_path / "train.py")]
    res = CliRunner().invoke(main, args)
    out = res.output
    return json.loads(out[out.index("{"):])


def _facts(tmp_path, log: str) -> dict:
    path = tmp_path / "console.log"
    path.write_text(log, encoding="utf-8")
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def _pygcn_log(times: list, loss_end: float = 0.36, val_end: float = 0.58) -> str:
    """A full-batch node classifier printed every ten epochs as pygcn/SGC do: a smooth fall, validation
    better at every evaluation, and the time of the epoch on each line."""
    lines = ["Loading citation graph: 1500 nodes, 3605 edges, 400 features, 5 classes"]
    for i, t in enumerate(times):
        e = 1 if i == 0 else 10 * i
        f = 1 - math.exp(-e / 35)
        lt, lv = 1.61 - (1.61 - loss_end) * f, 1.60 - (1.60 - val_end) * f
        lines.append(f"Epoch: {e:04d} loss_train: {lt:.4f} acc_train: {0.2 + 0.79 * f:.4f} loss_val: {lv:.4f} "
                     f"acc_val: {0.22 + 0.67 * f:.4f} time: {t:.4f}s")
    return "\n".join(lines + ["Optimization Finished!"]) + "\n"


_HICCUPS = [0.026, 0.0059, 0.0013, 0.0014, 0.0012, 0.0054, 0.0013, 0.0137, 0.0012, 0.0096, 0.0013, 0.0101,
            0.0017, 0.0017, 0.0017, 0.0018]


def test_millisecond_hiccups_on_a_shared_host_are_no_stalls(tmp_path):
    facts = _facts(tmp_path, _pygcn_log(_HICCUPS))
    assert facts["step_time_stalls"] == 0
    assert _diagnose(tmp_path, _pygcn_log(_HICCUPS))["status"] == "healthy"


def test_stalls_of_seconds_still_count(tmp_path):
    times = [3 * t / 0.0017 * 0.1 for t in _HICCUPS]      # the same shape at 0.1 s a typical epoch
    assert _facts(tmp_path, _pygcn_log(times))["step_time_stalls"] > 0


_SGC_SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F

features = torch.randn(1500, 400)
labels = torch.randint(0, 5, (1500,))
idx_train, idx_val = torch.arange(300), torch.arange(300, 800)
model = nn.Linear(400, 5)
optimizer = torch.optim.Adam(model.parameters(), lr=0.2, weight_decay=5e-6)
for epoch in range(150):
    model.train()
    optimizer.zero_grad()
    loss_train = F.cross_entropy(model(features[idx_train]), labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        loss_val = F.cross_entropy(model(features[idx_val]), labels[idx_val])
    if epoch == 0 or (epoch + 1) % 10 == 0:
        print(f"Epoch: {epoch + 1:04d} loss_train: {loss_train.item():.4f} loss_val: {loss_val.item():.4f}")
'''


def test_a_high_adam_lr_beside_a_smooth_healthy_fall_names_no_cause(tmp_path):
    report = _diagnose(tmp_path, _pygcn_log([0.0017] * 16), _SGC_SCRIPT)
    assert report["status"] == "healthy"
    # the high rate is weighed against by the smooth fall: no candidate, lr_too_high included, reaches 0.5
    assert report["root_causes"] and all(c["confidence"] < 0.5 for c in report["root_causes"])


def _slow_gap_log() -> str:
    """An LR too low on a small labelled set: the loss falls a little, steadily; the training accuracy
    gets ahead of the validation one, and both, with the validation loss, still improve at every
    evaluation."""
    lines = []
    for i in range(16):
        e = 1 if i == 0 else 10 * i
        acc_t = 0.2533 if e <= 40 else min(0.78, 0.2533 + 0.0052 * (e - 40))
        acc_v = 0.216 if e <= 50 else min(0.61, 0.216 + 0.0039 * (e - 50))
        lines.append(f"Epoch: {e:04d} loss_train: {1.6104 - 0.00196 * e:.4f} acc_train: {acc_t:.4f} "
                     f"loss_val: {1.6075 - 0.00144 * e:.4f} acc_val: {acc_v:.4f}")
    return "\n".join(lines) + "\n"


def test_a_slow_run_whose_validation_improves_at_every_evaluation_is_slow_not_overfit(tmp_path):
    report = _diagnose(tmp_path, _slow_gap_log())
    assert report["symptom"]["id"] == "slow_training"


def _auc_log(mse: bool, aucs: list, losses: list) -> str:
    lines = []
    for e, (auc, loss) in enumerate(zip(aucs, losses), 1):
        name = "mse" if mse else "loss"
        lines.append(f"2026-12-07 02:59:{20 + e:02d} [INFO] ae: epoch {e:02d} finished | train_{name} {loss:.5f} "
                     f"| val_{name} {loss * 0.98:.5f} | test AUROC {auc:.4f}")
    return "\n".join(lines) + "\n"


def test_an_auc_at_chance_through_the_run_is_not_learning_though_the_loss_falls(tmp_path):
    aucs = [0.5007, 0.4995, 0.4995, 0.4987, 0.4975, 0.4982, 0.4980, 0.4980, 0.4978, 0.4975, 0.4975, 0.4975]
    losses = [2535 * 0.92 ** e + 1000 for e in range(12)]
    facts = _facts(tmp_path, _auc_log(True, aucs, losses))
    assert facts["val_auc_best"] == 0.5007
    assert _diagnose(tmp_path, _auc_log(True, aucs, losses))["symptom"]["id"] == "not_learning"


def test_a_flat_loss_beside_an_auc_well_above_chance_is_a_plateau(tmp_path):
    aucs = [0.60, 0.63, 0.645, 0.645, 0.6456, 0.6450, 0.6452, 0.6455, 0.6451, 0.6453, 0.6454, 0.6452]
    losses = [0.532, 0.541, 0.527, 0.536, 0.529, 0.538, 0.526, 0.534, 0.531, 0.527, 0.535, 0.529]
    facts = _facts(tmp_path, _auc_log(False, aucs, losses))
    assert facts["loss_trend"] == "flat"
    report = _diagnose(tmp_path, _auc_log(False, aucs, losses))
    assert report["symptom"]["id"] == "plateau"
