"""The fix accounts for what the user already does: an overfitting run that already uses dropout
0.5 is not told to "add dropout" as if it had none. Each tailor line lives in kb/fixes.yaml (a
condition over facts and a sentence), so a pack adds its own without code; a line naming a fact its
condition does not test is refused at load with one line naming the file."""
import json
import shutil

from click.testing import CliRunner

from traindx.engine.frontends.cli import main

LOG = "\n".join(f"Epoch {e}/8 - loss: {tl:.4f} - acc: {ta:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}"
                for e, (tl, ta, vl, va) in enumerate([
                    (0.6913, 0.541, 0.665, 0.602), (0.5821, 0.693, 0.5902, 0.688), (0.441, 0.7985, 0.5611, 0.719),
                    (0.3012, 0.879, 0.598, 0.721), (0.1904, 0.933, 0.682, 0.7105), (0.1107, 0.965, 0.7911, 0.705),
                    (0.0621, 0.984, 0.912, 0.701), (0.039, 0.991, 1.0244, 0.699)], 1))


def _run(words, fmt="json", *extra):
    res = CliRunner().invoke(main, ["diagnose", "--non-interactive", "--format", fmt, *extra,
                                    "--complaint", words + "\n" + LOG])
    assert res.exit_code == 0, res.output
    if fmt != "json":
        return res.output
    return json.loads(res.output[res.output.index("\n{") + 1:])


def test_dropout_already_on_changes_what_the_overfitting_fix_says_first():
    rep = _run("val loss rises after epoch 3 although I already use dropout 0.5")
    assert rep["root_causes"][0]["id"] == "insufficient_regularization"
    lines = rep["fix"]["tailored"]
    assert len(lines) == 1 and "already use dropout (p = 0.5)" in lines[0], lines
    md = _run("val loss rises after epoch 3 although I already use dropout 0.5", "markdown")
    fix = md[md.index("### Fix"):]
    assert fix.index("**Given your setup:** You already use dropout (p = 0.5)") < fix.index("Add regularization")


def test_nothing_said_about_regularization_leaves_the_fix_general():
    rep = _run("val loss rises after epoch 3, is this overfitting?")
    assert rep["root_causes"][0]["id"] == "insufficient_regularization"
    assert rep["fix"]["tailored"] == []
    md = _run("val loss rises after epoch 3, is this overfitting?", "markdown")
    assert "Given your setup" not in md


def test_weight_decay_and_dropout_each_get_their_line():
    rep = _run("overfitting after epoch 3; dropout 0.3 and weight decay 5e-4 are on")
    text = " ".join(rep["fix"]["tailored"])
    assert "p = 0.3" in text and "Weight decay is already on (0.0005)" in text


def test_a_pack_tailors_its_own_fix_and_a_loose_placeholder_is_refused(tmp_path):
    from pathlib import Path
    src = Path(__file__).resolve().parent.parent / "examples" / "packs" / "lm_padding"
    pack = tmp_path / "lm_padding"
    shutil.copytree(src, pack)
    fixes = pack / "fixes.yaml"
    text = fixes.read_text()
    good = text.replace("    reference: lm-padding", "    reference: lm-padding\n    tailor:\n"
                        "      - when: {fact: batch_size, gt: 0}\n"
                        "        say: At batch size {batch_size}, count the padded share per batch first.", 1)
    fixes.write_text(good)
    res = CliRunner().invoke(main, ["kb", "check", "--kb", str(pack)])
    assert res.exit_code == 0, res.output
    fixes.write_text(good.replace("At batch size {batch_size}", "With {optimizer} at batch size {batch_size}"))
    res = CliRunner().invoke(main, ["kb", "check", "--kb", str(pack)])
    assert res.exit_code == 2
    err = (res.stderr if hasattr(res, "stderr") else res.output).strip().splitlines()
    assert len(err) == 1 and "fixes.yaml" in err[0] and "optimizer" in err[0], err
    # a fact only one branch of an `any` tests may be unknown when the line is shown: refused too
    fixes.write_text(good.replace("{fact: batch_size, gt: 0}",
                                  "{any: [{fact: batch_size, gt: 0}, {fact: optimizer, eq: adam}]}"))
    res = CliRunner().invoke(main, ["kb", "check", "--kb", str(pack)])
    assert res.exit_code == 2 and "batch_size" in (res.stderr if hasattr(res, "stderr") else res.output)


SHORT_SCHEDULE = """\
import torch
import torch.nn as nn
X, Y = torch.randn(512, 10), torch.randint(0, 4, (512,))
model = nn.Linear(10, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
for epoch in range(30):
    for i in range(0, 512, 32):
        opt.zero_grad()
        nn.functional.cross_entropy(model(X[i:i + 32]), Y[i:i + 32]).backward()
        opt.step()
    sched.step()
"""


def _run_code(words, script):
    res = CliRunner().invoke(main, ["diagnose", "--non-interactive", "--format", "json", "--code", str(script),
                                    "--complaint", words])
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("\n{") + 1:])


def test_a_schedule_stepped_per_epoch_is_told_to_be_sized_not_moved(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SHORT_SCHEDULE)
    rep = _run_code("the loss drops in the first two epochs and then goes completely flat", script)
    assert rep["root_causes"][0]["id"] == "lr_schedule_collapse"
    text = " ".join(rep["fix"]["tailored"])
    assert "already steps once per epoch" in text and "steps 30 times" in text, text
    # the same scheduler stepped every batch is told nothing of the kind: moving the step is the fix
    script.write_text(SHORT_SCHEDULE.replace("        opt.step()\n    sched.step()\n",
                                             "        opt.step()\n        sched.step()\n"))
    rep = _run_code("the loss drops in the first two epochs and then goes completely flat", script)
    assert not any("already steps once per epoch" in t for t in rep["fix"]["tailored"])
