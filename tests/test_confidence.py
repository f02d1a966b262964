"""engine/confidence.py on its own: the arithmetic every confidence in a report comes from."""

import math

import pytest

from traindx.engine import confidence as cf
from traindx.engine.parameters import shipped


def test_priors_keep_listed_values_and_sum_to_one():
    p = cf.priors(["a", "b", "c", "d"], {"a": 0.4, "b": 0.3})
    assert math.isclose(sum(p.values()), 1.0)
    assert math.isclose(p["a"], 0.4) and math.isclose(p["b"], 0.3)
    # the remaining 0.3 is shared half by "none of these", half by the unlisted causes
    assert math.isclose(p[cf.OTHER], 0.15)
    assert math.isclose(p["c"], 0.075) and math.isclose(p["d"], 0.075)


def test_no_cause_is_diagnosed_on_its_prior_alone():
    params = shipped()
    p = cf.priors(["a", "b", "c"], {"a": 0.7, "b": 0.1}, params)
    assert math.isclose(sum(p.values()), 1.0)
    assert p["a"] == params["confidence.max_prior"] < params["confidence.diagnosed"]
    assert math.isclose(p[cf.OTHER], 0.1 + (0.7 - params["confidence.max_prior"]))   # the excess: "none of these"
    assert math.isclose(p["b"], 0.1)


def test_priors_without_symptom_are_uniform():
    p = cf.priors(["a", "b"], None)
    assert math.isclose(p["a"], p["b"]) and math.isclose(p[cf.OTHER], shipped()["confidence.other_prior_no_symptom"])


def test_posterior_is_bayes_rule():
    prior = {"a": 0.5, "b": 0.25, cf.OTHER: 0.25}
    post = cf.posterior(prior, [("a", 4.0)])
    # 0.5*4 / (2 + 0.25 + 0.25)
    assert math.isclose(post["a"], 2.0 / 2.5)
    assert math.isclose(sum(post.values()), 1.0)


def test_evidence_against_lowers_and_order_does_not_matter():
    prior = {"a": 0.4, "b": 0.4, cf.OTHER: 0.2}
    p1 = cf.posterior(prior, [("a", 0.1), ("b", 3.0)])
    p2 = cf.posterior(prior, [("b", 3.0), ("a", 0.1)])
    assert p1 == pytest.approx(p2)
    assert p1["a"] < prior["a"] < p1["b"]


def test_extreme_evidence_stays_finite():
    prior = {"a": 0.5, cf.OTHER: 0.5}
    post = cf.posterior(prior, [("a", 1e300), ("a", 1e300)])
    assert post["a"] == pytest.approx(1.0) and all(math.isfinite(v) for v in post.values())
    assert cf.shown(post["a"]) == shipped()["confidence.max"]


def test_entropy_and_expected_entropy():
    d = {"a": 0.5, "b": 0.5}
    assert cf.entropy(d) == pytest.approx(1.0)
    # an answer that fully separates a from b removes (nearly) all uncertainty
    worlds = {"a": [("a", 1e6)], "b": [("b", 1e6)]}
    assert cf.expected_entropy(d, worlds) < 0.01
    # an answer that moves nothing leaves it where it was
    assert cf.expected_entropy(d, {}) == pytest.approx(1.0)


def test_ranked_excludes_other():
    r = cf.ranked({"a": 0.2, cf.OTHER: 0.7, "b": 0.1})
    assert [h for h, _ in r] == ["a", "b"]


def test_odds_factor_is_the_product_of_the_ratios_and_support_leaves_out_what_argues_against():
    from traindx.engine.confidence import odds_factor
    assert odds_factor([8.0, 0.5, 3.0]) == pytest.approx(12.0)
    assert odds_factor([8.0, 0.5, 3.0], supporting_only=True) == pytest.approx(24.0)
    assert odds_factor([]) == 1.0
