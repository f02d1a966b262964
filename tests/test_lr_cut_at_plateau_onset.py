"""A loss that levels off where the schedule takes the LR away (issue 12, session 32).

What a user would notice: a StepLR built with gamma=0 (a "no scheduler" setting written as a
schedule) sets the LR to 0 part-way through while the loss is still falling; the loss then sits
flat for the rest of the run. traindx read the plateau as starting a few steps before the cut
(the plateau test's onset is a smoothed estimate), took the cut for "the run's own decay through
a plateau it had already reached" (lr_decay_helps false) and called the run healthy: converged at
what the data allow. A plateau has to hold under the LR for a share of its length
(curves.decay_held_share) before a cut answers the decay question, and a plateau that begins
where the LR collapses for good names the schedule (loss_stopped_at_lr_collapse).
"""

from __future__ import annotations

import math

import pytest

from traindx.engine.api import diagnose
from traindx.probes.readers.curves import decayed_through_plateau, plateau_at_lr_collapse

# a StepLR with gamma 0 at step 300 of 500: the LR is 1e-3 before and 0 after
CUT_TO_ZERO = [(0, 1e-3), (300, 0.0)]


def test_a_cut_a_few_steps_into_the_plateau_does_not_answer_the_decay_question():
    # the plateau test put the onset at step 290, ten steps before the cut, and it lasts to 500
    assert decayed_through_plateau(CUT_TO_ZERO, 290, end=500) is None
    # a loss that was flat from step 100 under the held LR, then cut: the run answered it
    assert decayed_through_plateau(CUT_TO_ZERO, 100, end=500) == (1e-3, 0.0)


def test_a_cosine_run_levelled_at_mid_run_still_answers_it():
    lrs = [(s, 0.15 * (1 + math.cos(math.pi * s / 720))) for s in range(720)]
    assert decayed_through_plateau(lrs, 361, end=719) is not None


def test_the_plateau_that_begins_at_the_collapse_is_the_collapse():
    assert plateau_at_lr_collapse(CUT_TO_ZERO, 290, 500) is True
    assert plateau_at_lr_collapse(CUT_TO_ZERO, 310, 500) is True       # read a little after the cut
    assert plateau_at_lr_collapse(CUT_TO_ZERO, 100, 500) is False      # a floor reached long before
    assert plateau_at_lr_collapse([(0, 1e-3), (300, 5e-4)], 290, 500) is None   # halved, not collapsed


def test_a_loss_stopped_by_the_collapse_is_not_called_converged():
    facts = {"loss_trend": "plateaued", "loss_decrease_fraction": 0.8, "lr_final_ratio": 0.0, "lr_peak_ratio": 1.0,
             "lr_collapse_fraction": 0.6, "scheduler": "steplr", "optimizer": "adam", "learning_rate": 5e-4,
             "update_ratio": 0.0014, "loss_function": "custom",
             "loss_stopped_at_lr_collapse": True}
    r = diagnose(facts)
    assert r["status"] != "healthy"
    assert r["root_causes"][0]["id"] == "lr_schedule_collapse"
    # copies at a tenth of the LR that did no better earlier, under the held LR, answer another stretch
    r = diagnose({**facts, "lr_decay_helps": False})
    assert r["status"] != "healthy"
    assert r["root_causes"][0]["id"] == "lr_schedule_collapse"
    # a KL weight annealed over the same run (the loss's own objective grows) is no excuse either
    r = diagnose({**facts, "loss_weights_scheduled": True})
    assert r["status"] != "healthy"
    assert r["root_causes"][0]["id"] == "lr_schedule_collapse"


torch = pytest.importorskip("torch")


def _run(gamma: float, steps=400, cut=240):
    import traindx.probes as tp

    torch.manual_seed(0)
    x = torch.randn(512, 6)
    y = x @ torch.randn(6, 1) * 3 + 0.1 * torch.randn(512, 1)
    model = torch.nn.Linear(6, 1)
    opt = torch.optim.SGD(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cut, gamma=gamma)
    crit = torch.nn.MSELoss()
    with tp.watch(model, opt, criterion=crit, experiments=False) as w:
        for _ in range(steps):
            out = model(x)                        # full batch: a smooth, steady descent
            loss = crit(out, y)
            w.observe(loss, out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    return {f.fact: f.value for f in w.findings()}


def test_a_steplr_with_gamma_zero_mid_descent_is_read_from_the_run():
    found = _run(gamma=0.0)
    assert found.get("loss_stopped_at_lr_collapse") is True
    assert found.get("lr_decay_helps") is not False
