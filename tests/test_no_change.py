"""The bar for the torch probes: watching a run changes nothing in it.

The same model is trained from the same seed bare and under ``traindx.probes.watch`` (armed, so the
costly probes run; or cheap with the overfit-one-batch probe fired mid-training), and everything
the user could observe is compared bit for bit: parameters, gradients, buffers, optimizer
``state_dict``, scheduler state and the torch / numpy / ``random`` RNG states. Afterwards no hook,
handle or wrapper may be left behind, also when the training loop raises inside the ``with``.
"""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn

import traindx.probes as tp  # noqa: E402



pytestmark = pytest.mark.usefixtures("one_thread")   # conftest.py


ORIG_CLIP = torch.nn.utils.clip_grad_norm_
ORIG_CLIP_MOD = torch.nn.utils.clip_grad.clip_grad_norm_
GradScaler = torch.amp.GradScaler
ORIG_SCALER_STEP = GradScaler.__dict__["step"]
ORIG_SCALER_UPDATE = GradScaler.__dict__["update"]
ORIG_SCHED_STEPS = {c: c.__dict__["step"] for c in vars(torch.optim.lr_scheduler).values()
                    if isinstance(c, type) and issubclass(c, torch.optim.lr_scheduler.LRScheduler)
                    and "step" in c.__dict__}


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 32), nn.Tanh(),
                                 nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 8, 3, padding=1), nn.ReLU())
        self.drop = nn.Dropout(0.25)
        self.head = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        return self.head(self.drop(self.features(x).flatten(1)))


def _data(kind):
    g = torch.Generator().manual_seed(123)
    n = 96
    x = torch.randn(n, 12, generator=g) if kind == "mlp" else torch.randn(n, 1, 8, 8, generator=g)
    y = torch.randint(0, 4, (n,), generator=g)
    return torch.utils.data.TensorDataset(x[:64], y[:64]), torch.utils.data.TensorDataset(x[64:], y[64:])


def _seed(s=0):
    torch.manual_seed(s)
    np.random.seed(s)
    random.seed(s)


def _state(model, opt, sched, scaler=None):
    return {
        "params": {n: p.detach().clone() for n, p in model.named_parameters()},
        "grads": {n: (None if p.grad is None else p.grad.clone()) for n, p in model.named_parameters()},
        "buffers": {n: b.clone() for n, b in model.named_buffers()},
        "opt": opt.state_dict(),
        "sched": sched.state_dict(),
        "scaler": scaler.state_dict() if scaler is not None else None,
        "torch_rng": torch.get_rng_state(),
        "np_rng": np.random.get_state(),
        "py_rng": random.getstate(),
        "training": model.training,
    }


def _equal(a, b, path="state"):
    if torch.is_tensor(a) or torch.is_tensor(b):
        assert torch.is_tensor(a) and torch.is_tensor(b), path
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b), f"{path} differs"
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), f"{path}: keys {set(a) ^ set(b)}"
        for k in a:
            _equal(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b), path
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _hand_loss(out, y, model):
    """A loss written by hand (no stock criterion): NLL of log-softmax by gather, plus an L2 penalty
    read off the parameters, as scripts write them."""
    nll = -(out - out.logsumexp(dim=1, keepdim=True)).gather(1, y[:, None]).mean()
    return nll + 1e-4 * sum(p.pow(2).sum() for p in model.parameters())


def train(kind, optim, mode=None, *, amp=False, raise_at=None, epochs=2, holder=None, faulty=False, experiment=None,
          hand=False):
    """Train from seed 0. mode: None (bare), "armed", "overfit" (cheap + overfit-one-batch mid-run),
    "lr_decay" (cheap + the LR-decay test on the next 12 batches, run mid-run), "experiment" (cheap +
    ``experiment = (spec, context)`` run on copies at step 12). ``faulty``: one frozen bias and one
    bias the optimizer never sees (so unfreeze / add-missing experiments have something to do).
    ``hand``: the training loss is written by hand and observed without outputs or a criterion."""
    _seed(0)
    train_ds, val_ds = _data(kind)
    model = MLP() if kind == "mlp" else CNN()
    params = list(model.parameters())
    if faulty:
        params[1].requires_grad_(False)
        params = params[:-1]
    if optim == "sgd":
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)
    else:
        opt = torch.optim.Adam(params, lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    crit = nn.CrossEntropyLoss()
    tl = torch.utils.data.DataLoader(train_ds, batch_size=16, shuffle=True)
    vl = torch.utils.data.DataLoader(val_ds, batch_size=16)
    scaler = GradScaler("cpu") if amp else None
    if holder is not None:
        holder.update(model=model, opt=opt)
    w = None
    if mode is not None:
        w = tp.watch(model, opt, train_loader=tl, val_loader=vl, level="full" if mode == "armed" else "cheap")
        w.attach()
    step = 0
    try:
        for _ in range(epochs):
            model.train()
            it = w.loader(tl) if w is not None else tl
            for x, y in it:
                noise = np.random.rand() + random.random()   # the user's own RNG draws
                x = x + 0.01 * noise
                if amp:
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        out = model(x)
                        loss = crit(out.float(), y)
                else:
                    out = model(x)
                    loss = _hand_loss(out, y, model) if hand else crit(out, y)
                if w is not None and hand:
                    w.observe(loss)
                elif w is not None:
                    w.observe(loss, outputs=out, targets=y)
                if amp:
                    scaler.scale(loss).backward()
                    scaler.unscale_(opt)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    scaler.step(opt)
                    scaler.update()
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()
                step += 1
                if raise_at is not None and step == raise_at:
                    raise RuntimeError("user code failed")
                if mode == "overfit" and step == 3:
                    w.overfit_one_batch()
                if mode == "lr_decay" and step == 1:
                    w.lr_decay_test(batches=12)
                if mode == "experiment_monitor" and step == 12:
                    for sp in holder["specs"]:
                        w.monitor.request_experiment(sp)
                if mode == "experiment" and step == 12:
                    from traindx.probes.live.experiments import run_experiment
                    spec, ctx = experiment
                    holder["result"] = run_experiment(model, opt, w.monitor.experiments.batches, crit, spec,
                                                      context=ctx, autocast=("cpu", "bfloat16") if amp else None)
                opt.zero_grad()
            sched.step()
            model.eval()
            with torch.no_grad():
                for x, y in (w.loader(vl) if w is not None else vl):
                    out = model(x)
                    if w is not None:
                        w.observe(crit(out, y), outputs=out, targets=y)
        # leave gradients in place to compare them too
        model.train()
        x, y = next(iter(tl))
        crit(model(x), y).backward()
    finally:
        if w is not None:
            w.detach()
    return _state(model, opt, sched, scaler), model, opt, w


def assert_clean(model, opt):
    for name, m in model.named_modules():
        for attr in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                     "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs"):
            d = getattr(m, attr, None)
            assert not d, f"{name or 'model'}.{attr} left behind: {d}"
    for name, p in model.named_parameters():
        assert not p._backward_hooks, f"tensor hook left on parameter {name}"
        assert not getattr(p, "_post_accumulate_grad_hooks", None), f"post-accumulate hook left on {name}"
    assert not opt._optimizer_step_pre_hooks, "optimizer step pre-hook left behind"
    assert not opt._optimizer_step_post_hooks, "optimizer step post-hook left behind"
    assert torch.nn.utils.clip_grad_norm_ is ORIG_CLIP
    assert torch.nn.utils.clip_grad.clip_grad_norm_ is ORIG_CLIP_MOD
    assert GradScaler.__dict__["step"] is ORIG_SCALER_STEP
    assert GradScaler.__dict__["update"] is ORIG_SCALER_UPDATE
    for cls, step in ORIG_SCHED_STEPS.items():
        assert cls.__dict__["step"] is step, f"{cls.__name__}.step left wrapped"
    assert not torch.nn.modules.module._global_forward_hooks
    assert not torch.nn.modules.module._global_forward_pre_hooks


@pytest.mark.parametrize("kind,optim", [("mlp", "sgd"), ("mlp", "adam"), ("cnn", "sgd"), ("cnn", "adam")])
def test_armed_watch_changes_nothing(kind, optim):
    bare, *_ = train(kind, optim)
    watched, model, opt, w = train(kind, optim, "armed")
    _equal(bare, watched)
    assert_clean(model, opt)
    facts = {f.fact for f in w.findings()}
    assert not w.summary()["errors"], w.summary()["errors"]
    # the costly probes really ran
    assert {"dead_relu_fraction", "update_ratio", "grad_norm_median", "clip_shrink_ratio"} <= facts


@pytest.mark.parametrize("kind,optim", [("mlp", "sgd"), ("cnn", "adam")])
def test_lr_decay_test_mid_training_changes_nothing(kind, optim):
    bare, *_ = train(kind, optim, epochs=4)
    watched, model, opt, w = train(kind, optim, "lr_decay", epochs=4)
    _equal(bare, watched)
    assert_clean(model, opt)
    runs = w.summary()["lr_decay"]
    # it really trained two copies, mid-run (before the last of the 16 steps)
    assert len(runs) == 1 and runs[0]["steps"] == 8 and runs[0]["held_out"] == 4, runs
    assert runs[0]["at_step"] < 16 and runs[0]["gain"] is not None


@pytest.mark.parametrize("kind,optim", [("mlp", "sgd"), ("cnn", "adam")])
def test_overfit_probe_mid_training_changes_nothing(kind, optim):
    bare, *_ = train(kind, optim)
    watched, model, opt, w = train(kind, optim, "overfit")
    _equal(bare, watched)
    assert_clean(model, opt)
    w.findings()
    assert w.summary()["overfit"]["steps"] > 1   # the probe really trained a copy


@pytest.mark.parametrize("kind,optim", [("mlp", "sgd"), ("cnn", "adam")])
def test_overfit_probe_on_a_hand_written_loss_replays_it_and_changes_nothing(kind, optim):
    """No criterion to re-run: the probe trains its copy on the loss's recorded torch calls, on the
    whole batch that loss was made on (before, it was skipped), and the run is still bit-identical."""
    bare, *_ = train(kind, optim, hand=True)
    watched, model, opt, w = train(kind, optim, "overfit", hand=True)
    _equal(bare, watched)
    assert_clean(model, opt)
    r = w.summary()["overfit"]
    assert "skipped" not in r and "error" not in r, r
    assert r["steps"] > 1 and r["examples"] == 16 and r["labels_match_inputs"] is None


def test_amp_with_grad_scaler_changes_nothing():
    bare, *_ = train("mlp", "sgd", amp=True)
    watched, model, opt, w = train("mlp", "sgd", "armed", amp=True)
    _equal(bare, watched)
    assert_clean(model, opt)
    facts = {f.fact: f.value for f in w.findings()}
    assert facts["grad_scaler_used"] is True and facts["uses_amp"] is True and facts["amp_dtype"] == "bfloat16"


@pytest.mark.parametrize("mode", ["armed", "overfit"])
def test_hooks_removed_when_the_loop_raises(mode):
    holder = {}
    with pytest.raises(RuntimeError, match="user code failed"):
        train("cnn", "sgd", mode, raise_at=5, holder=holder)
    assert_clean(holder["model"], holder["opt"])


def test_with_block_removes_hooks_on_exception():
    _seed(0)
    model, opt = MLP(), None
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError):
        with tp.watch(model, opt, level="full") as w:
            assert opt._optimizer_step_pre_hooks and model._forward_pre_hooks
            assert torch.nn.utils.clip_grad_norm_ is not ORIG_CLIP
            x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
            loss = nn.functional.cross_entropy(model(x), y)
            w.observe(loss, outputs=model(x), targets=y)
            loss.backward()
            opt.step()
            raise ValueError("boom")
    assert_clean(model, opt)
    assert w.findings()   # evidence survives the exception
    w.detach()            # idempotent
    assert_clean(model, opt)


def test_nested_monitors_restore_wrappers_in_any_order():
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    a = tp.Monitor(model, opt).attach()
    b = tp.Monitor(model, opt).attach()
    a.detach()
    assert torch.nn.utils.clip_grad_norm_ is not ORIG_CLIP   # b still listens
    b.detach()
    assert_clean(model, opt)


def test_import_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, traindx.probes as p; assert 'torch' not in sys.modules, 'torch imported'; "
            "assert callable(p.watch)")
    subprocess.run([sys.executable, "-c", code], check=True)


def _interventions():
    from traindx.engine.api import load_kb
    from traindx.engine.differential import spec
    from traindx.probes.live.experiments import INTERVENTIONS

    kb = load_kb()
    specs = {}
    for eid in kb.experiments:
        sp = spec(kb, eid)
        specs.setdefault(sp["intervention"]["kind"], sp)
    for kind in INTERVENTIONS:       # interventions no shipped experiment uses still pass the bar
        specs.setdefault(kind, {"id": kind, "intervention": {"kind": kind}, "steps": 8,
                                "measure": {"metric": "heldout_gain", "confirm_gain": 0.1, "refute_gain": 0.0},
                                "fact": f"exp_{kind}"})
    return specs


INTERVENTION_SPECS = _interventions()


@pytest.mark.parametrize("kind", sorted(INTERVENTION_SPECS))
def test_every_experiment_changes_nothing(kind):
    """Each intervention really trains two copies mid-run, and the run is bit-identical to a bare one."""
    spec = dict(INTERVENTION_SPECS[kind], steps=8)
    amp = kind in ("upcast", "fp32_instead_of_fp16")
    # what the run "does" that makes each intervention applicable (the control copies it)
    ctx = {"accumulates": True, "peak_lr": 0.5, "training": False, "clip_max": 1.0}
    bare, *_ = train("mlp", "sgd", epochs=4, faulty=True, amp=amp)
    holder = {}
    watched, model, opt, w = train("mlp", "sgd", "experiment", epochs=4, faulty=True, amp=amp, holder=holder,
                                   experiment=(spec, ctx))
    _equal(bare, watched)
    assert_clean(model, opt)
    r = holder["result"]
    assert r.get("outcome") in ("confirms", "refutes", "inconclusive"), r   # it ran, not skipped
    assert r["trained_on"] >= 6 and r["held_out"] >= 3


def test_experiments_through_the_monitor_change_nothing(kb):
    """The monitor's own path mid-run (requested at step 12, run at the next optimizer step, reported
    as findings) on the CNN with Adam: bit-identical to the bare run."""
    from traindx.engine.differential import spec

    bare, *_ = train("cnn", "adam", epochs=4)
    holder = {"specs": [spec(kb, "lr_up"), spec(kb, "shuffle")]}
    watched, model, opt, w = train("cnn", "adam", "experiment_monitor", epochs=4, holder=holder)
    _equal(bare, watched)
    assert_clean(model, opt)
    found = {f.fact: f for f in w.findings() if f.source == "probe:experiment"}
    assert set(found) == {"exp_lr_up", "exp_shuffle"}, w.summary()["experiments"]
    assert "on a copy" in found["exp_lr_up"].detail and "unchanged copy" in found["exp_lr_up"].detail


@pytest.mark.parametrize("kind,optim", [("mlp", "sgd"), ("cnn", "adam")])
def test_experiments_on_a_hand_written_loss_change_nothing(kb, kind, optim):
    """A loss written by hand (no criterion to re-run): the copies replay its recorded torch calls;
    the experiments run (not skipped for want of a loss) and the run stays bit-identical, with no
    hook and no torch-function mode left behind."""
    from traindx.engine.differential import spec

    bare, *_ = train(kind, optim, epochs=4, hand=True)
    holder = {"specs": [spec(kb, "lr_up"), spec(kb, "unfreeze")]}
    watched, model, opt, w = train(kind, optim, "experiment_monitor", epochs=4, holder=holder, hand=True)
    _equal(bare, watched)
    assert_clean(model, opt)
    assert torch._C._len_torch_function_stack() == 0
    ran = {r["id"]: r for r in w.summary()["experiments"]}
    assert ran["lr_up"]["outcome"] in ("confirms", "refutes", "inconclusive"), ran
    assert ran["lr_up"]["trained_on"] >= 6


def test_a_loop_raising_between_forward_and_loss_leaves_no_mode():
    """The recorder's mode is pushed at the end of a training forward: a script that raises before
    its loss reaches the monitor still leaves nothing behind once the watch is detached."""
    _seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError):
        with tp.watch(model, opt) as w:
            for step in range(6):
                x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
                out = model(x)
                if step == 4:
                    raise RuntimeError("user code failed")
                loss = _hand_loss(out, y, model)
                w.observe(loss)
                loss.backward()
                opt.step()
                opt.zero_grad()
    assert torch._C._len_torch_function_stack() == 0
    assert_clean(model, opt)


def _raw_split_run(watched: bool):
    """A loop over raw tensors sliced by hand (no loader: the rows fed are hashed for the overlap)."""
    _seed(0)
    x, y = torch.randn(96, 12), torch.randint(0, 4, (96,))
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    w = tp.watch(model, opt) if watched else None
    if w is not None:
        w.monitor.params = {**w.monitor.params, "leakage.row_hash_min_width": 8}   # the MLP's 12 features
        w.attach()
    try:
        for _ in range(3):
            model.train()
            for i in range(0, 64, 16):
                out = model(x[i:i + 16] + 0.01 * random.random())
                loss = nn.functional.cross_entropy(out, y[i:i + 16])
                if w is not None:
                    w.observe(loss, outputs=out, targets=y[i:i + 16])
                loss.backward()
                opt.step()
                opt.zero_grad()
            sched.step()
            model.eval()
            with torch.no_grad():
                model(x[64:])
        if w is not None:
            w.findings()
    finally:
        if w is not None:
            w.detach()
    return _state(model, opt, sched), model, opt, w


def test_hashing_the_rows_of_a_raw_split_changes_nothing():
    bare, *_ = _raw_split_run(False)
    watched, model, opt, w = _raw_split_run(True)
    _equal(bare, watched)
    assert_clean(model, opt)
    assert w.monitor._rows is not None and w.monitor._rows.n_val == 96 and w.monitor._rows.n_train == 192


def test_no_experiments_keeps_no_batches():
    _seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with tp.watch(model, opt, experiments=False) as w:
        for _ in range(5):
            x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            w.observe(loss, outputs=out, targets=y)
            loss.backward()
            opt.step()
            opt.zero_grad()
    assert w.monitor.experiments.batches == []
    w.monitor.request_experiment({"id": "lr_up", "intervention": {"kind": "lr_scale", "factor": 10}, "steps": 8,
                                  "measure": {"metric": "heldout_gain", "confirm_gain": 0.1, "refute_gain": 0}})
    assert not w.monitor.experiments.pending


class _AugmentingSet(torch.utils.data.Dataset):
    """Augments in __getitem__ with generators it owns (as s25 does with np.random.default_rng),
    one of them inside a transform list, the way torchvision-style pipelines hold them."""

    class Jitter:
        def __init__(self, seed):
            self.gen = torch.Generator().manual_seed(seed)
            self.py = random.Random(seed)

        def __call__(self, x):
            return x + 0.1 * torch.randn(x.shape, generator=self.gen) + self.py.random()

    def __init__(self, n, seed):
        import numpy as np

        self.x = torch.randn(n, 6)
        self.y = torch.arange(n) % 3
        self.rng = np.random.default_rng(seed)
        self.legacy = np.random.RandomState(seed)
        self.transforms = [self.Jitter(seed)]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i] * float(self.rng.uniform(0.9, 1.1)) + float(self.legacy.normal(0, 0.01))
        for t in self.transforms:
            x = t(x)
        return x, self.y[i]


def _draws(ds):
    return (float(ds.rng.random()), float(ds.legacy.random()),
            float(torch.rand(1, generator=ds.transforms[0].gen)), ds.transforms[0].py.random())


@pytest.mark.parametrize("probe", ["overlap", "near_copy", "label_disagreement", "neighbours"])
def test_reading_items_leaves_the_datasets_own_generators_where_they_were(probe):
    # the data probes run the user's __getitem__; a dataset that augments from generators it owns
    # must draw the same numbers afterwards as if no probe had read it
    from traindx.probes.live import data as D

    def fresh():
        return _AugmentingSet(96, 0), _AugmentingSet(48, 1)

    untouched = [_draws(d) for d in fresh()]
    train, val = fresh()
    if probe == "overlap":
        D.val_train_overlap(train, val)
    elif probe == "near_copy":
        D.near_duplicate_fraction(train, val)
    elif probe == "label_disagreement":
        D.train_label_disagreement(train, val, min_items=16)
    else:
        D.label_neighbour_agreement(train, min_items=8)
    assert [_draws(d) for d in (train, val)] == untouched


def test_counting_the_validation_labels_changes_nothing():
    # probe:labels compares the classes of the validation losses' targets with the training's
    bare, *_ = train("mlp", "adam")
    watched, model, opt, w = train("mlp", "adam", "armed")
    _equal(bare, watched)
    assert_clean(model, opt)
    found = {f.fact: f.value for f in w.findings()}
    assert found["split_classes_apart"] == 0.0      # both splits hold the same four classes
