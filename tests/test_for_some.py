"""``for_some``: a rule condition ranging over a list parameter, so a list of standard values (the
class counts whose ln C a levelled-off loss is compared with) is one extendable knowledge-base entry
instead of the same test written once per value."""
import math

import pytest

from traindx.engine.api import Session
from traindx.engine.conditions import compile_condition, condition_text
from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb


def _levelled_at(kb, loss, **more):
    s = Session(kb)
    s.add("loss_trend", "plateaued", "user")
    s.add("current_loss", loss, "user")
    for name, value in more.items():
        s.add(name, value, "user")
    return s.value("loss_at_chance")


def _pack(tmp_path, body):
    (tmp_path / "p.yaml").write_text(body)
    return str(tmp_path)


def test_every_shipped_standard_count_is_read_as_a_uniform_guess():
    kb = load_kb(entry_point_packs=False)
    counts = kb.param("rules.standard_class_counts")
    assert 10 in counts and 1000 in counts
    for c in counts:
        assert _levelled_at(kb, round(math.log(c), 4)) is True, c
    assert _levelled_at(kb, round(math.log(21), 4)) is not True      # ln 21 is no shipped count's guess


def test_a_pack_extending_the_class_counts_reads_a_new_tasks_chance_level(tmp_path):
    """A segmentation pack adds VOC's 21 classes: a loss levelled at ln 21 becomes a uniform guess,
    by the loss alone and by the loss with an accuracy at 1/21 (both rules range over the list)."""
    kb = load_kb([_pack(tmp_path, "kind: parameters\nextends:\n  rules.standard_class_counts: [21]\n")],
                 entry_point_packs=False)
    assert 21 in kb.param("rules.standard_class_counts")
    assert _levelled_at(kb, 3.0445) is True
    assert _levelled_at(kb, 3.02, val_accuracy=0.048) is True       # ln 21 within the chance tolerance, 1/21
    assert _levelled_at(load_kb(entry_point_packs=False), 3.02, val_accuracy=0.048) is not True


def test_for_some_is_three_valued_and_reads_its_facts():
    params = {"p.counts": [2, 10]}
    spec = {"for_some": {"param": "p.counts"}, "as": "C",
            "holds": {"fact": "current_loss", "near": {"ln": {"var": "C"}}, "rtol": 0.01}}
    fn, reads = compile_condition(spec, "here", params)
    assert reads == {"current_loss"}
    assert fn({"current_loss": 2.302}) is True
    assert fn({"current_loss": 1.5}) is False
    assert fn({}) is None
    assert condition_text(spec) == "for some C in [p.counts]: current_loss ≈ ln(C)"


def test_a_variable_outside_its_for_some_is_one_clear_error():
    with pytest.raises(KBError) as exc:
        compile_condition({"fact": "current_loss", "near": {"var": "C"}, "rtol": 0.1}, "r.yaml:3", {})
    assert "variable 'C' is not bound" in str(exc.value)


@pytest.mark.parametrize("ranges, message", [
    ("{param: rules.ln2_level_tolerance}", "is not a list of numbers"),
    ("{param: rules.standard_class_countz}", "unknown parameter 'rules.standard_class_countz'"),
])
def test_a_pack_rule_ranging_over_a_bad_parameter_is_one_line_with_its_line(tmp_path, ranges, message):
    (tmp_path / "pack.yaml").write_text("kind: pack\nname: p\nprovides: []\n")
    (tmp_path / "r.yaml").write_text(
        "kind: rules\nrules:\n  - id: p-chance\n    description: x\n"
        f"    when: {{for_some: {ranges}, as: C, holds: {{fact: current_loss, near: {{ln: {{var: C}}}}}}}}\n"
        "    then: {set: {loss_at_chance: true}}\n"
        "    cases: [{given: {current_loss: 2.3026}, fires: true}]\n")
    with pytest.raises(KBError) as exc:
        load_kb([str(tmp_path)], entry_point_packs=False)
    text = str(exc.value)
    assert message in text and "r.yaml:5" in text and "\n" not in text
