"""The monitor's loss feed: each loss before backward, its phase (train/validation), the loss queue.

Records (attributes set by :meth:`LossFeed._init_loss_state`) what the loss_vs_chance,
train_val_gap, mode, output_squash and nan_trace probes read, and arms the costly probes on a
non-finite loss, a spike, a flat start or a widening validation gap.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from statistics import median

import traindx.probes.live.losses as L
import traindx.probes.live.loss_tape as LT
import traindx.probes.live.nan_trace as NT
from traindx.probes.live.probe import SCHEDULE
from traindx.probes.live.schedule import ACC, LOSS_FIRST, LOSS_GATE, OUTPUTS, due

#: Validation losses are queued and their GPU values read in batches of this many (one host sync
#: for many): a bound on latency, not knowledge.
_VAL_FLUSH = 64
#: Unnamed losses compared against the stock losses to name them (each comparison recomputes the
#: stock losses on the batch): a bound on cost; a script's loss is the same at every step, so the
#: first few say all there is.
_NAME_CHECKS = 3
#: hand-written loss tapes read for what the loss does with its targets (the same loop every step: a
#: bound on work)
_TAPE_READS = 3

def unbacked_phase(rec) -> str:
    """The phase of a loss computed with grad that no backward pass followed: validation, unless it is
    NaN/Inf and came from a forward in training mode -- a training loss the script skipped because it
    was not finite (``if not torch.isfinite(loss): continue``, a "skip this batch" guard), so the run
    diverged although no backward pass and no optimizer step ever saw it."""
    v = rec.value
    return "train" if rec.training is True and v is not None and not math.isfinite(v) else "val"


class _LossRec:
    __slots__ = ("step", "phase", "value", "training", "bwd", "acc", "nan_info", "eval_set")

    def __init__(self, step, phase, training, bwd):
        self.step = step
        self.phase = phase            # "train", "val" or "tentative"
        self.value = None
        self.training = training
        self.bwd = bwd                # backward passes counted when the loss arrived
        self.acc = None               # (correct, counted) as floats once resolved
        self.nan_info = None
        self.eval_set = None          # which held-out set an evaluation loss came from (None: unknown)



def _read_tape(o: dict, tape) -> None:
    """What a hand-written loss does with its targets, read off its tape: class indices weighing the
    log-probabilities of every class is a target broadcast against the outputs (loss_shape_mismatch)."""
    why = LT.class_ids_weigh_log_probs(tape)
    if why:
        o["shape_mismatch"].append(True)
        o["mismatch_detail"] = why


class LossFeed:
    """Mixin of :class:`~traindx.probes.live.monitor.Monitor`: the loss feed and the loss series."""

    def _init_loss_state(self):
        self._queue: list[_LossRec] = []
        self._tentative: list[_LossRec] = []
        self._train_steps = array("l")
        self._train_vals = array("d")
        self._nan_first = None
        self._nan_info = None
        self._val_run = None
        self._val_epochs: list[dict] = []
        self._train_acc: list[tuple[float, float]] = []
        self._mode = {"train": [0, 0], "val": [0, 0]}   # [training, eval] counts
        self._fwd_mode = [0, 0, 0, 0]       # forwards by (grad enabled, model.training)
        self._outputs = {"activation": [], "target_kind": [], "shape_mismatch": [], "range": 0.0,
                         "num_classes": None, "loss_names": Counter(), "val_squash": [], "all_zero": [],
                         "mismatch_detail": None}
        self._tape_read = 0
        self._max_label = None
        self._loss_count = 0
        self._name_checks = 0
        self._train_loss_count = 0
        self._flat_checked = False
        self._spikes = 0
        self._spike_ref = None
        self._loss_weights: list[tuple[int, tuple]] = []   # (step, the loss's constant term weights)
        self._loss_out_shape = None          # the output shape of the latest training loss (None: none)
        self._loss_terms = None              # the calls of one criterion a summed training loss adds up
        self._last_tape = None               # (training loss index, its LossTape): the latest tape made

    def on_loss(self, loss, *, phase=None, outputs=None, targets=None, loss_name=None, loss_fn=None,
                terms=None, composite=False):
        """The loss before backward.

        ``phase``: ``"train"``, ``"val"`` or None (infer: a loss computed without grad, or one that
        no backward passes through before the next optimizer step, is validation, unless it is
        NaN/Inf from a training-mode forward). An explicit ``"train"`` on a loss that cannot be
        backpropagated is taken as validation too; ``"skipped"`` is a training loss the script
        computed and did not back-propagate because it was not finite.
        ``outputs``/``targets``: what the loss compared; ``loss_name``: ``cross_entropy``, ``nll``,
        ``bce``, ``bce_with_logits``, ``mse``, ... or ``custom`` for a hand-written loss (None: the
        monitor identifies a stock loss from outputs/targets when it can, else counts it custom;
        ``"unknown"``: say nothing about the loss function). ``loss_fn``: the criterion itself,
        used to re-run the loss on a model copy (overfit probe). ``terms``: the loss adds up this many
        calls of one criterion (``loss += criterion(out_t, y_t)`` over a sequence): it is read per
        term, as the criterion reports it, so it compares with chance and with the validation loss.
        ``composite``: the loss is more than the criterion that ``outputs``/``targets`` went into (that
        criterion plus penalties, other criteria, hand-written terms): the copies replay it from its
        tape (:meth:`_loss_tape`), not as the criterion of ``outputs`` and ``targets``.
        """
        if self._busy or not isinstance(loss, self._torch.Tensor):     # torch.is_tensor, without its frame
            return
        try:                # the loss's work written out here (one frame fewer on every loss)
            grad_path = loss.requires_grad and self._torch.is_grad_enabled()
            if phase is None or phase == "auto":
                phase = "tentative" if grad_path else "val"
            elif phase == "skipped":         # a NaN/Inf training loss the script did not back-propagate
                phase = "train"
            elif phase == "train" and not grad_path:
                phase = "val"
            elif phase != "train" and phase != "val":
                phase = "val" if phase in ("eval", "validation", "test") else "train"
            # the mode of the forward that produced this loss, not of the model now: a helper that
            # switches back with model.train() before computing the validation loss ran that forward
            # in eval mode
            training = self._last_fwd_training
            if training is None:
                training = None if self.model is None else self.model.training
            rec = _LossRec(self.steps, phase, training, self._bwd_count)
            rec.eval_set = self._eval_set
            self._loss_count += 1
            if loss_fn is not None and self._loss_fn is None:
                self._loss_fn = loss_fn
                ls = getattr(loss_fn, "label_smoothing", None)
                if isinstance(ls, float) and ls > 0:
                    self._label_smoothing = ls
            if terms is not None:
                self._read_loss_value(rec, loss, terms)
                self._loss_terms = terms
            elif self._device_type == "cpu" and self._device_known:
                try:                                   # _read_loss_value on the CPU, written out
                    rec.value = loss.item()
                except (RuntimeError, ValueError):     # not a scalar
                    rec.value = loss.detach().float().mean().item()
            else:
                self._read_loss_value(rec, loss)
            if self._loss_count <= self._name_losses or self._loss_name is None:     # (see _identify_loss)
                loss_name = self._identify_loss(loss, outputs, targets, loss_name)
            if phase != "val":
                self._on_train_loss(rec, outputs, targets, loss_name, loss, composite)
            else:
                self._on_val_loss(rec, outputs, targets, loss_name)
            self._queue.append(rec)
            if phase == "val" and len(self._queue) > _VAL_FLUSH:
                self._flush()
        except Exception as e:  # a probe never breaks the user's run
            self._note("on_loss", e)

    def _on_val_loss(self, rec, outputs, targets, loss_name):
        self._val_since_wait = True
        self._val_since_step = True
        for p in self._costly:
            keep = getattr(p, "on_val_loss", None)
            if keep is not None:
                keep(self, outputs, targets)
        if outputs is not None and len(self._outputs["val_squash"]) < self._val_squash_samples:
            self._observe_val_squash(outputs, loss_name)
        if targets is not None and self._torch.is_tensor(targets):
            self._observe_val_labels(targets)
        if outputs is not None and targets is not None:
            name = L.loss_function(loss_name) if loss_name not in (None, "unknown") else self._loss_name
            cc = L._correct_count(outputs, targets, name)
            if cc is not None:
                self._defer_count(cc, lambda hit, n, r=rec: setattr(r, "acc", (hit, n)))

    def _read_loss_value(self, rec, loss, terms=None):
        """The value (per term when the loss sums ``terms`` calls of one criterion): read now on CPU
        (no sync to avoid), deferred to the next flush on a device."""
        if not self._device_known:
            self._set_device(loss.device.type)
        per = 1.0 if terms is None else float(terms)
        if self._device_type == "cpu":
            try:
                rec.value = loss.item() / per
            except (RuntimeError, ValueError):     # not a scalar
                rec.value = loss.detach().float().mean().item() / per
        else:
            lv = loss.detach()
            if lv.numel() != 1:
                lv = lv.float().mean()
            self._deferred.append((lambda v, r=rec: setattr(r, "value", v / per), lv))

    def _identify_loss(self, loss, outputs, targets, loss_name):
        """Loss identification: a given name, else a value match on the first few losses that come
        with outputs and targets (names are tallied on the first ``monitor.loss_name_losses`` losses
        only). Returns the name
        this loss goes by (None: not known)."""
        if loss_name != "unknown" and self._loss_count <= self._name_losses:
            if loss_name is None and outputs is not None and targets is not None \
                    and self._name_checks < _NAME_CHECKS:
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
        return loss_name

    def _on_train_loss(self, rec, outputs, targets, loss_name, loss=None, composite=False):
        """A training (or not yet decided) loss: the sampled looks at outputs, targets and labels,
        the costly probes that keep batches, and the NaN trace at the first non-finite value."""
        i = self._train_loss_count
        self._train_loss_count = i + 1
        # every sampled look below falls on i < LOSS_FIRST or a multiple of LOSS_GATE (or armed)
        look = i < LOSS_FIRST or i % LOSS_GATE == 0 or self.steps < self._armed_until or self.level == "full"
        if look:
            if due(ACC, i) or due(OUTPUTS, i) or self.steps < self._armed_until or self.level == "full":
                if self._sched("outputs", i):
                    self._observe_outputs(rec, outputs, targets, loss_name or self._loss_name,
                                          sample_squash=self.armed or SCHEDULE["squash"](i))
                elif targets is not None and self._sched("accuracy", i):
                    self._observe_accuracy(outputs, targets, loss_name or self._loss_name)
        if targets is not None:
            self._last_targets = targets
            if look and self._train_batch_count == 0 and self._sched("labels", i):
                self._observe_labels(targets)
        shape = None
        if outputs is not None and isinstance(outputs, self._torch.Tensor):
            self._last_out_shape = shape = outputs.shape
        self._loss_out_shape = shape          # this loss's output shape (None: no tensor output)
        kept = targets
        # a loss no criterion of the run can replay from outputs and targets alone (hand-written, a
        # criterion plus other terms, or an unknown one with no criterion given) is replayed from its
        # tape, even where a validation pass named a criterion since
        if loss is not None and self.experiments_enabled and (
                composite or targets is None
                or (self._loss_fn is None and not L.is_stock_loss(loss_name or self._loss_name))):
            kept = self._loss_tape(loss, targets)
            if type(kept) is LT.LossTape:
                self._last_tape = (i, kept)
        elif self._tape is not None:     # no longer needed: stop opening tapes at every forward
            self._tape.close()
            self._tape = None
        for p in self._costly:
            if p.collecting:
                p.on_train_loss(self, outputs, kept)
        v = rec.value
        if v is not None and self._nan_first is None and not math.isfinite(v):
            rec.nan_info = self._trace_nan(outputs, targets)
            if not self.armed:
                self.arm(f"nonfinite loss at step {self.steps}")
        if rec.phase == "tentative":
            self._tentative.append(rec)
        if look and self._sched("loss_weights", i) and loss is not None:
            self._sample_loss_weights(loss)

    def _replay_fn(self, batches):
        """The loss the copies train kept ``batches`` with: each batch's tape where they hold tapes (a
        hand-written or composite loss, whatever criterion a validation pass named), else the criterion
        given or identified; None when there is none."""
        if LT.holds_tapes(batches):
            return LT.replay_loss
        return self._loss_fn or L.loss_callable(self._loss_name)

    def _loss_tape(self, loss, targets):
        """A loss no stock criterion computes (hand-written, or one the run did not name): the copies
        replay it from a tape of the torch calls that made it from the model's outputs
        (:mod:`~traindx.probes.live.loss_tape`), which stands in for the targets of the batch kept.
        The recorder starts at the first such loss (its tapes begin with the next forward)."""
        if self._tape is None:
            if self.model is None or not hasattr(self.model, "register_forward_hook"):
                return targets
            self._tape = LT.TapeRecorder(self.model, self.params["loss_tape.max_ops"])
            return targets
        tape = self._tape.finish(loss, targets)
        if tape is not None and self._tape_read < _TAPE_READS:
            self._tape_read += 1
            _read_tape(self._outputs, tape)
        return targets if tape is None else tape

    def _sample_loss_weights(self, loss):
        """The constant weights of the loss's terms at this step (``rec + beta * kl``: beta), read
        off the loss's graph before backward; kept thinned to ``loss_weights.max_samples``."""
        w = L.loss_term_weights(loss, self.params["loss_weights.max_nodes"])
        if not w:
            return
        self._loss_weights.append((self.steps, w))
        if len(self._loss_weights) > self.params["loss_weights.max_samples"]:
            self._loss_weights = self._loss_weights[::2]

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
                rec.phase = unbacked_phase(rec)

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
            act = L.output_activation(outputs, self._squash_min, self._squash_sum_tol, self._log_softmax_max)
            if act is not None:
                o["activation"].append(act)
                o["all_zero"].append(not bool(outputs.detach().any()))
            if targets is not None and torch.is_tensor(targets):
                tk = L.target_kind(outputs, targets, self._max_class_index, self._target_row_tol)
                if tk is not None:
                    o["target_kind"].append(tk)
                mm = L.loss_shape_mismatch(tuple(outputs.shape), tuple(targets.shape), name)
                if mm is not None:
                    o["shape_mismatch"].append(mm)
        if o["num_classes"] is None and name is not None:
            o["num_classes"] = L.infer_num_classes(tuple(outputs.shape), name)
        if targets is not None:
            self._observe_accuracy(outputs, targets, loss_name)

    def _observe_val_squash(self, outputs, loss_name):
        """What a validation loss that squashes by itself (cross-entropy, BCE with logits) receives:
        (loss, softmax/sigmoid/log_softmax/none), for the output_squash probe's val_double_squash."""
        name = L.loss_function(loss_name) if loss_name not in (None, "unknown") else None
        if name not in L.SELF_SQUASHING:
            return
        act = L.output_activation(outputs, self._squash_min, self._squash_sum_tol, self._log_softmax_max)
        if act is not None:
            self._outputs["val_squash"].append((name, act))

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
        if n >= self._spike_min:
            # the running median, refreshed every 16 losses
            if (n - self._spike_min) % 16 == 0 or self._spike_ref is None:
                recent = L.finite(self._train_vals[-self._recent:])
                self._spike_ref = median(recent) if recent else None
            med = self._spike_ref
            if med is not None and med > 0 and v > self._spike_factor * med:
                self._spikes += 1
                if not self.armed:
                    self.arm(f"spike: loss {v:.4g} > {self._spike_factor:g}x running median {med:.4g}")
        for p in self._value_watchers:    # costly probes that arm on the curve's shape (lr_decay)
            p.on_train_value(self, n)
        if not self._flat_checked and rec.step >= self._flat_after and n >= self._flat_min:
            self._flat_checked = True
            frac = L.loss_decrease_fraction(list(self._train_vals), self.params)
            if frac is not None and frac < self._flat_fraction:
                self.arm(f"loss flat: within {max(frac, 0) * 100:.1f}% of its start after {rec.step} steps")

    def _val_loss(self, rec):
        if rec.training is not None:
            self._mode["val"][0 if rec.training else 1] += 1
        run = self._val_run
        if run is not None and run["n"] and rec.eval_set is not None and run["set"] is not None \
                and rec.eval_set != run["set"]:
            self._close_val_epoch()       # the script moved on to another held-out set
            run = None
        if run is None:
            run = self._val_run = {"step": self.steps, "sum": 0.0, "n": 0, "correct": 0.0, "counted": 0.0,
                                   "set": rec.eval_set}
        elif run["set"] is None:
            run["set"] = rec.eval_set
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
              "accuracy": L.accuracy(run["correct"], run["counted"]), "train_loss": self._recent_train_loss(),
              "set": run["set"]}
        self._val_epochs.append(ep)
        eps = self.validation_epochs()
        k = self._gap_evals
        if len(eps) >= k:
            gaps = [e["loss"] - e["train_loss"] for e in eps[-k:] if e["train_loss"] is not None]
            if (len(gaps) == k and all(a < b for a, b in zip(gaps, gaps[1:])) and eps[-1]["loss"] > eps[-2]["loss"]
                    and not self.armed):
                self.arm(f"gap: validation/train loss gap widening over {k} evaluations")

    def _recent_train_loss(self):
        s = L.finite(self._train_vals[-self._recent:])
        return float(sum(s) / len(s)) if s else None

    def _process_queue_final(self):
        for rec in self._queue:
            if rec.phase == "tentative":
                rec.phase = unbacked_phase(rec)
        self._process_queue()

    def _lrs(self) -> list[float]:
        return [lr for _, lr in self._lr_changes if lr is not None]

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

    def validation_epochs(self) -> list[dict]:
        """The closed evaluations of the validation set: the first held-out set the script
        evaluated (evaluations whose set is unknown count as validation)."""
        first = next((e["set"] for e in self._val_epochs if e["set"] is not None), None)
        return [e for e in self._val_epochs if e["set"] is None or e["set"] == first]

    def test_epochs(self) -> list[dict]:
        """The closed evaluations of the other held-out sets (a test set), in order."""
        first = next((e["set"] for e in self._val_epochs if e["set"] is not None), None)
        return [e for e in self._val_epochs if e["set"] is not None and e["set"] != first]

    def _val_batches_expected(self):
        run = self._val_run
        if len(getattr(self, "_eval_sets", ())) > 1:
            # several held-out sets: the validation loader's length is one of them; an open
            # evaluation is complete once it has as many batches as that set's previous one
            same = [e for e in self._val_epochs if e["set"] == (run["set"] if run else None)]
            return same[-1]["batches"] if same else float("inf")
        loader = self._loaders.get("val")
        try:
            if loader is not None:
                return max(1, len(loader))
        except TypeError:
            pass
        if self._val_epochs:
            return self._val_epochs[-1]["batches"]
        return float("inf")

    def _at_chance(self) -> bool:
        """The training loss, after ``monitor.flat_after_steps``, is within ``curves.chance_tolerance``
        of ln(num_classes) (cross-entropy)."""
        if self.steps < self._flat_after or self._loss_name not in (None, "cross_entropy", "nll"):
            return False
        nc, _ = self._num_classes()
        cur = L.current_loss(self._train_vals, self.params)
        chance = L.chance_loss(nc)
        return bool(chance and cur is not None and abs(cur - chance) <= self._chance_tolerance * chance)

