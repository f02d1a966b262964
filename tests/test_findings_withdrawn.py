"""The script runner's parent keeps the facts of the latest look. Each look of the child sends every
fact the monitor holds; a fact an earlier look reported and the latest does not was overtaken by the
run (an LR-decay answer made moot by the run's own decay, a validation overlap seen in the first rows
only) and is withdrawn, so the verdict does not depend on which looks happened to fall. A look the
monitor could not answer in full (a probe's fault) withdraws nothing. Torch-free: the events are fed
to the parent as the child writes them."""
import json

from traindx.probes.runner.supervise import _ChildSession


def _session():
    return _ChildSession([], timeout=10, decide=None, env=None, grace=1, tail_lines=10)


def _look(s, step, facts, complete=True):
    ev = {"type": "findings", "step": step, "complete": complete,
          "findings": [{"fact": k, "value": v, "source": "probe:test"} for k, v in facts.items()]}
    s._event(json.dumps(ev).encode())


def test_a_fact_the_latest_look_no_longer_reports_is_withdrawn():
    s = _session()
    _look(s, 100, {"lr_decay_helps": True, "loss_trend": "plateau"})
    _look(s, 300, {"loss_trend": "decreasing"})
    assert {k: f.value for k, f in s.findings.items()} == {"loss_trend": "decreasing"}
    assert s.steps == 300


def test_a_look_the_monitor_could_not_answer_in_full_withdraws_nothing():
    s = _session()
    _look(s, 100, {"val_train_overlap": 0.9, "loss_trend": "plateau"})
    _look(s, 200, {"loss_trend": "decreasing"}, complete=False)
    assert {k: f.value for k, f in s.findings.items()} == {"val_train_overlap": 0.9, "loss_trend": "decreasing"}


def test_an_event_from_an_older_child_without_the_flag_keeps_earlier_facts():
    s = _session()
    _look(s, 100, {"lr_decay_helps": True})
    s._event(json.dumps({"type": "findings", "step": 200,
                         "findings": [{"fact": "loss_trend", "value": "flat"}]}).encode())
    assert set(s.findings) == {"lr_decay_helps", "loss_trend"}
