"""The monitor's batch feed: batches as they leave the loader, loader waits, declared loaders.

Records (attributes set by :meth:`BatchFeed._init_batch_state`) what the input_stats, labels,
dataset_size, leakage and data_timing probes read.
"""

from __future__ import annotations

import math
import time
import weakref
from array import array
from collections import Counter

import traindx.probes.live.data as D
from traindx.probes.live.schedule import INPUTS, LABELS

# every sampled look at a training batch (inputs, labels) falls on the first _BATCH_FIRST batches or
# on a multiple of _BATCH_GATE (or while armed)
_BATCH_FIRST = max(INPUTS.first, LABELS.first)
_BATCH_GATE = math.gcd(INPUTS.every, LABELS.every)
#: validation batches whose labels are counted (a bound on work: the classes a validation set holds
#: show in its first batches unless it is sorted, and then its first classes are as good a sample)
_VAL_LABEL_BATCHES = 64


class BatchFeed:
    """Mixin of :class:`~traindx.probes.live.monitor.Monitor`: the batch and data-wait feeds."""

    def _init_batch_state(self):
        self._batch_count = 0
        self._train_batch_count = 0
        self._last_inputs = None
        self._last_targets = None
        self._input_moments = None
        self._batch_means = None     # [sum of batch means, of their squares, of random-batch variances, count]
        self._input_src = None           # "loader" until the model's own input is seen, then "model"
        self._train_fwd_count = 0
        self._inputs_nan = None
        self._label_counts: Counter = Counter()
        self._label_batches = 0
        self._val_label_counts: Counter = Counter()     # labels of the first validation losses' targets
        self._val_label_batches = 0
        self._purities: list[float] = []
        self._same_major: list[bool] = []
        self._last_major = None
        self._batch_size = None
        self._loaders: dict[str, object] = {}
        self._train_twin = None     # an evaluation loader over the training loader's own dataset (held aside)
        self._overlap = None
        self._label_nn = None
        self._label_tv = None
        # timing
        self._waits = array("d")
        self._synced_waits = array("d")
        self._intervals = array("d")
        self._last_wait_t = None
        self._val_since_wait = False
        self._gpu_util: list[float] = []
        # host gaps: a training step's time from the optimizer step to the next training forward
        # (where a script without a DataLoader makes its batch), paired with the step's interval
        self._gap_open = False
        self._gap = None
        self._step_end_t = None      # (time, own time then) when the optimizer step returned
        self._gaps = array("d")
        self._gap_intervals = array("d")
        self._other_handles: list = []
        self._other_modules: list = []            # weakrefs to the other top-level modules run
        self._optimizers = ()                     # every optimizer the script made (a WeakSet)
        self._loss_parts: list[tuple] = []   # (step, total, lowest stock criterion): composite losses, sampled
        self._eval_sets: dict[tuple, int] = {}   # (dataset type, length) -> index in the order seen
        self._eval_set = None                     # index of the set the current evaluation reads

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
            self._train_batch_count = i + 1
            self._last_inputs = inputs
            self._last_targets = targets
            if i < _BATCH_FIRST or i % _BATCH_GATE == 0 or self.steps < self._armed_until or self.level == "full":
                self._batch_looks(inputs, targets, i)
        except Exception as e:  # a probe never breaks the user's run
            self._note("on_batch", e)

    def _batch_looks(self, inputs, targets, i):
        """The sampled looks at the ``i``-th training batch (inputs, labels)."""
        if self._input_src != "model" and self._sched("inputs", i):
            self._input_src = "loader"
            self._observe_inputs(inputs)
        if targets is not None and self._sched("labels", i):
            self._observe_labels(targets)

    def on_train_batch(self, seconds: float, synced, inputs, targets) -> None:
        """``on_data_wait(seconds, synced=synced, phase="train")`` then ``on_batch(inputs, targets,
        phase="train")`` in one call: what the loader wrapper reports for every training batch
        (:meth:`LoaderTap.seen <traindx.probes.live.timing.LoaderTap.seen>`), the same work with two
        calls and their keyword parsing fewer a step."""
        if self._busy:
            return
        self._record_train_wait(time.perf_counter(), seconds, synced)
        try:
            self._batch_count += 1
            i = self._train_batch_count
            self._train_batch_count = i + 1
            self._last_inputs = inputs
            self._last_targets = targets
            if i < _BATCH_FIRST or i % _BATCH_GATE == 0 or self.steps < self._armed_until or self.level == "full":
                self._batch_looks(inputs, targets, i)
        except Exception as e:  # a probe never breaks the user's run
            self._note("on_batch", e)

    def _record_train_wait(self, now: float, seconds: float, synced) -> None:
        """One training batch's loader wait, and the interval since the last one (validation between
        two training batches breaks the interval)."""
        if self._last_wait_t is not None and not self._val_since_wait:
            self._intervals.append(max(now - self._last_wait_t - self._own_wait, float(seconds)))
            self._waits.append(float(seconds))
            if synced:
                self._synced_waits.append(float(seconds))
        self._last_wait_t = now
        self._val_since_wait = False
        self._own_wait = 0.0

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
        self._record_train_wait(now, seconds, synced)

    def watch_forwards(self, modules) -> None:
        """Other top-level modules the training step runs besides the bound model (a frozen
        encoder, a GAN's other half): their forwards also end a host gap, so that their compute
        is not read as the time spent making the batch."""
        from traindx.probes.live.hooks import CopyInert

        for mod in modules or ():
            if hasattr(mod, "register_forward_pre_hook") and mod is not self.model:
                self._other_handles.append(mod.register_forward_pre_hook(CopyInert(self._other_forward)))
                self._other_modules.append(weakref.ref(mod))

    def note_optimizers(self, optimizers) -> None:
        """Every optimizer the script makes (a live WeakSet the runner keeps adding to): parameters
        none of them holds are trained by nothing (``probe:optimizer_coverage``)."""
        self._optimizers = optimizers if optimizers is not None else ()

    def note_loss_parts(self, total, lowest_part):
        """A composite loss's total and lowest stock criterion (detached 0-dim tensors, read only
        when findings are gathered), sampled by the runner; thinned to loss_weights.max_samples."""
        if not self._busy:
            self._loss_parts.append((self.steps, total, lowest_part))
        if len(self._loss_parts) > self.params["loss_weights.max_samples"]:
            self._loss_parts = self._loss_parts[::2]

    def unbound_modules(self) -> tuple[list, list]:
        """(other top-level modules still alive, optimizers still alive), see :meth:`watch_forwards`."""
        mods = [r() for r in self._other_modules]
        return [m for m in mods if m is not None], [o for o in list(self._optimizers) if o is not None]

    def _other_forward(self, module, args):
        if not self._busy:
            self._gap_end(self._torch.is_grad_enabled() and module.training)

    def _gap_end(self, training: bool) -> None:
        """A forward: the first training forward after a step closes its host gap; a validation
        forward first leaves that step out (its gap would hold the evaluation)."""
        if self._gap_open:
            self._gap_open = False
            if training and self._last_step_t is not None:
                self._gap = self._gap_since_step()

    def _gap_since_step(self) -> float:
        """The host gap up to now: from the end of the optimizer step (its post-hook) when one was
        seen, else from its start. The step's own work (an optimizer's update, SparseAdam's sparse
        moments) is compute, not the script making its batch; the monitor's own time is left out."""
        end = self._step_end_t
        if end is None:
            return max(0.0, time.perf_counter() - self._last_step_t - self._own_step)
        return max(0.0, time.perf_counter() - end[0] - (self._own_step - end[1]))

    def _step_end(self, optimizer, args, kwargs):
        """Optimizer step post-hook: when the step returned, where the host gap starts."""
        if not self._busy and self._last_step_t is not None:
            self._step_end_t = (time.perf_counter(), self._own_step)
        return None

    def _drop_other_hooks(self) -> None:
        for h in self._other_handles:
            h.remove()
        self._other_handles = []

    def on_data_loader(self, loader, phase="train"):
        """Declare a loader (for dataset sizes, its sampler, and the val/train overlap probe). A loader
        evaluated without gradients over the training loader's own dataset (a clean training accuracy
        measured on the side) is held aside, not taken for the validation loader: it stands for the
        held-out set only where no other evaluation loader is ever declared (the script validates on its
        training set, which the leakage probe then reports)."""
        train = self._loaders.get("train")
        data = getattr(loader, "dataset", None)
        if phase != "train" and train is not None and data is not None and data is getattr(train, "dataset", None):
            self._train_twin = self._train_twin or loader
            return
        if loader is not None:
            self._loaders[phase] = loader
            if "train" in self._loaders and "val" in self._loaders:
                self._close_rows()

    add_loader = on_data_loader

    #: distinct held-out sets told apart; beyond this, every evaluation counts as one set
    _max_eval_sets = 8

    def on_eval_loader(self, loader):
        """The loader the next evaluation batches come from. A script that evaluates on two held-out
        sets (a validation loader, then a test loader) gets one evaluation per set, not their
        average: the first set evaluated is the validation set, any other a test set. A set is its
        dataset's type and length, so a loader (or dataset) rebuilt every epoch over the same rows
        stays one set; two held-out sets of the same type and size, or without a length, stay one
        (as without this)."""
        if self._busy or loader is None:
            return
        ds = getattr(loader, "dataset", loader)
        try:
            key = (type(ds).__name__, len(ds))
        except Exception:   # no len() (an iterable dataset, maybe rebuilt every epoch): no telling
            self._eval_set = None   # its evaluations apart from another set's, so they stay one
            return
        index = self._eval_sets.get(key)
        if index is None:
            if len(self._eval_sets) >= self._max_eval_sets:
                self._eval_set = None      # a new set every evaluation: no telling them apart
                return
            index = self._eval_sets[key] = len(self._eval_sets)
        self._eval_set = index

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
        self._observe_batch_mean(x)
        s, q, n = mom
        if self._input_moments is None or self._input_moments[0].shape != s.shape:
            self._input_moments = [s, q, n]
        else:
            self._input_moments[0] = self._input_moments[0] + s
            self._input_moments[1] = self._input_moments[1] + q
            self._input_moments[2] += n
        fin = torch.isfinite(s).all() & torch.isfinite(q).all()
        self._defer(lambda v: setattr(self, "_inputs_nan", bool(self._inputs_nan) or not v), fin)

    def _observe_batch_mean(self, x):
        """The sampled batch's per-feature mean, accumulated for probe:input_stats's
        batch_mean_spread (no host sync: read at the findings)."""
        bm = D._batch_mean_moments(x)
        if bm is None:
            return
        m, v = bm
        acc = self._batch_means
        if acc is None or acc[0].shape != m.shape:
            self._batch_means = [m, m * m, v, 1]
        else:
            acc[0], acc[1], acc[2], acc[3] = acc[0] + m, acc[1] + m * m, acc[2] + v, acc[3] + 1

    def _observe_val_labels(self, targets):
        """The labels a validation loss compared with, counted on the first ``_VAL_LABEL_BATCHES``
        validation batches (read by probe:labels against the training labels)."""
        if self._val_label_batches >= _VAL_LABEL_BATCHES:
            return
        counts = D._label_counts(targets)
        if counts is None:
            return
        self._val_label_batches += 1
        for c, k in enumerate(counts.tolist()):
            if k:
                self._val_label_counts[c] += k

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

