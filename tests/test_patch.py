"""--patch: the fix as a unified diff against the user's script, where the code reader located the fault.

What a user would notice: the diff applies with ``patch -p0`` and with ``git apply -p0`` to the
script as it is, the patched script trains (the symptom is gone), the user's file is never edited,
and no patch is guessed where the fault's line does not read as expected.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from traindx.probes.readers.code import analyze_code
from traindx.probes.readers.patch import make_patch

# each script prints its first and last training loss; the fault keeps the last near the first
HEAD = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
X = torch.randn(512, 10)
Y = (X @ torch.randn(10, 4)).argmax(1)
"""
LOOP = """\
first = last = None
for epoch in range(30):
    for i in range(0, 512, 32):
        xb, yb = X[i:i + 32], Y[i:i + 32]
{zero}        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        first = float(loss) if first is None else first
        last = float(loss)
print(f"LOSS {{first:.4f}} {{last:.4f}}")
"""

SCRIPTS = {
    "lr_too_low": HEAD + """\
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
LR = 1e-6
opt = torch.optim.SGD(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()
""" + LOOP.format(zero="        opt.zero_grad()\n"),
    "lr_too_high": HEAD + """\
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=30.0)
crit = nn.CrossEntropyLoss()
""" + LOOP.format(zero="        opt.zero_grad()\n"),
    "missing_zero_grad": HEAD + """\
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
crit = nn.CrossEntropyLoss()
""" + LOOP.format(zero=""),
    "double_softmax": HEAD + """\
model = nn.Sequential(
    nn.Linear(10, 32), nn.ReLU(),
    nn.Linear(32, 4),
    nn.Softmax(dim=1),
)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
crit = nn.CrossEntropyLoss()
""" + LOOP.format(zero="        opt.zero_grad()\n"),
}


def _reader_facts(path):
    rep = analyze_code(str(path))
    return {f.fact: (f.value, f.source) for f in getattr(rep, "findings", rep)}


def _run(path, cwd):
    out = subprocess.run([sys.executable, os.path.basename(path)], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    line = [x for x in out.stdout.splitlines() if x.startswith("LOSS")][-1]
    first, last = map(float, line.split()[1:])
    return first, last


CASES = [(c, "patch") for c in sorted(SCRIPTS)] + [("missing_zero_grad", "git")] + [
    pytest.param(c, "git", marks=pytest.mark.slow) for c in sorted(SCRIPTS) if c != "missing_zero_grad"]


@pytest.mark.parametrize("cause,tool", CASES)
def test_patch_applies_and_the_symptom_is_gone(tmp_path, cause, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    script = tmp_path / "train.py"
    script.write_text(SCRIPTS[cause])
    original = script.read_text()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        p = make_patch("train.py", _reader_facts("train.py"), cause)
    finally:
        os.chdir(cwd)
    assert p is not None, cause
    assert script.read_text() == original            # traindx never edits the user's file
    assert p["file"] == "train.py" and p["diff"].startswith("--- train.py\n+++ train.py\n")
    (tmp_path / "fix.diff").write_text(p["diff"])
    cmd = ["patch", "-p0", "-i", "fix.diff"] if tool == "patch" else ["git", "apply", "-p0", "fix.diff"]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert script.read_text() != original
    first, last = _run(script, tmp_path)
    # the symptom is gone: the loss falls well below where it started, and stays finite
    assert last == last and last < 0.5 * first, (cause, first, last, p["diff"])


@pytest.mark.slow
@pytest.mark.parametrize("cause", sorted(SCRIPTS))
def test_the_faulty_script_really_shows_the_symptom(tmp_path, cause):
    """The fixtures are honest: before the patch the loss does not fall the way it does after."""
    script = tmp_path / "train.py"
    script.write_text(SCRIPTS[cause])
    first, last = _run(script, tmp_path)
    assert not (last < 0.5 * first), (cause, first, last)


def test_no_patch_is_guessed_when_the_line_does_not_read_as_expected(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPTS["lr_too_low"])
    facts = _reader_facts(script)
    facts["learning_rate"] = (0.123, facts["learning_rate"][1])   # not what the line says
    assert make_patch(str(script), facts, "lr_too_low") is None
    assert make_patch(str(script), _reader_facts(script), "data_leakage") is None   # no template
    (tmp_path / "other.py").write_text(SCRIPTS["lr_too_low"])
    assert make_patch(str(tmp_path / "other.py"), facts, "lr_too_low") is None      # facts of another file


def test_unshuffled_loader_and_over_clipping_and_train_mode_templates(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        ds = TensorDataset(torch.randn(64, 3), torch.randint(0, 2, (64,)))
        loader = DataLoader(ds, batch_size=8)
        model = torch.nn.Linear(3, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model.eval()
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e-4)
            opt.step()
        """))
    facts = {"shuffle": (False, f"code:{script}:4"), "clip_max_norm": (1e-4, f"code:{script}:12"),
             "model_mode_in_training": ("eval", f"code:{script}:7")}
    p = make_patch(str(script), facts, "unshuffled_data", display="train.py")
    assert "+loader = DataLoader(ds, batch_size=8, shuffle=True)" in p["diff"]
    p = make_patch(str(script), facts, "over_clipping", display="train.py")
    assert "max_norm=1.0)" in p["diff"]
    p = make_patch(str(script), facts, "train_eval_mode_mismatch", display="train.py")
    assert "+    model.train()" in p["diff"]


@pytest.mark.slow
def test_cli_writes_the_patch_and_never_edits_the_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPTS["missing_zero_grad"])
    original = script.read_text()
    out = subprocess.run([sys.executable, "-m", "traindx.engine", "diagnose", "--script", "train.py",
                          "--non-interactive", "--patch", "fix.diff", "--format", "json", "--no-experiments"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    import json
    report = json.loads(out.stdout)
    assert report["root_causes"][0]["id"] == "missing_zero_grad"
    assert report["patch"]["written_to"] == "fix.diff" and report["experiments"] == []
    assert script.read_text() == original
    assert subprocess.run(["patch", "-p0", "-i", "fix.diff"], cwd=tmp_path).returncode == 0
    first, last = _run(script, tmp_path)
    assert last < 0.5 * first
