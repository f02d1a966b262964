"""Question selection, why/how, back, skip and resume — the interview without a terminal."""

from traindx.engine.api import Session
from traindx.engine.errors import InputError
import pytest


def test_asks_what_separates_not_the_questionnaire(kb):
    s = Session(kb)
    s.add_complaint("my model isn't learning")
    first = s.next_question()
    assert first["id"] == "learning_rate"        # the seed's first Not Learning question separates most
    s.answer("learning_rate", "1e-7")
    s.answer("loss_value", "2.30, 10")
    # lr_too_low is now far ahead; the grads-NaN question cannot change that ranking much
    asked = [first["id"], "loss_value"]
    q = s.next_question()
    assert q is None or q["id"] not in asked
    assert s.leading(1)[0][0] == "lr_too_low"


def test_stops_when_decided(kb):
    s = Session(kb)
    s.add_answers({"symptom": "explosion", "inputs_have_nan": True})
    assert s.decided()
    assert s.next_question() is None


def test_measured_facts_are_not_asked(kb):
    from traindx.engine.evidence import Finding
    s = Session(kb)
    s.add_complaint("loss is not decreasing")
    s.add_finding(Finding("learning_rate", 1e-3, "code:train.py:12", "Adam(lr=1e-3)"))
    q = s.next_question()
    assert q["id"] != "learning_rate"


def test_why_says_what_is_known_and_what_the_answer_decides(kb):
    s = Session(kb)
    s.add_complaint("loss flat from the start")
    text = s.why("learning_rate")
    assert "not_learning" in text and "lr_too_low" in text
    assert "This answer decides" in text


def test_how_gives_rules_facts_and_sources(kb):
    s = Session(kb)
    s.add_complaint("loss flat from the start")
    s.answer("learning_rate", "1e-7")
    text = s.how()
    assert text.startswith("lr_too_low")
    assert "rule lr-tiny" in text and "learning_rate = 1e-07 (you)" in text


def test_bad_answer_is_refused_with_a_hint_and_nothing_changes(kb):
    s = Session(kb)
    with pytest.raises(InputError) as e:
        s.answer("learning_rate", "fast")
    assert "number" in str(e.value)
    with pytest.raises(InputError):
        s.answer("learning_rate", "-1")
    assert "learning_rate" not in s.facts


def test_percentages_and_choices(kb):
    s = Session(kb)
    s.answer("train_val_gap", "98%, 71%")
    assert s.value("train_accuracy") == pytest.approx(0.98)
    assert s.value("train_val_gap") == pytest.approx(0.27)
    s.answer("oscillation_trend", "getting worse")
    assert s.value("oscillation_trend") == "growing"
    s.answer("scheduler_placement", "every batch")
    assert s.value("scheduler_step_per_batch") is True


def test_skip_becomes_a_gap_and_back_undoes(kb):
    s = Session(kb)
    s.add_complaint("loss flat from the start")
    s.answer("learning_rate", "skip")
    assert "learning_rate" in s.skipped
    r = s.report()
    assert any(g["question"] == "learning_rate" and g["skipped"] for g in r["information_gaps_detail"])
    s.back()
    s.answer("learning_rate", "1e-7")
    assert s.value("learning_rate") == 1e-7
    assert s.back() == "learning_rate"
    assert "learning_rate" not in s.facts


def test_state_round_trip(kb):
    s = Session(kb)
    s.add_complaint("loss flat from the start")
    s.answer("learning_rate", "1e-7")
    s2 = Session.from_state(kb, s.to_state())
    assert s2.report()["root_causes"][0]["id"] == s.report()["root_causes"][0]["id"]
    assert s2.asked == ["learning_rate"]


def test_sources_disagreeing_are_caveats(kb):
    from traindx.engine.evidence import Finding
    s = Session(kb)
    s.add("learning_rate", 0.01, "user")
    s.add_finding(Finding("learning_rate", 1e-5, "code:train.py:9"))
    assert s.value("learning_rate") == 0.01            # the user's word is kept ...
    assert any("learning_rate" in c for c in s.report()["caveats"])   # ... and the conflict is shown


def test_unknown_fact_from_a_probe_is_noted_not_fatal(kb):
    from traindx.engine.evidence import Finding
    s = Session(kb)
    s.add_finding(Finding("no_such_fact", 1, "probe:x"))
    assert any("no_such_fact" in n for n in s.notes)


def test_multi_fact_answer_in_an_answers_file_is_split_like_a_typed_one(kb):
    s = Session(kb)
    s.add_answers({"loss_value": "2.302, 10"})
    assert s.value("current_loss") == pytest.approx(2.302) and s.value("num_classes") == 10
