"""--patch where the script does not write the learning rate on the optimizer's line: the rate set
in a tuple unpacking, an argparse default, a dict of settings, or a config file the script reads.
What a user would notice: the diff changes the place the value really comes from, applies with
``patch -p0``, and the run then takes the new rate; nothing is guessed where no place reads as expected."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from traindx.engine.frontends.gather import fix_patch
from traindx.engine.loader import load_kb

TAIL = """\
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr={expr})
print("LR", opt.param_groups[0]["lr"])
"""

SCRIPTS = {
    "tuple": "import torch\nSEED, LR, EPOCHS = 0, 1e-6, 3\n" + TAIL.format(expr="LR"),
    "argparse": textwrap.dedent("""\
        import argparse
        import torch
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=3)
        ap.add_argument("--learning-rate", type=float, default=1e-6)
        args = ap.parse_args()
        """) + TAIL.format(expr="args.learning_rate"),
    "dict": "import torch\nSETTINGS = {\"epochs\": 3, \"lr\": 1e-6}\n" + TAIL.format(expr="SETTINGS[\"lr\"]"),
    "dict_call": "import torch\nHP = dict(lr=1e-6, epochs=3)\n" + TAIL.format(expr="HP['lr']"),
    "chained": "import torch\nBASE_LR = 1e-6\nLR = BASE_LR\n" + TAIL.format(expr="LR"),
}


def _patched_lr(tmp_path, files: dict, cause="lr_too_low"):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = {name: (tmp_path / name).read_text() for name in files}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        p = fix_patch(["train.py"], {}, cause, load_kb())
    finally:
        os.chdir(cwd)
    assert all((tmp_path / n).read_text() == t for n, t in before.items())   # the user's files are untouched
    if p is None:
        return None, None
    (tmp_path / "fix.diff").write_text(p["diff"])
    done = subprocess.run(["patch", "-p0", "-i", "fix.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    out = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return p, float(out.stdout.split("LR", 1)[1].split()[0])


needs_patch = pytest.mark.skipif(shutil.which("patch") is None, reason="patch is not installed")


@needs_patch
@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_the_rate_is_raised_where_the_script_sets_it(tmp_path, kind):
    p, lr = _patched_lr(tmp_path, {"train.py": SCRIPTS[kind]})
    assert p is not None, kind          # before: no patch for any of these
    assert p["file"] == "train.py" and lr > 1e-5


CONFIG_SCRIPT = textwrap.dedent("""\
    import json
    import torch
    import yaml
    with open("{name}") as fh:
        cfg = {load}(fh)
    """)


@needs_patch
@pytest.mark.parametrize("name, text, load", [
    ("config.yaml", "model:\n  base_lr: 1.0e-06\noptim:\n  lr: 1.0e-06\n  momentum: 0.9\n", "yaml.safe_load"),
    ("config.json", '{\n  "base_lr": 1e-06,\n  "optim": {\n    "lr": 1e-06\n  }\n}\n', "json.load")])
def test_a_rate_from_a_config_file_is_changed_in_that_file(tmp_path, name, text, load):
    pytest.importorskip("yaml")
    script = CONFIG_SCRIPT.format(name=name, load=load) + TAIL.format(expr='cfg["optim"]["lr"]')
    p, lr = _patched_lr(tmp_path, {"train.py": script, name: text})
    assert p is not None and p["file"] == name                  # before: no patch
    assert lr > 1e-5
    assert "base_lr" not in "".join(x for x in p["diff"].splitlines(keepends=True) if x[:1] in "+-" and x[:3] not in
                                    ("+++", "---"))             # a look-alike key is left alone


def test_no_patch_where_the_rate_is_computed(tmp_path):
    script = "import torch\nLR = 0.1 * 1e-5\n" + TAIL.format(expr="LR")
    p, _ = _patched_lr(tmp_path, {"train.py": script})
    assert p is None


ORDERED = textwrap.dedent("""\
    import torch
    torch.manual_seed(0)
    X, Y = torch.randn(64, 3), torch.arange(64) // 16      # the labels sorted, as data often comes
    model = torch.nn.Linear(3, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    for epoch in range(2):
        order = torch.arange(64)
        for i in range(4):
            idx = order[i * 16:(i + 1) * 16]
            seen.append(int(Y[idx].float().std() > 0))
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(X[idx]), Y[idx]).backward()
            opt.step()
    print("LR", opt.param_groups[0]["lr"], "MIXED", sum(seen))
    """)


@needs_patch
def test_a_hand_made_batch_order_in_file_order_is_patched_to_a_permutation(tmp_path):
    p, _ = _patched_lr(tmp_path, {"train.py": ORDERED}, cause="unshuffled_data")
    assert p is not None and "torch.randperm(64)" in p["diff"]     # before: no patch
    out = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert int(out.stdout.split("MIXED")[1]) == 8                  # every batch now mixes classes (before: none)


@needs_patch
def test_a_clipping_norm_from_a_config_file_is_changed_in_that_file(tmp_path):
    script = textwrap.dedent("""\
        import torch
        import yaml
        with open("config.yaml") as fh:
            cfg = yaml.safe_load(fh)
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(3):
            opt.zero_grad()
            model(torch.randn(8, 4)).pow(2).mean().backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["trainer"]["max_norm"])
            opt.step()
        print("LR", cfg["trainer"]["max_norm"])
        """)
    p, norm = _patched_lr(tmp_path, {"train.py": script, "config.yaml": "trainer:\n  max_norm: 1.0e-05\n"},
                          cause="over_clipping")
    assert p is not None and p["file"] == "config.yaml"     # before: no patch
    assert norm == 1.0


@needs_patch
def test_a_weight_decay_from_a_config_file_is_lowered_there_to_the_optimizers_usual_value(tmp_path):
    script = textwrap.dedent("""\
        import torch
        import yaml
        with open("config.yaml") as fh:
            cfg = yaml.safe_load(fh)
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=cfg["optim"]["weight_decay"])
        for step in range(3):
            opt.zero_grad()
            model(torch.randn(8, 4)).pow(2).mean().backward()
            opt.step()
        print("LR", opt.param_groups[0]["weight_decay"])
        """)
    p, wd = _patched_lr(tmp_path, {"train.py": script, "config.yaml": "optim:\n  weight_decay: 0.5\n"},
                        cause="excessive_regularization")
    assert p is not None and p["file"] == "config.yaml"
    assert wd == 5e-4                                       # SGD's usual weight decay, from kb/fixes.yaml
