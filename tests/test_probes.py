"""Each torch probe on a small real model with its fault planted: the fact the engine reads is there.

Every finding is also checked against the vocabulary: its fact is in kb/facts.yaml with a value of
the declared type, and its source is a ``probe:*`` entry of kb/sources.yaml that declares the fact.
"""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import traindx.probes as tp  # noqa: E402
from traindx.probes.live import monitor as monitor_mod  # noqa: E402
from traindx.probes.live.timing import LoaderTap  # noqa: E402

KB = Path(__file__).resolve().parents[1] / "kb"
FACTS = {f["id"]: f for f in yaml.safe_load((KB / "facts.yaml").read_text())["facts"]}
SOURCES = {s["id"]: s for s in yaml.safe_load((KB / "sources.yaml").read_text())["sources"]}


pytestmark = pytest.mark.usefixtures("one_thread")   # conftest.py


# --------------------------------------------------------------------------- helpers
def check_vocabulary(findings):
    """Every finding: a known fact, a value of its type, from a probe source that declares it."""
    for f in findings:
        spec = FACTS.get(f.fact)
        assert spec is not None, f"unknown fact {f.fact}"
        src = SOURCES.get(f.source)
        assert src is not None and f.fact in src["facts"], f"{f.source} does not declare {f.fact}"
        v, t = f.value, spec["type"]
        if t == "boolean":
            assert isinstance(v, bool), (f.fact, v)
        elif t == "integer":
            assert isinstance(v, int) and not isinstance(v, bool), (f.fact, v)
        elif t == "number":
            assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), (f.fact, v)
        elif t == "list":
            assert isinstance(v, list) and all(isinstance(x, str) for x in v), (f.fact, v)
        elif t == "enum":
            assert v in spec["values"], (f.fact, v)
        elif t == "string":
            assert isinstance(v, str), (f.fact, v)
        if t in ("number", "integer"):
            if "min" in spec:
                assert v >= spec["min"], (f.fact, v)
            if "max" in spec:
                assert v <= spec["max"], (f.fact, v)
        assert f.detail, f"{f.fact} has no detail"
    facts = [f.fact for f in findings]
    assert len(facts) == len(set(facts)), "a fact reported twice"


def mlp(i=8, h=32, o=4, act=nn.ReLU, depth=2):
    layers, d = [], i
    for _ in range(depth):
        layers += [nn.Linear(d, h), act()]
        d = h
    return nn.Sequential(*layers, nn.Linear(d, o))


def blobs(n=128, d=8, c=4, seed=0, noise=0.3):
    """A learnable classification set: class c sits at a random centre."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(c, d, generator=g) * 2
    y = torch.randint(0, c, (n,), generator=g)
    x = centres[y] + noise * torch.randn(n, d, generator=g)
    return torch.utils.data.TensorDataset(x, y)


def fit(model, opt, ds, *, epochs=1, batch=16, crit=None, zero_grad=True, shuffle=True, val=None,
        level="cheap", observe=True, sched=None, sched_per_batch=False, clip=None, give_loaders=True,
        eval_in_val=True, val_no_grad=True, forward=None, loss_fn=None, num_classes=None, arm_at=None,
        steps=None, watch_kwargs=None, before_findings=None, pass_outputs=True):
    """Train under watch() and return ({fact: value}, findings, watch). ``pass_outputs`` False: the
    monitor sees the loss but not the outputs it compared (a hand-written loss function)."""
    torch.manual_seed(0)
    crit = crit or nn.CrossEntropyLoss()
    tl = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=shuffle)
    vl = torch.utils.data.DataLoader(val, batch_size=batch) if val is not None else None
    kw = dict(train_loader=tl if give_loaders else None, val_loader=vl if give_loaders else None,
              level=level, num_classes=num_classes, **(watch_kwargs or {}))
    n = 0
    with tp.watch(model, opt, **kw) as w:
        for _ in range(epochs):
            model.train()
            for x, y in w.loader(tl, phase="train"):
                out = forward(model, x) if forward else model(x)
                loss = loss_fn(out, y) if loss_fn else crit(out, y)
                if observe:
                    w.observe(loss, outputs=out if pass_outputs else None, targets=y)
                loss.backward()
                if clip is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
                opt.step()
                if zero_grad:
                    opt.zero_grad()
                if sched is not None and sched_per_batch:
                    sched.step()
                n += 1
                if arm_at is not None and n == arm_at:
                    w.arm("test")
                if steps is not None and n >= steps:
                    break
            if sched is not None and not sched_per_batch:
                sched.step()
            if vl is not None:
                if eval_in_val:
                    model.eval()
                ctx = torch.no_grad() if val_no_grad else torch.enable_grad()
                with ctx:
                    for x, y in w.loader(vl, phase=None):
                        out = forward(model, x) if forward else model(x)
                        w.observe(loss_fn(out, y) if loss_fn else crit(out, y), outputs=out, targets=y)
            if steps is not None and n >= steps:
                break
        if before_findings:
            before_findings(w)
    findings = w.findings()
    check_vocabulary(findings)
    summary = w.summary()
    assert not summary["errors"], summary["errors"]
    json.dumps(summary)                      # plain data all the way down
    json.dumps([f.to_dict() for f in findings])
    return {f.fact: f.value for f in findings}, findings, w


def sgd(model, lr=0.05, **kw):
    return torch.optim.SGD(model.parameters(), lr=lr, **kw)


# --------------------------------------------------------------------------- gradients
def test_frozen_layer_is_reported():
    torch.manual_seed(0)
    m = mlp()
    for p in m[0].parameters():
        p.requires_grad_(False)
    facts, *_ = fit(m, sgd(m), blobs())
    assert facts["frozen_params"] == ["0.weight", "0.bias"]
    assert facts["params_without_grad"] == []


class Detached(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)).detach())   # the graph is cut here


def test_detach_in_forward_leaves_params_without_grad():
    torch.manual_seed(0)
    m = Detached()
    facts, *_ = fit(m, sgd(m), blobs())
    assert facts["params_without_grad"] == ["body.weight", "body.bias"]
    assert facts["frozen_params"] == []


def test_params_not_in_optimizer():
    torch.manual_seed(0)
    m = mlp()
    opt = torch.optim.SGD(m[4].parameters(), lr=0.05)      # only the head
    facts, *_ = fit(m, opt, blobs())
    assert facts["params_not_in_optimizer"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert facts["optimizer"] == "sgd" and facts["learning_rate"] == 0.05


@pytest.mark.parametrize("observe", [True, False])
def test_missing_zero_grad_accumulates(observe):
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m, lr=1e-3), blobs(), zero_grad=False, observe=observe)
    assert facts["grad_accumulates"] is True
    assert facts["zero_grad_called"] is False


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_is_seen(set_to_none):
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m)
    opt.zero_grad = (lambda f: (lambda set_to_none=set_to_none: f(set_to_none=set_to_none)))(opt.zero_grad)
    facts, *_ = fit(m, opt, blobs())
    assert facts["grad_accumulates"] is False
    assert facts["zero_grad_called"] is True


def test_grad_norms_and_nan_gradients_when_lr_explodes():
    torch.manual_seed(0)
    m = mlp(act=nn.ReLU)
    ds = blobs(n=256)
    facts, findings, w = fit(m, sgd(m, lr=50.0), ds, epochs=2)
    assert facts["loss_has_nonfinite"] is True
    assert facts["loss_trend"] == "nonfinite"
    assert facts["grads_have_nan"] is True
    assert facts["nan_grad_params"]
    assert facts["grad_norm_max"] > 10 * facts["grad_norm_median"] or facts["grad_norm_trend"] == "growing"
    assert any(r.startswith("nonfinite") for _, r in w.summary()["armed"])


# --------------------------------------------------------------------------- loss, lr, updates
def test_lr_too_low_tiny_updates_and_loss_at_chance():
    torch.manual_seed(0)
    m = mlp()
    facts, findings, w = fit(m, sgd(m, lr=1e-7), blobs(n=512), epochs=3, batch=16)   # 96 steps
    assert facts["update_ratio"] < 1e-5
    assert facts["num_classes"] == 4
    assert abs(facts["current_loss"] - math.log(4)) < 0.15 * math.log(4)
    assert facts["loss_trend"] == "flat"
    assert abs(facts["loss_decrease_fraction"]) < 0.05
    assert facts["learning_rate"] == 1e-7
    # flat after 50 steps armed the monitor, which ran the costly probes
    assert any(r.startswith("loss flat") for _, r in w.summary()["armed"])
    assert facts["overfit_one_batch"] is False     # that lr cannot fit even one batch
    assert "dead_relu_fraction" in facts


def test_healthy_update_ratio_and_metrics():
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m, lr=0.05, momentum=0.9), blobs(n=256), val=blobs(n=64, seed=1), epochs=4)
    assert 1e-4 < facts["update_ratio"] < 0.2
    assert facts["loss_trend"] in ("decreasing", "plateaued")
    assert facts["loss_decrease_fraction"] > 0.5
    assert facts["train_accuracy"] > 0.8
    assert 0 <= facts["val_accuracy"] <= 1 and facts["val_loss"] > 0
    assert facts["val_loss_trend"] in ("decreasing", "flat", "increasing")
    assert 0 <= facts["best_val_fraction"] <= 1
    assert facts["train_size"] == 256 and facts["val_size"] == 64
    assert facts["model_mode_in_training"] == "train" and facts["model_mode_in_validation"] == "eval"
    assert facts["loss_has_nonfinite"] is False and facts["loss_negative"] is False
    assert facts["grads_all_zero"] is False


def test_validation_without_eval_or_no_grad_is_still_validation():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 4))
    facts, findings, w = fit(m, sgd(m), blobs(n=64), val=blobs(n=32, seed=1), epochs=2,
                             eval_in_val=False, val_no_grad=False)
    assert facts["model_mode_in_validation"] == "train"     # model.eval() forgotten
    assert facts["model_has_dropout_or_bn"] is True
    # the grad-enabled validation losses (no backward, no step) did not enter the training series
    s = w.summary()
    assert len(s["train_loss"]["value"]) == s["steps"] == 8
    assert len(s["val"]) == 2


def test_a_validation_loss_computed_after_switching_back_to_train_is_an_eval_forward():
    # a common helper: eval() for the forward, train() again before the loss is computed
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 4))
    opt = sgd(m)
    crit = nn.CrossEntropyLoss()
    xtr, ytr = blobs(n=64).tensors
    xv, yv = blobs(n=32, seed=1).tensors
    with tp.watch(m, opt, criterion=crit) as w:
        for _ in range(3):
            m.train()
            for i in range(0, 64, 16):
                opt.zero_grad()
                out = m(xtr[i:i + 16])
                loss = crit(out, ytr[i:i + 16])
                w.observe(loss, outputs=out, targets=ytr[i:i + 16])
                loss.backward()
                opt.step()
            with torch.no_grad():
                m.eval()
                logits = m(xv)
                m.train()
                w.observe(crit(logits, yv), outputs=logits, targets=yv)
    facts = {f.fact: f.value for f in w.findings()}
    assert facts["model_mode_in_validation"] == "eval"
    assert facts["model_mode_in_training"] == "train"


def test_training_in_eval_mode():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))
    m.eval()
    facts, *_ = fit(m, sgd(m), blobs(n=64), forward=lambda mod, x: mod.eval()(x))
    assert facts["model_mode_in_training"] == "eval"
    assert "batchnorm" in facts["regularization"]


def test_scheduler_stepped_per_batch_collapses_lr():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
    facts, *_ = fit(m, opt, blobs(n=256), sched=sched, sched_per_batch=True)
    assert facts["scheduler_step_per_batch"] is True
    assert facts["lr_final_ratio"] < 1e-2
    assert facts["lr_collapse_fraction"] < 0.9
    assert facts["learning_rate"] == 0.1


def test_step_lr_stepped_per_batch_is_seen_even_when_the_lr_rarely_changes():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.1)   # meant per epoch
    facts, *_ = fit(m, opt, blobs(n=512), sched=sched, sched_per_batch=True)
    assert facts["scheduler_step_per_batch"] is True
    assert facts["lr_collapse_fraction"] < 0.5


def test_a_warmup_scheduler_never_stepped_holds_the_lr_at_a_sliver_of_its_rate():
    """A LambdaLR warm-up built (as on a resume) and never stepped: every step runs at 1e-4 of the
    configured rate, which the trace read from its own start calls held (lr_final_ratio 1.0)."""
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.05)
    torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1e-4 + e * 0.01)    # never stepped
    facts, *_ = fit(m, opt, blobs(n=128))
    assert facts["lr_final_ratio"] == 1.0
    assert facts["lr_base_ratio"] == pytest.approx(1e-4)


def test_a_warmup_that_reaches_its_rate_is_not_held_below_it():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.05)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1e-3, total_iters=4)
    facts, *_ = fit(m, opt, blobs(n=256), sched=sched, sched_per_batch=True)
    assert facts["lr_base_ratio"] == pytest.approx(1.0)


def test_no_scheduler_no_base_ratio():
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m, lr=0.05), blobs(n=128))
    assert "lr_base_ratio" not in facts


def test_wrong_model_instance_in_optimizer():
    """The optimizer holds an older model's parameters: evidence points there, not at zero_grad."""
    torch.manual_seed(0)
    old, m = mlp(), mlp()
    opt = sgd(old)
    facts, *_ = fit(m, opt, blobs())
    assert facts["params_not_in_optimizer"] == [n for n, _ in m.named_parameters()]
    assert facts["params_without_grad"] == []          # the model's own parameters do get gradients
    assert "zero_grad_called" not in facts             # no optimizer parameter ever had a gradient
    assert facts["update_ratio"] == 0.0                # the model never moves


def test_scheduler_per_epoch_is_not_per_batch():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    facts, *_ = fit(m, opt, blobs(n=128), sched=sched, epochs=3)
    assert facts["scheduler_step_per_batch"] is False
    assert facts["lr_final_ratio"] == pytest.approx(0.25)
    assert facts["lr_collapse_fraction"] == 1.0


@pytest.mark.parametrize("max_norm,tight", [(1e-4, True), (1e4, False)])
def test_clipping_shrink(max_norm, tight):
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m), blobs(), clip=max_norm)
    assert facts["clip_max_norm"] == max_norm
    assert (facts["clip_shrink_ratio"] < 0.01) if tight else (facts["clip_shrink_ratio"] == 1.0)


# --------------------------------------------------------------------------- what the loss receives
class Squash(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.net, self.fn = mlp(), fn

    def forward(self, x):
        return self.fn(self.net(x))


@pytest.mark.parametrize("fn,crit,act,name", [
    (lambda z: F.softmax(z, 1), nn.CrossEntropyLoss(), "softmax", "cross_entropy"),
    (lambda z: F.log_softmax(z, 1), nn.NLLLoss(), "log_softmax", "nll"),
    (lambda z: z, nn.CrossEntropyLoss(), "none", "cross_entropy"),
])
def test_output_squash(fn, crit, act, name):
    torch.manual_seed(0)
    m = Squash(fn)
    facts, *_ = fit(m, sgd(m), blobs(), crit=crit, watch_kwargs={"criterion": crit})
    assert facts["output_activation"] == act
    assert facts["loss_function"] == name
    assert facts["target_kind"] == "class_indices"
    assert facts["custom_loss"] is False
    assert facts["loss_shape_mismatch"] is False


def test_loss_identified_from_values_only_when_unambiguous():
    torch.manual_seed(0)
    m = Squash(lambda z: F.softmax(z, 1))
    facts, *_ = fit(m, sgd(m), blobs(), crit=nn.CrossEntropyLoss())   # no criterion given to watch
    assert facts["loss_function"] == "cross_entropy" and facts["output_activation"] == "softmax"
    m = Squash(lambda z: F.log_softmax(z, 1))
    facts, *_ = fit(m, sgd(m), blobs(), crit=nn.NLLLoss())
    assert "loss_function" not in facts          # CE and NLL of log_softmax outputs are equal
    assert facts["output_activation"] == "log_softmax"


def test_sigmoid_before_bce():
    torch.manual_seed(0)
    ds = blobs(c=2)
    ds = torch.utils.data.TensorDataset(ds.tensors[0], ds.tensors[1].float())
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid(), nn.Flatten(0))
    facts, *_ = fit(m, sgd(m), ds, crit=nn.BCELoss())
    assert facts["output_activation"] == "sigmoid"
    assert facts["loss_function"] == "bce"
    assert facts["target_kind"] == "probabilities"


def test_mse_broadcast_shape_mismatch():
    torch.manual_seed(0)
    x = torch.randn(64, 8)
    ds = torch.utils.data.TensorDataset(x, x.sum(1))           # targets (N,)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))   # outputs (N, 1)
    with pytest.warns(UserWarning):
        facts, *_ = fit(m, sgd(m, lr=0.01), ds, crit=nn.MSELoss())
    assert facts["loss_shape_mismatch"] is True
    assert facts["loss_function"] == "mse"
    assert facts["target_kind"] == "continuous"
    assert "num_classes" not in facts


def test_custom_loss_is_recognised():
    torch.manual_seed(0)
    m = mlp()

    def my_loss(out, y):
        return (out.softmax(1) - F.one_hot(y, 4)).abs().pow(3).mean()

    facts, *_ = fit(m, sgd(m), blobs(), loss_fn=my_loss)
    assert facts["custom_loss"] is True and facts["loss_function"] == "custom"


# --------------------------------------------------------------------------- NaN tracing
class NaNAt(torch.utils.data.Dataset):
    def __init__(self, base, bad):
        self.base, self.bad = base, bad

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        x, y = self.base[i]
        if i == self.bad:
            x = x.clone()
            x[0] = float("nan")
        return x, y


def test_nan_in_inputs():
    torch.manual_seed(0)
    m = mlp()
    facts, findings, w = fit(m, sgd(m), NaNAt(blobs(), bad=16 * 3 + 5), shuffle=False)
    assert facts["nan_first_step"] == 3
    assert facts["inputs_have_nan"] is True
    src = {f.fact: f.source for f in findings}
    assert src["inputs_have_nan"] == "probe:nan_trace"
    assert facts["nonfinite_first_module"] == "0"          # the first Linear already outputs NaN
    assert facts["loss_has_nonfinite"] is True


class LogLayer(nn.Module):
    def forward(self, x):
        return torch.log(x)          # log of a negative number: NaN


def test_first_nonfinite_module_is_found():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), LogLayer(), nn.Linear(16, 4))
    facts, *_ = fit(m, sgd(m), blobs())
    assert facts["nan_first_step"] == 0
    assert facts["inputs_have_nan"] is False
    assert facts["nonfinite_first_module"] == "2"


def test_nan_made_by_the_loss():
    torch.manual_seed(0)
    m = mlp()

    def bad_loss(out, y):   # log(0) for the softmax of a hard zero
        p = out.softmax(1) * (torch.arange(4) != 0)
        return -torch.log(p.gather(1, y[:, None])).mean()

    ds = blobs()
    facts, *_ = fit(m, sgd(m), ds, loss_fn=bad_loss)
    assert facts["nonfinite_first_module"] == "loss"
    assert facts["inputs_have_nan"] is False


def test_output_range():
    torch.manual_seed(0)
    m = mlp()
    with torch.no_grad():
        m[4].weight.mul_(1000)
    facts, *_ = fit(m, sgd(m, lr=1e-6), blobs())
    assert facts["output_range_max"] > 100


# --------------------------------------------------------------------------- activations (armed)
def test_dead_relu():
    torch.manual_seed(0)
    m = mlp()
    with torch.no_grad():
        m[0].bias.fill_(-100.0)
    facts, *_ = fit(m, sgd(m), blobs(), level="full")
    assert facts["dead_relu_fraction"] > 0.95


class FunctionalReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(8, 32), nn.Linear(32, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.c(F.relu(self.b(F.relu(self.a(x)))))


def test_dead_relu_with_functional_relu():
    torch.manual_seed(0)
    m = FunctionalReLU()
    with torch.no_grad():
        m.a.bias.fill_(-100.0)
    facts, *_ = fit(m, sgd(m), blobs(), level="full")
    assert facts["dead_relu_fraction"] > 0.95


def test_saturated_tanh():
    torch.manual_seed(0)
    m = mlp(act=nn.Tanh)
    with torch.no_grad():
        m[0].weight.mul_(50)
    facts, *_ = fit(m, sgd(m, lr=1e-4), blobs(), level="full")
    assert facts["saturated_fraction"] > 0.5


def test_vanishing_gradient_through_depth():
    torch.manual_seed(0)
    m = mlp(act=nn.Sigmoid, depth=10, h=32)
    facts, *_ = fit(m, sgd(m, lr=1e-3), blobs(), level="full")
    assert facts["grad_depth_ratio"] < 0.01
    shallow = mlp(act=nn.ReLU, depth=2)
    facts2, *_ = fit(shallow, sgd(shallow, lr=1e-3), blobs(), level="full")
    assert facts2["grad_depth_ratio"] > 0.05


def test_activation_scale_shrinks_through_depth():
    torch.manual_seed(0)
    m = mlp(act=nn.Tanh, depth=8)
    with torch.no_grad():
        for layer in m:
            if isinstance(layer, nn.Linear):
                layer.weight.mul_(0.3)
                layer.bias.zero_()
    facts, *_ = fit(m, sgd(m, lr=1e-4), blobs(), level="full")
    assert facts["activation_depth_ratio"] < 0.05


# --------------------------------------------------------------------------- timing and data
class Slow(torch.utils.data.Dataset):
    def __init__(self, base, delay):
        self.base, self.delay = base, delay

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        time.sleep(self.delay)
        return self.base[i]


@pytest.mark.parametrize("arm_at", [None, 2])
def test_slow_getitem_is_a_data_bottleneck(arm_at):
    torch.manual_seed(0)
    m = mlp(h=64)
    # arm_at: the overfit probe runs mid-epoch; its own time must not count as the user's step
    facts, findings, w = fit(m, sgd(m), Slow(blobs(n=96), 0.003), batch=8, arm_at=arm_at)
    assert facts["data_time_fraction"] > 0.5
    if arm_at:
        assert w.summary()["overfit"]["steps"] > 10


def test_fast_loader_is_not_a_bottleneck():
    torch.manual_seed(0)
    m = mlp(i=8, h=256, depth=3)
    # 40 iterations, not 4: the fraction is wall-clock, and on a busy machine one preemption inside
    # a single __next__ of four decided it (0.64 was seen beside ~8 agents on 2 cores)
    facts, *_ = fit(m, sgd(m), blobs(n=256), batch=64, epochs=10)
    assert facts["data_time_fraction"] < 0.5


class Stalls(torch.utils.data.Dataset):
    """Fast items, but a stall of ``delay`` seconds at every item index in ``at``."""

    def __init__(self, base, delay, at):
        self.base, self.delay, self.at = base, delay, set(at)

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        if i in self.at:
            time.sleep(self.delay)
        return self.base[i]


def test_one_stall_in_a_long_run_is_no_data_bottleneck():
    # one 0.3 s stall (a garbage collection, a preempted process) among ~100 fast batches: a plain
    # ratio of sums read it as most of every step spent waiting (a healthy run once got
    # data_loading_bottleneck at 0.99 from one such stall)
    torch.manual_seed(0)
    m = mlp(i=8, h=64)
    facts, *_ = fit(m, sgd(m), Stalls(blobs(n=400), 0.3, at=[200]), batch=4, epochs=1)
    assert facts["data_time_fraction"] < 0.5


def test_a_loader_stalling_every_fourth_batch_is_still_a_bottleneck():
    torch.manual_seed(0)
    m = mlp(i=8, h=64)
    # unshuffled: items 0, 16, 32, ... are the first of every fourth batch of 4
    facts, *_ = fit(m, sgd(m), Stalls(blobs(n=400), 0.02, at=range(0, 400, 16)), batch=4, epochs=1,
                    shuffle=False)
    assert facts["data_time_fraction"] > 0.5


def test_constant_labels():
    torch.manual_seed(0)
    ds = blobs()
    ds = torch.utils.data.TensorDataset(ds.tensors[0], torch.full_like(ds.tensors[1], 2))
    m = mlp()
    facts, *_ = fit(m, sgd(m), ds)
    assert facts["labels_constant"] is True
    assert facts["batch_label_purity"] == 1.0


@pytest.mark.parametrize("give_loaders", [True, False])
def test_unshuffled_sorted_data(give_loaders):
    torch.manual_seed(0)
    ds = blobs(n=256)
    order = torch.argsort(ds.tensors[1], stable=True)
    ds = torch.utils.data.TensorDataset(ds.tensors[0][order], ds.tensors[1][order])
    m = mlp()
    facts, *_ = fit(m, sgd(m), ds, shuffle=False, give_loaders=give_loaders)
    assert facts["shuffle"] is False
    assert facts["batch_label_purity"] > 0.9
    assert facts["labels_constant"] is False


@pytest.mark.parametrize("shuffle", [False, True])
def test_binary_float_labels_tell_sorted_from_shuffled(shuffle):
    """A BCE head takes its labels as 0.0/1.0 floats: a class-ordered set fed in order is still
    seen as unshuffled (all of one class, then all of the other), a shuffled one as shuffled."""
    torch.manual_seed(0)
    ds = blobs(n=256, c=2)
    order = torch.argsort(ds.tensors[1], stable=True)
    ds = torch.utils.data.TensorDataset(ds.tensors[0][order], ds.tensors[1][order].float()[:, None])
    m = mlp(o=1)
    facts, *_ = fit(m, sgd(m), ds, shuffle=shuffle, give_loaders=False, crit=nn.BCEWithLogitsLoss())
    assert facts["shuffle"] is shuffle
    assert (facts["batch_label_purity"] > 0.9) is not shuffle


def test_soft_float_targets_are_not_labels():
    torch.manual_seed(0)
    ds = blobs(n=128, c=2)
    ds = torch.utils.data.TensorDataset(ds.tensors[0], 0.1 + 0.8 * ds.tensors[1].float()[:, None])
    m = mlp(o=1)
    facts, *_ = fit(m, sgd(m), ds, give_loaders=False, crit=nn.BCEWithLogitsLoss())
    assert "batch_label_purity" not in facts


def test_shuffled_data():
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m), blobs(n=256), give_loaders=False)
    assert facts["shuffle"] is True
    assert facts["batch_label_purity"] < 0.7


def test_input_scale():
    torch.manual_seed(0)
    ds = blobs()
    x = ds.tensors[0].clone()
    x[:, 0] *= 1000.0
    m = mlp()
    facts, *_ = fit(m, sgd(m, lr=1e-6), torch.utils.data.TensorDataset(x, ds.tensors[1]))
    assert facts["input_scale"] > 500
    assert facts["input_scale_spread"] > 100
    facts2, *_ = fit(mlp(), sgd(mlp()), blobs())
    assert facts2["input_scale_spread"] < 10
    assert facts2["inputs_have_nan"] is False


def test_inputs_are_measured_where_the_model_receives_them():
    """A script that standardises its batches in the loop, after the loader, feeds the model
    well-scaled inputs: the raw loader scale must not read as unnormalised inputs."""
    torch.manual_seed(0)
    ds = blobs(n=256)
    x = ds.tensors[0].clone()
    x[:, 0] = x[:, 0] * 1000.0 + 5000.0
    mu, sd = x.mean(0), x.std(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m), torch.utils.data.TensorDataset(x, ds.tensors[1]),
                    forward=lambda model, xb: model((xb - mu) / sd))
    assert facts["input_scale"] < 10 and facts["input_scale_spread"] < 10
    raw = mlp()
    facts2, *_ = fit(raw, sgd(raw, lr=1e-6), torch.utils.data.TensorDataset(x, ds.tensors[1]))
    assert facts2["input_scale"] > 500                  # fed raw, it is reported


class Augmenting(torch.utils.data.Dataset):
    """Draws from the global RNG in __getitem__, like a random augmentation."""

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        torch.rand(1)
        return self.base[i]


@pytest.mark.parametrize("overlap", [True, False])
def test_val_train_overlap(overlap):
    torch.manual_seed(0)
    train = blobs(n=128)
    val = torch.utils.data.Subset(train, list(range(0, 128, 4))) if overlap else blobs(n=32, seed=7)
    m = mlp()
    state = {}
    facts, *_ = fit(m, sgd(m), Augmenting(train), val=val,
                    before_findings=lambda w: state.update(rng=torch.get_rng_state()))
    assert facts["val_train_overlap"] == (1.0 if overlap else 0.0)
    assert facts["train_size"] == 128 and facts["val_size"] == 32
    assert torch.equal(torch.get_rng_state(), state["rng"])   # hashing examples drew no random numbers


# --------------------------------------------------------------------------- configuration
def test_regularization():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 4))
    facts, *_ = fit(m, torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0.1), blobs())
    assert facts["regularization"] == ["dropout", "weight_decay"]
    assert facts["dropout_p"] == 0.5 and facts["weight_decay"] == 0.1
    assert facts["model_has_dropout_or_bn"] is True
    assert facts["optimizer"] == "adamw"
    plain = mlp()
    facts2, *_ = fit(plain, sgd(plain), blobs())
    assert facts2["regularization"] == [] and facts2["dropout_p"] == 0.0
    assert facts2["model_has_dropout_or_bn"] is False


def test_init_checks():
    torch.manual_seed(0)
    zero = mlp()
    nn.init.zeros_(zero[2].weight)
    facts, *_ = fit(zero, sgd(zero), blobs())
    assert facts["init_constant"] is True
    big = mlp()
    with torch.no_grad():
        big[2].weight.mul_(100)
    facts, *_ = fit(big, sgd(big, lr=1e-5), blobs())
    assert 50 < facts["init_scale_ratio"] < 200
    ok = mlp()
    facts, *_ = fit(ok, sgd(ok), blobs())
    assert facts["init_constant"] is False and 0.5 < facts["init_scale_ratio"] < 2


# --------------------------------------------------------------------------- overfit one batch
def test_overfit_one_batch_learnable():
    torch.manual_seed(0)
    m = mlp(h=64)
    facts, *_ = fit(m, torch.optim.Adam(m.parameters(), lr=1e-2), blobs(noise=1.5), arm_at=2)
    assert facts["overfit_one_batch"] is True
    assert facts["labels_match_inputs"] is True


def test_overfit_one_batch_random_labels_are_not_called_learnable():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    ds = torch.utils.data.TensorDataset(torch.randn(128, 8, generator=g), torch.randint(0, 4, (128,), generator=g))
    m = mlp(h=64)
    facts, *_ = fit(m, torch.optim.Adam(m.parameters(), lr=1e-2), ds, arm_at=2)
    assert facts["overfit_one_batch"] is True              # 16 random labels can be memorised
    assert "labels_match_inputs" not in facts              # ... so the comparison proves nothing


# --------------------------------------------------------------------------- mixed precision
def test_grad_scaler_skipped_steps():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
    ds = blobs(n=128)
    with tp.watch(m, opt) as w:
        for i, (x, y) in enumerate(w.loader(torch.utils.data.DataLoader(ds, batch_size=16))):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = m(x)
            loss = F.cross_entropy(out.float(), y)
            if i % 2 == 0:
                loss = loss * float("inf")         # overflow: the scaler must skip this step
            w.observe(loss, outputs=out, targets=y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
    findings = w.findings()
    check_vocabulary(findings)
    facts = {f.fact: f.value for f in findings}
    assert facts["grad_scaler_used"] is True and facts["uses_amp"] is True
    assert facts["amp_dtype"] == "bfloat16"
    assert facts["skipped_step_fraction"] == 0.5
    assert facts["grad_scale"] < 2.0 ** 16
    assert w.monitor.steps == 4


# --------------------------------------------------------------------------- monitor API (runner-style use)
def test_monitor_late_binding_and_explicit_feeds():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m)
    mon = tp.Monitor(num_classes=4)
    ds = blobs()
    with mon:
        for i, (x, y) in enumerate(torch.utils.data.DataLoader(ds, batch_size=16)):
            mon.on_data_wait(0.0)
            mon.on_batch(x, y, phase="train")
            out = m(x)
            loss = F.cross_entropy(out, y)
            mon.on_loss(loss, phase="train", outputs=out, targets=y, loss_name="cross_entropy")
            loss.backward()
            if i == 0:
                mon.bind(m, opt)       # the runner finds them at the first step
                mon.bind(m, opt)       # re-binding the same objects is a no-op
                assert len(opt._optimizer_step_pre_hooks) == 1
            opt.step()
            opt.zero_grad()
    assert not opt._optimizer_step_pre_hooks and not m._forward_pre_hooks
    assert mon.steps == 8        # bound before the first step: every step seen
    facts = {f.fact: f.value for f in mon.findings()}
    check_vocabulary(mon.findings())
    assert facts["num_classes"] == 4 and facts["loss_function"] == "cross_entropy"
    s = mon.summary()
    assert all(isinstance(v, (int, float)) for v in s["train_loss"]["value"])
    assert not mon.armed
    mon.arm("asked")
    assert mon.armed


def test_arming_on_a_loss_spike():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m, lr=0.01)
    ds = blobs(n=512)
    with tp.watch(m, opt) as w:
        for i, (x, y) in enumerate(torch.utils.data.DataLoader(ds, batch_size=16)):
            out = m(x)
            loss = F.cross_entropy(out, y) * (50.0 if i == 20 else 1.0)
            w.observe(loss)
            loss.backward()
            opt.step()
            opt.zero_grad()
    events = [(s, r) for s, r in w.summary()["armed"] if r.startswith("spike")]
    assert events and 20 <= events[0][0] <= 20 + monitor_mod.FLUSH_EVERY["cpu"]   # checked once per flush


def test_report_goes_through_the_engine():
    pytest.importorskip("traindx.engine.api")
    torch.manual_seed(0)
    m = mlp()
    for p in m[0].parameters():
        p.requires_grad_(False)
    facts, findings, w = fit(m, sgd(m, lr=1e-7), blobs(n=256), epochs=1)
    r = w.report()
    assert r["schema_version"] == "1" and r["status"] in ("diagnosed", "healthy", "insufficient_evidence")


def test_schedule_is_stated():
    g = monitor_mod.SCHEDULE["grads"]
    assert g(0) and g(g.first - 1) and g(g.every * 4) and not g(g.every * 4 + 1)
    assert monitor_mod.Monitor().params["monitor.arm_steps"] > 0


# --------------------------------------------------------------------------- the device (CUDA) read path
class DeferringMonitor(monitor_mod.Monitor):
    """Reads every value the way it does on CUDA -- deferred, one batch per flush -- on CPU tensors."""

    def _defer(self, cb, t):
        self._deferred.append((cb, t))


def test_deferred_reads_give_the_same_facts():
    torch.manual_seed(0)
    ds = blobs(n=512)

    def run(cls):
        torch.manual_seed(0)
        m = mlp()
        opt = sgd(m)
        mon = cls(m, opt, level="cheap")
        if cls is DeferringMonitor:
            mon._set_device("xpu")        # not the CPU: loss values are deferred too
        with mon:
            for x, y in LoaderTap(torch.utils.data.DataLoader(ds, batch_size=16), mon, phase="train"):
                out = m(x)
                loss = F.cross_entropy(out, y)
                mon.on_loss(loss, outputs=out, targets=y, loss_name="cross_entropy")
                loss.backward()
                opt.step()
                opt.zero_grad()
        assert not mon._deferred or cls is DeferringMonitor
        return {f.fact: f.value for f in mon.findings()}, mon

    direct, _ = run(monitor_mod.Monitor)
    deferred, mon = run(DeferringMonitor)
    assert not mon._deferred                       # findings() resolved everything
    for fact in ("initial_loss", "current_loss", "loss_trend", "train_accuracy", "grad_accumulates",
                 "output_range_max", "num_classes", "update_ratio"):
        assert deferred[fact] == direct[fact], fact
    check_vocabulary(mon.findings())


def test_deferred_reads_find_the_first_nan_step():
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m)
    mon = DeferringMonitor(m, opt)
    mon._set_device("xpu")
    with mon:
        for _i, (x, y) in enumerate(torch.utils.data.DataLoader(NaNAt(blobs(), bad=16 * 3 + 2), batch_size=16)):
            mon.on_batch(x, y, phase="train")
            out = m(x)
            loss = F.cross_entropy(out, y)
            mon.on_loss(loss, outputs=out, targets=y, loss_name="cross_entropy")
            loss.backward()
            opt.step()
            opt.zero_grad()
    facts = {f.fact: f.value for f in mon.findings()}
    assert facts["nan_first_step"] == 3
    assert facts["loss_has_nonfinite"] is True and facts["grads_have_nan"] is True


def test_findings_mid_run_do_not_disturb_the_run():
    """The runner asks for findings while attached, even between a loss and its backward."""
    torch.manual_seed(0)
    m = mlp()
    opt = sgd(m)
    ds = blobs(n=256)
    with tp.watch(m, opt, val_loader=None) as w:
        for epoch in range(3):
            for x, y in torch.utils.data.DataLoader(ds, batch_size=16):
                out = m(x)
                loss = F.cross_entropy(out, y)
                w.observe(loss, outputs=out, targets=y)
                w.findings()                       # before backward: the loss must stay a training loss
                loss.backward()
                opt.step()
                opt.zero_grad()
            with torch.no_grad():
                for i, (x, y) in enumerate(torch.utils.data.DataLoader(ds, batch_size=64)):
                    w.observe(F.cross_entropy(m(x), y), outputs=m(x), targets=y)
                    if i == 0:
                        mid = {f.fact: f.value for f in w.findings()}   # mid-evaluation: not yet counted
                        # (a complete one is, from step 20 on: the one at step 32)
                        assert ("val_loss" in mid) == (epoch == 2)
    s = w.summary()
    assert len(s["train_loss"]["value"]) == s["steps"] == 48
    facts = {f.fact: f.value for f in w.findings()}
    assert len(w.summary()["val"]) == 3                   # three whole evaluations, not split
    assert "val_loss" in facts


def test_widening_train_val_gap_arms():
    mon = tp.Monitor(num_classes=4)
    w = torch.ones((), requires_grad=True)
    train, val = 1.0, 1.0
    for epoch in range(6):
        for _ in range(10):
            train *= 0.9
            mon.on_loss(w * train, phase="train")
        val += 0.1 * epoch
        mon.on_loss(torch.tensor(val), phase="val")
    mon.findings()
    assert any(r.startswith("gap") for _, r in mon.summary()["armed"])


class PlainListEnsemble(nn.Module):
    """Members in a plain list: model.parameters() holds only the mixing weights."""

    def __init__(self):
        super().__init__()
        self.members = [mlp() for _ in range(2)]
        self.mix = nn.Parameter(torch.zeros(2))
        self.helper = [self.mix]                     # a registered parameter listed again: not hidden

    def forward(self, x):
        w = self.mix.softmax(0)
        return sum(wi * m(x) for wi, m in zip(w, self.members))


def test_layers_in_a_plain_list_are_not_in_the_optimizer():
    torch.manual_seed(0)
    m = PlainListEnsemble()
    facts, *_ = fit(m, sgd(m), blobs())
    missing = facts["params_not_in_optimizer"]
    assert "members[0].0.weight" in missing and "members[1].4.bias" in missing
    assert len(missing) == 12 and "mix" not in missing


def test_overlap_estimate_when_only_part_of_train_is_hashed():
    from traindx.probes.live import data as D

    g = torch.Generator().manual_seed(0)
    train = torch.utils.data.TensorDataset(torch.randn(4000, 4, generator=g), torch.zeros(4000))
    val = torch.utils.data.Subset(train, list(range(3900, 4000)))     # the end of the training set
    r = D.val_train_overlap(train, val, max_train=2000)
    assert r["train_hashed"] == 2000
    assert 0.6 < r["overlap"] <= 1.0


def test_no_train_val_metrics_after_a_handful_of_steps():
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m), blobs(n=64), val=blobs(n=32, seed=1), epochs=2)     # 8 steps
    assert not {"train_accuracy", "val_accuracy", "train_loss", "val_loss"} & set(facts)
    assert facts["model_mode_in_validation"] == "eval"


def test_noisy_validation_floor_is_not_a_rise():
    from traindx.probes.live import losses as L

    def val_trend(vals):
        return L.curve_analysis((), (), [(10 * (i + 1), v) for i, v in enumerate(vals)]).facts["val_loss_trend"]

    floor = [1.0, 0.6, 0.4, 0.3] + [0.12, 0.17, 0.13, 0.19, 0.12, 0.16, 0.14, 0.18, 0.12, 0.15] * 2 + [0.16]
    assert val_trend(floor) == "flat"
    rising = [1.0, 0.6, 0.4, 0.3, 0.25, 0.26, 0.3, 0.35, 0.42, 0.5, 0.6]
    assert val_trend(rising) == "increasing"
    assert L.best_val_fraction([(i * 10, v) for i, v in enumerate(rising)], 100) == pytest.approx(0.4)


def test_one_bad_last_evaluation_is_not_a_rising_validation_loss():
    from traindx.probes.live import losses as L

    pts = [(10 * (i + 1), v) for i, v in enumerate([1.0, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.42, 0.4, 0.52])]
    assert L.curve_analysis((), (), pts).facts["val_loss_trend"] != "increasing"


def test_closure_optimizer_steps_are_read_after_the_closure():
    """LBFGS-style step(closure): forward and backward run inside the step."""
    torch.manual_seed(0)
    m = mlp()
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    ds = blobs(n=128)
    with tp.watch(m, opt) as w:
        for i, (x, y) in enumerate(torch.utils.data.DataLoader(ds, batch_size=16)):
            def closure():
                opt.zero_grad()
                out = m(x)  # noqa: B023 -- stepped within this iteration
                loss = F.cross_entropy(out, y)  # noqa: B023 -- stepped within this iteration
                w.observe(loss, outputs=out, targets=y)  # noqa: B023 -- stepped within this iteration
                loss.backward()
                return loss
            opt.step(closure)
            if i == 4:
                with pytest.raises(RuntimeError):
                    opt.step(lambda: (_ for _ in ()).throw(RuntimeError("closure failed")))
    assert w.monitor.steps == 8          # the failed step is not counted
    facts = {f.fact: f.value for f in w.findings()}
    assert facts["params_without_grad"] == [] and facts["grads_all_zero"] is False
    assert facts["zero_grad_called"] is True
    assert len(w.summary()["train_loss"]["value"]) == 8
    assert not opt._optimizer_step_post_hooks and not opt._optimizer_step_pre_hooks


def test_a_plain_step_is_not_taken_for_a_closure_step():
    """torch hands a step pre-hook ``step``'s own ``self`` among its args: a plain ``opt.step()`` must
    still be read as a plain step (before the update, no extra post-hook on every step), and only a
    real closure -- positional or keyword -- takes the closure path."""
    torch.manual_seed(0)
    m = mlp()
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    ds = blobs(n=64)
    with tp.watch(m, opt) as w:
        for x, y in torch.utils.data.DataLoader(ds, batch_size=16):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            w.observe(loss)
            loss.backward()
            opt.step()
            assert w.monitor._closure_post is None, "a plain step read as step(closure)"
    assert w.monitor.steps == 4

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        return loss
    for call in (lambda: opt.step(closure), lambda: opt.step(closure=closure)):
        with tp.watch(m, opt) as w:
            call()
            assert w.monitor._closure_post is not None
    assert not opt._optimizer_step_post_hooks and not opt._optimizer_step_pre_hooks


def test_multi_hot_targets_are_told_from_one_hot_and_probabilities():
    from traindx.probes.live import losses as L
    out = torch.zeros(4, 3)
    one_hot = torch.eye(3)[[0, 1, 2, 0]]
    multi = torch.tensor([[1., 1., 0.], [0., 1., 0.], [1., 0., 1.], [0., 0., 0.]])
    soft = torch.tensor([[0.7, 0.2, 0.1]] * 4)
    assert L.target_kind(out, one_hot) == "one_hot"
    assert L.target_kind(out, multi) == "multi_hot"
    assert L.target_kind(out, soft) == "probabilities"


def test_a_frozen_constant_weight_is_not_a_symmetry_problem():
    from traindx.probes.live import model_config as MC
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4))
    nn.init.zeros_(m[2].weight)
    assert MC.init_constant(m) == ["2.weight"]          # trains from identical units: symmetry
    m[2].weight.requires_grad_(False)
    assert MC.init_constant(m) == []                    # never updated: the freeze is what matters


def test_the_saturation_cut_is_a_parameter():
    """activations.saturation_cut decides which tanh outputs count as saturated: the same layer
    measured with the shipped 0.99 and with a looser cut of 0.6 gives a larger share under the
    looser one (a pack can move it without code)."""
    from traindx.engine.parameters import shipped
    from traindx.probes.live.activations import ActivationHooks
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 2))
    x = torch.randn(256, 8)
    shares = []
    for cut in (0.99, 0.6):
        hooks = ActivationHooks(m, {**shipped(), "activations.saturation_cut": cut})
        try:
            m(x)
            shares.append(float(next(v for _, k, v in hooks.pending if k == "saturated")))
        finally:
            for h in hooks.handles:
                h.remove()
    assert shares[1] > shares[0] + 0.1


def test_nan_made_by_a_hand_written_loss_the_runner_cannot_see_into():
    # log(sigmoid(z)) written out by hand: no outputs reach the monitor, so the replay decides —
    # every module's output finite on finite weights and inputs: the loss made the NaN
    torch.manual_seed(0)
    m = mlp()

    def pixel_bce(out, y):
        p = torch.sigmoid(out * 1e4)          # saturates to exactly 0/1: log(0) = -inf
        t = F.one_hot(y, 4).float()
        return -(t * torch.log(p) + (1 - t) * torch.log(1 - p)).mean()

    facts, *_ = fit(m, sgd(m), blobs(), loss_fn=pixel_bce, pass_outputs=False)
    assert facts["nonfinite_first_module"] == "loss"


def test_outputs_grown_huge_are_not_blamed_on_the_loss():
    # a regression whose outputs are finite but enormous: MSE squares them into Inf — the model
    # blew up, so the replay does not say "loss"
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    with torch.no_grad():
        m[2].weight.mul_(1e30)
    before = copy.deepcopy(m)

    def mse(out, y):
        return ((out.squeeze(1) - y.float()) ** 2).mean()

    facts, *_ = fit(m, sgd(m), blobs(), loss_fn=mse, pass_outputs=False)
    assert facts["nan_first_step"] == 0
    assert facts.get("nonfinite_first_module") != "loss"
    # the same replay without the magnitude limit would have blamed the loss
    from traindx.probes.live.nan_trace import first_nonfinite_module
    x = blobs().tensors[0][:16]
    assert first_nonfinite_module(before, (x,), all_finite="loss") == "loss"
    assert first_nonfinite_module(before, (x,), all_finite="loss", max_output=1e4) is None


@pytest.mark.parametrize("windowed", [True, False])
def test_batches_far_purer_than_shuffled(windowed):
    """A ten-class set in class order read through a small shuffle window (a TF-style shuffle
    buffer) gives batches mostly of one class: far purer than shuffled batches of the same labels
    would be, though no batch is single-class. A shuffled loader stays near the expectation."""
    from traindx.engine.loader import load_kb
    kb = load_kb(entry_point_packs=False)
    torch.manual_seed(0)
    ds = blobs(n=960, c=10)
    x, y = ds.tensors
    order = torch.argsort(y, stable=True)
    if windowed:
        g = torch.Generator().manual_seed(1)
        order = torch.cat([w[torch.randperm(len(w), generator=g)] for w in order.split(128)])
        ds = torch.utils.data.TensorDataset(x[order], y[order])
    m = mlp(o=10)
    facts, *_ = fit(m, sgd(m), ds, batch=32, shuffle=not windowed, give_loaders=False)
    assert (facts["batch_purity_excess"] >= kb.param("rules.batch_purity.far_excess")) is windowed
    assert facts["batch_label_purity"] < kb.param("rules.batch_purity.pure")
    if not windowed:
        assert facts["batch_purity_excess"] < kb.param("shuffle.shuffled_excess")
