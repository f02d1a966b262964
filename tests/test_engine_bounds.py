"""The engine cannot run away: pathological but valid knowledge finishes, and reports stay sane.

Each case is valid knowledge a pack could ship — an 800-rule chain, 10^5 facts, one fact read by
thousands of rules — built here and loaded through the real loader. The bound asserted is a
generous wall-clock ceiling (tens of times what the case takes on an idle machine), so a loaded CI
machine passes and an exponential or runaway loop still fails. Reports are also checked for what
must hold whatever the knowledge: confidences in [0, 1], byte-identical output for identical input.
"""

import json
import math
import re
import time

import pytest

from traindx.engine.api import Session, load_kb
from traindx.engine.markdown import render_markdown


def _pack(tmp_path, files: dict):
    pack = tmp_path / "pack"
    pack.mkdir(exist_ok=True)
    for name, data in files.items():
        (pack / name).write_text(json.dumps(data))   # JSON is YAML: fast to write and to read
    return pack


def _load(pack):
    t0 = time.perf_counter()
    kb = load_kb([pack], entry_point_packs=False)
    return kb, time.perf_counter() - t0


def test_deep_rule_chain_fires_to_the_end(tmp_path):
    n = 800
    facts = [{"id": f"fz_f{i}", "type": "boolean", "description": f"link {i}"} for i in range(n + 1)]
    rules = [{"id": f"fz-chain-{i}", "description": f"link {i} implies link {i + 1}",
              "when": {"fact": f"fz_f{i}", "eq": True}, "then": {"set": {f"fz_f{i + 1}": True}},
              "cases": [{"given": {f"fz_f{i}": True}, "fires": True}]} for i in range(n)]
    rules.append({"id": "fz-chain-end", "description": "the end of the chain is evidence",
                  "when": {"fact": f"fz_f{n}", "eq": True},
                  "then": {"evidence": [{"cause": "lr_too_low", "lr": 5}]},
                  "cases": [{"given": {f"fz_f{n}": True}, "fires": True}]})
    questions = [{"id": "fz_q0", "text": "Is the first link there?", "facts": ["fz_f0"]}]
    pack = _pack(tmp_path, {"facts.yaml": {"kind": "facts", "facts": facts},
                            "rules.yaml": {"kind": "rules", "rules": rules},
                            "questions.yaml": {"kind": "questions", "questions": questions}})
    kb, _ = _load(pack)
    # the CPU this process spent, which a busy machine does not inflate: at a load of 10 on 2 cores the
    # wall clock read 114 s for what took 45-55 s on the next runs (docs/BENCHMARKS.md, suite48)
    t0 = time.process_time()
    s = Session(kb)
    s.add_complaint("loss flat from epoch 0")
    s.add("fz_f0", True)
    rep = s.report()
    elapsed = time.process_time() - t0
    assert s.value(f"fz_f{n}") is True                     # every link fired, once
    assert any(e["fact"] == f"fz_f{n}" for c in rep["root_causes"] for e in c["evidence"]) or \
        rep["root_causes"][0]["id"] == "lr_too_low"
    assert elapsed < 60, elapsed


@pytest.mark.parametrize("n_facts,n_rules", [(10_000, 400), pytest.param(100_000, 2_000, marks=pytest.mark.slow)])
def test_hundred_thousand_facts_and_wide_fan_out(tmp_path, n_facts, n_rules):
    files = {}
    per = min(n_facts, 25_000)
    for k in range(n_facts // per):
        files[f"facts{k}.yaml"] = {"kind": "facts", "facts": [
            {"id": f"fz_n{i}", "type": "number", "description": "x"} for i in range(k * per, (k + 1) * per)]}
    # fan-out: one fact read by every rule; each rule sets its own fact
    files["facts_fan.yaml"] = {"kind": "facts", "facts": [{"id": "fz_hub", "type": "number", "description": "hub"}]
                               + [{"id": f"fz_o{i}", "type": "boolean", "description": "x"} for i in range(n_rules)]}
    files["rules.yaml"] = {"kind": "rules", "rules": [
        {"id": f"fz-fan-{i}", "description": "fan-out", "when": {"fact": "fz_hub", "gt": i},
         "then": {"set": {f"fz_o{i}": True}, "evidence": [{"cause": "lr_too_high", "lr": 1.001}]},
         "cases": [{"given": {"fz_hub": i + 1}, "fires": True}]} for i in range(n_rules)]}
    files["questions.yaml"] = {"kind": "questions", "questions": [
        {"id": "fz_hub_q", "text": "Hub?", "facts": ["fz_hub"]},
        {"id": "fz_n_q", "text": "N?", "facts": [f"fz_n{i}" for i in range(0, n_facts, 997)]}]}
    pack = _pack(tmp_path, files)
    kb, load_s = _load(pack)
    assert len(kb.facts) > n_facts
    t0 = time.perf_counter()
    s = Session(kb)
    s.add_complaint("loss oscillating")
    for i in range(0, n_facts, 7):          # ~14,000 facts in working memory
        s.add(f"fz_n{i}", float(i))
    s.add("fz_hub", float(n_rules))
    rep = s.report()
    q = s.next_question()
    elapsed = time.perf_counter() - t0
    assert all(s.value(f"fz_o{i}") is True for i in range(n_rules))
    for c in rep["root_causes"]:
        assert 0.0 <= c["confidence"] <= 1.0 and not math.isnan(c["confidence"])
    assert q is None or isinstance(q["id"], str)
    assert load_s < 600 and elapsed < 120, (load_s, elapsed)


def test_overwhelming_evidence_keeps_confidences_in_range(tmp_path):
    """Hundreds of rules with extreme likelihood ratios for and against: no overflow, no NaN, [0, 1]."""
    causes = ["lr_too_low", "lr_too_high", "dead_relu"]
    facts = [{"id": f"fz_e{i}", "type": "boolean", "description": "x"} for i in range(300)]
    rules = [{"id": f"fz-ev-{i}", "description": "x", "when": {"fact": f"fz_e{i}", "eq": True},
              "then": {"evidence": [{"cause": causes[i % 3], "lr": 10000 if i % 2 else 0.0001}]},
              "cases": [{"given": {f"fz_e{i}": True}, "fires": True}]} for i in range(300)]
    questions = [{"id": "fz_eq", "text": "E?", "facts": [f["id"] for f in facts]}]
    pack = _pack(tmp_path, {"facts.yaml": {"kind": "facts", "facts": facts},
                            "rules.yaml": {"kind": "rules", "rules": rules},
                            "questions.yaml": {"kind": "questions", "questions": questions}})
    kb, _ = _load(pack)
    s = Session(kb)
    s.add_complaint("loss flat from epoch 0")
    for i in range(300):
        s.add(f"fz_e{i}", True)
    rep = s.report()
    confs = [c["confidence"] for c in rep["root_causes"]]
    assert confs and all(0.0 <= c <= 1.0 and not math.isnan(c) for c in confs)
    json.dumps(rep)   # no NaN/Inf leaks into the JSON report


def _strip_times(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?", "<time>", text)


@pytest.mark.parametrize("complaint,facts", [
    ("loss flat from epoch 0, lr 1e-7, 10 classes", {"current_loss": 2.302}),
    ("my loss went to NaN at step 200 with AMP", {"uses_amp": True}),
    ("val acc stuck at 55% while train acc 99%, only 800 images", {"train_accuracy": 0.99, "val_accuracy": 0.55}),
    ("training is fine I think", {}),
])
def test_same_input_same_report_byte_for_byte(kb, complaint, facts):
    def run():
        s = Session(kb)
        s.add_complaint(complaint)
        for k, v in facts.items():
            s.add(k, v)
        rep = s.report()
        return json.dumps(rep, sort_keys=False, default=str), render_markdown(rep)
    first = run()
    for _ in range(2):
        again = run()
        assert _strip_times(again[0]) == _strip_times(first[0])
        assert _strip_times(again[1]) == _strip_times(first[1])
    rep = json.loads(first[0])
    for c in rep["root_causes"]:
        assert 0.0 <= c["confidence"] <= 1.0


def test_same_cli_input_same_report_across_processes(tmp_path):
    """Two separate runs (fresh interpreters, different hash seeds) print the same report."""
    import os
    from conftest import run_cli
    ans = tmp_path / "a.yaml"
    ans.write_text("learning_rate: 1.0e-7\nloss_value: [2.302, 10]\noptimizer: sgd\n")
    outs = []
    for seed in ("1", "2"):
        r = run_cli("diagnose", "--complaint", "loss flat from epoch 0", "--answers", str(ans), "--non-interactive",
                    "--format", "json", env={"PYTHONHASHSEED": seed})
        assert r.returncode == 0, r.stderr
        outs.append(_strip_times(r.stdout))
    assert outs[0] == outs[1]
    assert os.environ.get("PYTHONHASHSEED") != "x"


def test_kb_patterns_run_in_linear_time_on_adversarial_text(kb):
    """Every pattern the engine runs over a complaint (extractors, rule/deferral/misdiagnosis/pressure
    patterns), on 20,000-character adversarial strings: a backtracking pattern (quadratic or worse)
    takes minutes here; a linear one milliseconds. The ceiling is 100x the linear time on a slow machine."""
    pats = [rx for rxs in kb.extractors.values() for rx in rxs]

    def walk(c):
        if isinstance(c, dict):
            if "matches" in c:
                pats.append(re.compile(c["matches"], re.IGNORECASE))
            for v in c.values():
                walk(v)
        elif isinstance(c, list):
            for v in c:
                walk(v)
    for r in kb.rules.values():
        walk(r.when)
    for table in (kb.deferrals, kb.misdiagnoses, kb.pressure):
        for d in table.values():
            for p in d.get("patterns", []):
                pats.append(re.compile(p, re.IGNORECASE))
    texts = ["9" * 20_000, "lr " * 6_000, "a" * 20_000, "loss " * 4_000, " " * 20_000, "nan at " * 3_000,
             "1." * 10_000, "val " * 5_000, "(" * 20_000]
    t0 = time.perf_counter()
    slow = []
    for rx in set(pats):
        for t in texts:
            s0 = time.perf_counter()
            rx.search(t)
            if time.perf_counter() - s0 > 2.0:
                slow.append(rx.pattern[:80])
    assert not slow, slow
    assert time.perf_counter() - t0 < 120
