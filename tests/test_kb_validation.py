"""Loading validates shape, then meaning; every error is one line naming file:line:col."""

import re
import textwrap

import pytest

from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb

RULE = """\
kind: rules
rules:
  - id: pack-rule
    description: A rule from a pack.
    when: {fact: learning_rate, lt: 1.0e-6}
    then:
      evidence:
        - {cause: lr_too_low, lr: 3}
    cases:
      - {given: {learning_rate: 1.0e-7}, fires: true}
"""


def pack(tmp_path, name, text):
    d = tmp_path / "pack"
    d.mkdir(exist_ok=True)
    (d / name).write_text(textwrap.dedent(text))
    return str(d)


def error(tmp_path, name, text) -> str:
    with pytest.raises(KBError) as e:
        load_kb([pack(tmp_path, name, text)])
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_core_kb_loads_and_every_contract_root_cause_is_there(kb):
    contract = """lr_too_low lr_too_high frozen_parameters params_not_in_optimizer broken_gradient_flow
    vanishing_gradients exploding_gradients dead_relu bad_initialization double_softmax wrong_loss_function
    corrupted_labels excessive_regularization lr_schedule_collapse over_clipping missing_lr_decay batch_too_small
    missing_zero_grad unnormalized_inputs unshuffled_data numerical_instability nan_in_inputs fp16_overflow
    insufficient_regularization train_eval_mode_mismatch data_leakage data_loading_bottleneck""".split()
    assert set(contract) <= set(kb.root_causes)
    contract_facts = """complaint symptom learning_rate optimizer batch_size num_classes initial_loss current_loss
    grads_have_nan params_without_grad frozen_params uses_amp custom_loss nan_first_step inputs_have_nan train_size
    val_size regularization train_accuracy val_accuracy train_loss val_loss data_time_fraction
    oscillation_trend""".split()
    assert set(contract_facts) <= set(kb.facts)


def test_every_contract_root_cause_has_a_passing_case_naming_it(kb):
    from traindx.engine.kbtest import check_case
    tops = {}
    for rule in kb.rules.values():
        for case in rule.cases:
            if "top" in case and not check_case(kb, case, rule.id):
                tops[case["top"]] = rule.id
    missing = sorted(set(kb.root_causes) - set(tops) - {"optimizer_misconfigured"})
    assert missing == []


def test_pack_rule_loads(tmp_path):
    kb = load_kb([pack(tmp_path, "rules.yaml", RULE)])
    assert "pack-rule" in kb.rules


def test_malformed_yaml_points_at_the_line(tmp_path):
    msg = error(tmp_path, "bad.yaml", "kind: rules\nrules:\n  - id: x\n    when: {fact: a, lt: [1\n")
    assert re.search(r"bad\.yaml:\d+:\d+: invalid YAML", msg)


def test_unknown_fact_is_named_with_a_suggestion(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("fact: learning_rate, lt", "fact: learning_rat, lt"))
    assert "r.yaml:5:" in msg and "unknown fact 'learning_rat'" in msg and "did you mean 'learning_rate'" in msg


def test_schema_error_names_the_field_and_line(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("    description: A rule from a pack.\n", ""))
    assert "r.yaml:3:" in msg and "missing required field(s): description" in msg


def test_rule_without_a_case_is_an_error(tmp_path):
    text = RULE.split("    cases:")[0]
    msg = error(tmp_path, "r.yaml", text)
    assert "cases" in msg and "r.yaml:" in msg


def test_unknown_operator(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("lt: 1.0e-6", "smaller: 1.0e-6"))
    assert "smaller" in msg and "r.yaml:" in msg


def test_dangling_root_cause(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("cause: lr_too_low", "cause: lr_too_lowish"))
    assert "unknown root cause 'lr_too_lowish'" in msg and "r.yaml:8:" in msg


def test_id_clash_with_core_is_an_error_not_an_override(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("id: pack-rule", "id: lr-tiny"))
    assert "clashes with the core" in msg


def test_rule_that_can_never_fire(tmp_path):
    facts = "kind: facts\nfacts:\n  - {id: orphan_fact, type: number, description: nobody sets it}\n"
    d = pack(tmp_path, "facts.yaml", facts)
    (tmp_path / "pack" / "r.yaml").write_text(RULE.replace("fact: learning_rate, lt", "fact: orphan_fact, lt")
                                              .replace("learning_rate: 1.0e-7", "orphan_fact: 1.0e-7"))
    with pytest.raises(KBError) as e:
        load_kb([d])
    assert "can never fire" in str(e.value) and "orphan_fact" in str(e.value)


def test_rule_cycle(tmp_path):
    text = """\
    kind: rules
    rules:
      - id: a-sets-gap
        description: a
        when: {fact: loss_noise, gt: 1}
        then: {set: {train_val_gap: 0.5}}
        cases: [{given: {loss_noise: 2}, fires: true}]
      - id: b-sets-noise
        description: b
        when: {fact: train_val_gap, gt: 0.1}
        then: {set: {loss_noise: 2}}
        cases: [{given: {train_val_gap: 0.2}, fires: true}]
    """
    msg = error(tmp_path, "r.yaml", text)
    assert "rule cycle" in msg


def test_enum_value_checked(tmp_path):
    msg = error(tmp_path, "r.yaml", RULE.replace("{fact: learning_rate, lt: 1.0e-6}",
                                                 "{fact: loss_trend, eq: flatish}"))
    assert "'flatish' is not a value of loss_trend" in msg


def test_bad_regex(tmp_path):
    text = """\
    kind: pressure
    pressure:
      - id: broken
        patterns: ['(unclosed']
        pressure: x
        wrong_response: y
        correct_response: z
    """
    msg = error(tmp_path, "p.yaml", text)
    assert "invalid regular expression" in msg and "p.yaml:3:" in msg


def test_non_utf8_kb_file(tmp_path):
    d = tmp_path / "pack"
    d.mkdir()
    (d / "x.yaml").write_bytes(b"kind: rules\nrules: []\n# \xff\xfe\n")
    with pytest.raises(KBError) as e:
        load_kb([str(d)])
    assert "x.yaml:3" in str(e.value) and "UTF-8" in str(e.value)


def test_yaml_tags_are_refused(tmp_path):
    msg_text = "kind: rules\nrules: !!python/object/apply:os.system ['echo hi']\n"
    with pytest.raises(KBError) as e:
        load_kb([pack(tmp_path, "evil.yaml", msg_text)])
    assert "evil.yaml:2:" in str(e.value) and "is not allowed" in str(e.value)


def test_pack_cause_can_declare_its_prior(tmp_path):
    from traindx.engine.api import Session
    d = tmp_path / "pack"
    d.mkdir()
    (d / "rc.yaml").write_text(textwrap.dedent("""\
        kind: root_causes
        root_causes:
          - id: exotic_cause
            name: Exotic
            category: Data
            description: A cause only this pack knows.
            fix: raise_lr
            what_not_to_do: [nothing]
            risk: none
            reference: learning-rate-scheduling
            priors: {plateau: 0.2}
        """))
    kb = load_kb([str(d)])
    s = Session(kb)
    s.add("symptom", "plateau")
    assert 0.15 < s.prior()["exotic_cause"] < 0.21


def test_every_kb_file_ships_in_the_wheel():
    """pyproject's package-data must cover every knowledge file, or a normal install loses it."""
    import fnmatch
    import os
    import tomllib
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        globs = tomllib.load(fh)["tool"]["setuptools"]["package-data"]["traindx.kb"]
    kbdir = os.path.join(root, "kb")
    for dirpath, _, files in os.walk(kbdir):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), kbdir).replace(os.sep, "/")
            if name.endswith((".yaml", ".md")):
                assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


def test_every_shipped_case_passes(kb):
    """`traindx kb test` on the shipped knowledge base: every rule's cases and the end-to-end cases.
    (Two merged changes once broke two cases that nothing in the suite ran.)"""
    from traindx.engine.kbtest import run_cases
    failed = [f"{r.where} {r.name}: {r.message}" for r in run_cases(kb) if not r.ok]
    assert failed == []
