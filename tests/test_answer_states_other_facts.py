"""What a person types at a prompt that answers a different question ("lr 3e-4" to "Which
optimizer?"), or that adds more than was asked ("adam with lr 3e-4"): every fact it states is taken,
a number is never stored as a name, and the question count shown does not grow with skips."""

from types import SimpleNamespace

import pytest

from traindx.engine.api import Session
from traindx.engine.errors import InputError


def _session(kb):
    s = Session(kb)
    s.add_complaint("the loss stopped going down after a few epochs")
    return s


@pytest.mark.parametrize("typed", ["3e-4", "0.9", "1,000"])
def test_a_number_is_no_optimizer_name(kb, typed):
    s = _session(kb)            # before: stored as optimizer = "3e-4"
    with pytest.raises(InputError) as e:
        s.answer("optimizer", typed)
    assert "name" in str(e.value)
    assert s.value("optimizer") is None


def test_a_setting_typed_to_the_wrong_question_is_taken_and_the_question_stays_open(kb):
    s = _session(kb)
    added = s.answer("optimizer", "lr 3e-4")      # before: optimizer = "lr 3e-4"
    assert [(f.name, f.value) for f in added] == [("learning_rate", pytest.approx(3e-4))]
    assert s.value("optimizer") is None and "optimizer" not in s.asked
    s.answer("optimizer", "sgd")
    assert s.value("optimizer") == "sgd"


def test_a_name_with_its_settings_gives_them_all(kb):
    s = _session(kb)
    s.answer("optimizer", "Adam with lr 3e-4")    # before: optimizer = "adam with lr 3e-4"
    assert s.value("optimizer") == "adam" and s.value("learning_rate") == pytest.approx(3e-4)


def test_a_word_typed_for_a_number_gives_the_fact_it_names(kb):
    s = _session(kb)
    added = s.answer("learning_rate", "adam")     # before: refused, "adam" lost
    assert [f.name for f in added] == ["optimizer"] and s.value("learning_rate") is None


def test_a_yes_with_more_words_is_read_with_what_it_adds(kb):
    s = _session(kb)
    s.answer("mixed_precision", "yes, bf16")       # before: uses_amp left open, only the dtype taken
    assert s.value("uses_amp") is True and s.value("amp_dtype") == "bfloat16"
    assert "mixed_precision" in s.asked


def test_back_undoes_the_other_facts_too(kb):
    s = _session(kb)
    s.answer("optimizer", "lr 3e-4")
    s.back()
    assert s.value("learning_rate") is None


def test_a_known_fact_is_not_replaced_by_a_side_reading(kb):
    s = _session(kb)
    s.answer("learning_rate", "0.01")
    s.answer("optimizer", "sgd with lr 0.5")
    assert s.value("learning_rate") == pytest.approx(0.01) and s.value("optimizer") == "sgd"


def test_an_unfamiliar_optimizer_name_is_kept(kb):
    s = _session(kb)
    s.answer("optimizer", "lion")
    assert s.value("optimizer") == "lion"


def test_skips_spend_the_question_budget(kb):
    s = Session(kb, max_questions=3)
    s.add_complaint("the loss stopped going down after a few epochs")
    seen = []
    while (q := s.next_question()) is not None:
        seen.append(q["id"])
        s.answer(q["id"], "skip")
    assert len(seen) == 3        # before: skipped questions did not count and the interview went on


def _reply(typed, prompt):
    """``typed``, where "OTHER" is a setting that answers some other question than the one prompted."""
    return ("lr 3e-4" if "optimizer" in prompt else "adam") if typed == "OTHER" else typed


def _interview(kb, monkeypatch, typed):
    from traindx.engine.frontends import cli
    s = _session(kb)
    prompts, out = [], []
    replies = iter(typed)
    monkeypatch.setattr(cli.Interview, "ask", lambda self, p: prompts.append(p) or _reply(next(replies), p))
    monkeypatch.setattr(cli.click, "echo", lambda text="", **kw: out.append(str(text)))
    with pytest.raises(KeyboardInterrupt):
        cli.Interview(s, lambda text, **kw: text, SimpleNamespace(ran_script=True), done={"read_back"}).run()
    return prompts, out


def test_the_count_of_questions_shown_does_not_grow_when_questions_are_skipped(kb, monkeypatch):
    prompts, _ = _interview(kb, monkeypatch, ["skip"] * 5 + ["quit"])
    totals = [int(p.split("/", 1)[1].split()[0]) for p in prompts if p.strip()[:1].isdigit()]
    assert len(totals) >= 4 and totals == sorted(totals, reverse=True)


def test_the_interview_says_what_it_took_from_an_answer_to_another_question(kb, monkeypatch):
    prompts, out = _interview(kb, monkeypatch, ["OTHER", "quit"])
    assert any(line.strip().startswith("Took ") and "still open" in line for line in out)
