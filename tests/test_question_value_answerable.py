"""A question is worth asking only for rules its answer could fire. A rule that also needs a fact only a
probe, the code reader or a log measures (and that is not known) adds no value to an interview question:
otherwise such rules crowd the questions that would decide out of the Information Gaps."""

from traindx.engine.loader import needs_unanswerable as _needs_unanswerable


def test_measured_only_facts_are_not_answerable_but_asked_ones_are(kb):
    got = kb.answerable_facts
    assert "learning_rate" in got and "weight_decay" in got
    # measured by the live probes only: no question asks them and no rule derives them from answers
    assert "weight_norm_ratio" not in got
    assert "val_accuracy_best" not in got


def test_a_condition_needing_an_unmeasured_probe_fact_is_blocked_until_it_is_known(kb):
    got = kb.answerable_facts
    cond = {"all": [{"fact": "weight_norm_ratio", "le": 0.25}, {"fact": "weight_decay", "gt": 0}]}
    assert _needs_unanswerable(cond, {}, got)
    assert not _needs_unanswerable(cond, {"weight_norm_ratio": 0.1}, got)


def test_negated_and_alternative_conditions_never_block_on_their_own(kb):
    got = kb.answerable_facts
    assert not _needs_unanswerable({"not": {"fact": "weight_norm_ratio", "eq": 1}}, {}, got)
    assert not _needs_unanswerable({"any": [{"fact": "weight_norm_ratio", "le": 0.2},
                                            {"fact": "weight_decay", "gt": 0.5}]}, {}, got)
    assert _needs_unanswerable({"any": [{"fact": "weight_norm_ratio", "le": 0.2},
                                        {"fact": "val_accuracy_best", "le": 0.2}]}, {}, got)


def test_the_weight_decay_question_reaches_no_rule_that_needs_measured_weights(kb):
    from traindx.engine.api import Session
    s = Session(kb)
    s.add_complaint("the loss barely moves and accuracy stays at chance, adam lr 1e-3")
    res = s.run()
    known = res.wm
    fired = {f.rule.id for f in res.firings}
    values = {k: f.value for k, f in known.items()}
    q = kb.questions_by_fact["weight_decay"][0]
    reached = {r.id for r in s._reachable(q, known, fired, lambda r: r.test(values))}
    assert "extreme-weight-decay" in reached          # an answer alone can fire this one
    assert "weights-pulled-to-zero" not in reached    # this one also needs the measured weight norms
