"""The in-process monitor: evidence from the running model, on a stated schedule.

:class:`Monitor` watches one model and one optimizer while attached. It is fed from outside
(``on_batch``, ``on_loss``, ``on_data_wait`` — by :func:`traindx.probes.watch` or by the
``--script`` runner) and by the hooks it registers itself; it turns what it sees into
:class:`~traindx.engine.evidence.Finding` objects with the sources of ``kb/sources.yaml``.
The quantities live in the probe modules (gradients, losses, nan_trace, timing, data,
model_config, updates, activations, amp, overfit); each evidence source is one probe class in
``probes/live/sources/`` (the protocol: :mod:`traindx.probes.live.probe`). The monitor installs the
hooks, dispatches what they see to its feeds (:mod:`~traindx.probes.live.monitor_steps`,
:mod:`~traindx.probes.live.monitor_losses`, :mod:`~traindx.probes.live.monitor_batches`, which
record plain series and counters), arms the costly probes and gathers every probe's findings.

What it registers while attached (all removed by :meth:`Monitor.detach`, on errors too):

* an optimizer step pre-hook (``register_step_pre_hook``; on the steps that sample the update
  ratio also a post-hook for that step only; for ``step(closure)`` optimizers, whose forward and
  backward run inside the step, a post-hook that reads the step once they have run);
* one forward pre-hook on the root model (its inputs, train/eval mode, autocast state);
* one tensor hook on one small parameter the optimizer steps (it counts backward passes and sees
  whether ``.grad`` was cleared before the first backward of a step);
* wrappers around ``torch.nn.utils.clip_grad_norm_``, ``torch.amp.GradScaler.step/update`` and the
  ``step`` of the ``torch.optim.lr_scheduler`` classes (process-wide, shared by all attached
  monitors, the originals put back when the last one detaches);
* only while armed: forward hooks on activation and Linear/Conv modules.

It never writes ``.grad``, parameters, buffers or optimizer state, and draws no random numbers in the
user's generators (costly probes run on copies with the RNG state saved and restored).

Schedule (``step`` = optimizer steps so far; "first N, every k" = steps < N, then every k-th):

==========================  ===================================  ==============================
quantity                    cheap (always)                       armed (costly)
==========================  ===================================  ==============================
loss value, phase, mode     every loss                           every loss
lr, step time, data wait    every step / every batch             same
clip, scheduler, scaler     every call (norms read with grads)   same
per-parameter grad norms    first 10, every 50                   every step
.grad cleared before bwd    steps 1-5, every 100                 same
update ratio |dw|/|w|       first 4, every 100                   every 5
output range                first 10 train losses, every 100     every loss
training accuracy           first 10 train losses, every 20      every loss
output squash, target kind  first 10 train losses, every 500     every loss
inputs / labels             first 10 / 30 batches, every 100     every batch
activations                 never                                every step (hooks)
first non-finite module     once, at the first NaN/Inf loss      —
overfit one batch           never                                once (flat loss, or arm())
LR-decay test               on a plateau under a held LR         same (or start_lr_decay())
==========================  ===================================  ==============================

The LR-decay test (probes/live/lr_decay.py) runs when the loss curve (read at each look, and every
eighth of the run: paced by losses, never by the clock) has plateaued while the LR stays at 90 % or
more of its peak: the next 64 training batches are kept (lr_decay.batches; lr_decay.buffer_bytes,
256 MiB, at most) and copies continue on them; a runner does not stop the run while it is pending.
An unclear answer is asked again 50+ steps later, three tests at most.

Arming: a non-finite loss, a loss spike above 5x the running median, a loss still within 5% of its
start after 50 steps, or a validation/train gap widening over 3 evaluations arm the monitor for
the next 20 steps (``arm(reason)`` does the same by hand). A non-finite loss is seen at once on CPU
(its value is read each step: no sync to avoid); on CUDA the loss values are read in one batch every
10 steps (no per-step host sync). The loss series is processed (trend checks, arming) every 25 steps
on CPU, every step while armed. All sampled step work falls on multiples of one gate period (the gcd
of the periods), so the steps in between only record the time, the learning rate and the loss.
"""

from __future__ import annotations


from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

import traindx.probes.live.activations as A
import traindx.probes.live.amp as AMP
import traindx.probes.live.experiments as EX
import traindx.probes.live.gradients as G
import traindx.probes.live.model_config as MC
import traindx.probes.live.updates as U
from traindx.probes.live.hooks import CopyInert
from traindx.probes.live.monitor_batches import BatchFeed
from traindx.probes.live.monitor_losses import LossFeed
from traindx.probes.live.monitor_nan import NanFeed
from traindx.probes.live.monitor_steps import StepFeed
from traindx.probes.live.probe import ARMED_SCHEDULE, SCHEDULE, CostlyProbe, Schedule
from traindx.probes.live.schedule import FLUSH_EVERY, GATE, GATES, own_time
from traindx.probes.live.sources import COSTLY, PROBES

#: The monitor keeps at most this many of its own faults for summary()["errors"]: the length of a
#: list in the output, not knowledge.
_MAX_ERRORS = 20

__all__ = ["Monitor", "Schedule", "SCHEDULE"]


class Monitor(StepFeed, LossFeed, BatchFeed, NanFeed):
    """Evidence from the running model. See the module docstring for what it hooks and when.

    ``level``: ``"cheap"`` (default: cheap probes always, costly ones when a symptom arms them) or
    ``"full"`` (armed for the whole run). ``params``: the knowledge base's parameter values
    (``KnowledgeBase.params()``, a pack's overrides applied; None: the shipped ones), handed to
    every probe. ``experiments``: False keeps no batch and runs no experiment on copies
    (``--no-experiments``; the ``probe:experiment`` costly probe).

    :attr:`PROBES` are the cheap probe classes whose findings it gathers (in that order),
    :attr:`COSTLY` the experiments it arms (:class:`~traindx.probes.live.probe.CostlyProbe`); a
    subclass may extend either tuple.
    """

    PROBES = PROBES
    COSTLY = COSTLY

    def __init__(self, model=None, optimizer=None, *, num_classes=None, level="cheap", loss_fn=None, params=None,
                 experiments=True):
        if level not in ("cheap", "full"):
            raise ValueError(f"level must be 'cheap' or 'full', not {level!r}")
        import torch

        self._torch = torch
        self.level = level
        self.params = P = resolve(params)
        self.experiments_enabled = bool(experiments)
        # the thresholds the hot path decides with, read once
        self._arm_steps = int(P["monitor.arm_steps"])
        self._flat_after = P["monitor.flat_after_steps"]
        self._flat_fraction = P["monitor.flat_fraction"]
        self._spike_factor = P["monitor.spike_factor"]
        self._spike_min = P["monitor.spike_min_losses"]
        self._recent = int(P["monitor.recent_losses"])
        self._name_losses = int(P["monitor.loss_name_losses"])
        self._flat_min = P["monitor.flat_min_losses"]
        self._gap_evals = int(P["monitor.gap_evaluations"])
        self._squash_min = P["output_squash.min_values"]
        self._squash_sum_tol = float(P["output_squash.sum_tolerance"])
        self._max_class_index = P["output_squash.max_class_index"]
        self._log_softmax_max = float(P["output_squash.log_softmax_max"])
        self._target_row_tol = float(P["output_squash.target_row_tolerance"])
        self._val_squash_samples = int(P["output_squash.val_samples"])
        self._chance_tolerance = P["curves.chance_tolerance"]
        self.model = None
        self.optimizer = None
        self.num_classes_given = num_classes
        self.steps = 0
        self._attached = False
        self._busy = False
        self._loss_fn = loss_fn
        self._tape = None          # LT.TapeRecorder of a hand-written loss (experiments on, no stock loss)
        self._loss_name = None
        self._label_smoothing = None
        # hooks
        self._opt_handles = []
        self._post_handle = None
        self._closure_post = None
        self._model_handles = []
        self._act: A.ActivationHooks | None = None
        self._listening = False
        self._init_step_state()
        self._init_loss_state()
        self._init_batch_state()
        self._own_wait = 0.0
        self._own_step = 0.0
        self._own_depth = 0
        self.on_cuda = False
        self._device_type = "cpu"
        # arming and the probes
        self._armed_until = -1
        self._arm_events: list[tuple[int, str]] = []
        self._probes = tuple(cls() for cls in self.PROBES)
        self._costly = tuple(cls() for cls in self.COSTLY)
        self.costly = {p.id: p for p in self._costly}
        for p in self._costly:
            p.setup(self)
        # the ones with an on_train_value of their own (called at every recorded training loss)
        self._value_watchers = tuple(p for p in self._costly
                                     if type(p).on_train_value is not CostlyProbe.on_train_value)
        self._act_layers: dict[str, dict[str, float]] = {}
        self._act_lin_order: list[str] = []
        self._act_order: list[str] = []
        # init
        self._init = None
        self._start_state = None      # the first weights, for experiments on a run that blew up at once
        self._errors: list[str] = []
        self._deferred: list = []
        self._flush_every = FLUSH_EVERY["cpu"]
        self._gate = GATE                  # until the device is known: its steps hold every device's gate steps
        self._device_known = False
        self.bind(model, optimizer)

    # ------------------------------------------------------------------ binding and hooks
    def bind(self, model=None, optimizer=None):
        """Bind (or late-bind) the model and/or optimizer. Re-binding the same objects is a no-op;
        binding a different one moves the hooks to it."""
        if self._busy:
            return
        changed = False
        if optimizer is not None and optimizer is not self.optimizer:
            self._unhook_optimizer()
            self.optimizer = optimizer
            changed = True
            if self._initial_lr is None:
                try:
                    self._initial_lr = MC.learning_rate(optimizer)
                except Exception:
                    pass
            if self._attached:
                self._hook_optimizer()
        if model is not None and model is not self.model:
            self._unhook_model()
            self.model = model
            changed = True
            if self._attached:
                self._hook_model()
            # initial weights: only while no optimizer step has touched them
            if self._init is None and self.steps == 0 and not self._optimizer_has_state():
                self._read_init()
        if changed:
            self._refresh_params()

    def _optimizer_has_state(self):
        return self.optimizer is not None and len(self.optimizer.state) > 0

    def _refresh_params(self):
        try:
            self._refresh_params_()
        except Exception:      # an optimizer without param_groups, a model without parameters()
            pass

    def _refresh_params_(self):
        self._names = G.param_names(self.model, self.optimizer)
        seen = set()
        tracked = []
        src = []
        if self.model is not None:
            src.extend(self.model.parameters())
        if self.optimizer is not None:
            src.extend(p for g in self.optimizer.param_groups for p in g["params"])
        for p in src:
            if id(p) in seen:
                continue
            seen.add(id(p))
            tracked.append((self._names[id(p)], p))
        self._tracked = tracked
        self._numel = {n: p.numel() for n, p in tracked}
        if self._sentinel_param is not None and all(p is not self._sentinel_param for _, p in tracked):
            if self._grad_hook is not None:
                self._grad_hook.remove()
                self._grad_hook = None
            self._sentinel, self._sentinel_param = None, None
        dev = next((p.device for _, p in tracked), None)
        if dev is not None:
            self._set_device(dev.type)

    def _set_device(self, kind):
        self._device_type = kind
        self._device_known = True
        self.on_cuda = kind == "cuda"
        # off the CPU loss values are read in one batch (one host sync) every 10 steps
        self._flush_every = FLUSH_EVERY["cpu"] if kind == "cpu" else FLUSH_EVERY["device"]
        self._gate = GATES["cpu"] if kind == "cpu" else GATES["device"]

    def _read_init(self):
        try:
            self._init = {"constant": MC.init_constant(self.model, self.params),
                          "ratios": MC.init_scale_ratios(self.model, self.params)}
        except Exception:
            self._init = None
        try:
            self._start_state = MC.start_state(self.model, self.params) if self.experiments_enabled else None
        except Exception:
            self._start_state = None

    def attach(self):
        """Register every hook and wrapper. Idempotent."""
        if self._attached:
            return self
        self._attached = True
        self._hook_model()
        self._hook_optimizer()
        if self._sentinel_param is not None and self._grad_hook is None:
            self._grad_hook = self._sentinel_param.register_hook(self._sentinel_grad_hook)
        U.install_clip_listener(self._on_clip)
        U.install_scheduler_listener(self._on_scheduler_step)
        AMP.install_scaler_listener(self)
        self._listening = True
        if self.level == "full" and not self._arm_events:
            self.arm("level=full")
        elif self.armed and self.model is not None and self._act is None:
            self._act = A.ActivationHooks(self.model, self.params)
        return self

    def detach(self):
        """Remove every hook and wrapper (idempotent); the evidence gathered so far is kept."""
        try:
            self._flush()
        except Exception:
            pass
        self._unhook_model()
        self._unhook_optimizer()
        self._drop_other_hooks()
        self._drop_activation_hooks(collect=False)
        if self._tape is not None:
            self._tape.close()
            self._tape = None
        if self._grad_hook is not None:
            self._grad_hook.remove()
            self._grad_hook = None
        if self._listening:
            U.uninstall_clip_listener(self._on_clip)
            U.uninstall_scheduler_listener(self._on_scheduler_step)
            AMP.uninstall_scaler_listener(self)
            self._listening = False
        self._attached = False
        self._snapshot = None
        if self._rows is not None:
            self._rows.drop_pending()         # no evaluation forward will come to compare them with

    def __enter__(self):
        return self.attach()

    def __exit__(self, *exc):
        self.detach()
        return False

    def _hook_model(self):
        if self.model is None or self._model_handles or not hasattr(self.model, "register_forward_pre_hook"):
            return
        self._model_handles = [self.model.register_forward_pre_hook(CopyInert(self._pre_forward), with_kwargs=True)]
        if self.armed and self._act is None:
            self._act = A.ActivationHooks(self.model, self.params)

    def _unhook_model(self):
        for h in self._model_handles:
            h.remove()
        self._model_handles = []
        self._drop_activation_hooks(collect=True)

    def _hook_optimizer(self):
        if self.optimizer is None or self._opt_handles or not hasattr(self.optimizer, "register_step_pre_hook"):
            return      # not a torch.optim.Optimizer: no step hooks (no steps counted)
        self._opt_handles = [self.optimizer.register_step_pre_hook(self._pre_step),
                             self.optimizer.register_step_post_hook(self._step_end)]

    def _unhook_optimizer(self):
        for h in self._opt_handles:
            h.remove()
        self._opt_handles = []
        if self._post_handle is not None:
            self._post_handle.remove()
            self._post_handle = None
        if self._closure_post is not None:
            self._closure_post.remove()
            self._closure_post = None
        self._snapshot = None

    def _note(self, where, e):
        """Remember a probe's own fault (shown in ``summary()["errors"]``), at most _MAX_ERRORS of them."""
        msg = f"{where}: {type(e).__name__}: {e}"[:200]
        if msg not in self._errors and len(self._errors) < _MAX_ERRORS:
            self._errors.append(msg)

    @property
    def busy(self) -> bool:
        """True while the monitor's own work runs (copies trained by the overfit probe, a NaN
        replay, findings): optimizer steps and losses then are not the user's."""
        return bool(self._busy or self._own_depth)

    # ------------------------------------------------------------------ arming
    @property
    def armed(self) -> bool:
        """Whether the costly probes are on."""
        return self.level == "full" or self.steps < self._armed_until

    def arm(self, reason: str):
        """Switch the costly probes on for the next ``monitor.arm_steps`` steps (activation hooks every
        step, full gradient norms) and tell each costly probe (:meth:`CostlyProbe.arm
        <traindx.probes.live.probe.CostlyProbe.arm>`: the overfit-one-batch probe runs once for any
        reason but a NaN, a spike or a widening gap)."""
        if self._busy:
            return
        self._arm_events.append((self.steps, str(reason)))
        self._armed_until = max(self._armed_until, self.steps + self._arm_steps)
        for p in self._costly:
            p.arm(self, str(reason))
        if self._attached and self.model is not None and self._act is None:
            self._act = A.ActivationHooks(self.model, self.params)

    def _drop_activation_hooks(self, collect=True):
        if self._act is None:
            return
        if collect:
            try:
                self._collect_activations()
            except Exception:
                pass
        self._act.remove()
        self._act = None

    def _collect_activations(self):
        if self._act is None:
            return
        layers = self._act.collect()
        for name, q in layers.items():
            cur = self._act_layers.setdefault(name, {})
            for k, v in q.items():
                cur[k] = v if k not in cur else (min(cur[k], v) if k == "in_min" else 0.5 * (cur[k] + v))
        if self._act.lin_order:
            self._act_lin_order = list(self._act.lin_order)
        if self._act.order:
            self._act_order = list(self._act.order)

    def _sched(self, name, i):
        if self.armed and name in ARMED_SCHEDULE:
            return ARMED_SCHEDULE[name](i)
        return SCHEDULE[name](i)

    # ------------------------------------------------------------------ deferred host reads
    def _defer(self, cb, t):
        """Call ``cb(value)`` with the tensor's value: now on CPU, at the next flush on a device (one
        host sync for everything deferred). A tensor of several elements gives a list."""
        if t.device.type == "cpu":
            cb(float(t) if t.numel() == 1 else t.detach().float().reshape(-1).tolist())
        else:
            self._deferred.append((cb, t))

    def _flush(self):
        """Resolve deferred device reductions (one host sync per device) and process the loss queue."""
        torch = self._torch
        if self._deferred:
            items, self._deferred = self._deferred, []
            by_dev: dict = {}
            for i, (_, t) in enumerate(items):
                by_dev.setdefault(t.device, []).append(i)
            for _, idx in by_dev.items():
                ts = [items[i][1].detach().float().reshape(-1) for i in idx]
                vals = torch.cat(ts).tolist()
                k = 0
                for i, t in zip(idx, ts):
                    n = t.numel()
                    items[i][0](vals[k] if n == 1 else vals[k:k + n])
                    k += n
        self._process_queue()

    # ------------------------------------------------------------------ costly probes
    @own_time
    def _run_costly(self, probe):
        """Run a ready costly probe now, its time taken out of the user's step, the monitor busy
        (the copies' steps and losses are not the user's)."""
        self._busy = True
        try:
            probe.run(self)
        finally:
            self._busy = False

    def _on_curve(self, analysis):
        for p in self._costly:
            p.on_curve(self, analysis)

    @property
    def pending_probes(self) -> list[str]:
        """Costly probes started but not finished: a supervisor should not stop the run on the
        evidence so far while one is pending (it would never report)."""
        return [p.id for p in self._costly if p.pending]

    def run_overfit(self):
        """Run the overfit-one-batch probe now on the latest training batch (at most once)."""
        self.costly["overfit_batch"].ready = True
        self._run_overfit()
        return self._overfit

    def _run_overfit(self):
        self._run_costly(self.costly["overfit_batch"])

    @property
    def _overfit(self):
        """The overfit-one-batch probe's result (plain data), or None."""
        return self.costly["overfit_batch"].result

    def start_lr_decay(self, batches: int | None = None):
        """Start the LR-decay test by hand (it starts by itself on a plateau under a held LR): the
        next ``batches`` training batches (default ``lr_decay.batches``; at least
        ``lr_decay.min_train_batches`` + ``lr_decay.min_held_out_batches``) are kept and the test runs at the step
        after the last of them (or at the end of the run, on those kept by then)."""
        if self._busy:
            return
        self.costly["lr_decay"].start(batches, self.params)

    def exclude_time(self, seconds: float) -> None:
        """Seconds spent outside the user's run inside the current step (a supervisor waiting
        on its own decision): taken out of the step and data-wait intervals, like the monitor's
        own work."""
        self._own_wait += seconds
        self._own_step += seconds

    # ------------------------------------------------------------------ experiments
    @property
    def experiments(self):
        """The experiments on copies (:class:`~traindx.probes.live.experiments.Experiments`: the
        batches kept, the experiments pending, their results), held by the ``experiment`` probe."""
        p = self.costly.get("experiment")
        if p is None:        # a subclass without it: nothing kept, nothing run
            if getattr(self, "_no_experiments", None) is None:
                self._no_experiments = EX.Experiments(False)
            return self._no_experiments
        return p.box

    def request_experiment(self, spec: dict):
        """Ask for an experiment (a spec from ``traindx.engine.differential.next_experiment``): it
        runs at the next optimizer step, or at :meth:`run_experiments`."""
        p = self.costly.get("experiment")
        if p is not None:
            p.request(spec)

    def run_experiments(self):
        """Run the experiments asked for now, on the recent batches kept."""
        p = self.costly.get("experiment")
        if p is None or not p.pending or self._busy:
            return
        self._run_costly(p)

    # ------------------------------------------------------------------ results
    @own_time
    def findings(self) -> list[Finding]:
        """The facts so far, each with source ``probe:<id>`` and a one-line detail."""
        # while attached this is a look mid-run: nothing is closed that the run may still extend
        final = not self._attached
        self._flush()
        self._resolve_tentative(final)     # no step followed: the backward passes decide
        if final:
            self._process_queue_final()
            if self._val_run is not None:
                self._close_val_epoch()
        else:
            self._process_queue()
        for p in self._costly:
            p.finish(self, final)
        out: list[Finding] = []
        params = self.params
        for probe in self._probes + self._costly:
            src = probe.source

            def emit(fact, value, detail, _src=src, **extra):
                if value is None:
                    return
                out.append(Finding(fact, value, _src, detail, extra))

            try:
                probe.findings(self, emit, params)
            except Exception as e:   # one probe's fault never costs the others' evidence
                self._note(f"{type(probe).__name__}.findings", e)
        return out

    @own_time
    def summary(self) -> dict:
        """Plain data for the report and plots: series, arming events, schedules."""
        self._flush()
        return {
            "steps": self.steps,
            "train_loss": {"step": list(self._train_steps), "value": list(self._train_vals)},
            "val": [dict(e) for e in self._val_epochs],
            "grad_norm": {"step": list(self._grad_series_steps), "value": list(self._grad_series)},
            "grad_norm_per_param": dict(self._last_norms),
            "update_ratio": list(self._update_steps),
            "lr": [list(x) for x in self._lr_changes],
            "step_time": list(self._step_times),
            "data_wait": list(self._waits),
            "clip_shrink": list(self._clip_shrinks),
            "activations": {k: dict(v) for k, v in self._act_layers.items()},
            "armed": [list(x) for x in self._arm_events],
            "lr_decay": self.costly["lr_decay"].summary(),
            "overfit": self.costly["overfit_batch"].summary(),
            "experiments": [dict(r) for r in self.experiments.results],
            "nan": dict(self._nan_info) if self._nan_info else None,
            "schedule": {k: [v.first, v.every] for k, v in SCHEDULE.items()},
            "errors": list(self._errors),
        }
