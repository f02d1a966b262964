"""The forward-chaining loop itself: agenda order, refraction, step cap, the FIRE trace, the API."""

import logging
import subprocess
import sys

from traindx.engine.api import Session


def test_fire_trace_on_the_named_logger(kb, caplog):
    s = Session(kb)
    with caplog.at_level(logging.DEBUG, logger="traindx.engine"):
        s.add_answers({"train_accuracy": 0.99, "val_accuracy": 0.6})
        s.run()
    fires = [r.getMessage() for r in caplog.records if r.getMessage().startswith("FIRE ")]
    assert fires[0].startswith("FIRE derive-train-val-gap: train_accuracy=0.99, val_accuracy=0.6")
    # the derived gap then feeds the symptom and evidence rules
    assert any(m.startswith("FIRE symptom-train-val-gap") for m in fires)
    assert any(m.startswith("FIRE severe-gap") for m in fires)


def test_each_rule_fires_once_and_salience_orders_the_agenda(kb):
    s = Session(kb)
    s.add_answers({"loss_trend": "flat", "complaint": "loss went to NaN", "loss_has_nonfinite": True})
    ids = [f.rule.id for f in s.run().firings]
    assert len(ids) == len(set(ids))                                 # refraction
    assert ids.index("symptom-nonfinite-loss") < ids.index("words-symptom")
    assert s.symptom() == "explosion"          # evidence (salience 60) beats the flat-loss rule (50) and the words


def test_step_cap_stops_the_loop(kb):
    s = Session(kb, max_steps=2)
    s.add_answers({"train_accuracy": 0.99, "val_accuracy": 0.6, "learning_rate": 1e-7})
    res = s.run()
    assert res.capped and res.steps == 2


def test_changed_answer_retracts_what_depended_on_it(kb):
    s = Session(kb)
    s.add_answers({"train_accuracy": 0.99, "val_accuracy": 0.6})
    assert s.symptom() == "overfitting"
    s.add("val_accuracy", 0.97)
    assert s.value("train_val_gap") < 0.05 and s.symptom() is None


def test_api_embeds_without_torch():
    code = ("import sys\nfrom traindx.engine.api import load_kb, Session\n"
            "s = Session(load_kb()); s.add_complaint('loss went to NaN'); q = s.next_question(); "
            "s.answer(q['id'], 'skip')\n"
            "r = s.report(); md = s.markdown()\nassert 'torch' not in sys.modules\nprint('OK', r['status'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.startswith("OK "), r.stderr


def test_a_healthy_status_never_sits_over_a_named_cause(kb):
    # a falling loss (the curve alone reads healthy) fed raw features at a scale of 1e4: the
    # ranking names unnormalized_inputs, so the status must not say "healthy" above it
    s = Session(kb)
    s.add_answers({"loss_trend": "decreasing", "val_loss_trend": "decreasing", "loss_decrease_fraction": 0.99,
                   "initial_loss": 43000.0, "current_loss": 4.6, "loss_function": "mse",
                   "target_kind": "continuous", "input_scale": 11000.0, "input_scale_spread": 4000.0,
                   "grads_have_nan": False, "batch_size": 128,
                   "grad_norm_median": 30000.0, "grad_norm_max": 8.5e6})
    s.run()
    rep = s.report()
    top = rep["root_causes"][0]
    assert top["id"] == "unnormalized_inputs"
    diagnosed = kb.param("confidence.diagnosed")
    assert (rep["status"] == "healthy") == (top["confidence"] < diagnosed)
    assert rep["status"] == "diagnosed"


def test_a_healthy_run_without_evidence_for_a_cause_stays_healthy(kb):
    s = Session(kb)
    s.add_answers({"loss_trend": "decreasing", "val_loss_trend": "decreasing", "loss_decrease_fraction": 0.9,
                   "train_accuracy": 0.95, "val_accuracy": 0.94, "input_scale": 1.1, "batch_size": 64})
    s.run()
    rep = s.report()
    assert rep["status"] == "healthy"
    assert all(c["confidence"] < kb.param("confidence.diagnosed") for c in rep["root_causes"])
