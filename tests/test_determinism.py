"""The same script gives the same diagnosis on an idle machine and beside a CPU-bound process:
the script runner's looks and the monitor's plateau readings are paced by training steps, not by
the clock, so the run stops at the same step with the same evidence however busy the machine is."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

from traindx.probes.runner.child import next_look  # noqa: E402

# A regression run that converges onto its data's noise floor under a constant LR: the curve
# reading (plateau, the LR-decay test) is what used to depend on when the time-paced looks fell.
SCRIPT = """\
    import torch, torch.nn as nn
    torch.manual_seed(0); torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    X = torch.randn(2048, 6, generator=g)
    w = torch.randn(6, 1, generator=g)
    y = X @ w + 0.3 * torch.randn(2048, 1, generator=g)
    model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(12):
        perm = torch.randperm(2048, generator=g)
        for i in range(0, 2048, 32):
            idx = perm[i:i + 32]
            loss = nn.functional.mse_loss(model(X[idx]), y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
        print(epoch, loss.item(), flush=True)
    """

BURNER = "import time\nt = time.time()\nwhile time.time() - t < 600:\n    pass\n"


def test_looks_are_scheduled_by_step_alone():
    steps, s = [], 0
    while s < 5000:
        s = next_look(s, 10)
        steps.append(s)
    assert steps[:6] == [10, 30, 50, 100, 150, 200]
    assert all(b > a for a, b in zip(steps, steps[1:]))
    assert len(steps) < 40                       # about log(steps) looks on a long run


def _diagnose(script, cwd):
    out = subprocess.run([sys.executable, "-m", "traindx.engine.frontends.cli", "diagnose", "--script",
                          str(script), "--non-interactive", "--format", "json"],
                         capture_output=True, text=True, timeout=900, cwd=cwd)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout[out.stdout.index("{"):])
    ran = next(c for c in r["caveats"] if c.startswith("Ran "))
    steps = int(re.search(r"(\d+) optimizer step", ran).group(1))
    return {"status": r["status"], "symptom": (r["symptom"] or {}).get("id"),
            "causes": [c["id"] for c in r["root_causes"][:3]],
            "top": round(r["root_causes"][0]["confidence"], 2) if r["root_causes"] else None,
            "steps": steps}


@pytest.mark.slow
def test_same_diagnosis_idle_and_beside_a_cpu_burner(tmp_path):
    script = tmp_path / "floor.py"
    script.write_text(textwrap.dedent(SCRIPT))
    quiet = _diagnose(script, tmp_path)
    burners = [subprocess.Popen([sys.executable, "-c", BURNER]) for _ in range(2)]
    try:
        busy = _diagnose(script, tmp_path)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    assert busy == quiet
