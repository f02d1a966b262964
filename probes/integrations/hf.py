"""``traindx.probes.integrations.hf``: a 🤗 Transformers ``TrainerCallback`` that diagnoses the run it watches.

::

    from traindx.probes.integrations.hf import TrainDxCallback

    cb = TrainDxCallback(stop_on_nan=True)
    trainer = transformers.Trainer(model=model, args=args, train_dataset=ds, callbacks=[cb])
    with cb:                      # optional: removes every hook even if train() raises
        trainer.train()
    cb.report()["root_causes"][0]
    print(cb.markdown())

Importing this module imports transformers (and torch); ``import traindx.probes`` does not.

What it does, event by event
----------------------------

* ``on_train_begin``: a :class:`~traindx.probes.live.monitor.Monitor` is bound to ``kwargs["model"]``
  and to the torch optimizer inside ``kwargs["optimizer"]`` (accelerate's ``AcceleratedOptimizer``
  is unwrapped) and attached; the train loader is declared to it. One forward hook of this
  module's own on the model reads each forward's ``loss`` (and ``logits`` / ``labels``): a loss
  computed with grad in train mode is a training loss, one under no_grad (evaluation) a validation
  loss. The batch's ``labels`` go to the monitor's label probes. Facts the TrainingArguments state
  (batch size, epochs, warm-up, scheduler, label smoothing, max_grad_norm, workers, mixed
  precision) and the task read from the model class are added with source
  ``config:TrainingArguments:<field>``.
* ``on_step_begin`` / ``on_step_end``: the data-wait clock (below); ``on_step_end`` and
  ``on_substep_end`` run the NaN check.
* ``on_log``: the Trainer's own logged ``loss``, ``grad_norm``, ``learning_rate``, ``eval_*``
  metrics are recorded as a metrics log and analysed like a log file (``log:Trainer.log_history``
  findings, used for the facts the monitor lacks — all of them when the model computes no loss
  itself, e.g. a ``compute_loss_func``). A NaN/Inf logged ``loss`` or ``grad_norm`` counts as a
  NaN; a ``grad_norm`` above 10x the median of the logged ones arms the monitor's costly probes.
* ``on_evaluate`` / ``on_save``: the next gap is not a data wait.
* ``on_train_end``: every hook is removed; the final report is built; its summary
  (``traindx/status``, ``traindx/symptom``, ``traindx/top_cause``, ``traindx/confidence``, ...) is
  added to the Trainer's end-of-training entry of ``state.log_history`` (the one with
  ``train_runtime``, so ``log_history[-1]`` keeps its keys) and, on the main process with
  ``save_report=True``, the report is written to
  ``<output_dir>/traindx_report.json`` and ``traindx_report.md``.

transformers has no exception event: when ``trainer.train()`` raises, the callback is not told.
Use the callback as a context manager (``with cb: trainer.train()``) or call ``cb.detach()`` in a
``finally``; a later ``on_train_begin`` also removes what an interrupted run left.

Data wait: the Trainer fetches the batches of a step (all ``gradient_accumulation_steps`` of them)
before ``on_step_begin``; the time from the previous ``on_step_end`` to it is that step's wait. It
also holds the Trainer's bookkeeping between steps (logging); gaps with an evaluation or a
checkpoint save are not counted, nor is the first step of each epoch.

Loss units: a model given ``num_items_in_batch`` (the Trainer's gradient-accumulation fix)
returns its micro-batch loss divided over the whole accumulation window; with
``gradient_accumulation_steps`` > 1 it is multiplied back by that count (exact when the
micro-batches hold equal numbers of items).

NaN: at the first non-finite training loss (or logged loss / gradient norm) the monitor arms
itself, the report of that moment is kept in ``cb.nan_report``, and with ``stop_on_nan=True``
``control.should_training_stop`` is set. Note that the Trainer's default
``logging_nan_inf_filter=True`` hides NaN losses from its own log; the forward hook still sees them.

Nothing here changes the run: no random numbers are drawn in the user's generators, no ``.grad``,
parameter or optimizer state is written; ``control`` is changed only with ``stop_on_nan=True``.
"""

from __future__ import annotations

import json
import logging
import math
import os
from statistics import median

from transformers import TrainerCallback

from traindx.probes.integrations.lightning import ProbeAccess, RunProbe
from traindx.probes.live.hooks import CopyInert

#: Optimizer wrappers (accelerate, DeepSpeed, ...) unwrapped to reach torch's: a bound on work, not
#: knowledge.
_MAX_WRAPPERS = 4

__all__ = ["TrainDxCallback"]

_log = logging.getLogger("traindx.probes.callbacks")

# A logged grad_norm above hf.grad_norm_spike times the median of the earlier ones arms the monitor.


def _torch_optimizer(opt):
    """The torch optimizer inside accelerate's ``AcceleratedOptimizer`` (or the object itself)."""
    seen = 0
    while opt is not None and seen < _MAX_WRAPPERS and not hasattr(opt, "_optimizer_step_pre_hooks"):
        inner = getattr(opt, "optimizer", None)
        if inner is None or inner is opt:
            break
        opt = inner
        seen += 1
    return opt if hasattr(opt, "register_step_pre_hook") and hasattr(opt, "_optimizer_step_pre_hooks") else None


def _task(model):
    """(task_type, number of classes) from the model class and config, or (None, None)."""
    name = type(model).__name__
    cfg = getattr(model, "config", None)
    if name.endswith("ForSequenceClassification") or name.endswith("ForTokenClassification"):
        pt = getattr(cfg, "problem_type", None)
        n = getattr(cfg, "num_labels", None)
        if pt == "regression" or n == 1:
            return "regression", None
        if pt == "multi_label_classification":
            return "multilabel", None
        return ("binary" if n == 2 else "classification"), n
    if name.endswith(("ForCausalLM", "LMHeadModel", "ForMaskedLM")):
        return "language_modeling", getattr(cfg, "vocab_size", None)
    return None, None


class TrainDxCallback(TrainerCallback, ProbeAccess):
    """Diagnose the transformers ``Trainer`` run this callback watches (see :mod:`traindx.probes.integrations.hf`).

    Arguments: ``num_classes`` (chance level; default: ``config.num_labels`` for sequence
    classification, ``config.vocab_size`` for language models), ``level`` (``"cheap"`` or
    ``"full"``), ``stop_on_nan``, ``save_report`` (write ``traindx_report.json``/``.md`` into
    ``output_dir`` at the end), ``verbose`` (print a one-line summary on the main process).

    After training: :meth:`report`, :meth:`markdown`, :meth:`findings`, :meth:`summary`,
    ``nan_report``; ``with cb:`` / :meth:`detach` for exception safety.
    """

    def __init__(self, *, num_classes=None, level="cheap", stop_on_nan=False, save_report=True, verbose=True,
                 experiments=True):
        self.probe = RunProbe("hf", "Trainer.log_history", num_classes=num_classes, level=level,
                              experiments=experiments)
        self.num_classes = num_classes
        self.stop_on_nan = stop_on_nan
        self.save_report = save_report
        self.verbose = verbose
        self._ga = 1
        self._grad_norms: list[float] = []
        self._lm = False

    # ------------------------------------------------------------------ results

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
        return False

    # ------------------------------------------------------------------ lifecycle
    def on_train_begin(self, args, state, control, model=None, optimizer=None, train_dataloader=None, **kwargs):
        try:
            self.probe.detach()          # whatever an interrupted earlier train() left
            if model is None:
                return
            task, n = _task(model)
            if self.num_classes is None and n:
                self.probe.num_classes = int(n)
            self._lm = task == "language_modeling"
            self._ga = int(getattr(args, "gradient_accumulation_steps", 1) or 1)
            self._grad_norms = []
            self.probe.attach(model, _torch_optimizer(optimizer), train_loader=train_dataloader)
            self.probe.add_hook(model.register_forward_hook(CopyInert(self._on_forward), with_kwargs=True))
            self._config(args, model, task)
        except Exception as e:  # pragma: no cover - a traindx fault
            self.probe.fail("on_train_begin", e)

    def _config(self, args, model, task):
        p = self.probe
        w = "TrainingArguments"
        bs = getattr(args, "per_device_train_batch_size", None)
        if isinstance(bs, int) and bs > 0:
            n = max(1, int(getattr(args, "n_gpu", 1) or 1)) * max(1, int(getattr(args, "world_size", 1) or 1))
            total = bs * self._ga * n
            p.add_config("batch_size", total, f"{w}:per_device_train_batch_size",
                         f"per_device_train_batch_size {bs} x gradient_accumulation_steps {self._ga} x {n} device(s)")
        if (getattr(args, "max_steps", -1) or -1) <= 0:
            ep = getattr(args, "num_train_epochs", None)
            if isinstance(ep, (int, float)) and ep >= 0:
                p.add_config("epochs", int(math.ceil(ep)), f"{w}:num_train_epochs", f"num_train_epochs={ep:g}")
        wu = (getattr(args, "warmup_steps", 0) or 0) > 0 or (getattr(args, "warmup_ratio", 0) or 0) > 0
        p.add_config("warmup", bool(wu), f"{w}:warmup_steps", "a warm-up is configured" if wu else "no warm-up")
        st = getattr(args, "lr_scheduler_type", None)
        if st is not None:
            st = str(getattr(st, "value", st))
            p.add_config("scheduler", st, f"{w}:lr_scheduler_type",
                         f"lr_scheduler_type={st!r} (stepped per optimizer step)")
            p.add_config("scheduler_designed_per_batch", True, f"{w}:lr_scheduler_type",
                         "Trainer schedules are defined in optimizer steps")
        ls = getattr(args, "label_smoothing_factor", None)
        if isinstance(ls, (int, float)):
            p.add_config("label_smoothing", float(ls), f"{w}:label_smoothing_factor", f"label_smoothing_factor={ls:g}")
        mg = getattr(args, "max_grad_norm", None)
        if isinstance(mg, (int, float)) and mg > 0:
            p.add_config("clip_max_norm", float(mg), f"{w}:max_grad_norm", f"max_grad_norm={mg:g}")
        nw = getattr(args, "dataloader_num_workers", None)
        if isinstance(nw, int):
            p.add_config("num_workers", nw, f"{w}:dataloader_num_workers", f"dataloader_num_workers={nw}")
        fp16, bf16 = bool(getattr(args, "fp16", False)), bool(getattr(args, "bf16", False))
        p.add_config("uses_amp", fp16 or bf16, f"{w}:fp16",
                     "fp16=True" if fp16 else "bf16=True" if bf16 else "fp16/bf16 off")
        if task is not None:
            p.add_config("task_type", task, "model", f"{type(model).__name__}")

    def _on_forward(self, module, args, kwargs, output):
        p = self.probe
        if not p.active:
            return None
        try:
            loss = output.get("loss") if hasattr(output, "get") else None
            torch = p.monitor._torch
            if loss is None or not torch.is_tensor(loss):
                return None
            labels = kwargs.get("labels")
            logits = output.get("logits") if hasattr(output, "get") else None
            if torch.is_grad_enabled() and loss.requires_grad and module.training:
                x = kwargs.get("input_ids")
                if x is None:
                    x = kwargs.get("inputs_embeds", kwargs.get("pixel_values"))
                token_labels = torch.is_tensor(labels) and labels.dim() > 1
                p.monitor.on_batch(x, None if token_labels else labels, phase="train")
                value = loss
                if self._ga > 1 and kwargs.get("num_items_in_batch") is not None:
                    value = value * self._ga
                p.train_loss(value, outputs=logits, targets=labels)
            else:
                p.val_loss(loss)
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("forward hook", e)
        return None

    def on_epoch_begin(self, args, state, control, **kwargs):
        if self.probe.active:
            self.probe.break_wait_chain()

    def on_step_begin(self, args, state, control, **kwargs):
        if self.probe.active:
            try:
                self.probe.step_begin()
            except Exception as e:  # pragma: no cover - a traindx fault
                self.probe.fail("on_step_begin", e)

    def on_step_end(self, args, state, control, **kwargs):
        p = self.probe
        if not p.active:
            return control
        try:
            p.step_end()
            self._check_nan(state, control)
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_step_end", e)
        return control

    def on_substep_end(self, args, state, control, **kwargs):
        if self.probe.active:
            self._check_nan(state, control)
        return control

    def _check_nan(self, state, control):
        p = self.probe
        if p.take_new_nan():
            p.nan_report = p.report()
            if self.verbose and getattr(state, "is_world_process_zero", True):
                print(RunProbe.one_line(p.nan_report) + f" — at the first NaN/Inf (step {p.nan_step})", flush=True)
            if self.stop_on_nan:
                control.should_training_stop = True

    def on_evaluate(self, args, state, control, **kwargs):
        if self.probe.active:
            self.probe.break_wait_chain()
            ev = kwargs.get("eval_dataloader")
            if ev is not None and hasattr(ev, "dataset") and "val" not in self.probe.monitor._loaders:
                self.probe.monitor.add_loader(ev, "val")

    def on_save(self, args, state, control, **kwargs):
        if self.probe.active:
            self.probe.break_wait_chain()

    def on_log(self, args, state, control, logs=None, **kwargs):
        p = self.probe
        if not p.active or not logs or "train_runtime" in logs:
            return control
        try:
            p.step_end()                 # the Trainer's logging is bookkeeping, not a data wait
            p.poll_nan()                 # the Trainer synchronised to log anyway
            rec = p.record_metrics(state.global_step, logs)
            g = rec.get("grad_norm")
            lv = rec.get("loss")
            if (g is not None and not math.isfinite(g)) or (lv is not None and not math.isfinite(lv)):
                p.nan_from_log()
            elif g is not None:
                spike = p.monitor.params["hf.grad_norm_spike"]
                if (len(self._grad_norms) >= p.monitor.params["hf.grad_norm_spike_min_logs"]
                        and g > spike * median(self._grad_norms) > 0 and not p.monitor.armed):
                    p.monitor.arm(f"spike: logged grad_norm {g:.4g} > {spike:g}x its median")
                self._grad_norms.append(g)
            self._check_nan(state, control)
        except Exception as e:  # pragma: no cover - a traindx fault
            p.fail("on_log", e)
        return control

    def on_train_end(self, args, state, control, **kwargs):
        p = self.probe
        p.detach()
        if p.monitor is None or p._disabled:
            return control
        try:
            rep = p.final_report = p.report()
        except Exception as e:  # pragma: no cover - a traindx fault
            _log.warning("traindx: no report: %s: %s", type(e).__name__, e)
            return control
        metrics, params = RunProbe.summary_of(rep, p.nan_step)
        hist = state.log_history
        if hist and "train_runtime" in hist[-1]:
            hist[-1].update(params, **metrics)     # log_history[-1] stays the end-of-training summary
        else:
            hist.append({**params, **metrics, "step": state.global_step})
        main = getattr(state, "is_world_process_zero", True)
        if self.save_report and main and getattr(args, "output_dir", None):
            try:
                os.makedirs(args.output_dir, exist_ok=True)
                with open(os.path.join(args.output_dir, "traindx_report.json"), "w", encoding="utf-8") as f:
                    json.dump(rep, f, indent=1, default=str)
                with open(os.path.join(args.output_dir, "traindx_report.md"), "w", encoding="utf-8") as f:
                    f.write(p.markdown(rep))
            except OSError as e:
                _log.warning("traindx: could not write the report to %s: %s", args.output_dir, e)
        if self.verbose and main:
            print(RunProbe.one_line(rep) + " — callback.markdown() for the full report", flush=True)
        return control



# the boundary: a fault of traindx in any hook (the forward hook too) warns once and switches the
# probes off; it never reaches the Trainer
from traindx.probes.live.guard import guarded_hooks  # noqa: E402

guarded_hooks(TrainDxCallback, lambda self, where, exc: self.probe.fail(where, exc), names=("_on_forward",))
