"""The overfit-one-batch probe on a loss written by hand (no stock criterion to re-run): it trains its
copy on the loss's own recorded torch calls, on the whole batch that loss was made on, and says whether
the model can fit one batch at all -- the first question for a loss that will not fall. Before, the
probe was skipped for such a loss ("needs ... a stock or given loss function"), so a script that
writes its own loss never got that answer."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402


def _hand_nll(out, y):
    """Cross-entropy written out by hand, as scripts do: log-softmax, then the true class's entry."""
    return -(out - out.logsumexp(dim=1, keepdim=True)).gather(1, y[:, None]).mean()


def _watch_and_overfit(trainable: str):
    """Five steps of a 3-class problem on batches of 40, the loss observed without outputs or a
    criterion; then the probe. ``trainable``: "all", or "bias" (every weight frozen but the last bias)."""
    torch.manual_seed(0)
    x = torch.randn(200, 10)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    model = nn.Sequential(nn.Linear(10, 64), nn.Tanh(), nn.Linear(64, 3))
    if trainable == "bias":
        for name, p in model.named_parameters():
            p.requires_grad_(name == "2.bias")
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.01)
    with tp.watch(model, opt) as w:
        for i in range(5):
            xb, yb = x[40 * i:40 * i + 40], y[40 * i:40 * i + 40]
            loss = _hand_nll(model(xb), yb)
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
        result = w.overfit_one_batch()
        facts = {f.fact: f.value for f in w.findings()}
    return result, facts


def test_a_model_that_can_learn_fits_one_batch_of_its_hand_written_loss():
    result, facts = _watch_and_overfit("all")
    assert "skipped" not in result, result
    assert result["examples"] == 40          # the whole batch the tape was recorded on, not a slice
    assert result["fits"] is True and result["final"] < 0.1 * result["initial"], result
    assert facts["overfit_one_batch"] is True


def test_a_model_frozen_but_for_one_bias_cannot_fit_it():
    result, facts = _watch_and_overfit("bias")
    assert "skipped" not in result, result
    assert result["fits"] is False, result
    assert facts["overfit_one_batch"] is False
