"""The seed's behaviours, end to end through the public API (issue 2, section 7)."""

import math

import jsonschema
import pytest

from traindx.engine.api import Session, diagnose


@pytest.fixture(scope="module")
def report_schema():
    from traindx.engine.loader import schema_for
    return schema_for("report")


def check(report, schema):
    jsonschema.validate(report, schema)
    return report


def test_flat_loss_tiny_lr_at_chance_is_lr_too_low(kb, report_schema):
    r = check(diagnose({"learning_rate": 1e-7, "current_loss": math.log(10), "num_classes": 10},
                       complaint="loss flat from epoch 0", kb=kb), report_schema)
    assert r["status"] == "diagnosed"
    assert r["symptom"]["id"] == "not_learning"
    assert r["root_causes"][0]["id"] == "lr_too_low"
    assert r["fix"]["reference"] == "learning-rate-scheduling"
    # the loss-at-chance finding is part of the explanation, with its source
    facts = {e["fact"] for e in r["root_causes"][0]["evidence"]}
    assert {"learning_rate", "current_loss", "num_classes"} <= facts
    assert all(e["source"] == "user" for e in r["root_causes"][0]["evidence"])


def test_values_in_the_complaint_are_read_and_flagged_as_such(kb):
    r = diagnose(complaint="loss flat from epoch 0, lr 1e-7, loss is 2.302 with 10 classes", kb=kb)
    assert r["root_causes"][0]["id"] == "lr_too_low"
    assert any("read from your description" in c for c in r["caveats"])


def test_nan_at_step_200_with_nan_grads_no_amp(kb, report_schema):
    r = check(diagnose({"grads_have_nan": True, "uses_amp": False}, complaint="loss went to NaN at step 200", kb=kb),
              report_schema)
    assert r["symptom"]["id"] == "explosion"
    top = r["root_causes"][0]["id"]
    assert top in ("exploding_gradients", "lr_too_high", "numerical_instability")
    assert top != "fp16_overflow"
    answered = {q["id"] for q in r["questions"]}
    assert "mixed_precision" in answered and "nan_when" in answered   # step 200 came from the words
    gaps = " ".join(r["information_gaps"])
    assert "custom (hand-written) loss" in gaps                       # asked about, not answered: a gap


def test_different_optimizer_is_stopped(kb):
    s = Session(kb)
    s.add_complaint("let me try a different optimizer")
    r = s.report()
    assert r["misdiagnosis"]["id"] == "different_optimizer"
    assert r["misdiagnosis"]["stop"] is True
    assert r["fix"] is None                       # nothing recommended, least of all an optimizer
    assert s.next_question()["id"] == "loss_behavior"    # the loss behaviour is asked first
    text = s.markdown().lower()
    assert "switch optimizers" in text and "optimizer is rarely the cause" in text


@pytest.mark.parametrize("words,response", [
    ("just tell me which optimizer", "What's your loss behavior? Optimizer is rarely the issue."),
    ("demo tomorrow, need quick fix", "Quick diagnosis (30 sec) is faster than trial-and-error."),
    ("I need to tune LR randomly", "What symptom are you seeing? Let's diagnose systematically."),
])
def test_pressure_gets_the_seed_response(kb, words, response):
    r = diagnose(complaint=words, kb=kb)
    assert r["pressure"]["response"] == response
    assert r["fix"] is None                                  # no guess, least of all an optimizer
    assert r["root_causes"] == [] or r["root_causes"][0]["confidence"] < 0.5
    from traindx.engine.markdown import render_markdown
    assert render_markdown(r).split("### Symptom Identified")[0].strip().endswith(f"> {response}")


def test_architecture_question_is_not_triggered(kb):
    r = diagnose(complaint="which architecture should I use for my images?", kb=kb)
    assert r["status"] == "out_of_scope"
    assert r["deferral"]["to"] == "neural-architectures"
    assert r["root_causes"] == [] and r["fix"] is None


def test_cuda_oom_found_and_not_found(kb, tmp_path):
    from traindx.engine.loader import load_kb
    r = diagnose(complaint="RuntimeError: CUDA out of memory", kb=kb)
    assert r["deferral"]["to"] == "pytorch-engineering"
    assert r["deferral"]["found"] is False
    assert "consider installing" in r["deferral"]["message"]
    pack = tmp_path / "pt_pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text("kind: pack\nname: pytorch-engineering\nprovides: [pytorch-engineering]\n")
    kb2 = load_kb([str(pack)])
    r2 = diagnose(complaint="RuntimeError: CUDA out of memory", kb=kb2)
    assert r2["deferral"]["found"] is True
    assert "Load the pytorch-engineering pack" in r2["deferral"]["message"]


def test_crash_evidence_defers_without_words(kb):
    r = diagnose({"error_kind": "dataloader_error"}, kb=kb)
    assert r["status"] == "out_of_scope" and r["deferral"]["to"] == "pytorch-engineering"


def test_rl_reward_problem_is_deferred(kb):
    r = diagnose(complaint="my PPO agent's reward stays flat", kb=kb)
    assert r["deferral"]["to"] == "deep-rl"


def test_more_epochs_while_flat_names_misdiagnosis_and_pursues_cause(kb):
    s = Session(kb)
    s.add_complaint("I think it just needs more epochs, the loss is flat")
    r = s.report()
    assert r["misdiagnosis"]["id"] == "more_epochs"
    assert r["symptom"]["id"] == "not_learning"
    q = s.next_question()
    assert q is not None and q["id"] != "loss_behavior"       # it pursues the cause
    s.answer("learning_rate", "1e-6")
    s.answer("loss_value", "2.30, 10")
    r = s.report()
    assert r["root_causes"][0]["id"] == "lr_too_low"
    assert any("more epochs" in w.lower() for w in r["what_not_to_do"])


def test_healthy_run_is_reported_healthy(kb):
    r = diagnose({"loss_trend": "decreasing", "train_accuracy": 0.93, "val_accuracy": 0.91}, kb=kb)
    assert r["status"] == "healthy"
    assert r["fix"] is None


def test_overfitting_gap(kb):
    r = diagnose({"train_accuracy": 0.99, "val_accuracy": 0.62, "regularization": [], "loss_trend": "decreasing"},
                 kb=kb)
    assert r["symptom"]["id"] == "overfitting"
    assert r["root_causes"][0]["id"] == "insufficient_regularization"
    assert r["fix"]["reference"] == "overfitting-prevention"


def test_markdown_sections_in_seed_order(kb):
    md = Session(kb)
    md.add_answers({"learning_rate": 1e-7, "symptom": "not_learning"})
    text = md.markdown()
    order = ["### Symptom Identified", "### Diagnostic Questions Asked", "### Root Cause", "**Category:**",
             "**Specific Issue:**", "**Evidence:**", "### Fix", "### What NOT to Do", "### Reference",
             "### Confidence Assessment", "### Risk Assessment", "### Information Gaps", "### Caveats"]
    positions = [text.index(h) for h in order]
    assert positions == sorted(positions)
    assert "```python" in text


@pytest.mark.parametrize("words,step", [("my loss went to NaN after about 300 steps", 300),
                                        ("loss became inf around iteration 50", 50),
                                        ("nan in loss after 3 epochs", None)])
def test_first_nan_step_read_from_words(kb, words, step):
    s = Session(kb)
    s.add_complaint(words)
    assert s.value("nan_first_step") == step
