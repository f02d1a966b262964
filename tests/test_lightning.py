"""``traindx.probes.integrations.lightning.TrainDxCallback`` on a real ``lightning.Trainer`` (CPU, nothing mocked).

A tiny classifier on synthetic, learnable data: a healthy run, a run with a learning rate far too
small (flat loss), a run that blows up to NaN (stopped by ``stop_on_nan``), a run whose
``training_step`` raises. Checked: the diagnosis, the summary in the CSV logger's files, that no
hook or wrapper is left behind, and that the callback changes nothing in the run (parameters,
optimizer state and RNG state bit for bit against a bare run from the same seed).
"""

from __future__ import annotations

import csv
import math
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
try:
    import lightning.pytorch as pl
    from lightning.pytorch.loggers import CSVLogger
except ImportError:  # the standalone package
    pl = pytest.importorskip("pytorch_lightning")
    from pytorch_lightning.loggers import CSVLogger

nn = torch.nn

from traindx.probes.integrations.lightning import TrainDxCallback  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore"), pytest.mark.usefixtures("one_thread")]   # one_thread: conftest.py

EXPLOSION_FAMILY = {"lr_too_high", "exploding_gradients", "numerical_instability", "nan_in_inputs", "fp16_overflow"}
ORIG_CLIP = torch.nn.utils.clip_grad_norm_
STEPS_PER_EPOCH = 16        # 512 examples, batch 32


class Classifier(pl.LightningModule):
    def __init__(self, lr=1e-3, opt="adam", raise_at=None, val_returns_loss=False):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.lr, self.opt, self.raise_at, self.val_returns_loss = lr, opt, raise_at, val_returns_loss

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        if self.raise_at is not None and self.global_step >= self.raise_at:
            raise RuntimeError("boom in training_step")
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self(x)
        loss = nn.functional.cross_entropy(out, y)
        self.log("val_loss", loss)
        self.log("val_acc", (out.argmax(1) == y).float().mean())
        return loss if self.val_returns_loss else None

    def configure_optimizers(self):
        cls = torch.optim.SGD if self.opt == "sgd" else torch.optim.Adam
        return cls(self.parameters(), lr=self.lr)


def _data(n, seed):
    w = torch.randn(16, 4, generator=torch.Generator().manual_seed(99))   # one labelling rule
    x = torch.randn(n, 16, generator=torch.Generator().manual_seed(seed))
    return torch.utils.data.TensorDataset(x, (x @ w).argmax(1))


def fit(tmp_path, *, lr=1e-3, opt="adam", epochs=4, callback=True, seed=0, stop_on_nan=False, **kw):
    torch.manual_seed(seed)
    acc = kw.pop("accumulate_grad_batches", 1)
    model = Classifier(lr, opt, **kw)
    train = torch.utils.data.DataLoader(_data(512, 0), batch_size=32, shuffle=True)
    val = torch.utils.data.DataLoader(_data(128, 1), batch_size=64)
    cb = TrainDxCallback(stop_on_nan=stop_on_nan, verbose=False) if callback else None
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False, logger=CSVLogger(str(tmp_path)),
                         callbacks=[cb] if cb else [], accumulate_grad_batches=acc)
    trainer.fit(model, train, val)
    trainer.rng_after_fit = torch.get_rng_state().clone()
    return model, trainer, cb


def state(model, trainer):
    opt = trainer.optimizers[0].state_dict()
    return {"params": {k: v.clone() for k, v in model.state_dict().items()},
            "opt": {k: {n: t.clone() if torch.is_tensor(t) else t for n, t in s.items()} for k,
                    s in opt["state"].items()},
            "rng": trainer.rng_after_fit}


def assert_same(a, b):
    assert a["params"].keys() == b["params"].keys()
    for k in a["params"]:
        assert torch.equal(a["params"][k], b["params"][k]), f"parameter {k} differs"
    assert a["opt"].keys() == b["opt"].keys()
    for k in a["opt"]:
        for n, t in a["opt"][k].items():
            u = b["opt"][k][n]
            assert torch.equal(t, u) if torch.is_tensor(t) else t == u, f"optimizer state {k}.{n} differs"
    assert torch.equal(a["rng"], b["rng"]), "the torch RNG moved"


def assert_clean(model, opt):
    for name, m in model.named_modules():
        for attr in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                     "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs"):
            assert not getattr(m, attr, None), f"{name or 'model'}.{attr} left behind"
    for name, p in model.named_parameters():
        assert not p._backward_hooks, f"tensor hook left on {name}"
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks, "optimizer hook left behind"
    assert torch.nn.utils.clip_grad_norm_ is ORIG_CLIP, "clip_grad_norm_ wrapper left behind"
    assert not torch.nn.modules.module._global_forward_hooks


def logged(trainer):
    """(metrics.csv rows, hparams.yaml text) of the CSV logger."""
    d = trainer.logger.log_dir
    with open(f"{d}/metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(f"{d}/hparams.yaml") as f:
        return rows, f.read()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Runs shared by several tests, made once: name -> (model, trainer, callback)."""
    cache = {}

    def get(name, **kw):
        if name not in cache:
            cache[name] = fit(tmp_path_factory.mktemp(name), **kw)
        return cache[name]
    return get


def top(report):
    causes = report["root_causes"]
    return causes[0] if causes else {"id": None, "confidence": 0.0}


def test_healthy_run(runs):
    model, trainer, cb = runs("healthy", lr=1e-3, opt="adam")
    rep = cb.report()
    assert rep["status"] == "healthy" or top(rep)["confidence"] < 0.5, (rep["status"], top(rep))
    facts = {f.fact: f for f in cb.findings()}
    assert facts["loss_trend"].value == "decreasing"
    assert facts["run_length_steps"].value == trainer.global_step == 4 * STEPS_PER_EPOCH
    # validation_step returned nothing: the logged val_loss / val_acc were read
    assert facts["val_loss"].source == "probe:train_val_gap"
    assert facts["val_accuracy"].source.startswith("log:trainer.callback_metrics")
    assert 0.0 <= facts["data_time_fraction"].value < 0.5
    # the summary went through the Trainer's logger
    rows, hparams = logged(trainer)
    last = [r for r in rows if r.get("traindx/confidence")][-1]
    assert float(last["traindx/confidence"]) == pytest.approx(top(rep)["confidence"])
    assert float(last["traindx/healthy"]) == (1.0 if rep["status"] == "healthy" else 0.0)
    assert "traindx/status: " + rep["status"] in hparams and "traindx/top_cause:" in hparams
    assert "## " in cb.markdown()


def test_tiny_learning_rate_is_lr_too_low(runs):
    _, trainer, cb = runs("tiny_lr", lr=1e-6, opt="adam")
    rep = cb.report()
    assert rep["symptom"]["id"] == "not_learning"
    assert top(rep)["id"] == "lr_too_low" and top(rep)["confidence"] > 0.8, rep["root_causes"][:3]
    rows, hparams = logged(trainer)
    assert "traindx/top_cause: lr_too_low" in hparams
    # the flat loss armed the costly probes
    assert cb.summary()["armed"]


def test_nan_stops_the_run_with_an_explosion_cause(tmp_path):
    model, trainer, cb = fit(tmp_path, lr=1e4, opt="sgd", epochs=5, stop_on_nan=True, val_returns_loss=True)
    assert cb.probe.nan_step is not None
    assert trainer.global_step < 2 * STEPS_PER_EPOCH, "stop_on_nan did not stop the run"
    assert trainer.global_step <= cb.probe.nan_step + 1
    for rep in (cb.nan_report, cb.report()):
        assert rep["symptom"]["id"] == "explosion"
        assert top(rep)["id"] in EXPLOSION_FAMILY, rep["root_causes"][:3]
    facts = {f.fact: f.value for f in cb.findings()}
    assert facts["nan_first_step"] == cb.probe.nan_step
    rows, _ = logged(trainer)
    assert any(r.get("traindx/nan_step") for r in rows)
    assert_clean(model, trainer.optimizers[0])


def test_no_hook_left_after_fit(runs):
    for name, kw in (("healthy", dict(lr=1e-3, opt="adam")), ("tiny_lr", dict(lr=1e-6, opt="adam"))):
        model, trainer, cb = runs(name, **kw)
        assert not cb.probe.running
        assert_clean(model, trainer.optimizers[0])


def test_no_hook_left_after_an_exception_in_training_step(tmp_path):
    torch.manual_seed(0)
    model = Classifier(raise_at=5)
    cb = TrainDxCallback(verbose=False)
    trainer = pl.Trainer(max_epochs=2, accelerator="cpu", enable_progress_bar=False, enable_model_summary=False,
                         enable_checkpointing=False, logger=False, callbacks=[cb])
    loader = torch.utils.data.DataLoader(_data(512, 0), batch_size=32)
    with pytest.raises(RuntimeError, match="boom"):
        trainer.fit(model, loader)
    assert_clean(model, trainer.optimizers[0])
    # the evidence gathered before the crash is kept
    facts = {f.fact: f.value for f in cb.findings()}
    assert facts["run_length_steps"] == 5


def test_gradient_accumulation_loss_units(tmp_path):
    """Lightning hands on_before_backward the loss divided by accumulate_grad_batches: the monitor
    must still see the loss training_step returned (≈ ln 4 at the start for 4 balanced classes)."""
    _, trainer, cb = fit(tmp_path, epochs=1, accumulate_grad_batches=2)
    facts = {f.fact: f.value for f in cb.findings()}
    assert trainer.global_step == STEPS_PER_EPOCH // 2
    assert abs(facts["initial_loss"] - math.log(4)) < 0.25, facts["initial_loss"]


@pytest.mark.slow
@pytest.mark.parametrize("name,kw", [("healthy", dict(lr=1e-3, opt="adam")), ("tiny_lr", dict(lr=1e-6, opt="adam"))])
def test_the_callback_changes_nothing(runs, tmp_path, name, kw):
    """Bit-identical parameters, optimizer state and RNG state with and without the callback
    (the tiny-lr run arms the costly probes, the overfit-one-batch probe included)."""
    model, trainer, _ = runs(name, **kw)
    watched = state(model, trainer)
    bare_model, bare_trainer, _ = fit(tmp_path, callback=False, **kw)
    assert_same(watched, state(bare_model, bare_trainer))


def test_importing_does_not_import_the_framework():
    code = ("import sys, traindx.probes, traindx.probes.integrations.lightning; "
            "bad = [m for m in ('torch', 'lightning', 'pytorch_lightning', 'transformers') if m in sys.modules]; "
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


def test_pytorch_lightning_trainer():
    """The standalone ``pytorch_lightning`` package's Trainer drives the same callback."""
    ptl = pytest.importorskip("pytorch_lightning")

    class Tiny(ptl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(16, 4)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return nn.functional.cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    model, cb = Tiny(), TrainDxCallback(verbose=False)
    trainer = ptl.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_progress_bar=False,
                          enable_checkpointing=False, enable_model_summary=False, callbacks=[cb])
    trainer.fit(model, torch.utils.data.DataLoader(_data(256, 0), batch_size=32))
    assert cb.monitor.steps == 8 and cb.report()["schema_version"] == "1"
    assert_clean(model, trainer.optimizers[0])
