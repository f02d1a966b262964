"""An experiment whose change never reaches the copy says nothing about the cause.

What a user would notice: traindx removes "the extra softmax" on a copy of a model that has no
softmax where the loss sees it (the softmax sits in another module, or there is none); both copies
then compute the very same losses. Reading that as "the softmax is not the problem" argued a real
double softmax away (a domain-adaptation script whose classifier head ends in nn.Softmax was
reported as overfitting). The report must say the change did not reach the run and count it as
no evidence; a change that does reach the copy is still weighed as before.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from traindx.engine import differential  # noqa: E402
from traindx.engine.api import Session  # noqa: E402


def _batches(model, n=64, classes=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, 16, generator=g) * 2
    y = torch.randint(0, classes, (n * 32,), generator=g)
    x = centres[y] + torch.randn(len(y), 16, generator=g)
    return [((x[i * 32:(i + 1) * 32],), {}, y[i * 32:(i + 1) * 32], (32, classes)) for i in range(n)]


def _run(kb, model):
    from traindx.probes.live.experiments import run_experiment

    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return run_experiment(model, opt, _batches(model), torch.nn.CrossEntropyLoss(),
                              differential.spec(kb, "drop_squash"))
    finally:
        torch.set_num_threads(n)


def test_a_change_that_does_not_reach_the_copy_is_no_evidence(kb):
    torch.manual_seed(0)
    # raw features (ReLU, values above 1): nothing to unsquash at the output the loss sees
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 6), torch.nn.ReLU())
    r = _run(kb, model)
    assert r["outcome"] == "inconclusive", r["detail"]
    assert "did not reach this run" in r["detail"]
    # folded into the diagnosis, it leaves the code reader's evidence for a double softmax standing
    s = Session(kb)
    s.add("symptom", "plateau", source="probe:loss_vs_chance")
    s.add("output_activation", "softmax", source="probe:output_squash")
    s.add("loss_function", "cross_entropy", source="probe:output_squash")
    before = dict(s.posterior())["double_softmax"]
    s.add("exp_drop_squash", r["outcome"], source="probe:experiment")
    assert dict(s.posterior())["double_softmax"] == pytest.approx(before)


def test_a_change_that_reaches_the_copy_is_still_weighed(kb):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 6),
                                torch.nn.Softmax(dim=1))
    r = _run(kb, model)
    assert "did not reach" not in r["detail"]
    assert r["treated_loss"] != r["control_loss"]
    assert r["outcome"] == "confirms", r["detail"]
