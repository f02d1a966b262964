"""A detector's prior bias on one of the heads its forward returns is no dead-ReLU bias.

What a user would notice: a two-head model (a class score and a box offset, as a RetinaNet or
EfficientDet head) starts its class logits at the focal-loss prior, ``score[-1].bias.fill_(-log((1 -
pi) / pi))``, and its forward returns both heads at once (``return self.score(h), self.offset(h)``).
Given the script and a healthy console (both losses falling), traindx named dead ReLU units at 0.57:
the returned tuple hid that the filled bias is the output layer's, which no ReLU follows.
"""
from __future__ import annotations

from pathlib import Path

from conftest import diagnose_code_and_log, top_cause

CODE = (Path(__file__).parent / "code_cases" /
        "a_prior_bias_on_one_of_the_heads_forward_returns_is_no_dead_relu_bias.py").read_text()


def _log():
    lines = []
    for e in range(1, 7):
        tr, va = 2.1 * 0.7 ** e, 2.0 * 0.72 ** e + 0.02
        lines.append(f"epoch {e}/6 - loss: {tr:.4f} - score_loss: {tr / 2:.4f} - val_loss: {va:.4f}\n")
    return "".join(lines)


def test_a_healthy_run_with_a_prior_on_a_returned_head_is_not_given_dead_relu(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE, _log())
    assert rep["symptom"]["id"] == "healthy"
    assert top_cause(rep) != "dead_relu"
    assert all(c["id"] != "dead_relu" or c["confidence"] < 0.2 for c in rep["root_causes"])


def test_the_same_bias_on_a_hidden_layer_is_still_read(tmp_path):
    code = CODE.replace("self.score[-1].bias.fill_", "self.score[0].bias.fill_")
    rep = diagnose_code_and_log(tmp_path, code, _log())
    assert any(f["fact"] == "init_bias_constant" for f in rep["facts"])
