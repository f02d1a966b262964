"""A stand-in for traindx.probes.live.monitor.Monitor that records what the instrumentation hands it.

Used by tests/test_runner.py through the child's ``--monitor`` option (``fake_monitor:FakeMonitor``
with this folder on PYTHONPATH). It implements the Monitor API and nothing else: no hooks, no torch
calls beyond reading shapes and ``float()`` of losses, so it cannot change the run.
"""

from __future__ import annotations

from traindx.engine.evidence import Finding


class FakeMonitor:
    def __init__(self, model=None, optimizer=None, *, num_classes=None, level="cheap"):
        self.model = model
        self.optimizer = optimizer
        self.num_classes = num_classes
        self.level = level
        self.armed = False
        self.attached = 0
        self.steps = 0
        self.calls = {"bind": 0, "attach": 0, "detach": 0, "on_batch": 0, "on_data_wait": 0}
        self.batch_phases: list[str] = []
        self.losses: list[tuple[str, float, str | None, list | None, list | None]] = []
        self.data_wait = 0.0

    def bind(self, model=None, optimizer=None):
        self.calls["bind"] += 1
        self.model = model if model is not None else self.model
        self.optimizer = optimizer if optimizer is not None else self.optimizer

    def attach(self):
        self.calls["attach"] += 1
        return self

    def detach(self):
        self.calls["detach"] += 1

    def __enter__(self):
        return self.attach()

    def __exit__(self, *exc):
        self.detach()

    def on_batch(self, inputs, targets, *, phase="train"):
        self.calls["on_batch"] += 1
        self.batch_phases.append(phase)

    def on_loss(self, loss, *, phase="train", outputs=None, targets=None, loss_name=None):
        shape = list(outputs.shape) if outputs is not None else None
        tshape = list(targets.shape) if targets is not None else None
        self.losses.append((phase, float(loss.detach()), loss_name, shape, tshape))
        if phase == "train":
            self.steps += 1

    def on_data_wait(self, seconds: float):
        self.calls["on_data_wait"] += 1
        self.data_wait += seconds

    def arm(self, reason: str):
        self.armed = True

    def findings(self):
        out = []
        train = [l for l in self.losses if l[0] == "train"]
        val = [l for l in self.losses if l[0] == "val"]
        if train:
            out.append(Finding("train_loss", train[-1][1], "probe:fake",
                               extra={"loss_name": train[-1][2]}))
            out.append(Finding("initial_loss", train[0][1], "probe:fake"))
        if val:
            out.append(Finding("val_loss", val[-1][1], "probe:fake",
                               extra={"loss_name": val[-1][2]}))
        if self.optimizer is not None:
            out.append(Finding("optimizer", type(self.optimizer).__name__.lower(), "probe:fake"))
        return out

    def summary(self):
        return {
            "model": type(self.model).__name__ if self.model is not None else None,
            "model_params": sum(p.numel() for p in self.model.parameters()) if self.model is not None else None,
            "optimizer": type(self.optimizer).__name__ if self.optimizer is not None else None,
            "calls": self.calls,
            "batch_phases": sorted(set(self.batch_phases)),
            "losses": self.losses[:50] + self.losses[-50:] if len(self.losses) > 100 else self.losses,
            "num_classes": self.num_classes,
        }
