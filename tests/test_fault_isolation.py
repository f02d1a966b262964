"""A fault of traindx inside the user's training loop never fails the training: one warning, probes off.

The faults are injected by making traindx's own monitor methods raise (as a bug would); the
user's loop must run to the end with the same batches and the same result as without traindx,
with exactly one RuntimeWarning, and every hook removed. An error raised by the *user's* loader
must still reach the user unchanged.
"""

import warnings

import pytest

torch = pytest.importorskip("torch")

from traindx.probes.live import monitor as monitor_mod  # noqa: E402
from traindx.probes.live.watch import watch  # noqa: E402


def _setup():
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return loader, model, opt


def _train(loader, model, opt, w=None, epochs=2):
    seen = 0
    crit = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in (w.loader(loader) if w is not None else loader):
            opt.zero_grad()
            loss = crit(model(xb), yb)
            if w is not None:
                w.observe(loss, outputs=None, targets=None)
            loss.backward()
            opt.step()
            seen += len(xb)
    return seen, [p.detach().clone() for p in model.parameters()]


def _boom(*a, **k):
    raise RuntimeError("injected traindx fault")


@pytest.mark.parametrize("method", ["on_batch", "on_loss", "on_data_wait", "attach", "__init__"])
def test_a_fault_in_the_monitor_degrades_to_one_warning(monkeypatch, method):
    loader, model, opt = _setup()
    ref_seen, ref_params = _train(*_setup())
    if method == "__init__":
        monkeypatch.setattr(monitor_mod.Monitor, "__init__", _boom)
    else:
        monkeypatch.setattr(monitor_mod.Monitor, method, _boom)
        if method in ("on_batch", "on_data_wait"):   # the loader reports a training batch in one call of both
            monkeypatch.setattr(monitor_mod.Monitor, "on_train_batch", _boom)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with watch(model, opt) as w:
            seen, params = _train(loader, model, opt, w)
    ours = [c for c in caught if issubclass(c.category, RuntimeWarning) and "traindx" in str(c.message)]
    assert len(ours) == 1, [str(c.message) for c in caught]
    assert "injected traindx fault" in str(ours[0].message)
    assert seen == ref_seen                                   # no batch lost or repeated
    assert all(torch.equal(a, b) for a, b in zip(params, ref_params))   # the same training
    assert not model._forward_pre_hooks and not opt._optimizer_step_pre_hooks


def test_a_fault_in_the_monitor_after_a_few_batches_keeps_every_batch(monkeypatch):
    loader, model, opt = _setup()
    ref_seen, ref_params = _train(*_setup())
    calls = {"n": 0}
    real = monitor_mod.Monitor.on_train_batch        # what the loader calls for each training batch

    def flaky(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("injected on the third batch")
        return real(self, *a, **k)
    monkeypatch.setattr(monitor_mod.Monitor, "on_train_batch", flaky)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with watch(model, opt) as w:
            seen, params = _train(loader, model, opt, w)
    assert sum("traindx" in str(c.message) for c in caught) == 1
    assert seen == ref_seen and all(torch.equal(a, b) for a, b in zip(params, ref_params))


def test_the_users_own_loader_error_reaches_the_user():
    class Broken:
        def __iter__(self):
            yield torch.zeros(2, 4), torch.zeros(2, dtype=torch.long)
            raise ValueError("corrupt shard 17")
    _, model, opt = _setup()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="corrupt shard 17"):
            with watch(model, opt) as w:
                for xb, _yb in w.loader(Broken()):
                    model(xb)
    assert not any("traindx" in str(c.message) for c in caught)


def test_the_users_exception_inside_the_with_block_is_not_swallowed():
    _, model, opt = _setup()
    with pytest.raises(KeyError):
        with watch(model, opt):
            raise KeyError("user bug")
    assert not model._forward_pre_hooks


def test_callback_hooks_are_guarded():
    """Every on_* hook of the Lightning and HF callbacks goes through the boundary."""
    pytest.importorskip("lightning")
    from traindx.probes.integrations.lightning import TrainDxCallback
    hooks = [n for n in vars(TrainDxCallback) if n.startswith("on_")]
    assert hooks and all(getattr(getattr(TrainDxCallback, n), "_traindx_guarded", False) for n in hooks)
    cb = TrainDxCallback()

    class Trainer:   # a hook reads what it needs from the trainer: here, nothing is there
        pass
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for name in hooks:
            getattr(cb, name)(*([Trainer()] * 2))   # wrong arguments: a traindx-side TypeError at most
    assert cb.probe._disabled or cb.probe.monitor is None
