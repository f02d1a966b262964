"""A loss that rises because the script re-weights its own terms is a schedule, not overfitting.

What a user would notice: a VAE whose KL weight is annealed from 1e-4 to 1 logs a loss (and a
validation reconstruction) that rises for most of the run by design; traindx called it overfitting
and prescribed regularization. The live monitor now reads the constant weights of the loss's terms
off its graph (``rec + beta * kl``: beta), and a weight the script moves in one direction by a large
factor makes the rise the schedule's: the run reads healthy. The same rise under fixed weights is
still overfitting, and a factor that goes up and down with each batch (a mask count) is no schedule.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import Session  # noqa: E402
from traindx.probes.live import losses as L  # noqa: E402


def _train(weight_at, steps=120):
    """A small VAE-like model trained under watch(); ``weight_at(step, batch)`` is the KL weight
    (a Python number) the script multiplies its second term by. Returns the findings by fact."""
    torch.manual_seed(0)
    enc, dec = torch.nn.Linear(8, 4), torch.nn.Linear(2, 8)
    model = torch.nn.ModuleDict({"enc": enc, "dec": dec})
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(512, 8)
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(steps):
            xb = x[(step * 32) % 512:(step * 32) % 512 + 32]
            mu, logvar = enc(xb).chunk(2, 1)
            z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
            rec = ((dec(z) - xb) ** 2).sum(1).mean()
            kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
            loss = rec + weight_at(step, xb) * kl
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_an_annealed_kl_weight_is_read_as_a_schedule():
    found = _train(lambda step, xb: 1e-4 + (1 - 1e-4) * min(1.0, step / 96))
    f = found["loss_weights_scheduled"]
    assert f.value is True
    assert "0.0001 -> 1" in f.detail


def test_a_fixed_weight_and_a_weight_that_follows_the_batch_are_no_schedule():
    assert found_value(_train(lambda step, xb: 0.5)) is False
    # a factor that goes up and down from batch to batch (here the batch's own scale) is a
    # normaliser, not a schedule, however much it varies
    g = torch.Generator().manual_seed(3)
    factors = (torch.rand(200, generator=g) * 4 + 0.1).tolist()
    assert found_value(_train(lambda step, xb: factors[step])) is False


def found_value(found):
    return found["loss_weights_scheduled"].value


def test_the_weights_are_read_from_the_sums_at_the_top_of_the_loss_only():
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    weights = L.loss_term_weights(a.mean() + 0.25 * b.sum() + b / 4 - torch.tensor(0.5) * a, 32)
    assert sorted(weights) == [0.25, 0.25, 0.5]
    # a constant inside a term (inside the model) is no weight of the loss
    assert L.loss_term_weights((0.25 * b).exp() + a, 32) == ()
    # a learned weight (it needs a gradient) is no schedule the script applies
    assert L.loss_term_weights(a * b + a, 32) == ()


_S190 = {  # what the live run of a KL-annealed VAE measured (benchmarks/scenarios/s190.py)
    "loss_trend": "plateaued", "loss_decrease_fraction": 0.5931, "val_loss_trend": "increasing",
    "regularization": ["none"], "optimizer": "adam", "learning_rate": 0.001, "zero_grad_called": True,
}


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


def test_a_validation_rise_under_a_scheduled_weight_reads_healthy(kb):
    rep = _report(kb, {**_S190, "loss_weights_scheduled": True})
    assert rep["status"] == "healthy", (rep["status"], rep["root_causes"][:2])
    assert rep["normal"]["behaviours"][0]["id"] == "rise_by_schedule"


def test_the_same_rise_under_fixed_weights_is_still_overfitting(kb):
    for facts in (_S190, {**_S190, "loss_weights_scheduled": False}):
        rep = _report(kb, facts)
        assert rep["status"] == "diagnosed" and rep["symptom"]["id"] == "overfitting"
        assert rep["root_causes"][0]["id"] == "insufficient_regularization"
