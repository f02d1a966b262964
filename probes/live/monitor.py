"""The in-process monitor: evidence from the running model, on a stated schedule.

:class:`Monitor` watches one model and one optimizer while attached. It is fed from outside
(``on_batch``, ``on_loss``, ``on_data_wait`` — by :func:`traindx.probes.watch` or by the
``--script`` runner) and by the hooks it registers itself; it turns what it sees into
:class:`~traindx.engine.evidence.Finding` objects with the sources of ``kb/sources.yaml``.
The quantities live in the probe modules (gradients, losses, nan_trace, timing, data,
model_config, updates, activations, amp, overfit); this module only schedules them.

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
eighth of the run in at most 1 % of its time) has plateaued while the LR stays at 90 % or more of
its peak: the next 64 training batches are kept (256 MiB at most) and copies continue on them; a
runner does not stop the run while it is pending. An unclear answer is asked again 50+ steps later, three tests at most.

Arming: a non-finite loss, a loss spike above 5x the running median, a loss still within 5% of its
start after 50 steps, or a validation/train gap widening over 3 evaluations arm the monitor for
the next 20 steps (``arm(reason)`` does the same by hand). A non-finite loss is seen at once on CPU
(its value is read each step: no sync to avoid); on CUDA the loss values are read in one batch every
10 steps (no per-step host sync). The loss series is processed (trend checks, arming) every 25 steps
on CPU, every step while armed. All sampled step work falls on multiples of one gate period (the gcd
of the periods), so the steps in between only record the time, the learning rate and the loss.
"""

from __future__ import annotations

import functools
import math
import time
from array import array
from collections import Counter
from dataclasses import dataclass
from statistics import median

from traindx.engine.evidence import Finding

import traindx.probes.live.activations as A
import traindx.probes.live.amp as AMP
import traindx.probes.live.data as D
import traindx.probes.live.gradients as G
import traindx.probes.live.losses as L
import traindx.probes.live.lr_decay as LD
import traindx.probes.live.model_config as MC
import traindx.probes.live.nan_trace as NT
import traindx.probes.live.overfit as OF
import traindx.probes.live.timing as T
import traindx.probes.live.updates as U

__all__ = ["Monitor", "Schedule", "SCHEDULE", "ARM_STEPS"]


@dataclass(frozen=True)
class Schedule:
    """Run at step/count ``i`` when ``i < first`` or ``i % every == 0`` (Cockpit's linear schedule)."""

    first: int
    every: int

    def __call__(self, i: int) -> bool:
        return i < self.first or (self.every > 0 and i % self.every == 0)


#: The cheap schedule of each sampled quantity (see the module docstring).
SCHEDULE = {
    "grads": Schedule(10, 50),
    "grad_clear": Schedule(6, 100),
    "update": Schedule(4, 100),
    "outputs": Schedule(10, 100),
    "accuracy": Schedule(10, 20),
    "squash": Schedule(10, 500),
    "inputs": Schedule(10, 100),
    "labels": Schedule(30, 100),
    "amp": Schedule(10, 50),
    "gpu_util": Schedule(1, 50),     # (off the CPU only)
}
#: While armed.
ARMED_SCHEDULE = {"grads": Schedule(0, 1), "update": Schedule(0, 5), "outputs": Schedule(0, 1),
                  "inputs": Schedule(0, 1), "labels": Schedule(0, 1)}
_GRADS, _UPDATE, _UPDATE_ARMED = SCHEDULE["grads"], SCHEDULE["update"], ARMED_SCHEDULE["update"]
_OUTPUTS, _ACC, _INPUTS, _LABELS = SCHEDULE["outputs"], SCHEDULE["accuracy"], SCHEDULE["inputs"], SCHEDULE["labels"]
_AMP, _CLEAR, _GPU = SCHEDULE["amp"], SCHEDULE["grad_clear"], SCHEDULE["gpu_util"]
#: Loss values are processed (and, off the CPU, read) every this many steps.
FLUSH_EVERY = {"cpu": 25, "device": 10}
#: The sampled step work runs on the first _FIRST steps and on multiples of _GATE: the largest
#: period that divides every schedule's period and the flush periods.
_FIRST = max(s.first for s in (_GRADS, _UPDATE, _CLEAR, _GPU))
_GATE = math.gcd(_GRADS.every, _UPDATE.every, _CLEAR.every, _GPU.every, *FLUSH_EVERY.values())


def _due(s: Schedule, i: int) -> bool:
    """``s(i)`` without a method call (the hot path runs it several times per step)."""
    return i < s.first or i % s.every == 0


#: Steps a symptom keeps the costly probes on.
ARM_STEPS = 20
#: Steps after which a loss still near its start counts as flat.
FLAT_AFTER = 50
#: near-copies count as overlap from this fraction of validation examples (independent 2-D data
#: shows a few percent by chance; see data.near_duplicate_fraction)
NEAR_COPY_FRACTION = 0.2
#: Training/validation metrics (accuracy, loss) are reported only from this many optimizer steps
#: on: a gap after a handful of steps says nothing about overfitting.
MIN_METRIC_STEPS = 20
#: A loss above this multiple of the running median is a spike.
SPIKE_FACTOR = 5.0
#: LR-decay test (probes/live/lr_decay.py): batches it collects once the loss plateaus under a held LR
#: (the last quarter held out), the memory they may hold, and the LR ratio that counts as held
DECAY_BATCHES = 64
DECAY_MAX_BYTES = 256 * 2 ** 20
DECAY_LR_HELD = 0.9
DECAY_MAX_TESTS = 3
DECAY_FIRST_CHECK = 256
DECAY_RETRY_STEPS = 50


def _own_time(fn):
    """Time spent in the monitor's own one-off work (overfit probe, NaN replay, findings) is taken
    out of the step and data-wait intervals it falls into, so it never reads as the user's time."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if self._own_depth:
            return fn(self, *args, **kwargs)
        self._own_depth = 1
        t0 = time.perf_counter()
        try:
            return fn(self, *args, **kwargs)
        finally:
            dt = time.perf_counter() - t0
            self._own_wait += dt
            self._own_step += dt
            self._own_depth = 0

    return wrapper


class _LossRec:
    __slots__ = ("step", "phase", "value", "training", "bwd", "acc", "nan_info")

    def __init__(self, step, phase, training, bwd):
        self.step = step
        self.phase = phase            # "train", "val" or "tentative"
        self.value = None
        self.training = training
        self.bwd = bwd                # backward passes counted when the loss arrived
        self.acc = None               # (correct, counted) as floats once resolved
        self.nan_info = None


class Monitor:
    """Evidence from the running model. See the module docstring for what it hooks and when.

    ``level``: ``"cheap"`` (default: cheap probes always, costly ones when a symptom arms them) or
    ``"full"`` (armed for the whole run).
    """

    def __init__(self, model=None, optimizer=None, *, num_classes=None, level="cheap", loss_fn=None):
        if level not in ("cheap", "full"):
            raise ValueError(f"level must be 'cheap' or 'full', not {level!r}")
        import torch

        self._torch = torch
        self.level = level
        self.model = None
        self.optimizer = None
        self.num_classes_given = num_classes
        self.steps = 0
        self._attached = False
        self._busy = False
        self._loss_fn = loss_fn
        self._loss_name = None
        self._label_smoothing = None
        # hooks
        self._opt_handles = []
        self._post_handle = None
        self._closure_post = None
        self._model_handles = []
        self._act: A.ActivationHooks | None = None
        self._listening = False
        # params
        self._tracked: list = []
        self._numel: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._ever_grad: set[str] = set()
        self._grad_samples = 0
        self._last_norms: dict[str, float | None] = {}
        self._nan_grad: dict[str, int] = {}
        self._grad_series = array("d")
        self._grad_series_steps = array("l")
        self._grad_depth: list[float] = []
        self._sentinel: str | None = None
        self._sentinel_param = None
        self._carried: list[bool] = []
        self._check_clear = False
        self._bwd_count = 0
        self._bwd_since_step = 0
        self._grad_hook = None
        # updates, lr, clipping
        self._snapshot = None
        self._update_steps: list[float] = []
        self._update_max: list[float] = []
        self._lr_changes: list[tuple[int, float]] = []   # (step, lr) at each change, thinned past 20k
        self._lr_n_changes = 0
        self._initial_lr = None
        self._sched_steps = 0
        self._clip_max = None
        self._clip_max_raw = None
        self._clip_calls = 0
        self._clip_pending = None
        self._clip_shrinks: list[float] = []
        # losses
        self._queue: list[_LossRec] = []
        self._tentative: list[_LossRec] = []
        self._train_steps = array("l")
        self._train_vals = array("d")
        self._nan_first = None
        self._nan_info = None
        # the inputs of the latest optimizer step (references, no copy): a non-finite input can
        # pass a saturating forward with a finite loss and poison only the gradients, so the NaN
        # loss comes one step later on finite inputs (see _trace_nan)
        self._step_inputs = None
        self._nan_grad_inputs = None      # (step, inputs had NaN/Inf) at the first NaN gradient
        self._val_run = None
        self._val_epochs: list[dict] = []
        self._train_acc: list[tuple[float, float]] = []
        self._mode = {"train": [0, 0], "val": [0, 0]}   # [training, eval] counts
        self._fwd_mode = [0, 0, 0, 0]       # forwards by (grad enabled, model.training)
        self._outputs = {"activation": [], "target_kind": [], "shape_mismatch": [], "range": 0.0,
                         "num_classes": None, "loss_names": Counter()}
        self._max_label = None
        self._loss_count = 0
        self._name_checks = 0
        self._train_loss_count = 0
        self._flat_checked = False
        self._spikes = 0
        self._spike_ref = None
        # data
        self._batch_count = 0
        self._train_batch_count = 0
        self._last_inputs = None
        self._last_targets = None
        self._input_moments = None
        self._input_src = None           # "loader" until the model's own input is seen, then "model"
        self._train_fwd_count = 0
        self._inputs_nan = None
        self._label_counts: Counter = Counter()
        self._label_batches = 0
        self._purities: list[float] = []
        self._same_major: list[bool] = []
        self._last_major = None
        self._batch_size = None
        self._loaders: dict[str, object] = {}
        self._overlap = None
        self._label_nn = None
        self._label_tv = None
        # timing
        self._waits = array("d")
        self._synced_waits = array("d")
        self._intervals = array("d")
        self._last_wait_t = None
        self._val_since_wait = False
        self._step_times = array("d")
        self._last_step_t = None
        self._val_since_step = False
        self._gpu_util: list[float] = []
        self._own_wait = 0.0
        self._own_step = 0.0
        self._own_depth = 0
        self.on_cuda = False
        # forwards
        self._fwd_count = 0
        self._last_args = None
        self._last_kwargs = None
        self._last_out_shape = None
        self._last_fwd_training = None
        self._autocast_seen = False
        self._autocast_dtypes: set[str] = set()
        self._fwd_autocast = None
        self._device_type = "cpu"
        # amp
        self._scaler_used = False
        self._scaler_steps = 0
        self._scaler_skipped = 0
        self._scale = None
        # arming
        self._armed_until = -1
        self._arm_events: list[tuple[int, str]] = []
        self._overfit_pending = False
        self._overfit_done = False
        self._overfit = None
        # LR-decay test: None -> "collecting" -> "ready" -> None (done; re-armed by a later plateau)
        self._decay_state = None
        self._decay_batches: list = []
        self._decay_bytes = 0
        self._decay_runs: list[dict] = []
        self._decay_next_check = DECAY_FIRST_CHECK
        self._decay_target = DECAY_BATCHES
        self._decay_seen = None
        self._act_layers: dict[str, dict[str, float]] = {}
        self._act_lin_order: list[str] = []
        self._act_order: list[str] = []
        # init
        self._init = None
        self._errors: list[str] = []
        self._deferred: list = []
        self._flush_every = FLUSH_EVERY["cpu"]
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

    def _read_init(self):
        try:
            self._init = {"constant": MC.init_constant(self.model), "ratios": MC.init_scale_ratios(self.model)}
        except Exception:
            self._init = None

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
            self._act = A.ActivationHooks(self.model)
        return self

    def detach(self):
        """Remove every hook and wrapper (idempotent); the evidence gathered so far is kept."""
        try:
            self._flush()
        except Exception:
            pass
        self._unhook_model()
        self._unhook_optimizer()
        self._drop_activation_hooks(collect=False)
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

    def __enter__(self):
        return self.attach()

    def __exit__(self, *exc):
        self.detach()
        return False

    def _hook_model(self):
        if self.model is None or self._model_handles or not hasattr(self.model, "register_forward_pre_hook"):
            return
        self._model_handles = [self.model.register_forward_pre_hook(self._pre_forward, with_kwargs=True)]
        if self.armed and self._act is None:
            self._act = A.ActivationHooks(self.model)

    def _unhook_model(self):
        for h in self._model_handles:
            h.remove()
        self._model_handles = []
        self._drop_activation_hooks(collect=True)

    def _hook_optimizer(self):
        if self.optimizer is None or self._opt_handles or not hasattr(self.optimizer, "register_step_pre_hook"):
            return      # not a torch.optim.Optimizer: no step hooks (no steps counted)
        self._opt_handles = [self.optimizer.register_step_pre_hook(self._pre_step)]

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
        """Remember a probe's own fault (shown in ``summary()["errors"]``), at most 20 of them."""
        msg = f"{where}: {type(e).__name__}: {e}"[:200]
        if msg not in self._errors and len(self._errors) < 20:
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
        """Switch the costly probes on for the next :data:`ARM_STEPS` steps (activation hooks every
        step, full gradient norms, and the overfit-one-batch probe once)."""
        if self._busy:
            return
        self._arm_events.append((self.steps, str(reason)))
        self._armed_until = max(self._armed_until, self.steps + ARM_STEPS)
        if not self._overfit_done and not str(reason).startswith(("nonfinite", "spike", "gap")):
            self._overfit_pending = True
        if self._attached and self.model is not None and self._act is None:
            self._act = A.ActivationHooks(self.model)

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

    # ------------------------------------------------------------------ feeds from outside
    def on_batch(self, inputs, targets=None, *, phase=None):
        """A batch as it comes out of the loader. ``phase`` None infers it from grad mode."""
        if self._busy:
            return
        try:
            if phase is None:
                phase = "train" if self._torch.is_grad_enabled() else "val"
            self._batch_count += 1
            if phase != "train":
                self._val_since_wait = True
                return
            i = self._train_batch_count
            self._train_batch_count += 1
            self._last_inputs = inputs
            self._last_targets = targets
            if _due(_INPUTS, i) or _due(_LABELS, i) or self.steps < self._armed_until or self.level == "full":
                if self._input_src != "model" and self._sched("inputs", i):
                    self._input_src = "loader"
                    self._observe_inputs(inputs)
                if targets is not None and self._sched("labels", i):
                    self._observe_labels(targets)
        except Exception as e:  # a probe never breaks the user's run
            self._note("on_batch", e)

    def on_data_wait(self, seconds: float, *, synced=None, phase=None):
        """Seconds blocked in the loader's ``__next__`` for one batch (``synced``: timed after a
        ``torch.cuda.synchronize()``; ``phase`` None infers it from grad mode)."""
        if self._busy:
            return
        now = time.perf_counter()
        if phase is None:
            phase = "train" if self._torch.is_grad_enabled() else "val"
        if phase != "train":
            self._val_since_wait = True
            self._last_wait_t = None
            return
        if self._last_wait_t is not None and not self._val_since_wait:
            self._intervals.append(max(now - self._last_wait_t - self._own_wait, float(seconds)))
            self._waits.append(float(seconds))
            if synced:
                self._synced_waits.append(float(seconds))
        self._last_wait_t = now
        self._val_since_wait = False
        self._own_wait = 0.0

    def on_loss(self, loss, *, phase=None, outputs=None, targets=None, loss_name=None, loss_fn=None):
        """The loss before backward.

        ``phase``: ``"train"``, ``"val"`` or None (infer: a loss computed without grad, or one that
        no backward passes through before the next optimizer step, is validation). An explicit
        ``"train"`` on a loss that cannot be backpropagated is taken as validation too.
        ``outputs``/``targets``: what the loss compared; ``loss_name``: ``cross_entropy``, ``nll``,
        ``bce``, ``bce_with_logits``, ``mse``, ... or ``custom`` for a hand-written loss (None: the
        monitor identifies a stock loss from outputs/targets when it can, else counts it custom;
        ``"unknown"``: say nothing about the loss function). ``loss_fn``: the criterion itself,
        used to re-run the loss on a model copy (overfit probe).
        """
        torch = self._torch
        if self._busy or not torch.is_tensor(loss):
            return
        try:
            self._on_loss(loss, phase, outputs, targets, loss_name, loss_fn)
        except Exception as e:  # a probe never breaks the user's run
            self._note("on_loss", e)

    def _on_loss(self, loss, phase, outputs, targets, loss_name, loss_fn):
        torch = self._torch
        grad_path = loss.requires_grad and torch.is_grad_enabled()
        if phase in (None, "auto"):
            phase = "tentative" if grad_path else "val"
        elif phase == "train" and not grad_path:
            phase = "val"
        elif phase not in ("train", "val"):
            phase = "val" if phase in ("eval", "validation", "test") else "train"
        # the mode of the forward that produced this loss, not of the model now: a helper that
        # switches back with model.train() before computing the validation loss ran that forward
        # in eval mode
        training = self._last_fwd_training if self._last_fwd_training is not None else (
            None if self.model is None else self.model.training)
        rec = _LossRec(self.steps, phase, training, self._bwd_count)
        self._loss_count += 1
        if loss_fn is not None and self._loss_fn is None:
            self._loss_fn = loss_fn
            ls = getattr(loss_fn, "label_smoothing", None)
            if isinstance(ls, float) and ls > 0:
                self._label_smoothing = ls
        # the value: read now on CPU (no sync to avoid), deferred to the next flush on a device
        if not self._device_known:
            self._set_device(loss.device.type)
        if self._device_type == "cpu":
            try:
                rec.value = loss.item()
            except (RuntimeError, ValueError):     # not a scalar
                rec.value = loss.detach().float().mean().item()
        else:
            lv = loss.detach()
            if lv.numel() != 1:
                lv = lv.float().mean()
            self._deferred.append((lambda v, r=rec: setattr(r, "value", v), lv))
        # loss identification: a given name, else a value match on the first few losses that come
        # with outputs and targets (names are tallied on the first 100 losses only)
        if loss_name != "unknown" and self._loss_count <= 100:
            if loss_name is None and outputs is not None and targets is not None and self._name_checks < 3:
                self._name_checks += 1
                loss_name = L.infer_loss_name(loss, outputs, targets)
            if loss_name is not None:
                fn = L.loss_function(loss_name)
                self._outputs["loss_names"][fn] += 1
                if self._loss_name is None or self._loss_name == "custom":
                    self._loss_name = fn
            elif self._loss_name is None and outputs is None:
                self._outputs["loss_names"]["custom"] += 1
        elif loss_name not in (None, "unknown") and self._loss_name is None:
            self._loss_name = L.loss_function(loss_name)
        if phase != "val":
            i = self._train_loss_count
            self._train_loss_count += 1
            outputs_for_stats = outputs
            if _due(_ACC, i) or _due(_OUTPUTS, i) or self.steps < self._armed_until or self.level == "full":
                if self._sched("outputs", i):
                    self._observe_outputs(rec, outputs_for_stats, targets, loss_name or self._loss_name,
                                          sample_squash=self.armed or SCHEDULE["squash"](i))
                elif targets is not None and self._sched("accuracy", i):
                    self._observe_accuracy(outputs_for_stats, targets, loss_name or self._loss_name)
            if targets is not None:
                self._last_targets = targets
                if self._train_batch_count == 0 and self._sched("labels", i):
                    self._observe_labels(targets)
            if outputs is not None and torch.is_tensor(outputs):
                self._last_out_shape = outputs.shape
            if self._decay_state == "collecting":
                self._collect_decay_batch(targets, outputs)
            if rec.value is not None and self._nan_first is None and not math.isfinite(rec.value):
                rec.nan_info = self._trace_nan(outputs_for_stats, targets)
                if not self.armed:
                    self.arm(f"nonfinite loss at step {self.steps}")
            if rec.phase == "tentative":
                self._tentative.append(rec)
        else:
            self._val_since_wait = True
            self._val_since_step = True
            if outputs is not None and targets is not None:
                name = L.loss_function(loss_name) if loss_name not in (None, "unknown") else self._loss_name
                cc = L._correct_count(outputs, targets, name)
                if cc is not None:
                    self._defer_count(cc, lambda hit, n, r=rec: setattr(r, "acc", (hit, n)))
        self._queue.append(rec)
        if phase == "val" and len(self._queue) > 64:
            self._flush()

    def on_data_loader(self, loader, phase="train"):
        """Declare a loader (for dataset sizes, its sampler, and the val/train overlap probe)."""
        if loader is not None:
            self._loaders[phase] = loader

    add_loader = on_data_loader

    # ------------------------------------------------------------------ hooks
    def _sentinel_grad_hook(self, grad):
        """Tensor hook on one small parameter: runs at every backward that reaches it, before the
        new gradient is accumulated into ``.grad`` -- so ``.grad`` still shows whether the previous
        step's gradient was cleared. Counts backward passes (a loss followed by one is a training
        loss). Returns None: the gradient is untouched."""
        if self._busy:
            return None
        self._bwd_count += 1
        self._bwd_since_step += 1
        if self._check_clear and self._bwd_since_step == 1:
            self._check_clear = False
            try:
                t = G._grad_carried(self._sentinel_param.grad)
                if t is None:
                    self._carried.append(False)
                else:
                    self._defer(lambda v: self._carried.append(bool(v)), t)
            except Exception:
                pass
        return None

    def _resolve_tentative(self, final=True):
        """Losses computed with grad since the last step: one followed by a backward pass (before
        the next loss) trained; one that no backward followed was validation. ``final=False`` (a
        look mid-run) leaves the latest loss pending while no backward has followed it yet."""
        recs, self._tentative = self._tentative, []
        if not recs:
            return
        for i, rec in enumerate(recs):
            if rec.phase != "tentative":
                continue
            last = i + 1 == len(recs)
            nxt = self._bwd_count if last else recs[i + 1].bwd
            if self._sentinel_param is None:   # no backward counter yet (first step): the last trains
                if not final and last:
                    self._tentative.append(rec)
                    continue
                rec.phase = "train" if last or rec.training is not False else "val"
            elif nxt > rec.bwd:
                rec.phase = "train"
            elif not final and last:
                self._tentative.append(rec)    # its backward may still come
            else:
                rec.phase = "val"

    def _pre_forward(self, module, args, kwargs):
        if self._busy:
            return None
        torch = self._torch
        ge = torch.is_grad_enabled()
        self._fwd_mode[2 * ge + module.training] += 1
        self._last_fwd_training = module.training
        self._last_args = args
        self._last_kwargs = kwargs
        i = self._fwd_count
        self._fwd_count += 1
        if _due(_AMP, i) or self.steps < self._armed_until or self.level == "full":
            on, dt = AMP.autocast_state(self._device_type)
            if on:
                self._autocast_seen = True
                self._autocast_dtypes.add(dt)
                self._fwd_autocast = (self._device_type, dt)
            else:
                self._fwd_autocast = None
        if ge and module.training and (args or kwargs):
            # inputs are measured where the model receives them: a script may normalise (or
            # corrupt) its batches between the loader and the model
            j = self._train_fwd_count
            self._train_fwd_count += 1
            if _due(_INPUTS, j) or self.steps < self._armed_until or self.level == "full":
                try:
                    if self._input_src != "model":
                        self._input_src, self._input_moments = "model", None
                    self._observe_inputs(args[0] if args else kwargs)
                except Exception:
                    pass
        return None

    def _pre_step(self, optimizer, args, kwargs):
        if self._busy:
            return None
        try:
            closure = kwargs.get("closure", args[0] if args else None) if (args or kwargs) else None
            if closure is None:
                self._on_pre_step(optimizer)
            else:
                # step(closure) (LBFGS, Lightning): forward and backward run inside the step, after
                # this hook -- so the step's evidence is read in a post-hook, once they have run
                if self._closure_post is None:
                    self._closure_post = optimizer.register_step_post_hook(self._closure_post_step)
                if self.steps > 0 and (_due(_UPDATE, self.steps) or self.armed):
                    params = [p for _, p in self._tracked if p.requires_grad]
                    if params:
                        self._snapshot = (params, U.snapshot(params))
        except Exception as e:
            self._note("step pre-hook", e)
        return None

    def _closure_post_step(self, optimizer, args, kwargs):
        if self._busy:
            return None
        try:
            self._on_post_step()               # the update ratio of a snapshot taken before
            self._on_pre_step(optimizer, closure=True)
        except Exception as e:
            self._note("step post-hook", e)
        return None

    def _on_pre_step(self, optimizer, closure=False):
        now = time.perf_counter()
        step = self.steps
        if self._last_step_t is not None and not self._val_since_step:
            self._step_times.append(max(0.0, now - self._last_step_t - self._own_step))
        self._last_step_t = now
        self._own_step = 0.0
        self._val_since_step = False
        self._step_inputs = (self._last_inputs, self._last_args)
        try:
            lr = float(optimizer.param_groups[0]["lr"])
        except Exception:
            lr = None
        if lr is not None and (not self._lr_changes or self._lr_changes[-1][1] != lr):
            self._lr_changes.append((step, lr))
            self._lr_n_changes += 1
            if len(self._lr_changes) > 20000:   # a per-step schedule on a long run: keep its shape
                ch = self._lr_changes
                self._lr_changes = ch[:1] + ch[1:-1:2] + ch[-1:]
        # losses seen since the last step: backward ran through them -> train, else validation
        if self._tentative:
            self._resolve_tentative()
        # the sampled work (and the flush) falls on multiples of _GATE only, after the first steps:
        # every other step ends here
        if step < _FIRST or step % _GATE == 0 or step < self._armed_until or self._slow:
            self._pre_step_sampled(optimizer, step, closure)
        self.steps = step + 1
        self._bwd_since_step = 0
        if self._scaler_token is not None:
            self._scaler_token[1] += 1

    @property
    def _slow(self):
        return (self.level == "full" or self._post_handle is not None or self._act is not None
                or self._overfit_pending or self._decay_state == "ready" or (self._nan_first is not None and not self._nan_grad))

    def _pre_step_sampled(self, optimizer, step, closure):
        if self._post_handle is not None:     # the one-shot post-hook of the last sampled step
            self._post_handle.remove()
            self._post_handle = None
        armed = step < self._armed_until or self.level == "full"
        if step % self._flush_every == 0 or armed:
            self._flush()
        if _due(_GRADS, step) or armed or (self._nan_first is not None and not self._nan_grad):
            self._sample_grads(step)
        elif self._clip_pending is not None:
            self._clip_pending = None
        if not closure and step > 0 and (_due(_UPDATE, step) or (armed and _due(_UPDATE_ARMED, step))):
            params = [p for _, p in self._tracked if p.grad is not None and p.requires_grad]
            if params:
                # weights before the update; a post-hook registered for this step only reads them
                # after it (removed at the next pre-hook: not while the optimizer iterates its hooks)
                self._snapshot = (params, U.snapshot(params))
                self._post_handle = optimizer.register_step_post_hook(self._post_step)
        if self.on_cuda and _due(_GPU, step):
            v = T.gpu_utilization_sample()
            if v is not None:
                self._gpu_util.append(v)
        if self._grad_hook is not None and _due(_CLEAR, step):
            self._check_clear = True          # look at .grad at the next step's first backward
        if self._act is not None:
            self._collect_activations()
            if not (step + 1 < self._armed_until or self.level == "full"):
                self._drop_activation_hooks(collect=False)
        if self._overfit_pending and not self._overfit_done:
            self._run_overfit()
        if self._decay_state == "ready":
            self._run_lr_decay()

    def _opt_param_names(self):
        if self.optimizer is None:
            return None
        try:
            ids = {id(p) for g in self.optimizer.param_groups for p in g["params"]}
        except Exception:
            return None
        return {n for n, p in self._tracked if id(p) in ids}

    def _sample_grads(self, step):
        names, grads = [], []
        for n, p in self._tracked:
            g = p.grad
            if g is not None:
                names.append(n)
                grads.append(g)
        self._grad_samples += 1
        self._ever_grad.update(names)
        vals = G.norms_of(grads)
        norms = dict(zip(names, vals))
        self._last_norms = norms
        first_nan_grad = not self._nan_grad
        for n in G.nan_grad_params(norms):
            self._nan_grad.setdefault(n, step)
        if first_nan_grad and self._nan_grad and self._nan_grad_inputs is None:
            # this step's batch made the first non-finite gradient seen: were its inputs finite?
            self._nan_grad_inputs = (step, self._batch_nonfinite(self._step_inputs))
        total = G.total_norm(vals)
        if self._clip_pending is not None:
            t, mx = self._clip_pending
            self._clip_pending = None
            try:
                total_pre = float(t)
                total = total_pre
                s = U.clip_shrink(total_pre, float(mx))
                if s is not None:
                    self._clip_shrinks.append(s)
            except Exception:
                pass
        self._grad_series.append(total)
        self._grad_series_steps.append(step)
        if self._sentinel is None:
            # the watched .grad belongs to a parameter the optimizer steps (and so zero_grad clears)
            held = self._opt_param_names()
            cand = {n: v for n, v in norms.items() if held is None or n in held}
            self._sentinel = G.pick_sentinel(cand, self._numel)
            if self._sentinel is not None:
                self._sentinel_param = next(p for n, p in self._tracked if n == self._sentinel)
                if self._attached and self._grad_hook is None:
                    self._grad_hook = self._sentinel_param.register_hook(self._sentinel_grad_hook)
        if self.armed and self._act_lin_order:
            order = [f"{n}.weight" if n else "weight" for n in self._act_lin_order]
            r = G.grad_depth_ratio(norms, order)
            if r is not None:
                self._grad_depth.append(r)

    def _post_step(self, optimizer, args, kwargs):
        if self._busy:
            return None
        try:
            self._on_post_step()
        except Exception as e:
            self._note("step post-hook", e)
        return None

    def _on_post_step(self):
        if self._snapshot is not None:
            params, before = self._snapshot
            self._snapshot = None
            ratios = U.update_ratios(params, before)
            r = U.step_update_ratio(ratios)
            if r is not None:
                self._update_steps.append(r)
                fin = [x for x in ratios if math.isfinite(x)]
                self._update_max.append(max(fin))

    _scaler_token = None

    # ------------------------------------------------------------------ listeners (clip, GradScaler)
    def _on_clip(self, total, max_norm):
        if self._busy:
            return
        self._clip_calls += 1
        if max_norm is not self._clip_max_raw:
            self._clip_max_raw = max_norm
            try:
                self._clip_max = float(max_norm)
            except (TypeError, ValueError):
                self._clip_max = None
        st = self.steps
        if self._clip_max is not None and (_due(_GRADS, st) or st < self._armed_until or self.level == "full"):
            self._clip_pending = (total, self._clip_max)     # computed under no_grad: no graph

    def _on_scheduler_step(self, scheduler):
        if self._busy:
            return
        opt = getattr(scheduler, "optimizer", None)
        if self.optimizer is None or opt is self.optimizer:
            self._sched_steps += 1

    def scaler_step_begin(self, scaler, optimizer):
        if self._busy or (self.optimizer is not None and optimizer is not self.optimizer):
            return None
        self._scaler_used = True
        tok = [optimizer, 0]
        self._scaler_token = tok
        return tok

    def scaler_step_end(self, scaler, optimizer, tok):
        if tok is None:
            return
        self._scaler_token = None
        self._scaler_steps += 1
        if tok[1] == 0:
            self._scaler_skipped += 1

    def scaler_update(self, scaler):
        if self._busy:
            return
        self._scaler_used = True
        if self._sched("grads", self.steps):
            try:
                s = scaler._scale if getattr(scaler, "_scale", None) is not None else None
                if s is not None:
                    self._defer(lambda v: setattr(self, "_scale", v), s.detach().reshape(()))
            except Exception:
                pass

    # ------------------------------------------------------------------ observations
    def _observe_inputs(self, inputs):
        torch = self._torch
        x = inputs
        if not torch.is_tensor(x):
            ts = [t for t in D.tensors_in(inputs) if t.is_floating_point()]
            if not ts:
                return
            x = ts[0]
        if not x.is_floating_point():
            return
        if x.dim() >= 1:
            self._batch_size = int(x.shape[0])
        mom = D._feature_moments(x)
        if mom is None:
            if not bool(torch.isfinite(x).all()):
                self._inputs_nan = True
            elif self._inputs_nan is None:
                self._inputs_nan = False
            return
        s, q, n = mom
        if self._input_moments is None or self._input_moments[0].shape != s.shape:
            self._input_moments = [s, q, n]
        else:
            self._input_moments[0] = self._input_moments[0] + s
            self._input_moments[1] = self._input_moments[1] + q
            self._input_moments[2] += n
        fin = torch.isfinite(s).all() & torch.isfinite(q).all()
        self._defer(lambda v: setattr(self, "_inputs_nan", bool(self._inputs_nan) or not v), fin)

    def _observe_labels(self, targets):
        counts = D._label_counts(targets)
        if counts is None:
            return
        cl = counts.tolist()
        self._label_batches += 1
        for c, k in enumerate(cl):
            if k:
                self._label_counts[c] += k
        if self._batch_size is None:
            self._batch_size = int(sum(cl))
        pur = D.batch_purity(cl)
        if pur is not None:
            self._purities.append(pur)
        major = max(range(len(cl)), key=cl.__getitem__)
        if self._last_major is not None:
            self._same_major.append(major == self._last_major)
        self._last_major = major
        ml = len(cl) - 1
        self._max_label = ml if self._max_label is None else max(self._max_label, ml)

    def _observe_outputs(self, rec, outputs, targets, loss_name, sample_squash=True):
        torch = self._torch
        if outputs is None or not torch.is_tensor(outputs):
            return
        o = self._outputs
        name = L.loss_function(loss_name) if loss_name not in (None, "unknown") else None
        m = NT._absmax(outputs)
        if m is not None:
            self._defer(lambda v: o.__setitem__("range", max(o["range"], v)), m)
        if sample_squash:
            act = L.output_activation(outputs)
            if act is not None:
                o["activation"].append(act)
            if targets is not None and torch.is_tensor(targets):
                tk = L.target_kind(outputs, targets)
                if tk is not None:
                    o["target_kind"].append(tk)
                mm = L.loss_shape_mismatch(tuple(outputs.shape), tuple(targets.shape), name)
                if mm is not None:
                    o["shape_mismatch"].append(mm)
        if o["num_classes"] is None and name is not None:
            o["num_classes"] = L.infer_num_classes(tuple(outputs.shape), name)
        if targets is not None:
            self._observe_accuracy(outputs, targets, loss_name)

    def _observe_accuracy(self, outputs, targets, loss_name):
        if outputs is None or loss_name in (None, "unknown"):
            return
        cc = L._correct_count(outputs, targets, L.loss_function(loss_name))
        if cc is not None:
            self._defer_count(cc, lambda hit, n, st=self.steps: self._train_acc.append((st, hit, n)))

    def _defer_count(self, cc, cb):
        """``cb(correct, counted)`` from :func:`losses._correct_count`'s pair, read now on CPU."""
        hit, n = cc
        if not self._torch.is_tensor(n):
            self._defer(lambda v: cb(v, float(n)), hit)
        else:
            self._defer(lambda v: cb(v[0], v[1]), self._torch.stack([hit.float(), n.float()]))

    @staticmethod
    def _batch_nonfinite(pair):
        """Whether either of (loader batch inputs, model forward args) holds NaN/Inf; None when
        neither is known."""
        if pair is None or all(x is None for x in pair):
            return None
        return any(D.inputs_have_nan(x) for x in pair if x is not None)

    @_own_time
    def _trace_nan(self, outputs, targets):
        """At the first non-finite training loss (read immediately on CPU): inputs, labels, outputs,
        and the first non-finite module from a replay on a model copy."""
        info = {"step": self.steps}
        self._busy = True
        try:
            inputs = self._last_inputs if self._last_inputs is not None else self._last_args
            if inputs is not None:
                info["inputs_have_nan"] = D.inputs_have_nan(inputs)
            if not info.get("inputs_have_nan"):
                # one step earlier: the batch of the first non-finite gradient, and the one before
                # this loss (a saturating forward turns an Inf input into a finite loss and NaN
                # gradients; the weights go NaN on that step, the loss on the next, finite, batch)
                earlier = []
                if self._nan_grad_inputs is not None:
                    earlier.append(self._nan_grad_inputs)
                prev = self._step_inputs
                if prev is not None and not any(x is inputs for x in prev if x is not None):
                    earlier.append((self.steps - 1, self._batch_nonfinite(prev)))
                hit = next((st for st, bad in earlier if bad), None)
                if hit is not None:
                    info["inputs_have_nan"] = True
                    info["inputs_nan_step"] = int(hit)
            if info.get("inputs_have_nan"):
                self._inputs_nan = True
            if targets is not None:
                info["label_range"] = NT.label_range(targets)
            if outputs is not None:
                info["outputs_nonfinite"] = NT.nonfinite(outputs)
                info["output_range_max"] = NT.output_range_max(outputs)
            if self.model is not None and self._last_args is not None:
                if info.get("outputs_nonfinite") is False:
                    info["module"] = "loss"
                elif NT.params_finite(self.model):
                    mod = NT.first_nonfinite_module(self.model, self._last_args, self._last_kwargs,
                                                    autocast=self._fwd_autocast)
                    if mod is not None:
                        info["module"] = mod or type(self.model).__name__
                else:
                    info["params_nonfinite"] = True
        except Exception as e:
            info["error"] = f"{type(e).__name__}: {e}"[:200]
        finally:
            self._busy = False
        return info

    # ------------------------------------------------------------------ the loss queue
    def _process_queue(self):
        q = self._queue
        i = 0
        while i < len(q):
            rec = q[i]
            if rec.phase == "tentative" or rec.value is None:
                break
            if rec.phase == "train":
                self._train_loss(rec)
            else:
                self._val_loss(rec)
            i += 1
        if i:
            del q[:i]

    def _train_loss(self, rec):
        if self._val_run is not None:
            self._close_val_epoch()
        v = rec.value
        if rec.training is not None:
            self._mode["train"][0 if rec.training else 1] += 1
        self._train_steps.append(rec.step)
        self._train_vals.append(v)
        n = len(self._train_vals)
        if not math.isfinite(v):
            if self._nan_first is None:
                self._nan_first = rec.step
                self._nan_info = rec.nan_info or {"step": rec.step}
                if rec.nan_info is None and rec.step == self.steps and self._last_args is not None:
                    # read late (off the CPU): the latest batch is that step's batch only when the
                    # loss belongs to the current step; the replay runs only while params are finite
                    self._nan_info = self._trace_nan(None, self._last_targets)
                    self._nan_info["step"] = rec.step
                if not self.armed:
                    self.arm(f"nonfinite loss at step {rec.step}")
            return
        if n >= 10:
            if n % 16 == 10 or self._spike_ref is None:   # the running median, refreshed every 16 losses
                recent = L.finite(self._train_vals[-50:])
                self._spike_ref = median(recent) if recent else None
            med = self._spike_ref
            if med is not None and med > 0 and v > SPIKE_FACTOR * med:
                    self._spikes += 1
                    if not self.armed:
                        self.arm(f"spike: loss {v:.4g} > {SPIKE_FACTOR:g}x running median {med:.4g}")
        if n >= self._decay_next_check and self._decay_state is None:
            # every eighth of the run so far: paced by losses, never by the clock, so the same
            # script reads its plateau at the same step on an idle and on a busy machine (a
            # reading costs milliseconds; the growing interval keeps their number logarithmic)
            self._decay_next_check = n + max(64, n // 8)
            self._plateau_check(None)
        if not self._flat_checked and rec.step >= FLAT_AFTER and n >= 20:
            self._flat_checked = True
            frac = L.loss_decrease_fraction(list(self._train_vals))
            if frac is not None and frac < 0.05:
                self.arm(f"loss flat: within {max(frac, 0) * 100:.1f}% of its start after {rec.step} steps")

    def _val_loss(self, rec):
        if rec.training is not None:
            self._mode["val"][0 if rec.training else 1] += 1
        run = self._val_run
        if run is None:
            run = self._val_run = {"step": self.steps, "sum": 0.0, "n": 0, "correct": 0.0, "counted": 0.0}
        if math.isfinite(rec.value):
            run["sum"] += rec.value
            run["n"] += 1
        if rec.acc is not None:
            run["correct"] += rec.acc[0]
            run["counted"] += rec.acc[1]

    def _close_val_epoch(self):
        run, self._val_run = self._val_run, None
        if run is None or run["n"] == 0:
            return
        ep = {"step": run["step"], "loss": run["sum"] / run["n"], "batches": run["n"],
              "accuracy": L.accuracy(run["correct"], run["counted"]), "train_loss": self._recent_train_loss()}
        self._val_epochs.append(ep)
        eps = self._val_epochs
        if len(eps) >= 3:
            gaps = [e["loss"] - e["train_loss"] for e in eps[-3:] if e["train_loss"] is not None]
            if len(gaps) == 3 and gaps[0] < gaps[1] < gaps[2] and eps[-1]["loss"] > eps[-2]["loss"] and not self.armed:
                self.arm("gap: validation/train loss gap widening over 3 evaluations")

    def _recent_train_loss(self):
        s = L.finite(self._train_vals[-50:])
        return float(sum(s) / len(s)) if s else None

    # ------------------------------------------------------------------ overfit
    def run_overfit(self):
        """Run the overfit-one-batch probe now on the latest training batch (at most once)."""
        self._overfit_pending = True
        self._run_overfit()
        return self._overfit

    @_own_time
    def _run_overfit(self):
        self._overfit_pending = False
        if self._overfit_done or self.model is None or self.optimizer is None:
            return
        args, kwargs, targets = self._last_args, self._last_kwargs, self._last_targets
        fn = self._loss_fn or L.loss_callable(self._loss_name)
        if args is None or targets is None or fn is None:
            self._overfit = {"skipped": "needs a training batch, its targets and a stock or given loss function"}
            return
        self._overfit_done = True
        self._busy = True
        torch = self._torch
        try:
            with torch.enable_grad():
                self._overfit = OF.overfit_one_batch(self.model, self.optimizer, args, kwargs, targets, fn,
                                                     out_shape=self._last_out_shape, autocast=self._fwd_autocast)
        except Exception as e:
            self._overfit = {"error": f"{type(e).__name__}: {e}"[:200]}
        finally:
            self._busy = False

    def exclude_time(self, seconds: float) -> None:
        """Seconds spent outside the user's run inside the current step (a supervisor waiting
        on its own decision): taken out of the step and data-wait intervals, like the monitor's
        own work."""
        self._own_wait += seconds
        self._own_step += seconds

    # ------------------------------------------------------------------ LR-decay test
    @property
    def pending_probes(self) -> list[str]:
        """Costly probes started but not finished: a supervisor should not stop the run on the
        evidence so far while one is pending (it would never report)."""
        out = []
        if self._overfit_pending and not self._overfit_done:
            out.append("overfit_batch")
        if self._decay_state is not None:
            out.append("lr_decay")
        return out

    def _lrs(self) -> list[float]:
        return [lr for _, lr in self._lr_changes if lr is not None]

    def _lr_held(self) -> bool:
        # against the peak, not the start: a warm-up then a decay is not a held LR
        lrs = self._lrs()
        return bool(lrs) and max(lrs) > 0 and lrs[-1] >= DECAY_LR_HELD * max(lrs)

    def _plateau_check(self, an):
        """Start the LR-decay test when the training loss has levelled off under a held LR. A clear
        answer stands until the run has doubled since it; an unclear one is asked again after
        DECAY_RETRY_STEPS or a quarter of the run; DECAY_MAX_TESTS at most."""
        if (self._decay_state is not None or len(self._decay_runs) >= DECAY_MAX_TESTS
                or self.model is None or self.optimizer is None or self._nan_first is not None):
            return
        if self._decay_runs:
            last = self._decay_runs[-1]
            # a clear answer stands until the run has doubled; an unclear one is asked again soon
            wait = last.get("at_step", 0) if last.get("helps") is not None else \
                max(DECAY_RETRY_STEPS, last.get("at_step", 0) // 4)
            if self.steps < last.get("at_step", 0) + wait:
                return
        if not self._lr_held():
            return
        try:
            if an is None:
                nc, _ = self._num_classes()
                an = L.curve_analysis(self._train_steps, self._train_series(), (), nc)
            if an is None or an.facts.get("loss_trend") != "plateaued":
                return
        except Exception as e:
            self._note("plateau_check", e)
            return
        self._decay_state = "collecting"
        self._decay_target = DECAY_BATCHES
        self._decay_batches, self._decay_bytes = [], 0

    def _collect_decay_batch(self, targets, outputs):
        torch = self._torch
        args, kwargs = self._last_args, self._last_kwargs
        if args is None or targets is None or not torch.is_tensor(targets):
            return
        if self._decay_batches and self._decay_batches[-1][2] is targets:
            return      # the same loss seen twice (a wrapper and the functional it calls)
        size = sum(t.numel() * t.element_size() for t in D.tensors_in([list(args), kwargs or {}, targets]))
        if self._decay_bytes + size > DECAY_MAX_BYTES:
            self._decay_state = "ready"
            return
        out_shape = tuple(outputs.shape) if outputs is not None and torch.is_tensor(outputs) else None
        self._decay_batches.append((tuple(args), dict(kwargs or {}), targets, out_shape))
        self._decay_bytes += size
        if len(self._decay_batches) >= self._decay_target:
            self._decay_state = "ready"

    @_own_time
    def _run_lr_decay(self):
        batches, self._decay_batches, self._decay_bytes = self._decay_batches, [], 0
        self._decay_state = None
        fn = self._loss_fn or L.loss_callable(self._loss_name)
        run = {"at_step": self.steps, "batches": len(batches)}
        if fn is None:
            run["skipped"] = "needs a stock or given loss function"
        elif len(batches) < LD.MIN_TRAIN + LD.MIN_EVAL:
            run["skipped"] = f"only {len(batches)} batches fit in memory"
        else:
            self._busy = True
            try:
                r = LD.lr_decay_test(self.model, self.optimizer, batches, fn, autocast=self._fwd_autocast)
                run.update(r or {"skipped": "the model or optimizer could not be copied"})
            except Exception as e:
                run["error"] = f"{type(e).__name__}: {e}"[:200]
            finally:
                self._busy = False
        del batches
        self._decay_runs.append(run)

    def start_lr_decay(self, batches: int = DECAY_BATCHES):
        """Start the LR-decay test by hand (it starts by itself on a plateau under a held LR): the
        next ``batches`` training batches (at least 12) are kept and the test runs at the step
        after the last of them (or at the end of the run, on those kept by then)."""
        if self._busy or self._decay_state is not None:
            return
        self._decay_state = "collecting"
        self._decay_target = max(LD.MIN_TRAIN + LD.MIN_EVAL, int(batches))
        self._decay_batches, self._decay_bytes = [], 0

    def _decay_through_plateau(self, an):
        """The run's own LR-decay test (:func:`~traindx.probes.readers.curves.decayed_through_plateau`,
        as the log reader reads it), or None."""
        if an is None or an.facts.get("loss_trend") != "plateaued" or an.region is None:
            return None
        from traindx.probes.readers.curves import decayed_through_plateau

        cut = decayed_through_plateau(self._lr_changes, an.region.start)
        return None if cut is None else {"start": int(an.region.start), "lr_start": cut[0], "lr_now": cut[1]}

    def _findings_lr_decay(self, add):
        # the run's own decay through the plateau is the stronger answer: the real run, over more
        # steps than the copies train
        seen = self._decay_seen
        if seen is not None:
            add("lr_decay", "lr_decay_helps", False,
                f"the run's own schedule cut the LR {seen['lr_start']:.3g} -> {seen['lr_now']:.3g} after the "
                f"loss levelled off at step {seen['start']}, and the loss did not move",
                lr=seen["lr_start"], lr_now=seen["lr_now"], at_step=seen["start"])
            return
        r = next((r for r in reversed(self._decay_runs) if r.get("helps") is not None), None)
        lrs = self._lrs()
        if r is not None and r["helps"] and lrs and r.get("lr") and lrs[-1] <= 0.2 * r["lr"]:
            r = None        # "a decay would help" -- and the run's schedule has since decayed it
        if r is None:
            return
        extra = {k: r[k] for k in ("gain", "loss_same_lr", "loss_lower_lr", "lr", "factor", "steps",
                                   "held_out", "at_step") if k in r}
        add("lr_decay", "lr_decay_helps", bool(r["helps"]),
            f"at step {r['at_step']}, two copies continued {r['steps']} steps on recent batches: held-out "
            f"loss {r['loss_same_lr']:.4g} at lr {r['lr']:.3g}, {r['loss_lower_lr']:.4g} at "
            f"{r['factor']:g}x that ({-r['gain']:+.1%})", **extra)

    # ------------------------------------------------------------------ results
    @_own_time
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
        if self._overfit_pending and not self._overfit_done:
            self._run_overfit()            # armed too late in the run for a step to run it
        if final and self._decay_state is not None:
            self._run_lr_decay()           # the run ended while the test was collecting batches
        out: list[Finding] = []

        def add(src, fact, value, detail, **extra):
            if value is None:
                return
            out.append(Finding(fact, value, f"probe:{src}", detail, extra))

        for section in (self._findings_grads, self._findings_losses, self._findings_nan, self._findings_timing,
                        self._findings_metrics, self._findings_data, self._findings_config,
                        self._findings_updates, self._findings_activations, self._findings_amp,
                        self._findings_overfit, self._findings_lr_decay):
            try:
                section(add)
            except Exception as e:   # one probe's fault never costs the others' evidence
                self._note(section.__name__, e)
        return out

    def _process_queue_final(self):
        for rec in self._queue:
            if rec.phase == "tentative":
                rec.phase = "val"
        self._process_queue()

    def _findings_grads(self, add):
        if self.model is not None:
            fr = G.frozen_params(self.model)
            add("grad_flow", "frozen_params", fr,
                f"{len(fr)} parameter(s) with requires_grad=False" + (f": {', '.join(fr[:5])}" if fr else ""))
        if self._grad_samples:
            # the model's parameters (an optimizer-only parameter without a gradient is the
            # wrong-instance case, which params_not_in_optimizer reports)
            model_ids = {id(p) for p in self.model.parameters()} if self.model is not None else None
            trainable = [n for n, p in self._tracked if p.requires_grad and (model_ids is None or id(p) in model_ids)]
            nog = G.params_without_grad(trainable, self._ever_grad)
            add("grad_flow", "params_without_grad", nog,
                (f"{len(nog)} trainable parameter(s) never received a gradient in {self._grad_samples} sampled steps: "
                 + ", ".join(nog[:5])) if nog else
                f"every trainable parameter received a gradient ({self._grad_samples} sampled steps)")
            tail = list(self._grad_series[-5:])
            z = G.grads_all_zero(tail)
            add("grad_flow", "grads_all_zero", z,
                "every gradient was zero at the latest sampled steps" if z else "gradients are non-zero")
            series = list(self._grad_series)
            med, mx = G.grad_norm_median(series), G.grad_norm_max(series)
            add("grad_norms", "grad_norm_median", med, f"median total gradient norm {med:.4g} over {len(series)} sampled steps"
                if med is not None else "")
            add("grad_norms", "grad_norm_max", mx, f"largest total gradient norm {mx:.4g}" if mx is not None else "")
            tr = G.grad_norm_trend(series)
            add("grad_norms", "grad_norm_trend", tr, f"total gradient norm {tr} (last third vs first third)")
            nan = sorted(self._nan_grad, key=self._nan_grad.get)
            add("grad_norms", "grads_have_nan", bool(nan),
                f"NaN/Inf gradients from step {min(self._nan_grad.values())} in {len(nan)} parameter(s)" if nan
                else f"no NaN/Inf in gradients ({self._grad_samples} sampled steps)")
            add("grad_norms", "nan_grad_params", nan,
                ("NaN/Inf gradient in " + ", ".join(nan[:5])) if nan else "no parameter had a NaN/Inf gradient")
        acc = G.grad_accumulates(self._carried)
        if acc is not None:
            n = len(self._carried)
            k = sum(self._carried)
            add("grad_accumulation", "grad_accumulates", acc,
                f".grad still held the previous step's gradient at the first backward of {k} of {n} checked steps")
            add("grad_accumulation", "zero_grad_called", not acc,
                f"gradients were cleared before the first backward of {n - k}/{n} checked steps")

    def _train_series(self):
        return list(self._train_vals)

    def _num_classes(self):
        if self.num_classes_given:
            return int(self.num_classes_given), "given"
        nc = self._outputs["num_classes"]
        if nc:
            return nc, "output width"
        if self._loss_name in (None, "cross_entropy", "nll", "custom") and self._max_label is not None:
            nc = L.infer_num_classes(None, self._loss_name, self._max_label)
            if nc:
                return nc, "largest label + 1"
        return None, None

    def _findings_losses(self, add):
        s = self._train_series()
        if not s:
            return
        nc, how = self._num_classes()
        chance = L.chance_loss(nc) if self._loss_name in (None, "cross_entropy", "nll") else None
        ch = f" (chance ln({nc}) = {chance:.4f})" if chance else ""
        init, cur = L.initial_loss(s), L.current_loss(s)
        add("loss_vs_chance", "initial_loss", init, f"training loss at the first steps {init:.4g}{ch}" if init is not None else "")
        add("loss_vs_chance", "current_loss", cur, f"training loss now {cur:.4g}{ch} after {self.steps} steps"
            if cur is not None else "")
        if nc:
            add("loss_vs_chance", "num_classes", nc, f"{nc} classes ({how})")
        an = L.curve_analysis(self._train_steps, s, (), nc)
        if self._attached:
            self._plateau_check(an)
        self._decay_seen = self._decay_through_plateau(an)
        if an is not None:
            # the log reader's method, so that a live run and its log read alike
            for fact in ("loss_trend", "loss_spikes", "loss_noise", "oscillation_trend"):
                f = an.finding(fact)
                if f is not None:
                    add("loss_vs_chance", fact, f.value, f.detail)
        else:
            tr = L.short_run_trend(s)
            add("loss_vs_chance", "loss_trend", tr, f"the training loss ends NaN/Inf after {len(s)} losses")
        f = L.loss_decrease_fraction(s)
        add("loss_vs_chance", "loss_decrease_fraction", f, f"loss fell by {f * 100:.1f}% of its start" if f is not None else "")
        nf = L.loss_has_nonfinite(s)
        add("loss_vs_chance", "loss_has_nonfinite", nf,
            f"loss became NaN/Inf at step {self._nan_first}" if nf else "every training loss was finite")
        neg = L.loss_negative(s)
        add("loss_vs_chance", "loss_negative", neg, "the loss went below zero" if neg else "the loss stayed >= 0")

    def _findings_nan(self, add):
        info = self._nan_info or {}
        if self._nan_first is not None:
            add("nan_trace", "nan_first_step", int(self._nan_first),
                f"first NaN/Inf training loss at step {self._nan_first}"
                + (f"; labels in {info['label_range']}" if info.get("label_range") else ""),
                **{k: v for k, v in info.items() if k in ("label_range", "outputs_nonfinite", "params_nonfinite")})
            if "inputs_have_nan" in info:
                earlier = info.get("inputs_nan_step")
                add("nan_trace", "inputs_have_nan", bool(info["inputs_have_nan"]),
                    (f"the inputs of step {earlier}'s batch contain NaN/Inf: they passed the forward "
                     "with a finite loss and made the gradients, then the weights, non-finite"
                     if earlier is not None else "the inputs of that batch contain NaN/Inf")
                    if info["inputs_have_nan"] else "the inputs of that batch are finite")
            mod = info.get("module")
            if mod:
                add("nan_trace", "nonfinite_first_module", mod,
                    "the model outputs were finite: the loss computation produced the NaN/Inf" if mod == "loss"
                    else f"replaying that forward, '{mod}' is the first module whose output is NaN/Inf")
        if self._outputs["range"] > 0 or self._outputs["activation"]:
            r = self._outputs["range"]
            add("nan_trace", "output_range_max", float(r), f"largest |output| seen {r:.4g}")
        if "inputs_have_nan" not in info and self._inputs_nan is not None:
            add("input_stats", "inputs_have_nan", bool(self._inputs_nan),
                "NaN/Inf in sampled input batches" if self._inputs_nan else "sampled input batches are finite")

    def _findings_timing(self, add):
        waits = self._synced_waits if (self.on_cuda and self._synced_waits) else self._waits
        f = T.data_time_fraction(waits, self._intervals)
        if f is not None:
            add("data_timing", "data_time_fraction", f,
                f"{f * 100:.1f}% of each step is spent waiting for the data loader "
                f"(mean wait {sum(waits) / len(waits) * 1e3:.2f} ms, step {sum(self._intervals) / len(self._intervals) * 1e3:.2f} ms)")
        u = T.gpu_utilization(self._gpu_util)
        add("data_timing", "gpu_utilization", u, f"average GPU utilisation {u * 100:.0f}%" if u is not None else "")
        tr = T.step_time_trend(list(self._step_times))
        add("data_timing", "step_time_trend", tr, f"time per step {tr}")

    def _val_batches_expected(self):
        loader = self._loaders.get("val")
        try:
            if loader is not None:
                return max(1, len(loader))
        except TypeError:
            pass
        if self._val_epochs:
            return self._val_epochs[-1]["batches"]
        return float("inf")

    def _findings_metrics(self, add):
        self._findings_mode(add)
        if self.steps < MIN_METRIC_STEPS:
            return
        s = L.finite(self._train_vals)
        if s:
            tl = self._recent_train_loss()
            add("train_val_gap", "train_loss", tl, f"mean of the latest {min(50, len(s))} training losses")
        epochs = [e for e in self._val_epochs if e["step"] >= MIN_METRIC_STEPS]
        run = self._val_run
        if run is not None and run["n"] and run["n"] >= self._val_batches_expected() and \
                run["step"] >= MIN_METRIC_STEPS:
            # an evaluation still open at a look mid-run, counted once it has as many batches as
            # the validation loader (or as the previous evaluation): a partial one would mislead
            epochs.append({"step": run["step"], "loss": run["sum"] / run["n"], "batches": run["n"],
                           "accuracy": L.accuracy(run["correct"], run["counted"]), "train_loss": None})
        if self._train_acc:
            # the sampled batches of the last 20% of the run up to the latest evaluation (so that
            # the two accuracies are measured at the same point of training), at least 5 of them
            end = epochs[-1]["step"] if epochs else self.steps
            pool = [a for a in self._train_acc if a[0] <= end] or self._train_acc
            recent = [a for a in pool if a[0] >= 0.8 * end]
            if len(recent) < 5:
                recent = pool[-5:]
            acc = L.accuracy(sum(c for _, c, _ in recent), sum(n for _, _, n in recent))
            add("train_val_gap", "train_accuracy", acc,
                f"training accuracy {acc * 100:.1f}% over {len(recent)} sampled batches, steps "
                f"{recent[0][0]}-{recent[-1][0]}" + (" (up to the latest evaluation)" if epochs else "")
                if acc is not None else "")
        if epochs:
            last = epochs[-1]
            add("train_val_gap", "val_loss", last["loss"], f"validation loss {last['loss']:.4g} at step {last['step']} "
                f"({len(epochs)} evaluation(s))")
            if last["accuracy"] is not None:
                add("train_val_gap", "val_accuracy", last["accuracy"], f"validation accuracy {last['accuracy'] * 100:.1f}%")
            vl = [e["loss"] for e in epochs]
            van = L.curve_analysis((), (), [(e["step"], e["loss"]) for e in epochs])
            vf = van.finding("val_loss_trend") if van is not None else None
            if vf is not None:
                add("train_val_gap", "val_loss_trend", vf.value, f"{vf.detail} ({len(vl)} evaluations)")
            b = L.best_val_fraction([(e["step"], e["loss"]) for e in epochs], self.steps)
            add("train_val_gap", "best_val_fraction", b, f"best validation loss at {b * 100:.0f}% of the run" if b is not None else "")

    def _findings_mode(self, add):
        for phase, fact in (("train", "model_mode_in_training"), ("val", "model_mode_in_validation")):
            t, e = self._mode[phase]
            if t + e == 0:
                # no losses seen: forwards with grad (train) / without (validation)
                base = 2 if phase == "train" else 0
                t, e = self._fwd_mode[base + 1], self._fwd_mode[base]
            if t + e:
                mode = MC.majority_mode([True] * t + [False] * e)
                add("mode", fact, mode, f"model.training was {mode == 'train'} at {max(t, e)}/{t + e} {phase} forwards")

    def _at_chance(self) -> bool:
        """The training loss, after 50+ steps, is within 10% of ln(num_classes) (cross-entropy)."""
        if self.steps < FLAT_AFTER or self._loss_name not in (None, "cross_entropy", "nll"):
            return False
        nc, _ = self._num_classes()
        cur = L.current_loss(self._train_vals)
        chance = L.chance_loss(nc)
        return bool(chance and cur is not None and abs(cur - chance) <= 0.1 * chance)

    def _findings_data(self, add):
        for phase, fact in (("train", "train_size"), ("val", "val_size")):
            if phase in self._loaders:
                n = D.dataset_size(self._loaders[phase])
                add("dataset_size", fact, n, f"len({phase} dataset) = {n}" if n is not None else "")
        if self._input_moments is not None:
            s, q, n = self._input_moments
            means, stds = D.feature_stats(s.tolist(), q.tolist(), n)
            sc, sp = D.input_scale(means, stds), D.input_scale_spread(stds)
            add("input_stats", "input_scale", sc, f"largest |feature mean| or std {sc:.4g} over {len(means)} features"
                if sc is not None else "")
            add("input_stats", "input_scale_spread", sp, f"feature stds span {sp:.3g}x (95th/5th percentile)"
                if sp is not None else "")
        if self._label_batches:
            lc = D.labels_constant(dict(self._label_counts), self._label_batches)
            add("labels", "labels_constant", lc, f"every label is {next(iter(self._label_counts))}" if lc else
                f"{len(self._label_counts)} distinct labels in {self._label_batches} sampled batches")
            pur = D.batch_label_purity(self._purities)
            add("labels", "batch_label_purity", pur, f"the majority label fills {pur * 100:.0f}% of a batch on average"
                if pur is not None else "")
        shuffle = None
        if "train" in self._loaders:
            shuffle = D.loader_shuffles(self._loaders["train"])
            how = "the train DataLoader's sampler"
        if shuffle is None and self._label_batches:
            shuffle = D.shuffle_inferred(self._purities, dict(self._label_counts), self._batch_size or 0, self._same_major)
            how = "inferred from label composition of consecutive batches"
        if shuffle is not None:
            add("labels", "shuffle", shuffle, f"{'shuffled' if shuffle else 'not shuffled'} ({how})")
        if "train" in self._loaders and (self.armed or self._label_nn is not None or self._at_chance()):
            # costly (reads up to 1024 examples): only once a symptom armed the probes or the
            # loss sits at chance level
            if self._label_nn is None:
                self._label_nn = D.label_neighbour_agreement(self._loaders["train"]) or {}
            r = self._label_nn
            rel = D.labels_related(r)
            add("labels", "labels_match_inputs", rel,
                f"an example's nearest neighbour (standardised inputs, {r.get('items')} training examples) has "
                f"its label {r.get('agreement', 0) * 100:.0f}% of the time; labels unrelated to the inputs "
                f"would give {r.get('chance', 0) * 100:.0f}%" if rel is not None else "")
        if "train" in self._loaders and "val" in self._loaders and (self.armed or self._label_tv is not None):
            # costly (reads up to 2560 examples): once a symptom (a widening gap, ...) armed the probes
            if self._label_tv is None:
                self._label_tv = D.train_label_disagreement(self._loaders["train"], self._loaders["val"]) or {}
            r = self._label_tv
            add("labels", "train_label_disagreement", r.get("drop"),
                f"a validation example's nearest training example shares its label {r.get('val_train', 0) * 100:.0f}% "
                f"of the time, its nearest other validation example {r.get('val_val', 0) * 100:.0f}% "
                f"({r.get('val_checked')} validation examples)" if r else "")
        if "train" in self._loaders and "val" in self._loaders:
            if self._overlap is None:
                self._overlap = D.val_train_overlap(self._loaders["train"], self._loaders["val"]) or {}
                near = D.near_duplicate_fraction(self._loaders["train"], self._loaders["val"])
                if near and near["fraction"] >= NEAR_COPY_FRACTION and near["fraction"] > self._overlap.get("overlap", 0):
                    self._overlap["near"] = near
            ov = self._overlap.get("overlap") if self._overlap else None
            near = self._overlap.get("near") if self._overlap else None
            if near:
                add("leakage", "val_train_overlap", near["fraction"],
                    f"{near['fraction'] * 100:.0f}% of {near['val_checked']} validation examples are near-copies of "
                    f"training examples (a few training examples far closer than any other; exact copies: "
                    f"{(ov or 0) * 100:.0f}%) — copies made before the split")
            else:
                add("leakage", "val_train_overlap", ov,
                    f"{ov * 100:.1f}% of {self._overlap['val_checked']} validation examples also appear in the training set"
                    if ov is not None else "")

    def _findings_config(self, add):
        m, o = self.model, self.optimizer
        if m is not None or o is not None:
            reg = MC.regularization(m, o, label_smoothing=self._label_smoothing)
            add("regularization", "regularization", reg, "in use: " + (", ".join(reg) if reg else "none"))
        if o is not None:
            wd = MC.weight_decay(o)
            add("regularization", "weight_decay", wd, f"largest weight_decay over param groups {wd:g}")
        if m is not None:
            dp = MC.dropout_p(m)
            add("regularization", "dropout_p", dp, f"largest dropout p {dp:g}")
            hb = MC.model_has_dropout_or_bn(m)
            add("regularization", "model_has_dropout_or_bn", hb,
                "the model has Dropout/BatchNorm layers" if hb else "no Dropout/BatchNorm layers")
        if m is not None and o is not None:
            missing = MC.params_not_in_optimizer(m, o)
            hidden = {n for n, _ in MC.hidden_params(m)} & set(missing)
            add("optimizer_coverage", "params_not_in_optimizer", missing,
                (f"{len(missing)} trainable parameter(s) in no param group: " + ", ".join(missing[:5])
                 + (f" ({len(hidden)} of them kept in plain Python lists/attributes, invisible to "
                    "model.parameters())" if hidden else "")) if missing
                else "every trainable parameter is in the optimizer")
        if o is not None:
            add("optimizer_coverage", "optimizer", MC.optimizer_name(o), f"{type(o).__name__}")
            lr = self._initial_lr if self._initial_lr is not None else MC.learning_rate(o)
            add("optimizer_coverage", "learning_rate", lr, f"initial learning rate {lr:g}" if lr is not None else "")
        if self._init is not None:
            const = self._init["constant"]
            add("init", "init_constant", bool(const),
                ("constant weights at bind time: " + ", ".join(const[:5])) if const else "no constant weight matrix at bind time")
            r = MC.init_scale_ratio(self._init["ratios"])
            if r is not None:
                add("init", "init_scale_ratio", r[0], f"weight std of '{r[1]}' is {r[0]:.3g}x PyTorch's default for its fan-in")
        o_ = self._outputs
        if o_["loss_names"]:
            name = self._loss_name or o_["loss_names"].most_common(1)[0][0]
            add("output_squash", "loss_function", name, f"the loss is {name}")
            cl = L.custom_loss(name)
            add("output_squash", "custom_loss", cl, "a hand-written loss" if cl else "a stock torch loss")
        if o_["activation"]:
            acts = Counter(o_["activation"])
            top, k = acts.most_common(1)[0]
            if top != "none" and k < len(o_["activation"]):
                top = "none"   # a squash must hold at every sampled batch
            add("output_squash", "output_activation", top,
                {"softmax": "outputs are non-negative and rows sum to 1: softmax already applied",
                 "log_softmax": "outputs are <= 0 with logsumexp 0: log_softmax already applied",
                 "sigmoid": "every output lies in [0, 1]: sigmoid already applied",
                 "none": "outputs are raw (not squashed)"}[top] + f" ({len(o_['activation'])} sampled batches)")
        if o_["target_kind"]:
            tk = Counter(o_["target_kind"]).most_common(1)[0][0]
            add("output_squash", "target_kind", tk, f"targets look like {tk.replace('_', ' ')}")
        if o_["shape_mismatch"]:
            mm = any(o_["shape_mismatch"])
            add("output_squash", "loss_shape_mismatch", mm,
                f"outputs {self._last_out_shape} and targets differ in shape and broadcast" if mm
                else "outputs and targets have matching shapes")

    def _findings_updates(self, add):
        r = U.update_ratio(self._update_steps)
        if r is not None:
            top = U.update_ratio(self._update_max)
            add("update_ratio", "update_ratio", r, f"median |update|/|weight| per step {r:.3g} over layers, "
                f"{top:.3g} for the layer that moves most ({len(self._update_steps)} sampled steps; healthy ~1e-3)",
                largest_layer=top)
        if self.optimizer is not None and self.steps:
            ch = self._lr_changes
            add("lr_trace", "lr_final_ratio", U.lr_final_ratio(ch),
                f"lr {ch[-1][1]:.3g} now vs {ch[0][1]:.3g} at the start" if ch else "")
            cf = U.lr_collapse_fraction(ch, self.steps)
            add("lr_trace", "lr_collapse_fraction", cf,
                "the lr never fell below 1% of its peak" if cf == 1.0 else
                f"the lr fell below 1% of its peak after {cf * 100:.0f}% of the run" if cf is not None else "")
            pb = U.scheduler_steps_per_batch(self._sched_steps, self.steps)
            if pb is not None:
                add("lr_trace", "scheduler_step_per_batch", pb,
                    f"scheduler.step() ran {self._sched_steps} times in {self.steps} optimizer steps")
            elif not self._sched_steps:
                n = self._lr_n_changes - 1
                pb = None if self.steps < 8 or not ch else (n >= 4 and n >= 0.5 * (self.steps - 1))
                add("lr_trace", "scheduler_step_per_batch", pb,
                    f"no scheduler seen; the lr changed at {n} of {self.steps} steps")
        if self._clip_calls and self._clip_max is not None:
            add("clipping", "clip_max_norm", self._clip_max, f"clip_grad_norm_(max_norm={self._clip_max:g})")
            sr = U.clip_shrink_ratio(self._clip_shrinks)
            add("clipping", "clip_shrink_ratio", sr, f"clipping scales gradients to {sr * 100:.1f}% of their norm (median)"
                if sr is not None else "")

    def _findings_activations(self, add):
        if self._act is not None:
            self._collect_activations()
        layers = self._act_layers
        if not layers:
            return
        d = A.dead_relu_fraction(layers, self._act_lin_order)
        add("activations", "dead_relu_fraction", d, f"up to {d * 100:.0f}% of a layer's ReLU units are 0 for a whole batch"
            if d is not None else "")
        s = A.saturated_fraction(layers)
        add("activations", "saturated_fraction", s, f"up to {s * 100:.0f}% of a layer's tanh/sigmoid outputs saturated"
            if s is not None else "")
        r = A.activation_depth_ratio(layers, self._act_order, self._act_lin_order)
        add("activations", "activation_depth_ratio", r, f"activation RMS at the last hidden layer is {r:.3g}x the first"
            if r is not None else "")
        if self._grad_depth:
            g = float(median(self._grad_depth))
            add("activations", "grad_depth_ratio", g, f"first layer's gradient norm is {g:.3g}x the last layer's")

    def _findings_amp(self, add):
        if self.model is None and not self._scaler_used:
            return
        md = AMP.param_dtype(self.model)
        add("amp", "uses_amp", AMP.uses_amp(self._autocast_seen, md, self._scaler_used),
            f"autocast {'seen' if self._autocast_seen else 'not seen'} at forwards; weights {md}")
        dt = AMP.amp_dtype(sorted(self._autocast_dtypes), md)
        add("amp", "amp_dtype", dt, "no low-precision dtype in use" if dt == "float32" else f"{dt} in use")
        add("amp", "grad_scaler_used", bool(self._scaler_used),
            "GradScaler.step wraps the optimizer step" if self._scaler_used else "no GradScaler")
        if self._scaler_used:
            add("amp", "grad_scale", self._scale, f"latest GradScaler scale {self._scale:g}" if self._scale is not None else "")
            sf = AMP.skipped_step_fraction(self._scaler_steps, self._scaler_skipped)
            add("amp", "skipped_step_fraction", sf, f"{self._scaler_skipped}/{self._scaler_steps} scaler steps skipped")

    def _findings_overfit(self, add):
        r = self._overfit
        if not r or r.get("fits") is None and r.get("labels_match_inputs") is None:
            return
        extra = {k: r[k] for k in ("initial", "final", "steps", "optimizer", "lr", "examples") if k in r}
        if r.get("fits") is not None:
            add("overfit_batch", "overfit_one_batch", bool(r["fits"]),
                f"a copy ({r['optimizer']}, lr {r['lr']:g}) took one batch of {r['examples']} from loss "
                f"{r['initial']:.4g} to {r['final']:.4g} in {r['steps']} steps", **extra)
        if r.get("labels_match_inputs") is not None and D.labels_related(self._label_nn) is None:
            add("overfit_batch", "labels_match_inputs", bool(r["labels_match_inputs"]),
                f"mean loss while fitting the true labels is {r['auc_ratio']:.2f}x that with the labels shuffled"
                + " (the labels are learnable from the inputs)", **extra)

    @_own_time
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
            "lr_decay": [dict(r) for r in self._decay_runs],
            "overfit": dict(self._overfit) if self._overfit else None,
            "nan": dict(self._nan_info) if self._nan_info else None,
            "schedule": {k: [v.first, v.every] for k, v in SCHEDULE.items()},
            "errors": list(self._errors),
        }
