"""Parameters live in the knowledge base: shown by ``explain``, overridden by a pack, checked on load."""
import pytest

from traindx.engine.api import Session
from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb
from traindx.engine.parameters import resolve, shipped


def _pack(tmp_path, body):
    (tmp_path / "p.yaml").write_text(body)
    return str(tmp_path)


def test_every_shipped_parameter_is_documented_and_used():
    kb = load_kb(entry_point_packs=False)
    assert kb.parameters, "the core knowledge base defines parameters"
    for pid, p in kb.parameters.items():
        assert p["description"].strip() and p["unit"].strip() and p["used_by"], pid
    assert shipped() == kb.params()
    assert resolve(None) == kb.params()


def test_pack_override_changes_the_interview(tmp_path):
    """engine.min_gain_bits decides whether a low-value question is still asked: a pack raising it
    ends the interview where the core one asks on."""
    core = Session(load_kb(entry_point_packs=False))
    core.add_complaint("loss flat from epoch 0")
    assert core.next_question()["id"] == "learning_rate"
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  engine.min_gain_bits: 100\n")],
                 entry_point_packs=False)
    assert kb.param("engine.min_gain_bits") == 100
    s = Session(kb)
    s.add_complaint("loss flat from epoch 0")
    q = s.next_question()
    assert q is None or q["id"] == "loss_behavior"


@pytest.mark.parametrize("body, message", [
    ("kind: parameters\noverrides:\n  engine.min_gain_bitz: 1\n", "unknown parameter 'engine.min_gain_bitz'"),
    ("kind: parameters\noverrides:\n  engine.min_gain_bits: fast\n", "wrong type"),
    ("kind: parameters\noverrides:\n  engine.min_gain_bits: -1\n", "outside its range"),
    ("kind: parameters\nparameters:\n  - {id: engine.min_gain_bits, value: 1, unit: bits, description: x, used_by: [engine:x]}\n",
     "clashes with the core"),
])
def test_bad_override_is_one_line_with_its_line(tmp_path, body, message):
    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, body)], entry_point_packs=False)
    text = str(exc.value)
    assert message in text and "p.yaml:" in text and "\n" not in text
