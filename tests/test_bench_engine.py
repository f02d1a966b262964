"""The synthetic knowledge-base generator of benchmarks/bench_engine.py stays valid: a 100-rule pack
loads on top of the core and every case it carries passes (what ``traindx kb test --kb DIR`` runs)."""

import importlib.util
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_engine", os.path.join(ROOT, "benchmarks", "bench_engine.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses look their module up while the file executes
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def pack(bench, tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth") / "synth_100"
    gen = bench.generate_pack(folder, 100, seed=0)
    from traindx.engine.loader import load_kb
    return gen, folder, load_kb([str(folder)])


def test_generated_pack_loads_with_the_shapes_it_promises(pack):
    gen, folder, kb = pack
    mine = {rid: r for rid, r in kb.rules.items() if rid.startswith("sx-100-")}
    assert len(mine) == 100
    assert all(q["id"] in kb.questions for q in gen.questions)
    assert all(d.setters >= 1 for d in gen.derived)                  # every derived fact has a producer
    text = json.dumps([r["when"] for r in gen.rules])
    for needle in ('"all"', '"any"', '"not"', '"near"', '"mul"', '"lt"', '"in"', '"nonempty"', '"sx_d'):
        assert needle in text, needle
    assert sum(1 for r in mine.values() if r.sets) >= 20               # derivations that chain into other rules
    assert {c for r in mine.values() for c, _ in r.evidence} <= set(kb.root_causes)


def test_every_generated_case_passes(pack):
    gen, folder, kb = pack
    from traindx.engine.kbtest import run_cases
    results = [r for r in run_cases(kb) if r.where.startswith(str(folder))]
    assert len(results) == sum(len(r["cases"]) for r in gen.rules)
    failed = [f"{r.where} {r.name}: {r.message}" for r in results if not r.ok]
    assert not failed, "\n".join(failed[:10])


def test_pack_rules_never_fire_on_core_facts_alone(pack, bench):
    gen, folder, kb = pack
    from traindx.engine.api import Session
    s = Session(kb)
    s.add_complaint(bench.DEFAULT_COMPLAINT)
    s.add_answers({"optimizer": "adam", "batch_size": 8, "uses_amp": True, "train_accuracy": 0.99, "val_accuracy": 0.6})
    assert not [f.rule.id for f in s.run().firings if f.rule.id.startswith("sx-")]


def test_generator_is_deterministic(bench):
    a, b = bench.SynthKB(100, seed=3), bench.SynthKB(100, seed=3)
    assert json.dumps(a.rules) == json.dumps(b.rules)
    assert json.dumps(a.rules) != json.dumps(bench.SynthKB(100, seed=4).rules)
