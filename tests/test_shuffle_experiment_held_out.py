"""The shuffle experiment holds its held-out examples out of both copies, and weighs its gain
against a second shuffle.

What a user would notice: on a run whose batches were already shuffled, traindx reported "with the
batches shuffled on a copy ... gain +12% ... confirms" and named unshuffled data. The treated copy
trained on a reshuffle of *all* kept examples, held-out ones included, so on a model that can
memorise it won by memory alone; and two equally random orders of the same examples end apart by
the run's own trajectory noise (small batches, high momentum), which a gain inside that noise does
not beat. A run fed in label order is still confirmed, and the report says the change was drawn twice.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from traindx.engine import differential  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")


def _run(kb, x, y, model, opt, bs):
    from traindx.probes.live.experiments import run_experiment
    c = int(y.max()) + 1
    batches = [((x[i:i + bs],), {}, y[i:i + bs], (bs, c)) for i in range(0, len(y), bs)]
    return run_experiment(model, opt, batches, torch.nn.CrossEntropyLoss(),
                          differential.spec(kb, "shuffle"))


@pytest.mark.parametrize("seed", [0, 1])
def test_an_already_shuffled_run_that_can_memorise_is_not_called_unshuffled(kb, seed):
    """Labels the inputs do not predict, a wide model and Adam at 1e-2: only memory of the very
    examples lowers a held-out loss, so a copy that never trains on them gains nothing."""
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(1024, 48, generator=g), torch.randint(0, 4, (1024,), generator=g)
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(48, 256), torch.nn.ReLU(), torch.nn.Linear(256, 4))
    r = _run(kb, x, y, model, torch.optim.Adam(model.parameters(), lr=1e-2), 16)
    assert r["outcome"] != "confirms", r["detail"]
    assert abs(r["gain"]) < 0.1, r["detail"]


def test_a_run_fed_in_label_order_is_confirmed_over_two_shuffles(kb):
    g = torch.Generator().manual_seed(5)
    centres = torch.randn(5, 16, generator=g) * 1.2
    y = torch.randint(0, 5, (1024,), generator=g).sort().values
    x = centres[y] + torch.randn(1024, 16, generator=g)
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5))
    r = _run(kb, x, y, model, torch.optim.Adam(model.parameters(), lr=1e-3), 16)
    assert r["outcome"] == "confirms", r["detail"]
    assert "2 draws of the change" in r["detail"]
    assert r["gain"] >= 3 * r["trajectory_spread"]


def test_a_gain_within_the_trajectory_noise_does_not_confirm():
    """The decision itself: a gain past the thresholds but within three times what a second draw of
    the same change moves is inconclusive; well past it, it confirms."""
    from traindx.probes.live.experiments import decide
    m = {"metric": "heldout_gain", "confirm_gain": 0.10, "confirm_z": 3, "refute_gain": 0.02,
         "replicates": 2, "trajectory_factor": 3}
    base = {"treated_finite": True, "control_finite": True, "gain": 0.15, "z": 4.0}
    assert decide(m, {**base, "trajectory_spread": 0.08}) == "inconclusive"
    assert decide(m, {**base, "trajectory_spread": 0.02}) == "confirms"
