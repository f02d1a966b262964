"""How a live run's curves are read: the symptom a user would name from the plot.

The live probes read per-step losses with the log reader's method (traindx.probes.readers.curves), so a
plateau hidden under step-to-step noise, a loss that wanders with no net progress, and a noisy
validation floor read as a user reading the plot would. Also: the labels-vs-inputs probe, and the
script runner's rule that a curve needs enough steps before its shape may stop the run.
"""

from __future__ import annotations

import math
import random

import pytest

from traindx.probes.live import losses as L


def noisy(values, rel=0.25, seed=0):
    """Per-step losses: the curve times (1 + rel * uniform noise), as minibatch losses scatter."""
    rnd = random.Random(seed)
    return [v * (1 + rel * (2 * rnd.random() - 1)) for v in values]


def read(values, val=()):
    an = L.curve_analysis(range(len(values)), values, val)
    return an.facts


def test_a_plateau_under_step_noise_reads_as_a_plateau():
    # falls from 0.7 to 0.58 in 60 steps, then sits at 0.58 for 540 noisy steps
    curve = [0.58 + 0.12 * math.exp(-i / 15) for i in range(600)]
    facts = read(noisy(curve, 0.08))
    assert facts["loss_trend"] == "plateaued"


def test_a_healthy_noisy_decay_keeps_reading_as_decreasing():
    curve = [1.4 * math.exp(-i / 120) + 0.01 for i in range(500)]
    assert read(noisy(curve, 0.4))["loss_trend"] == "decreasing"


def test_a_loss_that_wanders_without_progress_is_oscillating():
    # a blow-up at the start, then slow swings between ~1 and ~3 that the step-to-step noise
    # measure (a running median's residuals) does not see
    rnd = random.Random(1)
    curve = [1.2, 120.0, 26.0, 44.0, 17.0, 8.0, 4.0, 2.2]
    for i in range(120):
        curve.append(1.0 + (1.8 if (i // 15) % 3 == 1 else 0.2) + 0.1 * rnd.random())
    curve += [1.05] * 6
    facts = read(curve)
    assert facts["loss_trend"] == "oscillating"


def heavy_tailed(curve, seed=0, rate=0.04):
    """Per-batch losses with a heavy upper tail: now and then a batch holds a few badly fitted
    examples and its loss is 3-20x the level for that one step (MSE on outliers, hard batches)."""
    rnd = random.Random(seed)
    out = []
    for v in curve:
        m = v * (1 + 0.3 * (2 * rnd.random() - 1))
        if rnd.random() < rate:
            m *= rnd.uniform(3, 20)
        out.append(m)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_one_step_hard_batches_on_a_falling_loss_are_not_instability(seed):
    curve = [0.6 * math.exp(-i / 300) + 0.015 for i in range(1500)]
    facts = read(heavy_tailed(curve, seed))
    assert facts["loss_spikes"] > 30          # the spikes are still counted and reported
    assert facts["loss_trend"] == "decreasing"


@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_spikes_on_a_loss_that_stopped_falling_are_instability(seed):
    curve = [0.5 + 0.3 * math.exp(-i / 50) for i in range(1500)]
    assert read(heavy_tailed(curve, seed))["loss_trend"] == "oscillating"


def test_a_few_one_step_spikes_in_a_long_flat_run_are_not_instability():
    # a regression at its noise floor: 3 batches in 3000 with an outlier example
    rnd = random.Random(3)
    losses = [4.0 + 90 * math.exp(-i / 40) for i in range(3000)]
    losses = [v * (1 + 0.15 * (2 * rnd.random() - 1)) for v in losses]
    for i in (900, 1700, 2600):
        losses[i] = 150.0
    facts = read(losses)
    assert facts["loss_spikes"] == 3 and facts["loss_trend"] == "plateaued"


@pytest.mark.parametrize("seed", [0, 1])
def test_spikes_that_knock_a_falling_loss_off_course_for_several_steps_are_instability(seed):
    rnd = random.Random(seed)
    losses, kick = [], 0.0
    for i in range(1500):
        if rnd.random() < 0.01:
            kick = 8.0
        kick *= 0.6            # the loss needs several steps to come back: the weights were hit
        losses.append((0.6 * math.exp(-i / 300) + 0.015) * (1 + kick) * (1 + 0.1 * (2 * rnd.random() - 1)))
    assert read(losses)["loss_trend"] == "oscillating"


def test_noisy_validation_floor_with_a_late_bump_is_not_a_rise():
    floor = [0.97, 0.66, 0.52, 0.57, 0.29, 0.33, 0.18, 0.22, 0.18, 0.25, 0.22, 0.19, 0.13, 0.16, 0.14,
             0.13, 0.15, 0.15, 0.14, 0.25, 0.13, 0.12, 0.17, 0.12, 0.11, 0.11, 0.10, 0.11, 0.13, 0.12,
             0.15, 0.16, 0.15, 0.23, 0.28, 0.19, 0.16, 0.23, 0.21, 0.16, 0.15, 0.14, 0.11, 0.12, 0.12,
             0.11, 0.13, 0.12, 0.14, 0.11, 0.11, 0.12, 0.12, 0.12, 0.12, 0.13, 0.11, 0.12, 0.20, 0.17]
    pts = [(10 * (i + 1), v) for i, v in enumerate(floor)]
    assert L.curve_analysis((), (), pts).facts["val_loss_trend"] == "flat"


def test_a_validation_loss_that_keeps_rising_is_increasing():
    rising = [0.9, 0.6, 0.45, 0.36, 0.34] + [0.34 + 0.02 * i for i in range(1, 16)]
    pts = [(10 * (i + 1), v) for i, v in enumerate(noisy(rising, 0.03))]
    facts = L.curve_analysis((), (), pts).facts
    assert facts["val_loss_trend"] == "increasing"


# --------------------------------------------------------------------------- labels vs inputs
try:
    import torch
except ImportError:          # the curve and stopping tests of this module need no torch and still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")


def rings(n=1500, seed=0, permute=False):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    r = 1.0 + y + 0.25 * torch.randn(n, generator=g)
    th = 6.283 * torch.rand(n, generator=g)
    x = torch.cat([torch.stack([r * torch.cos(th), r * torch.sin(th)], 1), torch.randn(n, 6, generator=g)], 1)
    if permute:                  # the features are shuffled, the labels are not
        x = x[torch.randperm(n, generator=g)]
    return torch.utils.data.TensorDataset(x, y)


@needs_torch
def test_labels_that_follow_the_inputs_are_related_even_with_nuisance_features():
    from traindx.probes.live.data import label_neighbour_agreement, labels_related

    r = label_neighbour_agreement(rings())
    assert r["z"] > 4 and labels_related(r) is True


@needs_torch
def test_labels_shuffled_apart_from_their_inputs_are_unrelated():
    from traindx.probes.live.data import label_neighbour_agreement, labels_related

    r = label_neighbour_agreement(rings(permute=True))
    assert abs(r["agreement"] - r["chance"]) < 0.06 and labels_related(r) is False


@needs_torch
def test_label_probe_leaves_token_ids_and_rng_alone():
    from traindx.probes.live.data import label_neighbour_agreement

    tokens = torch.utils.data.TensorDataset(torch.randint(0, 100, (300, 12)), torch.randint(0, 3, (300,)))
    assert label_neighbour_agreement(tokens) is None        # a distance between token ids means nothing
    class Augmenting(torch.utils.data.Dataset):      # draws random numbers per item, as augmentation does
        def __init__(self, base):
            self.base = base

        def __len__(self):
            return len(self.base)

        def __getitem__(self, i):
            x, y = self.base[i]
            return x + 0.01 * torch.randn(x.shape) + 0.0 * random.random(), y

    torch.manual_seed(5)
    random.seed(5)
    before = (torch.random.get_rng_state(), random.getstate())
    assert label_neighbour_agreement(Augmenting(rings())) is not None    # it did read the items
    assert torch.equal(before[0], torch.random.get_rng_state()) and before[1] == random.getstate()


# --------------------------------------------------------------------------- stopping a run early
def test_a_curve_needs_enough_steps_before_it_may_stop_the_run(kb):
    from traindx.engine.api import Session
    from traindx.engine.frontends.cli import Gatherer
    from traindx.engine.evidence import Finding

    MIN_CURVE_STEPS = kb.params()["runner.min_curve_steps"]
    decide = Gatherer(Session(kb), st=None)._decider()
    flat = [Finding("loss_trend", "flat", "probe:loss_vs_chance", "flat"),
            Finding("learning_rate", 1e-6, "probe:optimizer_coverage", "lr"),
            Finding("optimizer", "sgd", "probe:optimizer_coverage", "sgd"),
            Finding("loss_at_chance", True, "probe:loss_vs_chance", "at chance"),
            Finding("update_ratio", 1e-7, "probe:update_ratio", "tiny updates"),
            Finding("grads_have_nan", False, "probe:grad_norms", "finite")]
    assert not decide(flat, 10) and not decide(flat, 20)          # decided, but only 20 steps in
    assert decide(flat, MIN_CURVE_STEPS)                           # enough steps, the same symptom again
    oscillating = [f if f.fact != "loss_trend" else Finding("loss_trend", "oscillating", f.source, "swings")
                   for f in flat]
    again = Gatherer(Session(kb), st=None)._decider()
    assert not again(flat, MIN_CURVE_STEPS + 10)                   # a first look never stops it ...
    assert not again(oscillating, MIN_CURVE_STEPS + 20)            # ... nor a look whose symptom changed
    nan = [Finding("loss_has_nonfinite", True, "probe:loss_vs_chance", "NaN"),
           Finding("nan_first_step", 3, "probe:nan_trace", "step 3"),
           Finding("inputs_have_nan", True, "probe:nan_trace", "NaN in the batch"),
           Finding("optimizer", "sgd", "probe:optimizer_coverage", "sgd")]
    fresh = Gatherer(Session(kb), st=None)._decider()
    assert fresh(nan, 4)                                  # a decided NaN stops it at once


@needs_torch
def test_data_probes_pass_over_data_they_cannot_read():
    from traindx.probes.live.data import label_neighbour_agreement, near_duplicate_fraction

    class Text(torch.utils.data.Dataset):
        def __len__(self):
            return 300

        def __getitem__(self, i):
            return (["a", "review"], "positive") if i % 2 else {"text": "a review", "label": i % 3}

    assert label_neighbour_agreement(Text()) is None
    assert near_duplicate_fraction(Text(), Text()) is None


@needs_torch
def test_near_copies_made_before_the_split_are_found_and_independent_data_is_not():
    from traindx.probes.live.data import near_duplicate_fraction

    g = torch.Generator().manual_seed(0)
    orig = torch.randn(240, 30, generator=g)
    copies = torch.cat([orig + 0.05 * torch.randn(240, 30, generator=g) for _ in range(5)])
    y = torch.randint(0, 4, (1200,), generator=g)
    split = torch.Generator().manual_seed(1)
    tr, va = torch.utils.data.random_split(torch.utils.data.TensorDataset(copies, y), [960, 240], generator=split)
    assert near_duplicate_fraction(tr, va)["fraction"] > 0.8
    tr, va = torch.utils.data.random_split(torch.utils.data.TensorDataset(torch.randn(1200, 30, generator=g), y),
                                           [960, 240], generator=split)
    assert near_duplicate_fraction(tr, va)["fraction"] < 0.05


def test_a_negative_loss_that_levels_off_is_not_running_to_minus_infinity():
    # a Gaussian NLL: starts near 0, falls below zero and settles at -1.2 (a bounded density fit)
    curve = [-1.2 + 1.17 * math.exp(-i / 40) for i in range(600)]
    facts = read([v + 0.1 * (2 * random.Random(i).random() - 1) for i, v in enumerate(curve)])
    assert facts["loss_negative"] is True
    assert facts["loss_trend"] != "diverging"


def test_a_negative_loss_still_running_off_is_diverging():
    # a density collapsing to a point: the NLL keeps falling without bound
    curve = [-0.03 - 0.01 * i for i in range(600)]
    facts = read(noisy(curve, 0.05))
    assert facts["loss_trend"] == "diverging"


P18_LIKE_VAL = [0.299, 0.250, 0.257, 0.237, 0.281, 0.249, 0.245, 0.247, 0.270, 0.247, 0.253, 0.235,
                0.223, 0.227, 0.242, 0.254, 0.262, 0.267]


def test_a_noisy_validation_floor_with_a_slight_late_drift_is_not_a_rise():
    # small-batch training at a label-noise floor: the loss fell from ln 2 to ~0.25 on validation,
    # then scatters by +-0.02; its last few evaluations sit 0.035 above the single lowest one
    train = [0.69 * math.exp(-i / 150) + 0.07 for i in range(1800)]
    val = [(100 * (k + 1), v) for k, v in enumerate(P18_LIKE_VAL)]
    assert read(noisy(train, 0.8), val)["val_loss_trend"] == "flat"


def test_a_validation_loss_giving_back_its_gain_is_still_rising():
    # the same scale of late rise, but the validation loss had gained little: it climbs back up
    train = [0.12 * math.exp(-i / 150) + 0.23 for i in range(1800)]
    val = [(100 * (k + 1), 0.30 - 0.004 * k if k < 12 else 0.252 + 0.008 * (k - 11)) for k in range(18)]
    assert read(noisy(train, 0.2), val)["val_loss_trend"] == "increasing"


@needs_torch
def test_the_label_checks_minimum_sample_is_a_parameter():
    """label_neighbours.min_examples: 100 training examples are enough at the shipped 64, and
    too few when a pack asks for 200 (the check then says nothing rather than guess)."""
    from traindx.engine.parameters import shipped
    from traindx.probes.live.data import label_neighbour_agreement

    assert shipped()["label_neighbours.min_examples"] == 64
    small = rings(n=100)
    assert label_neighbour_agreement(small, min_items=64) is not None
    assert label_neighbour_agreement(small, min_items=200) is None


# --------------------------------------------------------------------------- spikes at a loss near zero
def near_zero_run(seed=0, jumps=0.0, jump_to=(0.8, 1.6)):
    """Per-step cross-entropy of a classifier that learns its task: ~1.6 (ln 5) through a linear LR
    warm-up, then down to ~0.003. Per-batch scatter, a hard batch now and then (one misfit example
    in 48 adds ~0.03-0.2), and a warm-up bump at the LR's peak. ``jumps``: the share of steps where
    the loss is instead knocked back towards where it started (``jump_to``), recovering over a few
    steps -- a run that really is unstable."""
    rnd = random.Random(seed)
    out, kick = [], 0.0
    for i in range(450):
        v = 0.003 + 1.6 * math.exp(-max(0, i - 30) / 25)
        v *= 1 + 0.5 * (2 * rnd.random() - 1)
        if rnd.random() < 0.05:
            v += rnd.uniform(0.03, 0.2)
        if i == 100:
            v += 0.17
        if i > 150 and rnd.random() < jumps:
            kick = rnd.uniform(*jump_to)
        out.append(v + kick)
        kick *= 0.5
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_warmup_bump_and_hard_batches_at_a_loss_near_zero_are_not_instability(seed):
    # a loss at 0.003 with batches at 0.1-0.2 is "fifty times the level", yet each gives back a
    # tenth of what the run learned and is gone at the next step: no spikes, no instability
    losses = near_zero_run(seed)
    facts = read(losses)
    assert facts["loss_spikes"] == 0
    assert facts["loss_trend"] in ("plateaued", "decreasing")
    # the yardstick is knowledge (kb/parameters/curves.yaml): without it the same run "keeps spiking"
    from traindx.engine.parameters import resolve
    params = dict(resolve(None))
    params["curves.spike_progress_share"] = 0.0
    assert L.curve_analysis(range(len(losses)), losses, (), params=params).facts["loss_trend"] == "oscillating"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_loss_near_zero_knocked_back_towards_its_start_is_still_instability(seed):
    facts = read(near_zero_run(seed, jumps=0.02))
    assert facts["loss_spikes"] >= 3
    assert facts["loss_trend"] == "oscillating"


def test_a_live_validation_loss_near_zero_creeping_up_by_a_sliver_is_not_overfitting():
    # a live run reads its evaluations without the training loss: validation fell from 1.56 to
    # 0.0057 and, with the LR annealed to zero, drifts up to 0.0066 -- a rise of 15 % of its
    # level but 0.06 % of what it gained
    val = [1.56 * math.exp(-k / 3) + 0.0057 for k in range(38)]
    val += [0.0057 + 0.00013 * k for k in range(1, 8)]
    pts = [(10 * (k + 1), v) for k, v in enumerate(val)]
    assert L.curve_analysis((), (), pts).facts["val_loss_trend"] != "increasing"


def test_bounces_after_a_blow_up_in_the_first_steps_are_still_instability():
    # Adam at a far too high LR: the first loss is at chance (ln 4), the next steps blow up to 75,
    # then the loss keeps bouncing between ~0.7 and ~2 -- back above chance. The blow-up is not
    # "where the run started": measured from it, no later bounce would be a spike.
    rnd = random.Random(4)
    losses = [1.39, 34.3, 75.3, 51.1, 22.6, 7.2, 3.6, 2.7]
    for _ in range(300):
        v = 0.9 * (1 + 0.25 * (2 * rnd.random() - 1))
        if rnd.random() < 0.06:
            v = rnd.uniform(1.5, 2.2)
        losses.append(v)
    facts = read(losses)
    assert facts["loss_spikes"] >= 3
    assert facts["loss_trend"] == "oscillating"


def test_kicks_above_chance_after_a_first_loss_in_the_thousands_are_still_instability():
    # unscaled inputs (values up to 1e6) into a binary classifier with SGD: the first loss is
    # ~1800, it blows up to 1e7, then the model flips between the two constant predictions
    # (~0.67 / ~0.97) and is kicked to 5-20 now and then. Progress is not measured from the
    # thousands: chance, ln 2, is where a classifier starts.
    rnd = random.Random(41)
    losses = [1800.0, 2.1e5, 1.04e7, 3.0e4, 55.0, 3.1]
    for i in range(114):                # the first 120 steps: where a live run decides
        v = (0.67 if (i // 9) % 2 else 0.97) * (1 + 0.05 * (2 * rnd.random() - 1))
        if rnd.random() < 0.05:
            v = rnd.uniform(5, 20)
        losses.append(v)
    facts = L.curve_analysis(range(len(losses)), losses, (), 2).facts
    assert facts["loss_spikes"] >= 3
    assert facts["loss_trend"] in ("oscillating", "diverging")
