"""Both copies of an experiment draw the same randomness, and an LR the schedule set to zero can be restored.

What a user would notice: a model with dropout (or a VAE's sampled latent, or noise added in its
forward) draws fresh random numbers at every training step. The two copies of an experiment used to
draw different ones, so a change that did not reach the copy still left two different loss curves;
that difference, pure noise, was read as a measurement (for or against the cause). And a schedule
that drove the LR to exactly 0 (a StepLR with gamma=0) left nothing to scale: "the schedule's peak
LR restored" trained a copy at LR 0 against a copy at LR 0, and the noise between them refuted the
collapse that stopped the run.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from traindx.engine import differential  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")


def _blobs(n_batches=48, classes=5, width=12, seed=3):
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, width, generator=g) * 1.5
    y = torch.randint(0, classes, (n_batches * 16,), generator=g)
    x = centres[y] + torch.randn(len(y), width, generator=g)
    return [((x[i * 16:(i + 1) * 16],), {}, y[i * 16:(i + 1) * 16], (16, classes)) for i in range(n_batches)]


class _Noisy(torch.nn.Module):
    """Gaussian noise on the hidden layer in training, as a VAE's sampled latent adds it."""

    def __init__(self, width=12, classes=5):
        super().__init__()
        self.a = torch.nn.Linear(width, 24)
        self.b = torch.nn.Linear(24, classes)

    def forward(self, x):
        h = torch.tanh(self.a(x))
        if self.training:
            h = h + 0.3 * torch.randn_like(h)
        return self.b(h)


def test_a_change_that_does_not_reach_a_model_with_dropout_is_no_evidence(kb):
    """Dropout, and no squash at the output: dropping the squash changes nothing, whatever dropout draws."""
    from traindx.probes.live.experiments import run_experiment

    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                torch.nn.Linear(32, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    r = run_experiment(model, opt, _blobs(), torch.nn.CrossEntropyLoss(),
                       differential.spec(kb, "drop_squash"))
    assert r["outcome"] == "inconclusive", r["detail"]
    assert "did not reach this run" in r["detail"]


def test_both_copies_see_the_same_noise_and_the_run_keeps_its_own(kb):
    """Paired copies: with a noisy forward and nothing changed, the two copies train identically;
    the user's RNG is where it was."""
    from traindx.probes.live.experiments import run_experiment

    torch.manual_seed(2)
    model = _Noisy()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    state = torch.get_rng_state()
    r = run_experiment(model, opt, _blobs(), torch.nn.CrossEntropyLoss(),
                       differential.spec(kb, "drop_squash"))
    assert r["outcome"] == "inconclusive", r["detail"]
    assert torch.equal(torch.get_rng_state(), state)


def _collapsed_run():
    """A noisy classifier trained 12 steps at Adam 3e-3, then a StepLR with gamma=0 sets its LR to 0."""
    torch.manual_seed(4)
    model = _Noisy()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=12, gamma=0.0)
    fn = torch.nn.CrossEntropyLoss()
    batches = _blobs()
    for a, _kw, y, _s in batches:
        opt.zero_grad()
        fn(model(*a), y).backward()
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == 0.0
    return model, opt, batches, fn


def test_restoring_the_peak_of_an_lr_set_to_zero_moves_the_loss_again(kb):
    from traindx.probes.live.experiments import run_experiment

    model, opt, batches, fn = _collapsed_run()
    r = run_experiment(model, opt, batches, fn, differential.spec(kb, "restore_peak_lr"),
                       context={"peak_lr": 3e-3})
    assert r["outcome"] == "confirms", r["detail"]
    assert opt.param_groups[0]["lr"] == 0.0          # the user's optimizer is left as it was


def test_ten_times_an_lr_of_zero_is_not_an_experiment(kb):
    from traindx.probes.live.experiments import run_experiment

    model, opt, batches, fn = _collapsed_run()
    r = run_experiment(model, opt, batches, fn, differential.spec(kb, "lr_up"))
    assert r["outcome"] is None and "not applicable" in r["skipped"], r
