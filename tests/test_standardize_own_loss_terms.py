"""The standardize experiment on a model that takes its loss's own weights and targets as inputs
(issue 12, session 49).

What a user would notice: a healthy GloVe run (the model's forward takes the word indices, the
log co-occurrence targets and the per-pair weights, and returns its own weighted squared error) was
diagnosed "Inputs not normalized" at 0.72: the experiment standardised the float arguments, the
weights among them, so the treated copy's weights went negative and its "loss" fell below zero
(-48 against 0.0015), read as a +3,000,000% gain. A change to the inputs alone that takes a loss the
unchanged copy keeps at or above zero below zero changed the objective, not the features: no
evidence. Unscaled features of an ordinary regression still confirm.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from traindx.engine import differential  # noqa: E402
from traindx.engine.api import load_kb  # noqa: E402
from traindx.probes.live.experiments import run_experiment  # noqa: E402


@pytest.fixture(scope="module")
def kb():
    return load_kb()


class _Glove(torch.nn.Module):
    def __init__(self, vocab=200, dim=8):
        super().__init__()
        self.w = torch.nn.Embedding(vocab, dim)
        self.c = torch.nn.Embedding(vocab, dim)

    def forward(self, idx, logx, weights):
        out = self.w(idx) @ self.c(idx).t()
        return torch.mean(weights * (out - logx) ** 2)


def _own_loss_batches(model, opt, steps=120):
    g = torch.Generator().manual_seed(0)
    X = torch.rand(200, 200, generator=g) * 50
    logX, fX = torch.log1p(X), (X / 50).clamp(max=1) ** 0.75
    batches = []
    for i in range(steps):
        idx = torch.randint(0, 200, (64,), generator=g)
        args = (idx, logX[idx][:, idx], fX[idx][:, idx])
        loss = model(*args)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i >= steps - 64:
            batches.append((args, {}, torch.zeros(()), ()))
    return batches


def _single_thread(fn):
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return fn()
    finally:
        torch.set_num_threads(n)


def test_standardising_the_losss_own_weights_is_no_evidence_for_unnormalized_inputs(kb):
    def go():
        torch.manual_seed(0)
        m = _Glove()
        o = torch.optim.Adam(m.parameters(), lr=1e-2)
        batches = _own_loss_batches(m, o)
        return run_experiment(m, o, batches, lambda out, t: out, differential.spec(kb, "standardize"))
    r = _single_thread(go)
    assert r["outcome"] != "confirms", r["detail"]
    assert "not the features" in r["detail"]


def test_unscaled_features_still_confirm(kb):
    def go():
        torch.manual_seed(0)
        X = torch.randn(4096, 8) * torch.tensor([300.0, 0.01, 50, 1, 2, 0.1, 80, 5]) + 40
        Y = (X - 40) / torch.tensor([300.0, 0.01, 50, 1, 2, 0.1, 80, 5]) @ torch.randn(8, 1)
        m = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        o = torch.optim.SGD(m.parameters(), lr=1e-6)
        fn = torch.nn.MSELoss()
        batches = []
        for i in range(200):
            j = (i * 32) % 4096
            xb, yb = X[j:j + 32], Y[j:j + 32]
            o.zero_grad()
            fn(m(xb), yb).backward()
            o.step()
            if i >= 136:
                batches.append(((xb,), {}, yb, (32, 1)))
        return run_experiment(m, o, batches, fn, differential.spec(kb, "standardize"))
    r = _single_thread(go)
    assert r["outcome"] == "confirms", r["detail"]
