"""Standard input as evidence, as a user pipes it: `cat run.out | traindx diagnose --log -`,
`--complaint -`, and a complaint piped in with nothing else (`tail nohup.out | traindx diagnose`).
Each runs the real command in a subprocess, so standard input is a real pipe."""

import json

from conftest import run_cli

FLAT = "\n".join(f"Epoch {e}/12 - loss: {2.3026 + 0.0004 * (e % 3):.4f} - val_acc: 0.10{e % 4}"
                 for e in range(1, 13)) + "\n"


def _leftovers(tmp_path):
    return [p.name for p in tmp_path.iterdir() if p.name.startswith("traindx-stdin-")]


def test_a_console_log_piped_to_log_dash_is_read_like_a_file(tmp_path):
    r = run_cli("diagnose", "--log", "-", "--non-interactive", "--format", "json", input=FLAT,
                cwd=tmp_path, env={"TMPDIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["symptom"]["id"] == "not_learning"
    assert report["sources_read"] == ["Read stdin: 12 lines, 2 metrics (loss, val_accuracy) over 12 epochs."]
    assert "Read stdin: 12 lines" in r.stderr
    assert _leftovers(tmp_path) == []          # the spooled copy is gone


def test_garbage_or_nothing_on_stdin_is_one_line_naming_stdin(tmp_path):
    env = {"TMPDIR": str(tmp_path)}
    for text, needle in (("just some words\nand more words\n", "no training metrics found in 2 line(s)"),
                         ("", "no log on standard input")):
        r = run_cli("diagnose", "--log", "-", "--non-interactive", input=text, cwd=tmp_path, env=env)
        assert r.returncode == 2, r.stderr
        line = r.stderr.strip()
        assert len(line.splitlines()) == 1 and line.startswith("traindx: <stdin>: ") and needle in line
        assert "traindx-stdin-" not in line and "Traceback" not in r.stderr
    assert _leftovers(tmp_path) == []


def test_a_complaint_piped_with_nothing_else_is_read(tmp_path):
    r = run_cli("diagnose", "--format", "json",
                input="val acc stuck ~55% while train acc is 99%, only 800 imgs, adam 3e-4 bs 32\n", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["symptom"]["id"] == "overfitting"
    facts = {f["fact"]: f["value"] for f in report["understood"]["facts"]}
    assert facts["train_accuracy"] == 0.99 and facts["val_accuracy"] == 0.55 and facts["train_size"] == 800
    assert "Read the complaint from <stdin> (1 lines)." in r.stderr


def test_complaint_dash_with_a_pasted_log_beside_other_evidence(tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text("optimizer: sgd\nlr: 0.5\n")
    r = run_cli("diagnose", "--complaint", "-", "--config", str(cfg), "--non-interactive", "--format", "json",
                input="my classifier learns nothing, here is the log:\n" + FLAT, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert any(s.startswith("Read the pasted log: 12 lines") for s in report["sources_read"])
    assert report["symptom"]["id"] == "not_learning"


def test_stdin_is_read_once():
    r = run_cli("diagnose", "--complaint", "-", "--log", "-", "--non-interactive", input=FLAT)
    assert r.returncode == 2
    assert "standard input (-) can be read once" in r.stderr and len(r.stderr.strip().splitlines()) == 1
