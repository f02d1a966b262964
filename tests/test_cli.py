"""The `traindx` command as a user runs it: exit codes, one-line errors, JSON, explain, kb tools."""

import json
import sys

import jsonschema
import pytest

from conftest import run_cli


def test_version_and_module_entry():
    r = run_cli("--version")
    assert r.returncode == 0 and "traindx, version" in r.stdout


def test_non_interactive_json_validates(tmp_path):
    ans = tmp_path / "a.yaml"
    ans.write_text("learning_rate: 1.0e-7\nloss_value: [2.302, 10]\n")
    r = run_cli("diagnose", "--complaint", "loss flat from epoch 0", "--answers", str(ans), "--non-interactive",
                "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    from traindx.engine.loader import schema_for
    jsonschema.validate(report, schema_for("report"))
    assert report["root_causes"][0]["id"] == "lr_too_low"
    assert {q["id"] for q in report["questions"]} >= {"learning_rate", "loss_value"}


def test_answers_file_json_and_output_file(tmp_path):
    ans = tmp_path / "a.json"
    ans.write_text(json.dumps({"symptom": "explosion", "inputs_have_nan": True}))
    out = tmp_path / "report.md"
    r = run_cli("diagnose", "--answers", str(ans), "--non-interactive", "--output", str(out))
    assert r.returncode == 0 and r.stdout == ""
    text = out.read_text()
    assert "nan_in_inputs" in text and "### Caveats" in text


@pytest.mark.parametrize("content,needle", [
    ("learning_rate: fast\n", "a.yaml:1:"),
    ("no_such_fact: 1\n", "a.yaml:1:15: unknown fact or question 'no_such_fact'"),
    ("learning_rate: [1\n", "a.yaml:2:1: invalid YAML"),
    ("- just a list\n", "a.yaml:1:1: an answers file is a mapping"),
])
def test_bad_answers_file_is_one_line_exit_2(tmp_path, content, needle):
    ans = tmp_path / "a.yaml"
    ans.write_text(content)
    r = run_cli("diagnose", "--answers", str(ans), "--non-interactive")
    assert r.returncode == 2
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_missing_files_are_one_line_errors(tmp_path):
    for args in (["--answers", "nope.yaml"], ["--log", "nope.csv"], ["--code", "nope.py"], ["--config", "nope.yaml"]):
        r = run_cli("diagnose", "--non-interactive", *args, cwd=tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert "nope" in r.stderr and "Traceback" not in r.stderr


def test_bad_kb_pack_is_one_line_exit_2(tmp_path):
    (tmp_path / "r.yaml").write_text("kind: rules\nrules:\n  - id: x\n    description: y\n    when: {fact: lr, lt: 1}\n"
                                     "    then: {evidence: [{cause: lr_too_low, lr: 2}]}\n    cases: [{given: {}}]\n")
    r = run_cli("diagnose", "--kb", str(tmp_path), "--non-interactive")
    assert r.returncode == 2
    assert "r.yaml:5:" in r.stderr and "unknown fact 'lr'" in r.stderr


def test_script_args_without_script_is_usage_error():
    r = run_cli("diagnose", "--non-interactive", "--", "--epochs", "3")
    assert r.returncode == 2


def test_explain_root_cause_and_unknown():
    r = run_cli("explain", "double_softmax")
    assert r.returncode == 0
    for field in ("What it is:", "Evidence for:", "Fix (", "What NOT to do:", "Risk of the fix:", "Reference:"):
        assert field in r.stdout
    r = run_cli("explain", "double_softmx")
    assert r.returncode == 2 and "did you mean double_softmax" in r.stderr


@pytest.mark.parametrize("ident,needle", [("not_learning", "Priors:"), ("learning_rate", "[question]"),
                                          ("lr-tiny", "[rule"), ("raise_lr", "[fix]"), ("update_ratio",
                                                                                        "[fact, number]"),
                                          ("different_optimizer", "Usually actually")])
def test_explain_any_entity(ident, needle):
    r = run_cli("explain", ident)
    assert r.returncode == 0 and needle in r.stdout


def test_reference_sheets():
    r = run_cli("reference")
    assert set(r.stdout.split()) >= {"learning-rate-scheduling", "gradient-management", "overfitting-prevention",
                                      "optimization-algorithms"}
    r = run_cli("reference", "gradient-management")
    assert r.returncode == 0 and r.stdout.startswith("# ")
    assert run_cli("reference", "nope").returncode == 2


def test_kb_check_and_test():
    r = run_cli("kb", "check")
    assert r.returncode == 0 and "ok:" in r.stdout
    r = run_cli("kb", "test")
    assert r.returncode == 0 and " 0 failed" in r.stdout


@pytest.mark.parametrize("fmt,needle", [("dot", "digraph traindx"), ("mermaid", "flowchart LR"), ("json", '"nodes"')])
def test_kb_graph_formats(fmt, needle):
    r = run_cli("kb", "graph", "--symptom", "not_learning", "--format", fmt)
    assert r.returncode == 0 and needle in r.stdout
    assert "lr_too_low" in r.stdout
    if fmt == "json":
        data = json.loads(r.stdout)
        ids = {n["id"] for n in data["nodes"]}
        assert "root_cause:lr_too_low" in ids and "symptom:overfitting" not in ids


def test_qa_path_does_not_import_torch(tmp_path):
    code = ("import sys, runpy; "
            "sys.argv=['traindx','diagnose','--non-interactive','--complaint','loss flat, lr 1e-7'];\n"
            "from traindx.engine.frontends import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\nprint('NO_TORCH_OK')")
    import subprocess
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "NO_TORCH_OK" in r.stdout, r.stderr


def test_hanging_script_is_stopped_and_said_plainly(tmp_path):
    (tmp_path / "hang.py").write_text("import time\nwhile True:\n    time.sleep(1)\n")
    r = run_cli("diagnose", "--script", "hang.py", "--timeout", "3", "--non-interactive", "--format", "json",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["caveats"][0].startswith("The script ran but reached no optimizer step before it was stopped at "
                                           "--timeout")
    assert report["status"] == "insufficient_evidence"
