"""Session 47 (scriptimp47): a loss averaged over its own active terms swings on a healthy run.

What a user would notice: a batch-all triplet loss (``terms.sum() / (terms > 0).float().sum()``)
averages only the triplets still violated; as the embedding is learned the easy ones drop out and the
mean of the hard ones left swings and creeps up. traindx read those swings as instability, with
"learning rate too high" at 0.89 (a copy at a tenth of the LR showed a lower held-out loss, which under
this average says nothing about progress). The code reader now reads the average over active terms,
and swings of such a loss with no NaN or spike name no cause; the same swings of a plain mean stay
instability. Facts of the kind --script measures (synthetic values, not a benchmark run's own).
"""

from __future__ import annotations

from pathlib import Path

from traindx.engine.api import Session
from traindx.probes.readers.code import analyze_code

CASES = Path(__file__).parent / "code_cases"

_SWINGING = {"loss_trend": "oscillating", "oscillation_trend": "growing", "loss_noise": 0.31,
             "loss_decrease_fraction": 0.11, "initial_loss": 0.43, "current_loss": 0.38, "loss_spikes": 0,
             "loss_has_nonfinite": False, "grads_have_nan": False, "grad_norm_trend": "growing",
             "grad_norm_max": 13.4, "grad_norm_median": 1.28, "grad_norm_blowup": 13.6, "learning_rate": 0.001,
             "optimizer": "adam", "loss_function": "custom", "custom_loss": True, "lr_final_ratio": 1.0,
             "scheduler": "none", "exp_lr_down": "confirms", "lr_decay_helps": True, "update_ratio": 0.008}


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


def test_the_code_reader_reads_a_loss_averaged_over_its_positive_terms():
    rep = analyze_code(CASES / "a_triplet_loss_averaged_over_its_positive_triplets.py")
    assert any(f.fact == "loss_mean_over_active_terms" and f.value is True for f in rep.findings)


def test_swings_of_a_mean_over_active_terms_name_no_cause(kb):
    rep = _report(kb, {**_SWINGING, "loss_mean_over_active_terms": True})
    assert rep["status"] == "healthy"
    assert not any(c["confidence"] >= 0.5 for c in rep["root_causes"])


def test_the_same_swings_of_a_plain_mean_stay_instability(kb):
    rep = _report(kb, _SWINGING)
    assert rep["status"] != "healthy" and rep["symptom"]["id"] == "instability"


def test_a_nan_under_a_mean_over_active_terms_is_still_a_fault(kb):
    rep = _report(kb, {**_SWINGING, "loss_mean_over_active_terms": True, "loss_has_nonfinite": True})
    assert rep["status"] != "healthy"


def test_a_printed_loss_going_nowhere_with_growing_swings_under_that_average_is_healthy(kb):
    # what a console log of such a run gives: every 50th loss, flat from first to last, swings growing
    rep = _report(kb, {**_SWINGING, "loss_trend": "flat", "loss_noise": 0.17, "run_length_steps": 450,
                       "loss_mean_over_active_terms": True})
    assert rep["status"] == "healthy"
    assert not any(c["confidence"] >= 0.5 for c in rep["root_causes"])
