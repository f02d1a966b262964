"""``traindx.probes.watch``: diagnose a training loop from inside it.

::

    with traindx.probes.watch(model, optimizer, train_loader=train_loader, val_loader=val_loader) as w:
        for x, y in w.loader(train_loader):      # optional: times data waits and sees batches
            out = model(x); loss = crit(out, y)
            w.observe(loss, outputs=out, targets=y)   # optional; the phase is inferred
            loss.backward(); opt.step(); opt.zero_grad()
    report = w.report()      # the diagnosis (needs traindx.engine.api)
    facts = w.findings()     # the evidence, as Finding objects

Every hook and wrapper is removed when the ``with`` block ends, also when it raises.

A fault of traindx's own inside the loop never fails the user's training: it is reported once as
a ``RuntimeWarning`` and the probes switch off for the rest of the run (see :mod:`.guard`).
"""

from __future__ import annotations

from traindx.probes.live.guard import Fuse, SafeLoader
from traindx.probes.live.monitor import Monitor
from traindx.probes.live.timing import LoaderTap


class Watch:
    """A :class:`~traindx.probes.live.monitor.Monitor` bound to one model/optimizer, with helpers."""

    def __init__(self, model, optimizer=None, num_classes=None, train_loader=None, val_loader=None, *,
                 criterion=None, level="cheap", params=None, experiments=True):
        if level not in ("cheap", "full"):
            raise ValueError(f"level must be 'cheap' or 'full', not {level!r}")
        self.fuse = Fuse("traindx.watch", on_blow=self._switch_off)
        self.monitor = None
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = criterion
        self._crit_named = self._crit_name = None
        self.monitor = self.fuse.call("watch()", Monitor, model, optimizer, num_classes=num_classes,
                                      level=level, loss_fn=criterion, params=params, experiments=experiments)
        if self.monitor is not None:
            self.fuse.call("watch()", self.monitor.add_loader, train_loader, "train")
            self.fuse.call("watch()", self.monitor.add_loader, val_loader, "val")

    def _switch_off(self):
        if self.monitor is not None:
            self.monitor.detach()

    def __enter__(self):
        return self.attach()

    def __exit__(self, *exc):
        self.detach()
        return False          # the user's exception, if any, goes on unchanged

    def attach(self):
        if self.monitor is not None:
            self.fuse.call("watch() entering", self.monitor.attach)
        return self

    def detach(self):
        if self.monitor is not None:
            try:
                self.monitor.detach()
            except Exception as exc:
                self.fuse.blow("watch() leaving", exc)

    def loader(self, loader, phase=None):
        """Iterate ``loader`` as usual, timing each wait for a batch and showing each batch to the
        monitor. ``phase`` defaults to ``val`` for the ``val_loader`` given to :func:`watch`,
        ``train`` for the ``train_loader``, else it is inferred from grad mode."""
        if self.monitor is None or self.fuse.blown:
            return loader
        if phase is None:
            if loader is self.val_loader and loader is not None:
                phase = "val"
            elif loader is self.train_loader and loader is not None:
                phase = "train"
        elif phase in ("train", "val") and phase not in self.monitor._loaders:
            self.fuse.call("loader", self.monitor.add_loader, loader, phase)
        return SafeLoader(loader, lambda mon: LoaderTap(None, mon, phase=phase), self.monitor, self.fuse)

    def observe(self, loss, outputs=None, targets=None, *, phase=None, loss_name=None):
        """Show the monitor a loss (before backward), with what it compared when known.
        ``phase`` None: inferred (no grad, or no backward before the next step: validation)."""
        # called on every loss: the fuse's guard written out here rather than through Fuse.call
        monitor = self.monitor
        if monitor is None or self.fuse.blown:
            return
        try:
            if loss_name is None:
                crit = self.criterion
                if crit is not None:
                    if crit is not self._crit_named:        # _criterion_name once per criterion
                        self._crit_named, self._crit_name = crit, _criterion_name(crit)
                    loss_name = self._crit_name
                if loss_name is None and (outputs is None or targets is None):
                    loss_name = "unknown"
            monitor.on_loss(loss, phase=phase, outputs=outputs, targets=targets, loss_name=loss_name)
        except Exception as exc:
            self.fuse.blow("observe", exc, stacklevel=3)

    def arm(self, reason: str = "requested"):
        """Switch the costly probes on for the next steps."""
        if self.monitor is not None:
            self.fuse.call("arm", self.monitor.arm, reason)

    def lr_decay_test(self, batches: int | None = None):
        """Start the LR-decay test now (it starts by itself when the loss plateaus under a held
        LR): copies continue on the next ``batches`` training batches (default ``lr_decay.batches``;
        the last quarter held out) at the same and at a tenth of the LR.
        Its answer, ``lr_decay_helps``, is in :meth:`findings` once those batches have been seen."""
        if self.monitor is not None:
            self.fuse.call("lr_decay_test", self.monitor.start_lr_decay, batches)

    def overfit_one_batch(self):
        """Run the overfit-one-batch probe now on the latest training batch; returns its plain result
        (None if traindx failed: then a warning says why)."""
        if self.monitor is None:
            return None
        return self.fuse.call("overfit_one_batch", self.monitor.run_overfit)

    @property
    def armed(self) -> bool:
        return self.monitor is not None and not self.fuse.blown and self.monitor.armed

    def findings(self):
        """The evidence so far: a list of :class:`~traindx.engine.evidence.Finding`."""
        return self.monitor.findings() if self.monitor is not None else []

    def summary(self) -> dict:
        """Plain-data series for plots."""
        return self.monitor.summary()

    def report(self) -> dict:
        """The diagnosis dict from the engine (``traindx.engine.api``)."""
        try:
            from traindx.engine.api import Session, load_kb
        except ImportError as e:
            raise RuntimeError(
                "traindx.engine.api is not available in this installation, so no report can be built; "
                "use w.findings() for the evidence") from e
        s = Session(load_kb())
        s.add_findings(self.monitor.findings())
        run_differential(s, self.monitor)
        return s.report()


def run_differential(session, monitor) -> list[dict]:
    """Differential diagnosis in-process: while the engine finds the diagnosis open, run the
    experiment it picks (``traindx.engine.differential``) on copies, on the batches the monitor
    kept, and add its outcome to ``session``. Returns the experiments run. Nothing runs when the
    monitor's experiments are off (``experiments=False``)."""
    from traindx.engine import differential

    done: list[dict] = []
    if not monitor.experiments.enabled:
        return done
    while True:
        spec = differential.next_experiment(session, [d["id"] for d in done])
        if spec is None:
            break
        monitor.request_experiment(spec)
        monitor.run_experiments()
        done.append(spec)
        session.add_findings(f for f in monitor.findings() if f.source == "probe:experiment")
    return done


def _criterion_name(criterion) -> str:
    """A loss name for a criterion: the class of a torch loss module, a torch functional's name,
    else ``custom``."""
    try:
        from torch.nn.modules.loss import _Loss
    except Exception:  # pragma: no cover
        _Loss = ()
    if isinstance(criterion, _Loss):
        return type(criterion).__name__
    mod = getattr(criterion, "__module__", "") or ""
    if mod.startswith("torch.nn"):
        return getattr(criterion, "__name__", "custom")
    return "custom"


def watch(model, optimizer=None, num_classes=None, train_loader=None, val_loader=None, *, criterion=None,
          level="cheap", experiments=True) -> Watch:
    """Watch a training loop: use as ``with watch(model, optimizer) as w: ...``. ``experiments``
    False: no experiment on copies (no batch kept), as ``--no-experiments``."""
    return Watch(model, optimizer, num_classes, train_loader, val_loader, criterion=criterion, level=level,
                 experiments=experiments)

