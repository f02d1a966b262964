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


def test_a_copy_of_a_module_the_loss_does_not_see_runs_no_experiment(kb):
    """A script with a feature extractor and a separate classifier head: the copied module's output
    (32x16 features) is not what the loss saw (32x6 class scores). Experiments, the LR-decay test
    and the overfit-one-batch test on such a copy would measure another loss: none is reported,
    each says why, and the user's module is left as it was."""
    from traindx.probes.live.experiments import run_experiment
    from traindx.probes.live.lr_decay import lr_decay_test
    from traindx.probes.live.overfit import overfit_one_batch

    torch.manual_seed(0)
    extractor = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())
    opt = torch.optim.SGD(extractor.parameters(), lr=0.05)
    batches = _batches(extractor)                   # out_shape (32, 6): the head's output
    before = [p.detach().clone() for p in extractor.parameters()]
    fn = torch.nn.CrossEntropyLoss()
    r = run_experiment(extractor, opt, batches, fn, differential.spec(kb, "lr_decay_on_plateau"))
    assert r["outcome"] is None and "not what the loss saw" in r["skipped"]
    assert "not what the loss saw" in lr_decay_test(extractor, opt, batches, fn)["error"]
    a, kw, t, shape = batches[0]
    o = overfit_one_batch(extractor, opt, a, kw, t, fn, out_shape=shape)
    assert o["fits"] is None and "not what the loss saw" in o["error"]
    assert all(torch.equal(p, q) for p, q in zip(before, extractor.parameters()))
