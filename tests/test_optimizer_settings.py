"""The optimizer's own settings as evidence: Adam's eps and SGD's momentum, read from the code and from the
live optimizer, and a loop that clears its gradients between backward() and step().

A user whose Adam has eps=0.1 (a port that copied another framework's value) sees a loss that barely moves;
traindx has to name the optimizer's configuration, not a missing LR decay. A user whose loop calls
zero_grad() after backward() sees the same flat loss; traindx has to name the gradient that never reaches the
weights, not a dead ReLU or a learning rate."""

from __future__ import annotations

import pytest

from conftest import diagnose_code_and_log, facts_by_id, top_cause

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402


def _watch(opt_factory):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = opt_factory(model.parameters())
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(8):
            out = model(x[step * 8:(step + 1) * 8])
            loss = torch.nn.functional.cross_entropy(out, y[step * 8:(step + 1) * 8])
            w.observe(loss, out, y[step * 8:(step + 1) * 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f.value for f in w.findings()}


def test_the_live_optimizer_reports_adams_eps():
    found = _watch(lambda p: torch.optim.Adam(p, lr=1e-3, eps=0.1))
    assert found["adam_eps"] == pytest.approx(0.1)
    assert "momentum" not in found


def test_the_live_optimizer_reports_sgds_momentum_and_no_eps():
    found = _watch(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
    assert found["momentum"] == pytest.approx(0.9)
    assert "adam_eps" not in found


_SEQ2SEQ_LIKE = """\
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Embedding(60, 64), torch.nn.Flatten(), torch.nn.Linear(64 * 8, 60))
opt = torch.optim.Adam(model.parameters(), lr=0.001, eps=0.1)
for epoch in range(8):
    for step in range(100):
        x, y = torch.randint(0, 60, (32, 8)), torch.randint(0, 60, (32,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
"""

# the loss falls a little in the first epoch and then crawls: a plateau by its shape
_CRAWL = "".join(f"epoch {e} loss {v:.4f}\n" for e, v in
                 enumerate([4.105, 3.975, 3.920, 3.895, 3.906, 3.887, 3.872, 3.867]))


def test_a_crawling_loss_under_a_huge_adam_eps_is_the_optimizer_configuration(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SEQ2SEQ_LIKE, _CRAWL)
    assert facts_by_id(rep)["adam_eps"]["value"] == pytest.approx(0.1)
    assert top_cause(rep) == "optimizer_misconfigured"


def test_the_same_curve_with_adams_default_eps_is_not_blamed_on_the_optimizer(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _SEQ2SEQ_LIKE.replace(", eps=0.1", ""), _CRAWL)
    assert "adam_eps" not in facts_by_id(rep)
    assert top_cause(rep) != "optimizer_misconfigured"


_CLEARED_BEFORE_STEP = """\
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 5), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Linear(8 * 24 * 24, 47))
opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=300, eta_min=1e-5)
for epoch in range(3):
    for step in range(100):
        x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 47, (64,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.zero_grad()
        opt.step()
        sched.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
"""

_FLAT_AT_CHANCE = "".join(f"epoch {e} loss {v:.4f}\n" for e, v in enumerate([3.850, 3.855, 3.854]))


def test_gradients_cleared_between_backward_and_step_are_the_broken_gradient_flow(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _CLEARED_BEFORE_STEP, _FLAT_AT_CHANCE)
    facts = facts_by_id(rep)
    assert facts["grads_cleared_before_step"]["value"] is True
    # the code reader says nothing about what the gradients measured: that is the live probe's fact
    assert "grads_all_zero" not in facts
    assert top_cause(rep) == "broken_gradient_flow"
    first, second = rep["root_causes"][0]["confidence"], rep["root_causes"][1]["confidence"]
    assert first > 2 * second
