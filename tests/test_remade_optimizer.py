"""A trainer that re-creates its optimizer (and its LR schedule) every epoch, as word2vec trainers
do, is one training run with its moments reset, not a new phase per epoch: the whole loss curve is
read, its steps counted. Sparse gradients (nn.Embedding(sparse=True) with SparseAdam) are measured
like dense ones."""
import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402
from traindx.probes.runner.child import _remade  # noqa: E402


def test_sparse_gradients_are_measured_and_steps_counted():
    torch.manual_seed(0)
    m = nn.Embedding(100, 8, sparse=True)
    opt = torch.optim.SparseAdam(m.parameters(), lr=1e-2)
    with tp.watch(m, opt) as w:
        for _ in range(40):
            loss = (m(torch.randint(0, 100, (16,))) ** 2).mean()
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    facts = {f.fact: f for f in w.findings()}
    assert "after 40 steps" in facts["current_loss"].detail
    assert facts["grad_norm_median"].value > 0
    assert not w.summary().get("errors")


def test_the_same_optimizer_made_again_is_told_from_a_new_phase():
    m = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    a = torch.optim.Adam(m.parameters(), lr=1e-3)
    assert _remade(a, torch.optim.Adam(m.parameters(), lr=1e-3))
    assert not _remade(a, torch.optim.Adam(m.parameters(), lr=1e-2))        # a new phase at a higher LR
    assert not _remade(a, torch.optim.Adam(m.parameters(), lr=1e-4, weight_decay=0.1))   # other settings
    assert not _remade(a, torch.optim.Adam(m[1].parameters(), lr=1e-3))     # another set of weights
    assert not _remade(a, torch.optim.SGD(m.parameters(), lr=1e-3))         # another optimizer


SCRIPT = """\
    import torch, torch.nn as nn
    torch.manual_seed(0); torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 8, generator=g); y = (x[:, :4].sum(1) > 0).long()
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
    crit = nn.CrossEntropyLoss()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)
    for epoch in range(6):
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)          # made anew every epoch
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, len(loader))
        for xb, yb in loader:
            loss = crit(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    """


@pytest.mark.slow
def test_an_optimizer_remade_every_epoch_is_read_as_one_healthy_run(tmp_path):
    script = tmp_path / "remade.py"
    script.write_text(textwrap.dedent(SCRIPT))
    out = subprocess.run([sys.executable, "-m", "traindx.engine.frontends.cli", "diagnose", "--script",
                          str(script), "--non-interactive", "--format", "json"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout[out.stdout.index("{"):])
    facts = {f["fact"]: f for f in report["facts"]}
    import re
    steps = int(re.search(r"after (\d+) steps", facts["current_loss"]["detail"]).group(1))
    assert steps > 64             # more than one epoch: not a fresh reading per optimizer
    assert report["status"] == "healthy"


def test_an_lr_that_restarts_did_not_collapse():
    import traindx.probes.live.updates as U
    cosine = [(s, 0.01 * 0.5 * (1 + __import__("math").cos(__import__("math").pi * (s % 100) / 100)))
              for s in range(0, 350)]
    assert U.lr_collapse_fraction(cosine, 350) == 1.0          # back at its peak every 100 steps
    assert U.lr_collapse_fraction(cosine[:100] + [(s, 1e-6) for s in range(100, 350)], 350) < 0.3


def test_the_same_optimizer_made_again_at_a_lower_lr_is_a_step_decay():
    """AtlasNet's schedule: ``optimizer = Adam(net.parameters(), lr=lrate / 10)`` at a milestone epoch.
    The same weights train on with a cut LR; reading it as a new phase dropped the whole run before
    it and read the short tail at the low LR as a flat loss (s482: not_learning on a healthy run)."""
    m = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    a = torch.optim.Adam(m.parameters(), lr=1e-3)
    assert _remade(a, torch.optim.Adam(m.parameters(), lr=1e-4))


STEP_DECAY = """
import torch
import torch.nn as nn

torch.manual_seed(0); torch.set_num_threads(1)
x = torch.randn(256, 8); y = (x[:, :4].sum(1) > 0).long()
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
lrate = 1e-2
opt = torch.optim.Adam(model.parameters(), lr=lrate)
for epoch in range(10):
    if epoch in (6, 9):
        lrate = lrate / 10.0; opt = torch.optim.Adam(model.parameters(), lr=lrate)
    for i in range(8):
        opt.zero_grad(); nn.functional.cross_entropy(model(x[i::8]), y[i::8]).backward(); opt.step()
"""


def test_an_optimizer_remade_at_a_tenth_of_its_lr_is_read_as_one_run(tmp_path):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "step_decay.py"
    script.write_text(STEP_DECAY)
    r = run_script(script, [], timeout=300)
    assert r.exit_code == 0 and r.stopped_reason == "finished"
    assert r.phases == []                                   # one run, not a new phase at epoch 6
    facts = {f.fact: f.value for f in r.findings}
    assert facts["learning_rate"] == pytest.approx(1e-2)     # the first optimizer's
    assert facts["lr_final_ratio"] == pytest.approx(0.01)   # the two cuts, read as a schedule
