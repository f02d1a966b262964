"""The one-batch fit runs at the run's own LR for a fixed number of steps. When it misses the fit
while its loss is still coming down steadily, the LR set the pace and the budget ended the test
(overfit_still_falling true); when the loss has stopped, the model cannot go lower (false). Only a
stopped fit keeps a levelled-off run from being read as converged at its data's floor."""
import torch
import torch.nn as nn

import traindx.probes.live.overfit as OF


def _fit(lr, targets):
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    y = targets(x)
    return OF.overfit_one_batch(model, opt, (x,), {}, y, nn.functional.mse_loss, out_shape=(16, 1),
                                shuffled=False)


def test_a_fit_paced_by_a_small_lr_is_still_falling():
    r = _fit(5e-5, lambda x: x @ torch.tensor([[1.0], [-2.0], [0.5], [1.5]]) + 3.0)
    assert r["fits"] is False
    assert r["still_falling"] is True


def test_a_fit_that_reached_what_the_model_allows_has_stopped():
    g = torch.Generator().manual_seed(1)
    r = _fit(0.05, lambda x: 3.0 * torch.randn(16, 1, generator=g))   # noise a linear map cannot fit
    assert r["fits"] is False
    assert r["still_falling"] is False
