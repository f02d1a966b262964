"""The LR-decay test: on a plateau under a held LR, does a tenth of the LR lower the held-out loss?

A plateau held up by SGD's own step noise (small noisy batches, momentum, a constant LR) drops
when the LR is lowered; a plateau at the data's own floor (label noise the model cannot beat)
does not. The curve cannot tell these apart; copies continued at both LRs can.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from traindx.engine.parameters import shipped  # noqa: E402
from traindx.probes.live import lr_decay as LD  # noqa: E402
from traindx.probes import watch  # noqa: E402


def regression(n=4000, noise=0.3, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    w = torch.randn(8, 1, generator=g)
    y = x @ w + 0.5 * torch.sin(3 * x[:, :1]) + noise * torch.randn(n, 1, generator=g)
    return x, y


def label_noise_classification(n=6000, flip=0.1, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 6, generator=g)
    w = torch.tensor([[1.5], [-2.0], [1.0], [0.5], [0.0], [0.8]])
    y = ((x @ w).squeeze(1) > 0).float()
    flips = torch.rand(n, generator=g) < flip
    y = torch.where(flips, 1 - y, y).unsqueeze(1)
    return x, y


def batches_of(x, y, bs, seed):
    g = torch.Generator().manual_seed(seed)
    while True:
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x) - bs + 1, bs):
            idx = perm[i:i + bs]
            yield x[idx], y[idx]


def trained(model, opt, loss_fn, data, steps):
    it = iter(data)
    for _ in range(steps):
        xb, yb = next(it)
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    return it


def watched(model, opt, crit, data, sched=None, steps=1500):
    """The user's loop under watch(): ``steps`` steps on ``data``, the scheduler stepped per batch."""
    with watch(model, opt, criterion=crit) as w:
        for _ in range(steps):
            xb, yb = next(data)
            opt.zero_grad()
            out = model(xb)
            loss = crit(out, yb)
            w.observe(loss, outputs=out, targets=yb)
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
    return w


def test_a_plateau_held_up_by_sgd_noise_is_lowered_by_a_decay():
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    it = trained(model, opt, nn.MSELoss(), batches_of(x, y, 16, 1), 600)
    batches = [((xb,), {}, yb, None) for xb, yb in (next(it) for _ in range(64))]
    r = LD.lr_decay_test(model, opt, batches, nn.MSELoss())
    assert r["helps"] is True, r
    assert r["loss_lower_lr"] < r["loss_same_lr"] and r["steps"] == 48 and r["held_out"] == 16


def test_a_decay_that_lowers_only_the_training_batches_crosses_no_floor():
    """The floor is what unseen data allows: copies at a tenth of the LR that get lower on recent
    training batches but not on the run's validation batches answer no "decay helps"; the same copies
    scored on validation data like the training data still do."""
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    it = trained(model, opt, nn.MSELoss(), batches_of(x, y, 16, 1), 600)
    batches = [((xb,), {}, yb, None) for xb, yb in (next(it) for _ in range(64))]
    xv, yv = x[:512], y[:512]
    like = [((xv[i:i + 64],), {}, yv[i:i + 64], None) for i in range(0, 512, 64)]
    g = torch.Generator().manual_seed(3)
    unlike = [((xv[i:i + 64],), {}, 4 * torch.randn(64, 1, generator=g), None) for i in range(0, 512, 64)]
    r = LD.lr_decay_test(model, opt, batches, nn.MSELoss(), val=like)
    assert r["helps"] is True and r["val_gain"] >= shipped()["lr_decay.val_helps"], r
    r = LD.lr_decay_test(model, opt, batches, nn.MSELoss(), val=unlike)
    assert r["gain"] >= shipped()["lr_decay.helps"] and r["helps"] is not True, r
    assert r["val_gain"] < shipped()["lr_decay.val_helps"]


def test_a_gain_inside_one_batchs_luck_is_the_datas_floor():
    """25% random labels: a tenth of the LR shaves a few percent off the held-out loss, consistently
    (paired), but far inside the spread of the loss from batch to batch. The answer is "no": the
    data's floor holds the loss, and the run is free to read as converged."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(6000, 16, generator=g)
    centres = torch.randn(4, 16, generator=g) * 1.6
    y = torch.randint(0, 4, (6000,), generator=g)
    x = centres[y] + x
    flip = torch.rand(6000, generator=g) < 0.25
    y = torch.where(flip, torch.randint(0, 4, (6000,), generator=g), y)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
    it = trained(model, opt, nn.CrossEntropyLoss(), batches_of(x, y, 32, 1), 400)
    batches = [((xb,), {}, yb, None) for xb, yb in (next(it) for _ in range(64))]
    r = LD.lr_decay_test(model, opt, batches, nn.CrossEntropyLoss())
    p = shipped()
    assert r["gain"] >= p["lr_decay.no_help"], r          # a real, small gain ...
    assert r["gain"] < p["lr_decay.within_noise"] * r["batch_spread"], r   # ... inside the data's noise
    assert r["helps"] is False, r


def test_a_plateau_at_the_datas_label_noise_is_not():
    torch.manual_seed(0)
    x, y = label_noise_classification()
    model = nn.Linear(6, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    it = trained(model, opt, nn.BCEWithLogitsLoss(), batches_of(x, y, 64, 1), 600)
    batches = [((xb,), {}, yb, None) for xb, yb in (next(it) for _ in range(64))]
    r = LD.lr_decay_test(model, opt, batches, nn.BCEWithLogitsLoss())
    assert r["helps"] is False, r
    assert abs(r["gain"]) < shipped()["lr_decay.no_help"]


def test_too_few_batches_give_no_answer():
    model = nn.Linear(6, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    b = ((torch.randn(8, 6),), {}, torch.rand(8, 1), None)
    assert LD.lr_decay_test(model, opt, [b] * 5, nn.BCEWithLogitsLoss()) is None


def test_a_watched_loop_runs_the_test_by_itself_when_the_loss_plateaus():
    # SGD noise floor: the watch sees the plateau under a constant LR, keeps the next batches,
    # and answers lr_decay_helps without being asked
    torch.manual_seed(0)
    x, y = regression(noise=0.5)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    crit = nn.MSELoss()
    data = batches_of(x, y, 32, 1)
    w = watched(model, opt, crit, data)
    runs = w.summary()["lr_decay"]
    assert runs and all(r["at_step"] < 1500 for r in runs), runs
    facts = {f.fact: f for f in w.findings()}
    assert facts["lr_decay_helps"].value is True
    assert facts["lr_decay_helps"].source == "probe:lr_decay"
    assert math.isfinite(facts["lr_decay_helps"].extra["gain"])


@pytest.mark.parametrize("schedule", ["step", "warmup_then_decay"])
def test_a_loop_whose_lr_decays_is_not_tested(schedule):
    torch.manual_seed(0)
    x, y = regression(noise=0.5)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    if schedule == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=100, gamma=0.5)
    else:   # from 1% of the LR up to it over 100 steps, then halved every 200: ends far above its start
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda i: (0.01 + 0.99 * i / 100) if i < 100 else 0.5 ** ((i - 100) // 200))
    crit = nn.MSELoss()
    data = batches_of(x, y, 32, 1)
    w = watched(model, opt, crit, data, sched)
    assert w.summary()["lr_decay"] == []      # no copies: the LR was not held
    f = {f.fact: f for f in w.findings()}.get("lr_decay_helps")
    assert f is None or "schedule" in f.detail   # only the run's own decay may answer


def test_a_schedule_that_decays_through_the_plateau_answers_the_question_itself():
    # label noise the model cannot beat; a cosine schedule anneals the LR while the loss sits at
    # that floor: the run itself showed that a lower LR does not lower the loss
    torch.manual_seed(0)
    x, y = label_noise_classification(flip=0.15)
    model = nn.Linear(6, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1500)
    crit = nn.BCEWithLogitsLoss()
    data = batches_of(x, y, 64, 1)
    w = watched(model, opt, crit, data, sched)
    facts = {f.fact: f for f in w.findings()}
    assert facts["loss_trend"].value == "plateaued"
    assert facts["lr_decay_helps"].value is False
    # the answer is the run's own (the copies, run while the LR was still held, agree)
    assert "schedule" in facts["lr_decay_helps"].detail


def test_the_two_copies_of_a_model_with_dropout_draw_the_same_masks():
    """A model with dropout at its data's floor: the two copies used to draw different dropout masks,
    so even with the LR left as it was ("lowered" by a factor of 1) their held-out losses differed, and
    that noise was the measured "gain". Paired, nothing changed measures exactly nothing, and the
    run's own random state is as it was."""
    torch.manual_seed(0)
    x, y = label_noise_classification(flip=0.1, seed=0)
    model = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    it = trained(model, opt, nn.BCEWithLogitsLoss(), batches_of(x, y, 64, 1), 300)
    batches = [((xb,), {}, yb, None) for xb, yb in (next(it) for _ in range(32))]
    state = torch.get_rng_state()
    r = LD.lr_decay_test(model, opt, batches, nn.BCEWithLogitsLoss(), factor=1.0)
    assert torch.equal(state, torch.get_rng_state())
    assert r["gain"] == 0.0 and r["loss_same_lr"] == r["loss_lower_lr"], r
    assert r["helps"] is False, r
