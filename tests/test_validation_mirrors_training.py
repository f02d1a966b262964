"""A validation figure that is the training figure, evaluation after evaluation, is a validation
pass over the training data: traindx says so from a console log, a pasted excerpt, and from what a
script run under ``--script`` printed (no hook sees which loader a print statement names)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

from traindx.engine.api import Session
from traindx.engine.frontends import gather
from traindx.engine.loader import load_kb

KB = load_kb(entry_point_packs=False)
FIXTURES = Path(__file__).parent / "fixtures_runner"


def _console(pairs, fmt="Epoch: {e}/40 --- train mae: {t} val mae: {v}"):
    lines = ["loading data", "training with batchsize 64"]
    lines += [fmt.format(e=i * 5, t=t, v=v) for i, (t, v) in enumerate(pairs)]
    return "\n".join(lines) + "\n"


def _read(text):
    read = gather.read_pasted(text, params=KB.params())
    s = Session(KB)
    gather.absorb(s, read)
    s.run()
    return s.report(), {f.fact: f.value for f in read.findings}


FALLING = [0.611, 0.314, 0.209, 0.197, 0.15, 0.134, 0.116]


def test_validation_equal_to_training_at_every_evaluation_is_a_split_over_the_training_data():
    report, facts = _read(_console([(v, v) for v in FALLING]))
    assert facts.get("val_mirrors_train") is True
    assert report["symptom"]["id"] == "overfitting"
    assert report["root_causes"][0]["id"] == "data_leakage"


def test_validation_that_tracks_training_closely_is_not_a_mirror():
    pairs = [(v, round(v * 1.04 + 0.003, 3)) for v in FALLING]
    report, facts = _read(_console(pairs))
    assert "val_mirrors_train" not in facts
    assert report["symptom"]["id"] == "healthy"


def test_two_saturated_accuracies_agreeing_by_their_rounding_are_no_mirror():
    pairs = [(0.98, 0.98), (0.99, 0.99), (0.99, 0.99), (0.99, 0.99), (0.99, 0.99)]
    _, facts = _read(_console(pairs, "epoch {e} train acc {t} val acc {v}"))
    assert "val_mirrors_train" not in facts


def test_a_run_frozen_on_both_sides_is_not_read_as_a_mirror():
    _, facts = _read(_console([(2.3026, 2.3026)] * 6))
    assert "val_mirrors_train" not in facts


def test_a_mirror_needs_every_evaluation_not_most():
    pairs = [(v, v) for v in FALLING[:-1]] + [(0.116, 0.131)]
    _, facts = _read(_console(pairs))
    assert "val_mirrors_train" not in facts


MIRROR_SCRIPT = """\
    import os
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0)
    X = torch.randn(512, 8); y = X[:, :2].sum(1, keepdim=True) + 0.1 * torch.randn(512, 1)
    train = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    val = train                                    # the split that was never made
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)

    def score(loader):
        model.eval(); total = n = 0
        with torch.no_grad():
            for xb, yb in loader:
                total += (model(xb) - yb).abs().sum().item(); n += len(xb)
        model.train()
        return total / n

    for epoch in range(12):
        for xb, yb in train:
            opt.zero_grad(); loss = nn.functional.l1_loss(model(xb), yb); loss.backward(); opt.step()
        print(f"Epoch: {epoch}/12 --- train mae: {score(train):.4f} val mae: {score(val):.4f}", flush=True)
"""


def test_a_script_that_validates_on_its_training_loader_is_told_so_from_what_it_printed(tmp_path):
    (tmp_path / "mirror.py").write_text(textwrap.dedent(MIRROR_SCRIPT))
    r = run_cli("diagnose", "--script", "mirror.py", "--non-interactive", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    mirrored = [f for f in report["facts"] if f["fact"] == "val_mirrors_train"]
    assert mirrored and mirrored[0]["value"] is True and mirrored[0]["source"].startswith("log:output of mirror.py")
    assert report["symptom"]["id"] == "overfitting"
    assert report["root_causes"][0]["id"] == "data_leakage"


def test_what_a_script_prints_is_kept_within_its_byte_budget(tmp_path):
    pytest.importorskip("torch")
    from traindx.probes.runner.supervise import run_script
    (tmp_path / "loud.py").write_text("for i in range(20000):\n    print(f'line {i:06d} ' + 'x' * 40)\n")
    env = {"PYTHONPATH": os.pathsep.join([str(FIXTURES), os.environ.get("PYTHONPATH", "")])}
    params = dict(KB.params())
    params["runner.printed_keep_bytes"] = 4096
    small = run_script(tmp_path / "loud.py", monitor="fake_monitor:FakeMonitor", env=env, params=params)
    assert small.printed.startswith("line 000000 ")
    assert 3000 < len(small.printed.encode()) <= 4096
    whole = run_script(tmp_path / "loud.py", monitor="fake_monitor:FakeMonitor", env=env, params=KB.params())
    assert whole.printed.splitlines()[-1].startswith("line 019999 ")
