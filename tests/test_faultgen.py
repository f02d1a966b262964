"""The fault-injection generator (benchmarks/faultgen/) keeps producing a benchmark worth running:
at least 300 runs over at least 10 base programs, every script valid Python, every ground truth a
root cause and symptoms the knowledge base knows, healthy controls among them."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "faultgen"))

import generate  # noqa: E402
import operators as ops  # noqa: E402


def _kb_ids(name, key):
    return {e["id"] for e in yaml.safe_load((ROOT / "kb" / name).read_text())[key]}


def test_generates_hundreds_of_runs_over_many_bases(tmp_path):
    entries = generate.generate(tmp_path)
    assert len(entries) >= 300
    assert len({e["base"] for e in entries}) >= 10
    assert len({e["operator"] for e in entries}) >= 20
    assert sum(1 for e in entries if e["root_cause"] is None) >= 30         # healthy controls
    files = {e["file"] for e in entries}
    assert len(files) == len(entries)
    manifest = yaml.safe_load((tmp_path / "manifest.yaml").read_text())
    assert [m["file"] for m in manifest] == [e["file"] for e in entries]
    for e in entries:
        src = (tmp_path / e["file"]).read_text()
        ast.parse(src, filename=e["file"])                              # every script is valid Python
        assert "set_num_threads(1)" in src and "manual_seed" in src
        assert "http" not in src and "download" not in src.lower()


def test_ground_truth_uses_the_knowledge_bases_ids():
    causes = _kb_ids("root_causes.yaml", "root_causes")
    symptoms = _kb_ids("symptoms.yaml", "symptoms") | {"healthy", "out_of_scope"}
    for op in ops.OPERATORS:
        assert op.cause is None or op.cause in causes, op.name
        assert set(op.also) <= causes, op.name
        assert op.symptoms and set(op.symptoms) <= symptoms, op.name
        assert op.magnitudes, op.name


def test_an_operator_changes_the_script_it_names():
    base = next(b for b in generate.BASES if b.kind == "cls" and b.loader)
    healthy = generate.render(base, ops.Spec.of(base))
    op = ops.BY_NAME["no_zero_grad"]
    faulty = generate.render(base, op.spec(base, op.magnitudes[0]))
    assert "opt.zero_grad()" in healthy and "opt.zero_grad()" not in faulty
    op = ops.BY_NAME["double_softmax"]
    assert "softmax(-1)" in generate.render(base, op.spec(base, op.magnitudes[0]))
