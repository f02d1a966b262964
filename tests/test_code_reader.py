"""The code reader (traindx.probes.readers.code) on what is not a case script: bad input, the promise
never to run or import what it reads, its facts' vocabulary, its parameters, and the case scripts
really training under torch. The cases themselves are tests/code_cases/ (tests/test_code_cases.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from code_expectations import case_paths, parse_expectations
from conftest import ROOT, run_cli

from traindx.engine.errors import InputError
from traindx.engine.loader import load_kb
from traindx.probes.readers.code import CodeReport, analyze_code

RUNNABLE = [p for p in case_paths() if parse_expectations(p).runnable]
SGD_WITHOUT_LR = os.path.join(ROOT, "tests", "code_cases",
                              "sgd_without_lr_reports_the_torch_default_and_says_so.py")


def test_the_script_is_never_executed(write_script):
    marker = write_script.dir / "ran.txt"
    rep = analyze_code(write_script(f"""
    open({str(marker)!r}, "w").write("executed")
    import torch
    raise SystemExit("must not run")
    """))
    assert isinstance(rep, CodeReport)
    assert not marker.exists()


def test_syntax_error_names_file_and_line(write_script):
    p = write_script("import torch\n\nfor x in range(3)\n    print(x)\n")
    with pytest.raises(InputError) as err:
        analyze_code(p)
    assert err.value.line == 3
    assert str(err.value).startswith(f"{p}:3")


def test_non_utf8_file_names_file_and_line(tmp_path):
    p = tmp_path / "latin.py"
    p.write_bytes(b"import torch\n# caf\xe9\nx = 1\n")
    with pytest.raises(InputError) as err:
        analyze_code(p)
    assert err.value.line == 2 and str(p) in str(err.value) and "UTF-8" in str(err.value)


def test_declared_source_encoding_is_honoured(tmp_path):
    p = tmp_path / "declared.py"
    p.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\nimport torch\n"
                  b"opt = torch.optim.Adam(torch.nn.Linear(2, 2).parameters(), lr=0.5)\n")
    assert analyze_code(p).get("learning_rate").value == 0.5


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such"):
        analyze_code(tmp_path / "nope.py")
    with pytest.raises(InputError, match="directory"):
        analyze_code(tmp_path)


def test_reading_does_not_import_torch():
    code = ("import sys\n"
            "import traindx.probes.readers.code, traindx.probes.readers.config\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


def test_every_fact_is_in_the_vocabulary():
    import yaml

    with open(os.path.join(ROOT, "kb", "facts.yaml")) as fh:
        spec = {f["id"]: f for f in yaml.safe_load(fh)["facts"]}
    seen = set()
    assert len(RUNNABLE) >= 8
    for path in RUNNABLE:
        name = os.path.basename(path)
        for f in analyze_code(path).findings:
            assert f.fact in spec, f.fact
            assert f.kind == "code" and f.source.startswith(f"code:{name}:")
            assert int(f.source.rsplit(":", 1)[1]) >= 1
            assert f.detail and "\n" not in f.detail
            t = spec[f.fact]
            if t["type"] == "enum":
                assert f.value in t["values"], (f.fact, f.value)
            elif t["type"] == "boolean":
                assert isinstance(f.value, bool), (f.fact, f.value)
            elif t["type"] == "list":
                assert isinstance(f.value, list), (f.fact, f.value)
            elif t["type"] in ("number", "integer"):
                assert isinstance(f.value, (int, float)) and not isinstance(f.value, bool)
            seen.add(f.fact)
    # the runnable cases exercise every fact the code reader produces
    assert {"optimizer", "learning_rate", "weight_decay", "params_not_in_optimizer",
            "loss_function", "output_activation", "custom_loss", "label_smoothing",
            "unsafe_math", "zero_grad_called", "clip_max_norm", "scheduler",
            "scheduler_step_per_batch", "scheduler_designed_per_batch", "graph_cut",
            "model_mode_in_validation", "model_mode_in_training", "shuffle", "num_workers",
            "batch_size", "regularization", "dropout_p", "init_constant", "frozen_params",
            "uses_amp", "grad_scaler_used"} <= seen


def test_a_pack_override_reaches_the_code_reader(tmp_path):
    """code.default_lr.sgd is torch's default learning rate of SGD: a pack that changes it changes the
    learning rate read from a script that gives none, in analyze_code and through the CLI."""
    (tmp_path / "p.yaml").write_text("kind: parameters\noverrides:\n  code.default_lr.sgd: 0.5\n")
    assert analyze_code(SGD_WITHOUT_LR).get("learning_rate").value == pytest.approx(1e-3)
    kb = load_kb([str(tmp_path)], entry_point_packs=False)
    assert analyze_code(SGD_WITHOUT_LR, kb.params()).get("learning_rate").value == 0.5
    r = run_cli("diagnose", "--code", SGD_WITHOUT_LR, "--kb", str(tmp_path), "--non-interactive",
                "--format", "json")
    import json

    facts = {f["fact"]: f["value"] for f in json.loads(r.stdout)["facts"]}
    assert facts["learning_rate"] == 0.5, r.stderr


def test_the_interpreter_budget_is_a_parameter(write_script):
    """code.max_ops bounds the interpretation: a tiny budget stops it and says facts may be missing."""
    p = write_script("""
    import torch
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    """)
    from traindx.engine.parameters import shipped

    assert analyze_code(p).get("learning_rate").value == 0.1
    rep = analyze_code(p, {**shipped(), "code.max_ops": 3})
    assert rep.get("learning_rate") is None
    assert any("too large to follow" in u for u in rep.unresolved)


# ---------------------------------------------------------------------------------------------
# the runnable cases are real: they train under torch
# ---------------------------------------------------------------------------------------------

_DRIVER = """
import os, runpy, sys
for name in sys.argv[1:]:
    runpy.run_path(name, run_name="__main__")
    print("OK", name, flush=True)
"""


@pytest.mark.slow
def test_scripts_really_train(tmp_path):
    """Every runnable case is valid, working training code: run each with torch."""
    pytest.importorskip("torch")
    import shutil

    names = []
    for path in RUNNABLE:
        shutil.copy(path, tmp_path)
        names.append(os.path.basename(path))
    r = subprocess.run([sys.executable, "-c", _DRIVER, *names], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    for name in names:
        assert f"OK {name}" in r.stdout
    # and the reader agrees with what the running code does (spot checks)
    assert analyze_code(tmp_path / "helpers_double_softmax.py").get("output_activation").value == "softmax"
    assert analyze_code(tmp_path / "trainer_graph_cut.py").get("graph_cut").value is True
