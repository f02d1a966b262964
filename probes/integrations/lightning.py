"""``traindx.probes.integrations.lightning``: a PyTorch Lightning callback that diagnoses the run it watches.

::

    from traindx.probes.integrations.lightning import TrainDxCallback

    cb = TrainDxCallback(stop_on_nan=True)
    trainer = lightning.Trainer(callbacks=[cb], ...)
    trainer.fit(model, train_loader, val_loader)
    cb.report()["root_causes"][0]        # the diagnosis dict (schemas/report.schema.json)
    print(cb.markdown())

``lightning.pytorch`` is used when installed, else ``pytorch_lightning``. Importing this module
imports neither (nor torch): the callback class is built on first access of ``TrainDxCallback``.

What it does, hook by hook
--------------------------

* ``on_train_start``: a :class:`~traindx.probes.live.monitor.Monitor` is bound to the LightningModule
  and to ``trainer.optimizers[0]`` (after any checkpoint restore, so a resumed run's weights are
  not judged as an initialisation) and attached; the train loader is declared to it. One forward
  hook of this module's own on the LightningModule keeps the output of its latest training
  forward (used only when it is what the loss compared, see :class:`RunProbe`).
* ``on_train_batch_start``: the batch (inputs, targets) is shown to the monitor and the data wait
  is taken (below).
* ``on_before_backward``: the training loss, with its graph, goes to the monitor (a loss that a
  backward passes through is a training loss). Lightning hands this hook the loss already divided
  by ``accumulate_grad_batches`` and, under 16-bit AMP, multiplied by the GradScaler's scale; both
  are undone on a scalar copy, so the monitor sees the loss ``training_step`` returned.
  With manual optimization over several optimizers (a GAN) the losses are not shown to the monitor
  (no telling whose loss a backward belongs to); the logged metrics still are read.
* ``on_train_batch_end``: end-of-batch time stamp; the NaN check (below).
* ``on_validation_batch_end``: a validation loss returned by ``validation_step`` (a tensor, or a
  dict with ``loss`` / ``val_loss``) goes to the monitor. ``on_validation_end``: the logged
  metrics (``trainer.callback_metrics``: ``val_loss``, ``val_acc``, ...) are recorded as a metrics
  log; when ``validation_step`` returned no loss, the logged validation loss is shown to the
  monitor instead (one value per evaluation). Sanity-check validation is ignored.
* ``on_fit_end``: every hook is removed, the final report is built and its summary is logged to
  every logger of the Trainer (``log_metrics``: ``traindx/confidence``, ``traindx/diagnosed``,
  ``traindx/healthy``, ``traindx/nan_step``; ``log_hyperparams``: ``traindx/status``,
  ``traindx/symptom``, ``traindx/top_cause``, ``traindx/top_confidence``).
* ``on_exception``: every hook is removed (the evidence is kept: ``report()`` still works).

Data wait (``data_time_fraction``): the time from one ``on_train_batch_end`` to the next
``on_train_batch_start`` is the wait for that batch; the time between two consecutive
``on_train_batch_start`` calls is the step. That gap holds the loader's ``__next__`` (worker
wait or in-process loading and collation), the host-to-device transfer and Lightning's own
bookkeeping between batches (metric logging, the validation check); nothing of the user's step.
On a healthy run the bookkeeping is tens of microseconds, so the figure is a slight upper bound of
the true data wait. The first batch of each epoch and the first batch after a validation run are
not counted (the gap holds worker start-up or the evaluation).

NaN: the training loss is read once per step on CPU (free); on an accelerator a device-side flag
is accumulated and read every 8 steps (one host sync per 8 steps). At the first non-finite loss
the monitor arms itself (costly probes, the first non-finite module from a replay on a copy), the
report of that moment is kept in ``callback.nan_report``, a summary is logged, and with
``stop_on_nan=True`` ``trainer.should_stop`` is set so the fit ends after that batch.

Escalation: the monitor arms its costly probes by itself at a NaN/Inf loss, a loss spike, a loss
still flat after 50 steps, or a widening validation/train gap (see ``probes/live/monitor.py``);
``level="full"`` keeps them on for the whole run.

Nothing here changes the run: no random numbers are drawn in the user's generators, no ``.grad``,
parameter, buffer or optimizer state is written; ``trainer.should_stop`` is set only with
``stop_on_nan=True``.

The framework-neutral part, :class:`RunProbe`, lives in this module and is shared with
:mod:`traindx.probes.integrations.hf`; it imports no framework.
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
import time
from dataclasses import replace

from traindx.engine.evidence import Finding
from traindx.probes.live.hooks import CopyInert

#: Training steps tried to find the model output the loss compared before giving up: a bound on
#: cost, not knowledge.
_OUTPUT_TRIES = 3

__all__ = ["TrainDxCallback", "RunProbe", "ProbeAccess"]  # noqa: F822 -- built on first access (__getattr__)

_log = logging.getLogger("traindx.probes.callbacks")

#: On an accelerator the NaN flag is read once every this many training losses.
NAN_CHECK_EVERY = 8

_KB = None


def _kb():
    """The knowledge base, loaded once per process (about 0.3 s)."""
    global _KB
    if _KB is None:
        from traindx.engine.api import load_kb

        _KB = load_kb()
    return _KB


def _criterion_name(criterion):
    from traindx.probes.live.watch import _criterion_name as name

    return name(criterion)


def _float(v):
    """A plain float from a number or a one-element tensor, else None."""
    try:
        if hasattr(v, "numel"):
            if v.numel() != 1:
                return None
            v = v.detach().float().item()
        v = float(v)
    except (TypeError, ValueError, RuntimeError):
        return None
    return v


class RunProbe:
    """Framework-neutral evidence gathering for a training-framework callback.

    Owns one :class:`~traindx.probes.live.monitor.Monitor` per run (created at :meth:`attach`), the
    framework's logged metrics (a metrics log analysed like a log file, ``log:<label>`` findings),
    facts read from the framework's configuration (``config:<label>``), the data-wait clock and the
    NaN watch. The callbacks translate their framework's hooks into calls of this class.

    Outputs and targets: a model output is passed to the monitor with the loss only when it is
    what the loss compared: on the first training losses that come with an output and targets, the
    loss value is matched against the stock losses (``losses.infer_loss_name``). A unique match
    names the loss; several matches (e.g. cross-entropy and NLL of log-probabilities) pass the
    output unnamed; no match after 3 tries (the output is something else, or the loss is
    hand-written) stops passing outputs, and the loss function is then not judged
    (``loss_name="unknown"``). A ``criterion`` given by the user names the loss outright.
    """

    def __init__(self, framework: str, log_label: str, *, num_classes=None, criterion=None, level="cheap",
                 experiments=True):
        if level not in ("cheap", "full"):
            raise ValueError(f"level must be 'cheap' or 'full', not {level!r}")
        self.framework = framework
        self.log_label = log_label
        self.num_classes = num_classes
        self.criterion = criterion
        self.level = level
        self.experiments = experiments      # False: no experiment on copies (--no-experiments)
        self.monitor = None
        self._reset()

    def _reset(self):
        self.records: list[dict] = []       # logged metrics: {"step": s, name: value, ...}
        self.config: list[Finding] = []
        self.nan_step = None
        self.nan_report = None
        self.final_report = None
        self.running = False
        self._handles = []
        self._last_end = None
        self._nan_flag = None
        self._nan_seen = 0
        self._nan_new = False
        self._out_mode = "undecided"        # undecided | named | unnamed | off
        self._out_name = None
        self._out_tries = 0
        self._disabled = False
        self._val_fed = 0
        self._targets = None
        self._roles: dict = {}
        self._criterion_name = _criterion_name(self.criterion) if self.criterion is not None else None

    # ------------------------------------------------------------------ lifecycle
    def attach(self, model, optimizer, *, train_loader=None):
        """Start a run: a fresh Monitor bound to ``model`` and ``optimizer``, hooks registered."""
        from traindx.probes.live.monitor import Monitor

        self.detach()
        self._reset()
        mon = Monitor(None, None, num_classes=self.num_classes, level=self.level, loss_fn=self.criterion,
                      experiments=self.experiments)
        # the optimizer first: a model bound while the optimizer already holds state (a resumed
        # run) is not read as an initialisation
        mon.bind(optimizer=optimizer)
        mon.bind(model=model)
        if train_loader is not None and hasattr(train_loader, "dataset"):
            mon.add_loader(train_loader, "train")
        self.monitor = mon
        mon.attach()
        self.running = True
        return mon

    def add_hook(self, handle):
        """Keep a hook handle of the callback's own, removed by :meth:`detach`."""
        self._handles.append(handle)

    def detach(self):
        """Remove every hook (idempotent); the evidence is kept."""
        for h in self._handles:
            try:
                h.remove()
            except Exception:
                pass
        self._handles = []
        if self.monitor is not None:
            self.monitor.detach()
        self.running = False

    def fail(self, where, exc):
        """A fault of traindx inside a framework hook: warn once, stop probing, never raise."""
        if not self._disabled:
            self._disabled = True
            _log.warning("traindx: probe disabled after an internal error in %s: %s: %s",
                         where, type(exc).__name__, exc)
        try:
            self.detach()
        except Exception:
            pass

    @property
    def active(self) -> bool:
        return self.running and not self._disabled and self.monitor is not None

    # ------------------------------------------------------------------ feeds
    def batch(self, batch):
        """A training batch as the loader produced it (after device transfer)."""
        from traindx.probes.live.timing import split_batch

        x, y = split_batch(batch)
        self._targets = y
        self.monitor.on_batch(x, y, phase="train")

    def step_begin(self):
        """The data wait of this step: the time since the previous :meth:`step_end`."""
        now = time.perf_counter()
        if self._last_end is not None:
            self.monitor.on_data_wait(now - self._last_end, phase="train")
        else:
            # the first step of a chain: it only starts the step clock
            self.monitor.on_data_wait(0.0, phase="train")
        self._last_end = None

    def step_end(self):
        self._last_end = time.perf_counter()

    def break_wait_chain(self):
        """An epoch boundary, an evaluation or a checkpoint: the next gap is not a data wait."""
        self._last_end = None
        if self.monitor is not None:
            # a non-training wait resets the monitor's step clock (see Monitor.on_data_wait)
            self.monitor.on_data_wait(0.0, phase="val")

    def train_loss(self, loss, *, outputs=None, targets=None):
        """A training loss with its graph (before backward), in the units the user computed it."""
        torch = self.monitor._torch
        name, outs, tgts = self._output_policy(loss, outputs, targets)
        self.monitor.on_loss(loss, phase="train", outputs=outs, targets=tgts, loss_name=name)
        self._watch_nan(loss, torch)

    def val_loss(self, loss):
        """A validation loss (a tensor or a number)."""
        torch = self.monitor._torch
        if not torch.is_tensor(loss):
            v = _float(loss)
            if v is None:
                return
            loss = torch.tensor(v)
        if loss.numel() != 1:
            loss = loss.detach().float().mean()
        self._val_fed += 1
        self.monitor.on_loss(loss.detach(), phase="val", loss_name="unknown")

    def _output_policy(self, loss, outputs, targets):
        if self._criterion_name is not None:
            base = self._criterion_name
        else:
            base = "unknown"
        if self._out_mode == "off":
            return base, None, None
        torch = self.monitor._torch
        usable = torch.is_tensor(outputs) and torch.is_tensor(targets)
        if self._out_mode == "named":
            return (self._out_name if usable else base), (outputs if usable else None), (targets if usable else None)
        if self._out_mode == "unnamed":
            return (self._criterion_name if usable else base), (outputs if usable else None), (targets if usable
                                                                                               else None)
        if not usable:
            return base, None, None
        import traindx.probes.live.losses as L

        self._out_tries += 1
        try:
            got = L.infer_loss_name(loss, outputs, targets)
        except Exception:
            got = None
        if got not in (None, "custom"):
            self._out_mode, self._out_name = "named", got
            if self._criterion_name not in (None, "custom"):
                self._out_name = self._criterion_name
            return self._out_name, outputs, targets
        if got is None and outputs.is_floating_point() and loss.numel() == 1 and math.isfinite(_float(loss)
                                                                                               or math.nan):
            # several stock losses reproduce it: the output is what the loss compared
            self._out_mode = "unnamed"
            return self._criterion_name, outputs, targets
        if self._out_tries >= _OUTPUT_TRIES or got == "custom":
            self._out_mode = "off"
        return base, None, None

    def _watch_nan(self, loss, torch):
        if self.nan_step is not None:
            return
        t = loss.detach()
        if t.device.type == "cpu":
            v = t.float().sum().item() if t.numel() != 1 else t.item()
            if not math.isfinite(v):
                self._mark_nan()
            return
        bad = ~torch.isfinite(t).all()
        self._nan_flag = bad if self._nan_flag is None else (self._nan_flag | bad)
        self._nan_seen += 1
        if self._nan_seen % NAN_CHECK_EVERY == 0:
            self.poll_nan()

    def poll_nan(self):
        """Read the device-side NaN flag now (one host sync)."""
        if self._nan_flag is not None and self.nan_step is None:
            flag, self._nan_flag = self._nan_flag, None
            if bool(flag):
                self._mark_nan()

    def _mark_nan(self, step=None):
        if self.nan_step is None:
            self.nan_step = int(self.monitor.steps if step is None else step)
            self._nan_new = True

    def nan_from_log(self, step=None):
        """A non-finite value in the framework's own log (loss, gradient norm)."""
        if self.monitor is not None:
            self._mark_nan(step)

    def take_new_nan(self) -> bool:
        """True once, right after the first non-finite training loss was seen."""
        if self._nan_new:
            self._nan_new = False
            return True
        return False

    def record_metrics(self, step, metrics: dict):
        """Logged metrics at ``step`` (numbers or one-element tensors); kept as a metrics log."""
        from traindx.probes.readers.words import log_words

        match_role = log_words(getattr(self.monitor, "params", None)).match_role   # the monitor's KB's words
        rec = {}
        roles = self._roles
        for k, v in metrics.items():
            if not isinstance(k, str) or k.startswith("traindx/"):
                continue
            role = roles.get(k, False)
            if role is False:
                role = roles[k] = match_role(k)
            if role is None or role[0] in ("step", "epoch"):
                continue
            f = _float(v)
            if f is not None:
                rec[k] = f
        if rec:
            rec["step"] = int(step)
            self.records.append(rec)
        return rec

    def add_config(self, fact, value, where, detail):
        """A fact read from the framework's configuration (source ``config:<where>``)."""
        if value is not None:
            self.config.append(Finding(fact, value, f"config:{where}", detail))

    # ------------------------------------------------------------------ results
    def log_findings(self) -> list[Finding]:
        """The recorded metrics analysed like a log file (``traindx.probes.readers.curves``)."""
        if not self.records:
            return []
        from traindx.probes.readers.curves import analyze
        from traindx.probes.readers.logs import read_log
        from traindx.engine.errors import InputError

        with tempfile.TemporaryDirectory(prefix="traindx-") as d:
            path = os.path.join(d, "log_history.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"log_history": self.records}, f, allow_nan=True)
            try:
                log = read_log(path)
            except InputError:
                return []
            findings, _ = analyze(log, num_classes=self.num_classes)
        prefix = f"log:{os.path.basename(path)}:"
        return [replace(f, source=f"log:{self.log_label}:" + f.source[len(prefix):])
                if f.source.startswith(prefix) else f for f in findings]

    def findings(self) -> list[Finding]:
        """Monitor findings first; the metrics log and the configuration fill in facts it lacks."""
        out = list(self.monitor.findings()) if self.monitor is not None else []
        out = self._peak_lr(out)
        if self.monitor is not None and self.monitor.steps:
            # the monitor counted every optimizer step; a metrics log may cover fewer
            n = int(self.monitor.steps)
            out.append(Finding("run_length_steps", n, "probe:lr_trace", f"{n} optimizer steps watched"))
        have = {f.fact for f in out}
        for f in self.log_findings() + self.config:
            if f.fact not in have:
                out.append(f)
                have.add(f.fact)
        return out

    def _peak_lr(self, findings):
        """With a warm-up the learning rate at bind time understates the configured one: report
        the peak the optimizer ran at."""
        if self.monitor is None:
            return findings
        lrs = [lr for _, lr in self.monitor.summary().get("lr", []) if lr is not None]
        if not lrs:
            return findings
        peak = max(lrs)
        out = []
        for f in findings:
            if f.fact == "learning_rate" and isinstance(f.value, (int, float)) and peak > f.value * 1.0001:
                f = replace(f, value=peak, detail=f"peak learning rate {peak:g} (it started at {f.value:g}: a warm-up)")
            out.append(f)
        return out

    def report(self) -> dict:
        """The diagnosis dict (``schemas/report.schema.json``) from the evidence so far."""
        from traindx.engine.api import Session

        s = Session(_kb())
        s.add_findings(self.findings())
        if self.monitor is not None:
            from traindx.probes.live.watch import run_differential
            run_differential(s, self.monitor)
        return s.report()

    def markdown(self, report=None) -> str:
        from traindx.engine.markdown import render_markdown

        return render_markdown(report or self.report())

    @staticmethod
    def summary_of(report: dict, nan_step=None) -> tuple[dict, dict]:
        """(numeric metrics, string parameters) that sum a report up for a logger."""
        causes = report.get("root_causes") or []
        top = causes[0] if causes else None
        conf = float(top["confidence"]) if top else 0.0
        status = report.get("status")
        metrics = {"traindx/confidence": conf,
                   "traindx/diagnosed": 1.0 if status == "diagnosed" else 0.0,
                   "traindx/healthy": 1.0 if status == "healthy" else 0.0}
        if nan_step is not None:
            metrics["traindx/nan_step"] = float(nan_step)
        params = {"traindx/status": status,
                  "traindx/symptom": (report.get("symptom") or {}).get("id"),
                  "traindx/top_cause": top["id"] if top else "none",
                  "traindx/top_confidence": conf}
        return metrics, params

    @staticmethod
    def one_line(report: dict) -> str:
        causes = report.get("root_causes") or []
        sym = (report.get("symptom") or {}).get("id")
        head = f"traindx: {report.get('status')}" + (f" ({sym})" if sym else "")
        if causes:
            head += f": {causes[0]['id']} (confidence {causes[0]['confidence']:.2f})"
        return head


class ProbeAccess:
    """What a framework callback offers once it holds a :class:`RunProbe` as ``self.probe``
    (shared by the Lightning and Hugging Face callbacks)."""

    @property
    def monitor(self):
        """The :class:`~traindx.probes.live.monitor.Monitor` of the latest run (None before)."""
        return self.probe.monitor

    @property
    def nan_report(self):
        return self.probe.nan_report

    def report(self) -> dict:
        """The diagnosis dict: the final one after the run, else built from the evidence so far."""
        if self.probe.final_report is not None:
            return self.probe.final_report
        return self.probe.report()

    def markdown(self) -> str:
        return self.probe.markdown(self.report())

    def findings(self):
        return self.probe.findings()

    def summary(self) -> dict:
        return self.probe.monitor.summary() if self.probe.monitor is not None else {}

    def detach(self):
        """Remove every hook now (done at the end of the run and on exceptions where the framework says so)."""
        self.probe.detach()


def _unwrap_loader(loader):
    """A single DataLoader from what Lightning exposes (a loader, or a one-element list/dict)."""
    if isinstance(loader, (list, tuple)) and len(loader) == 1:
        loader = loader[0]
    elif isinstance(loader, dict) and len(loader) == 1:
        loader = next(iter(loader.values()))
    return loader if hasattr(loader, "dataset") else None


def _loss_from_output(outputs):
    """A validation/training step's loss: a tensor, or ``loss``/``val_loss`` of a dict."""
    if outputs is None:
        return None
    if hasattr(outputs, "numel"):
        return outputs
    if isinstance(outputs, dict):
        for k in ("loss", "val_loss"):
            v = outputs.get(k)
            if v is not None and hasattr(v, "numel"):
                return v
    return None


def _callback_base():
    try:
        from lightning.pytorch import Callback
    except ImportError:
        try:
            from pytorch_lightning import Callback
        except ImportError as e:
            raise ImportError("traindx.probes.integrations.lightning needs lightning (pip install lightning) "
                              "or pytorch_lightning") from e
    return Callback


class _TrainDxHooks:
    """The hooks and helpers of :class:`TrainDxCallback`. Lightning may be absent, so its base
    class is known only when the callback class is first asked for (:func:`_build_class`);
    these methods are copied into that class there, which keeps each of them a plain method
    of the callback (``vars(TrainDxCallback)``, as :func:`guarded_hooks` and Lightning see it)."""

    # -------------------------------------------------------------- lifecycle
    def on_fit_start(self, trainer, pl_module):
        self.probe.detach()

    def on_train_start(self, trainer, pl_module):
        try:
            opt = trainer.optimizers[0] if trainer.optimizers else None
            self.probe.attach(pl_module, opt, train_loader=_unwrap_loader(trainer.train_dataloader))
            self.probe.add_hook(pl_module.register_forward_hook(CopyInert(self._capture_output)))
            self._config(trainer, pl_module)
            # fixed for the fit: read once, not at every backward
            auto = bool(pl_module.automatic_optimization)
            acc = int(getattr(trainer, "accumulate_grad_batches", 1) or 1)
            self._acc = acc if auto else 1
            scaler = getattr(getattr(trainer, "precision_plugin", None), "scaler", None)
            self._scaler = scaler if hasattr(scaler, "is_enabled") else None
            # several optimizers stepped by hand (a GAN): whose loss is a backward's? no telling
            self._skip_losses = not auto and len(trainer.optimizers) > 1
        except Exception as e:  # pragma: no cover - a traindx fault
            self.probe.fail("on_train_start", e)

    def _config(self, trainer, pl_module):
        p = self.probe
        loader = _unwrap_loader(trainer.train_dataloader)
        acc = int(getattr(trainer, "accumulate_grad_batches", 1) or 1)
        bs = getattr(loader, "batch_size", None) if loader is not None else None
        if isinstance(bs, int) and bs > 0:
            p.add_config("batch_size", bs * acc, "Trainer:train_dataloader.batch_size",
                         f"batch size {bs}" + (f" x accumulate_grad_batches {acc}" if acc > 1 else ""))
        nw = getattr(loader, "num_workers", None) if loader is not None else None
        if isinstance(nw, int):
            p.add_config("num_workers", nw, "Trainer:train_dataloader.num_workers", f"{nw} DataLoader workers")
        me = getattr(trainer, "max_epochs", None)
        if isinstance(me, int) and me >= 0:
            p.add_config("epochs", me, "Trainer:max_epochs", f"max_epochs={me}")
        prec = str(getattr(trainer, "precision", "") or "")
        if prec:
            amp = "mixed" in prec or prec.startswith(("16", "bf16"))
            p.add_config("uses_amp", amp, "Trainer:precision", f"precision={prec!r}")

    def _capture_output(self, module, args, output):
        torch = self.probe.monitor._torch if self.probe.monitor is not None else None
        if torch is not None and module.training and torch.is_grad_enabled() and torch.is_tensor(output):
            self._out = output
        return None

    def _teardown(self):
        self._out = None
        self.probe.detach()

    def on_exception(self, trainer, pl_module, exception):
        self._teardown()

    def on_fit_end(self, trainer, pl_module):
        self._teardown()
        if self.probe.monitor is None or self.probe._disabled:
            return
        try:
            rep = self.probe.final_report = self.probe.report()
        except Exception as e:  # pragma: no cover - a traindx fault
            _log.warning("traindx: no report: %s: %s", type(e).__name__, e)
            return
        self._publish(trainer, rep)

    def _publish(self, trainer, rep):
        if self.log_summary:
            metrics, params = RunProbe.summary_of(rep, self.probe.nan_step)
            for lg in getattr(trainer, "loggers", None) or []:
                try:
                    lg.log_metrics(metrics, step=int(trainer.global_step))
                    lg.log_hyperparams(params)
                except Exception as e:
                    _log.warning("traindx: logger %s refused the summary: %s", type(lg).__name__, e)
        if self.verbose and getattr(trainer, "is_global_zero", True):
            print(RunProbe.one_line(rep) + " — callback.markdown() for the full report", flush=True)

    # -------------------------------------------------------------- training batches
    def on_train_epoch_start(self, trainer, pl_module):
        if self.probe.active:
            self.probe.break_wait_chain()

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if not self.probe.active:
            return
        try:
            self._out = None
            self.probe.step_begin()
            self.probe.batch(batch)
        except Exception as e:  # pragma: no cover - a traindx fault
            self.probe.fail("on_train_batch_start", e)

    def on_before_backward(self, trainer, pl_module, loss):
        p = self.probe
        if not p.active or self._skip_losses:
            return
        try:
            torch = p.monitor._torch
            if not torch.is_tensor(loss) or not torch.is_grad_enabled():
                return
            value = loss
            if self._acc > 1:
                value = value * self._acc
            scaler = self._scaler
            if scaler is not None and scaler.is_enabled():
                scale = getattr(scaler, "_scale", None)
                if scale is None:
                    return
                value = value / scale
            p.train_loss(value, outputs=self._out, targets=p._targets)
            self._out = None
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_before_backward", e)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        p = self.probe
        if not p.active:
            return
        try:
            self._out = None
            p.step_end()
            if p.take_new_nan():
                self._on_nan(trainer)
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_train_batch_end", e)

    def _on_nan(self, trainer):
        p = self.probe
        p.nan_report = p.report()
        self._publish(trainer, p.nan_report)
        if self.stop_on_nan:
            trainer.should_stop = True

    def on_train_epoch_end(self, trainer, pl_module):
        p = self.probe
        if not p.active:
            return
        try:
            p.poll_nan()
            if p.take_new_nan():
                self._on_nan(trainer)
            p.record_metrics(trainer.global_step, dict(trainer.callback_metrics))
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_train_epoch_end", e)

    # -------------------------------------------------------------- validation
    def on_validation_start(self, trainer, pl_module):
        p = self.probe
        if trainer.sanity_checking or not p.active:
            return
        p.break_wait_chain()
        self._val_fed_before = p._val_fed
        if "val" not in p.monitor._loaders:
            loader = _unwrap_loader(getattr(trainer, "val_dataloaders", None))
            if loader is not None:
                p.monitor.add_loader(loader, "val")

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0):
        p = self.probe
        if trainer.sanity_checking or not p.active:
            return
        try:
            t = _loss_from_output(outputs)
            if t is not None:
                p.val_loss(t)
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_validation_batch_end", e)

    def on_validation_end(self, trainer, pl_module):
        p = self.probe
        if trainer.sanity_checking or not p.active:
            return
        try:
            from traindx.probes.readers.words import log_words

            match_role = log_words(getattr(p.monitor, "params", None)).match_role
            rec = p.record_metrics(trainer.global_step, dict(trainer.callback_metrics))
            if p._val_fed == self._val_fed_before:
                # validation_step returned no loss: the logged validation loss stands for it
                best = sorted((match_role(k)[1], k) for k in rec if k != "step" and match_role(k)[0] == "val_loss")
                if best:
                    p.val_loss(rec[best[0][1]])
            p.break_wait_chain()
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_validation_end", e)


def _build_class():
    Callback = _callback_base()

    class TrainDxCallback(Callback, ProbeAccess):
        """Diagnose the Lightning run this callback watches (see :mod:`traindx.probes.integrations.lightning`).

        Arguments: ``num_classes`` (for the chance-level loss; inferred from the output width or
        labels when omitted), ``criterion`` (the loss function, when ``training_step`` uses a stock
        torch loss: names the loss and lets the overfit-one-batch probe re-run it), ``level``
        (``"cheap"``: costly probes only when a symptom arms them; ``"full"``: always),
        ``stop_on_nan`` (set ``trainer.should_stop`` at the first NaN/Inf training loss),
        ``log_summary`` (log the summary to the Trainer's loggers), ``verbose`` (print a one-line
        summary on global rank 0 at the end of fit and at a NaN).

        After fit: :meth:`report` (dict), :meth:`markdown`, :meth:`findings` (the evidence),
        :meth:`summary` (plain-data series), ``nan_report`` (the report at the first NaN, or None).
        """

        def __init__(self, *, num_classes=None, criterion=None, level="cheap", stop_on_nan=False,
                     log_summary=True, verbose=True, experiments=True):
            super().__init__()
            self.probe = RunProbe("lightning", "trainer.callback_metrics", num_classes=num_classes,
                                  criterion=criterion, level=level, experiments=experiments)
            self.stop_on_nan = stop_on_nan
            self.log_summary = log_summary
            self.verbose = verbose
            self._out = None
            self._val_fed_before = 0
            self._acc, self._scaler, self._skip_losses = 1, None, False

    for name, fn in vars(_TrainDxHooks).items():
        if callable(fn) and not name.startswith("__"):
            fn.__qualname__ = f"TrainDxCallback.{name}"
            setattr(TrainDxCallback, name, fn)
    TrainDxCallback.__module__ = __name__
    TrainDxCallback.__qualname__ = "TrainDxCallback"     # pickling, and Lightning's state_key
    # the boundary: a fault of traindx in any hook (the forward hook too) warns once and
    # switches the probes off; it never reaches the Trainer
    from traindx.probes.live.guard import guarded_hooks
    return guarded_hooks(TrainDxCallback, lambda self, where, exc: self.probe.fail(where, exc),
                         names=("_capture_output",))


def __getattr__(name):
    if name == "TrainDxCallback":
        cls = _build_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
