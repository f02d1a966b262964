"""A regression whose script prints a Keras-style "accuracy" (rounded predictions equal to the targets)
(issue 12, session 27).

What a user would notice: a house-price regression (MSE on a price the script builds from its features
plus noise) that also computes ``(t == torch.round(p)).mean()`` was diagnosed from its code alone as a
regression loss on a classification task (wrong_loss_function 0.91) - a false alarm on a healthy run,
the accuracy of a regression being about 0 by construction. The targets' values are now followed back
to continuous draws (target_kind = continuous) and the class reading stands down. Class ids regressed
with MSE and scored by rounding (an integer draw) are still that bug.
"""
from __future__ import annotations

import os

from code_expectations import CASES_DIR
from conftest import diagnose_json


def _case(name):
    return os.path.join(CASES_DIR, name)


def _confidence(rep, cause):
    return next((c["confidence"] for c in rep["root_causes"] if c["id"] == cause), 0.0)


def test_a_price_built_from_draws_and_scored_by_rounding_is_no_classification():
    rep = diagnose_json("--code", _case("a_regression_target_from_a_formula_scored_by_rounding_is_continuous.py"))
    assert rep["status"] != "diagnosed"
    assert _confidence(rep, "wrong_loss_function") < 0.5


def test_class_ids_regressed_and_scored_by_rounding_are_still_a_wrong_loss():
    rep = diagnose_json("--code", _case("class_ids_regressed_and_scored_by_rounding_are_not_continuous.py"))
    assert rep["root_causes"][0]["id"] == "wrong_loss_function"
