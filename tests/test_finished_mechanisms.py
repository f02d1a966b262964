"""A finished run read as a user would (``--code train.py --log run.out``): the log gives the
symptom and the curve facts, the code the mechanism, and the two are weighed together. Torch-free:
the code reader never runs the script."""
import json
import textwrap

from click.testing import CliRunner

from traindx.engine.frontends import gather
from traindx.engine.frontends.cli import main


def _diagnose(*args):
    res = CliRunner().invoke(main, ["diagnose", *args, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.stdout if hasattr(res, "stdout") else res.output
    return json.loads(out[out.index("{"):])


def _log_facts(path):
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def _epochs(path, train, val):
    path.write_text("".join(f"Epoch {i + 1}/{len(train)} - loss: {t:.4f} - val_loss: {v:.4f}\n"
                            for i, (t, v) in enumerate(zip(train, val))))
    return path


SGD_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    N_CLASSES = 5
    x, y = torch.randn(640, 16), torch.randint(0, N_CLASSES, (640,))
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, N_CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.0)
    crit = nn.CrossEntropyLoss()
    for epoch in range(10):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
    """)


def test_a_flat_loss_that_falls_every_epoch_is_training_slow_from_a_tiny_lr(tmp_path):
    """1.61 -> 1.57 over ten epochs of a 5-class task: too little to count as decreasing, but every
    epoch lower than the last, validation with it. That is a model learning too slowly (plain SGD at
    0.002), not one stuck at chance."""
    train = [1.608 - 0.004 * i for i in range(10)]
    log = _epochs(tmp_path / "run.out", train, [t - 0.01 for t in train])
    f = _log_facts(log)
    assert f["loss_trend"] == "flat" and f["loss_creeping"] is True
    script = tmp_path / "train.py"
    script.write_text(SGD_SCRIPT)
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "slow_training"
    assert rep["root_causes"][0]["id"] == "lr_too_low"


def test_a_flat_loss_that_wanders_around_its_start_is_not_learning(tmp_path):
    train = [1.609 + (0.004 if i % 2 else -0.004) for i in range(10)]
    log = _epochs(tmp_path / "run.out", train, [1.61] * 10)
    assert _log_facts(log)["loss_creeping"] is False
    rep = _diagnose("--log", str(log))
    assert rep["symptom"]["id"] == "not_learning"


def test_a_training_loss_that_creeps_while_validation_rises_is_not_slow(tmp_path):
    """Memorising labels that mean nothing: the training loss creeps down, validation climbs."""
    train = [1.10 - 0.007 * i for i in range(12)]
    log = _epochs(tmp_path / "run.out", train, [1.08 + 0.004 * i for i in range(12)])
    f = _log_facts(log)
    assert f["loss_trend"] == "flat" and f["loss_creeping"] is False
    assert _diagnose("--log", str(log))["symptom"]["id"] != "slow_training"


def test_a_loss_that_fell_early_and_levelled_off_is_not_creeping(tmp_path):
    train = [1.10 - 0.08 * (1 - 0.5 ** i) for i in range(12)]     # falls 7%, all in the first epochs
    log = _epochs(tmp_path / "run.out", train, [t + 0.01 for t in train])
    f = _log_facts(log)
    assert f["loss_trend"] == "flat" and f["loss_creeping"] is False
