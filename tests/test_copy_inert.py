"""A user's script may copy or save its model mid-run (an EMA or SWA copy, a "best" snapshot,
``torch.save(model, path)``). Under traindx that must work exactly as without it, and the copy must
not be watched: its forwards are not the run's."""

import copy
import io

import pytest

torch = pytest.importorskip("torch")

from traindx.probes.live.activations import ActivationHooks  # noqa: E402
from traindx.probes.live.hooks import CopyInert  # noqa: E402


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.ReLU(), torch.nn.Linear(12, 3))


def _train_step(model, opt, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def test_a_watched_model_can_be_deep_copied_and_saved_whole_and_its_copy_is_not_watched():
    import traindx.probes

    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    with traindx.probes.watch(model, opt) as w:
        for _ in range(5):
            _train_step(model, opt, x, y)
        best = copy.deepcopy(model)            # on the parent: TypeError (the hook held the monitor)
        buf = io.BytesIO()
        torch.save(model, buf)                 # likewise
        seen = w.monitor._fwd_count
        best(x)
        assert w.monitor._fwd_count == seen    # the copy's forward is not the run's
        model(x)
        assert w.monitor._fwd_count == seen + 1
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    assert torch.equal(loaded(x), model(x))


def test_armed_activation_hooks_leave_copies_and_saved_models_alone():
    model = _model()
    probe = ActivationHooks(model)
    try:
        twin = copy.deepcopy(model)
        torch.save(model, io.BytesIO())
        twin(torch.randn(4, 6))
        assert probe.pending == []             # the copy's forward recorded nothing
        model(torch.randn(4, 6))
        assert probe.pending                   # the watched model's did
    finally:
        for h in probe.handles:
            h.remove()


def test_copy_inert_calls_through_and_its_copies_do_nothing():
    calls = []
    hook = CopyInert(lambda *a, **k: calls.append((a, k)) or "out")
    assert hook(1, 2, k=3) == "out" and calls == [((1, 2), {"k": 3})]
    assert copy.deepcopy(hook)(1, 2) is None
    import pickle

    assert pickle.loads(pickle.dumps(hook))(1, 2) is None
    assert len(calls) == 1


def test_a_lightning_module_that_deep_copies_itself_trains_under_the_callback():
    L = pytest.importorskip("lightning")
    from torch.utils.data import DataLoader, TensorDataset

    from traindx.probes.integrations.lightning import TrainDxCallback

    copies = []

    class M(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = _model()

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, i):
            x, y = batch
            return torch.nn.functional.cross_entropy(self(x), y)

        def on_train_epoch_end(self):          # what EMA / SWA callbacks and "keep the best" do
            copies.append(copy.deepcopy(self))

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), 1e-3)

    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(128, 6), torch.randint(0, 3, (128,)))
    cb = TrainDxCallback()
    trainer = L.Trainer(max_epochs=2, callbacks=[cb], logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(M(), DataLoader(ds, batch_size=32))   # on the parent: TypeError: cannot pickle 'module' object
    assert len(copies) == 2
    assert cb.report()["status"] != "out_of_scope"
