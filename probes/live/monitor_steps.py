"""The monitor's step feed: the optimizer-step, forward and gradient hooks, and the process-wide
listeners (clip_grad_norm_, LR schedulers, GradScaler).

Records (attributes set by :meth:`StepFeed._init_step_state`) what the grad_flow, grad_norms,
grad_accumulation, update_ratio, lr_trace, clipping, amp and data_timing probes read, and runs the
sampled work (and the ready costly probes) on the gated steps.
"""

from __future__ import annotations

import math
import time
from array import array

import traindx.probes.live.amp as AMP
import traindx.probes.live.clip_order as CO
import traindx.probes.live.gradients as G
import traindx.probes.live.row_hashes as RH
import traindx.probes.live.timing as T
import traindx.probes.live.updates as U
from traindx.probes.live.monitor_losses import unbacked_phase
from traindx.probes.live.schedule import AMP as AMP_SCHEDULE
from traindx.probes.live.schedule import CLEAR, FIRST, GPU, GRADS, INPUTS, UPDATE, UPDATE_ARMED, due

#: The LR-change record is thinned to every other change beyond this many (a per-step schedule on a
#: long run): a bound on memory that keeps the schedule's shape, not knowledge.
_MAX_LR_CHANGES = 20000

# the per-forward gates, read as plain ints (due() written out on the hot path)
_AMP_FIRST, _AMP_EVERY = AMP_SCHEDULE.first, AMP_SCHEDULE.every
_INPUTS_FIRST, _INPUTS_EVERY = INPUTS.first, INPUTS.every
_GRADS_FIRST, _GRADS_EVERY = GRADS.first, GRADS.every


class StepFeed:
    """Mixin of :class:`~traindx.probes.live.monitor.Monitor`: step, forward and gradient hooks."""

    def _init_step_state(self):
        # params
        self._tracked: list = []
        self._numel: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._ever_grad: set[str] = set()
        self._grad_samples = 0
        self._last_norms: dict[str, float | None] = {}
        self._nan_grad: dict[str, int] = {}
        # the inputs of the latest optimizer step (references, no copy): a non-finite input can
        # pass a saturating forward with a finite loss and poison only the gradients, so the NaN
        # loss comes one step later on finite inputs (see LossFeed._trace_nan)
        self._step_inputs = None
        self._nan_grad_inputs = None      # (step, inputs had NaN/Inf) at the first NaN gradient
        self._grad_series = array("d")
        self._grad_series_steps = array("l")
        self._grad_depth: list[float] = []
        self._sentinel: str | None = None
        self._sentinel_param = None
        self._carried: list[bool] = []
        self._check_clear = False
        self._carry_open = False          # a step whose .grad carry is being followed (see _close_carry)
        self._carry = None
        self._bwd_count = 0
        self._bwd_since_step = 0
        self._grad_hook = None
        # updates, lr, clipping
        self._snapshot = None
        self._update_steps: list[float] = []
        self._update_max: list[float] = []
        self._weight_norms: list[tuple[int, int, float]] = []   # (step, parameters, |w|) per snapshot
        self._lr_changes: list[tuple[int, float]] = []   # (step, lr) at each change, thinned past 20k
        self._lr_n_changes = 0
        self._initial_lr = None
        self._sched_steps = 0
        self._clip_max = None
        self._clip_max_raw = None
        self._clip_calls = 0
        self._clip_pending = None
        self._clip_shrinks: list[float] = []
        # step timing
        self._step_times = array("d")
        self._last_step_t = None
        self._val_since_step = False
        # forwards
        self._fwd_count = 0
        self._last_args = None
        self._last_kwargs = None
        self._last_out_shape = None
        self._last_fwd_training = None
        self._rows = None              # RH.RowHashes: the raw-tensor train/eval overlap
        self._rows_open = True
        self._autocast_seen = False
        self._autocast_dtypes: set[str] = set()
        self._fwd_autocast = None
        # amp
        self._scaler_used = False
        self._scaler_steps = 0
        self._scaler_skipped = 0
        self._scale = None
        self._clip_order = CO.ClipOrder()

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
                self._carry = G._grad_carried(self._sentinel_param.grad)
                self._carry_open = True
            except Exception:
                pass
        elif self._carry_open and self._carry is not None:
            # a later backward before the same step: a .grad cleared in between (a GAN's discriminator,
            # reached first by the generator's loss and zeroed before its own) was not carried into the step
            try:
                t = G._grad_carried(self._sentinel_param.grad)
                self._carry = None if t is None else (self._carry & t)
            except Exception:
                self._carry_open = False
        return None

    def _close_carry(self):
        """At the step: whether the sentinel's .grad kept the previous step's gradient through every
        backward of this step (nothing cleared it before the step used it)."""
        self._carry_open = False
        t, self._carry = self._carry, None
        if t is None:
            self._carried.append(False)
        else:
            self._defer(lambda v: self._carried.append(bool(v)), t)

    def _pre_forward(self, module, args, kwargs):
        # every forward of the root: the gates and the host gap's end written out (no calls on the
        # steps that sample nothing); the same work as _gap_end and due()
        if self._busy:
            return None
        ge = self._torch.is_grad_enabled()
        training = module.training
        if self._gap_open:                   # _gap_end(ge and training)
            self._gap_open = False
            if ge and training and self._last_step_t is not None:
                self._gap = self._gap_since_step()
        self._fwd_mode[2 * ge + training] += 1
        self._last_fwd_training = training
        if self._rows_open and args:
            rows = self._rows
            if rows is not None and ge and training and not rows.eval_seen:
                try:                           # _hash_rows' usual case, one frame fewer a forward
                    rows.keep(args[0])
                except Exception as e:
                    self._rows_open = False
                    self._note("row hashes", e)
            else:
                self._hash_rows(args[0], ge and training)
        self._last_args = args
        self._last_kwargs = kwargs
        i = self._fwd_count
        self._fwd_count = i + 1
        armed = self.steps < self._armed_until or self.level == "full"
        if i < _AMP_FIRST or i % _AMP_EVERY == 0 or armed:
            on, dt = AMP.autocast_state(self._device_type)
            if on:
                self._autocast_seen = True
                self._autocast_dtypes.add(dt)
                self._fwd_autocast = (self._device_type, dt)
            else:
                self._fwd_autocast = None
        if ge and training and (args or kwargs):
            # inputs are measured where the model receives them: a script may normalise (or
            # corrupt) its batches between the loader and the model
            j = self._train_fwd_count
            self._train_fwd_count = j + 1
            if j < _INPUTS_FIRST or j % _INPUTS_EVERY == 0 or armed:
                try:
                    if self._input_src != "model":
                        self._input_src, self._input_moments, self._batch_means = "model", None, None
                    self._observe_inputs(self._model_input(args) if args else kwargs)
                except Exception:
                    pass
        return None

    def _model_input(self, args):
        """The input whose features are measured: the first one, or, when that holds token or index ids
        (integers), the first later floating input of the same rank and as many rows (a recommender's
        float fields fed beside its token ids). A recurrent state (one rank more) is not it."""
        x = args[0]
        torch = self._torch
        if len(args) < 2 or not torch.is_tensor(x) or x.is_floating_point() or x.dim() < 1:
            return x
        n = x.shape[0]
        for a in args[1:]:
            if torch.is_tensor(a) and a.is_floating_point() and a.dim() == x.dim() and a.shape[0] == n:
                return a
        return x

    def _hash_rows(self, x, train):
        """The raw-tensor overlap (``probe:leakage``): hash the rows this forward was fed, while
        no pair of loaders is declared and the budgets are not spent (training rows before the first
        evaluation forward are only kept by reference, see :mod:`~traindx.probes.live.row_hashes`)."""
        try:
            rows = self._rows
            if rows is None:
                if "train" in self._loaders and "val" in self._loaders:
                    self._rows_open = False       # (a pair declared later closes it: _close_rows)
                    return
                rows = self._rows = RH.RowHashes(self.params)
            if train and not rows.eval_seen:
                rows.keep(x)                  # by reference; the counts, and so rows.open, do not move
            else:
                rows.add(x, train)
                self._rows_open = rows.open
        except Exception as e:
            self._rows_open = False
            self._note("row hashes", e)

    def _close_rows(self):
        """A train/val pair of loaders is declared: the loaders' own overlap check takes over from the
        raw-tensor one (the kept training inputs are let go; hashes made so far stay)."""
        self._rows_open = False
        if self._rows is not None:
            self._rows.drop_pending()

    def _pre_step(self, optimizer, args, kwargs):
        if self._busy:
            return None
        try:
            if not kwargs and len(args) == 1 and args[0] is optimizer:
                self._on_pre_step(optimizer)      # opt.step(): torch hands the hook (self,) and {}
                return None
            if args and args[0] is optimizer:
                args = args[1:]           # torch hands the hook step's own ``self`` among its args
            closure = kwargs.get("closure", args[0] if args else None)
            if closure is None:
                self._on_pre_step(optimizer)
            else:
                # step(closure) (LBFGS, Lightning): forward and backward run inside the step, after
                # this hook -- so the step's evidence is read in a post-hook, once they have run
                if self._closure_post is None:
                    self._closure_post = optimizer.register_step_post_hook(self._closure_post_step)
                if self.steps > 0 and (due(UPDATE, self.steps) or self.armed):
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

    def manual_step(self):
        """A training step taken without a torch.optim optimizer (the script updates its parameters
        by hand): counted like an optimizer step, with nothing of an optimizer to read."""
        if self._busy:
            return
        try:
            self._on_pre_step(None)
        except Exception as e:
            self._note("manual step", e)

    def _on_pre_step(self, optimizer, closure=False):
        # every optimizer step: _gap_step and the one-loss _resolve_tentative written out (the same
        # work, fewer calls on the steps that sample nothing)
        now = time.perf_counter()
        step = self.steps
        interval = None
        if self._carry_open:
            self._close_carry()
        if self._last_step_t is not None and not self._val_since_step:
            interval = max(0.0, now - self._last_step_t - self._own_step)
            self._step_times.append(interval)
            if self._gap is not None:         # _gap_step(interval)
                self._gaps.append(min(self._gap, interval))
                self._gap_intervals.append(interval)
        self._gap = self._step_end_t = None
        self._gap_open = True
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
            if len(self._lr_changes) > _MAX_LR_CHANGES:
                ch = self._lr_changes
                self._lr_changes = ch[:1] + ch[1:-1:2] + ch[-1:]
        # losses seen since the last step: backward ran through them -> train, else validation
        tentative = self._tentative
        if tentative:
            if len(tentative) == 1 and self._sentinel_param is not None:
                rec = tentative[0]             # the usual step: one loss (see _resolve_tentative)
                if rec.phase == "tentative":
                    rec.phase = "train" if self._bwd_count > rec.bwd else unbacked_phase(rec)
                self._tentative = []
            else:
                self._resolve_tentative()
        # the sampled work (and the flush) falls on multiples of the device's gate only (GATES), after
        # the first steps: every other step ends here. The step is counted whatever a sampled look
        # raises (a probe's fault, noted by the hook, must not stop the run's step count)
        try:
            if step < FIRST or step % self._gate == 0 or step < self._armed_until or self.level == "full" \
                    or self._post_handle is not None or self._act is not None \
                    or (self._nan_first is not None and not self._nan_grad):
                self._pre_step_sampled(optimizer, step, closure)
            else:                                  # self._slow's last test, without its frame
                for p in self._costly:
                    if p.ready:
                        self._pre_step_sampled(optimizer, step, closure)
                        break
        finally:
            self.steps = step + 1
            self._bwd_since_step = 0
            if self._scaler_token is not None:
                self._scaler_token[1] += 1


    def _pre_step_sampled(self, optimizer, step, closure):
        if self._post_handle is not None:     # the one-shot post-hook of the last sampled step
            self._post_handle.remove()
            self._post_handle = None
        armed = step < self._armed_until or self.level == "full"
        if step % self._flush_every == 0 or armed:
            self._flush()
        if due(GRADS, step) or armed or (self._nan_first is not None and not self._nan_grad):
            self._sample_grads(step)
        elif self._clip_pending is not None:
            self._clip_pending = None
        if not closure and step > 0 and (due(UPDATE, step) or (armed and due(UPDATE_ARMED, step))):
            params = [p for _, p in self._tracked if p.grad is not None and p.requires_grad]
            if params:
                # weights before the update; a post-hook registered for this step only reads them
                # after it (removed at the next pre-hook: not while the optimizer iterates its hooks)
                self._snapshot = (params, U.snapshot(params))
                self._post_handle = optimizer.register_step_post_hook(self._post_step)
        if self.on_cuda and due(GPU, step):
            v = T.gpu_utilization_sample()
            if v is not None:
                self._gpu_util.append(v)
        if self._grad_hook is not None and due(CLEAR, step):
            self._check_clear = True          # look at .grad at the next step's first backward
        if self._act is not None:
            self._collect_activations()
            if not (step + 1 < self._armed_until or self.level == "full"):
                self._drop_activation_hooks(collect=False)
        for p in self._costly:
            if p.ready:
                self._run_costly(p)

    def _opt_param_names(self):
        if self.optimizer is None:
            return None
        try:
            ids = {id(p) for g in self.optimizer.param_groups for p in g["params"]}
        except Exception:
            return None
        return {n for n, p in self._tracked if id(p) in ids}

    def _sample_grads(self, step):
        if not self._tracked:      # no parameter known (a hand-written loop): no gradient evidence
            return
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
            if len(self._weight_norms) < self._max_weight_norms:
                self._weight_norms.append((self.steps, len(params), U.weight_norm(before)))
            else:
                self._weight_norms[-1] = (self.steps, len(params), U.weight_norm(before))
            r = U.step_update_ratio(ratios)
            if r is not None:
                self._update_steps.append(r)
                fin = [x for x in ratios if math.isfinite(x)]
                self._update_max.append(max(fin))

    _scaler_token = None
    #: Weight-norm snapshots kept (the first ones and, past this, the latest in the last slot).
    _max_weight_norms = 4096

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
        if self._clip_order.at_clip(self.steps, self._bwd_since_step, self._grad_hook is not None):
            return      # after the step: it clips no update
        st = self.steps
        if self._clip_max is not None and (st < _GRADS_FIRST or st % _GRADS_EVERY == 0 or st < self._armed_until
                                           or self.level == "full"):
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
        self._clip_order.at_scaler_step(scaler, optimizer, self._clip_calls)
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

