"""``probe:experiment`` (costly): differential diagnosis on copies. The engine picks an experiment of
``kb/experiments.yaml`` (``traindx.engine.differential``); it runs on copies of the model and
optimizer, fed the recent training batches kept here (:mod:`traindx.probes.live.experiments`), at
the next sampled optimizer step or at ``Monitor.run_experiments``.

Its facts are generated: one ``exp_<id>`` per experiment of the knowledge base (the loader adds them
to the source's ``facts``), so :attr:`Experiment.facts` lists none and :attr:`Experiment.fact_prefix`
names their form.
"""

from __future__ import annotations

import traindx.probes.live.experiments as EX
import traindx.probes.live.gradients as G
import traindx.probes.live.model_config as MC
from traindx.probes.live.probe import CostlyProbe
from traindx.probes.live.sources.clipping import effective_clip_max


class Experiment(CostlyProbe):
    source = "probe:experiment"
    facts = ()
    #: the facts it emits are ``exp_<experiment id>``, one per experiment of the knowledge base
    fact_prefix = "exp_"
    needs = frozenset({"model", "optimizer", "batch", "loss"})
    schedule = ("keeps every training batch (references, bounded by count and bytes); an experiment the "
                "engine asks for runs at the next sampled step")
    parameters = ("experiments.buffer_batches", "experiments.buffer_bytes", "experiments.min_train_batches",
                  "experiments.min_held_out_batches", "output_squash.sum_tolerance", "loss_tape.max_ops",
                  "experiments.start_state_bytes", "experiments.restart_within_steps")

    def __init__(self):
        self.box = EX.Experiments(True)
        self.collecting = True       # keeps every training batch while experiments are on
        # read at every step that samples nothing (the monitor's gate): a plain attribute, kept
        # equal to bool(self.box.pending) by request() and run(), the only ones that change it
        self.ready = False

    def setup(self, m) -> None:
        """Experiments on or off (``Monitor(experiments=...)``), buffer sizes from ``m.params``."""
        self.box = EX.Experiments(m.experiments_enabled, params=m.params)
        self.collecting = self.box.enabled
        self.ready = False

    @property
    def pending(self) -> bool:
        return bool(self.box.pending)

    def request(self, spec: dict) -> None:
        self.box.request(spec)
        self.ready = bool(self.box.pending)

    def on_train_loss(self, m, outputs, targets) -> None:
        # m._loss_out_shape: this loss's outputs.shape, None when they are not a tensor (read once
        # by the monitor just before)
        self.box.keep(m._last_args, m._last_kwargs, targets, m._loss_out_shape)

    @staticmethod
    def _training_mode(m):
        """The mode the run trains in: that of its forwards with gradients on (a run that ends on an
        evaluation pass leaves the model in eval mode; its copies must still train as it trained)."""
        grad_eval, grad_train = m._fwd_mode[2], m._fwd_mode[3]
        if grad_eval or grad_train:
            return grad_train >= grad_eval
        return m._last_fwd_training

    @staticmethod
    def _start_state(m):
        """The first weights to start both copies from, when the run blew up within
        ``experiments.restart_within_steps`` of its start and its weights are non-finite now (copies of
        them could show nothing); else None (the copies start from the run's current state)."""
        if m._start_state is None or m._nan_first is None or m.model is None:
            return None
        if m._nan_first > m.params["experiments.restart_within_steps"]:
            return None
        try:
            return None if MC.weights_finite(m.model) else m._start_state
        except Exception:
            return None

    def run(self, m) -> None:
        lrs = m._lrs()
        context = {"clip_max": effective_clip_max(m), "peak_lr": max(lrs) if lrs else None,
                   "accumulates": bool(G.grad_accumulates(m._carried, m.params)) if m._carried else False,
                   "training": self._training_mode(m), "start_state": self._start_state(m)}
        fn = m._replay_fn(self.box.batches)
        try:
            self.box.run_pending(m.model, m.optimizer, fn, context, m._fwd_autocast)
        finally:
            self.ready = bool(self.box.pending)

    def summary(self):
        return [dict(r) for r in self.box.results]

    def findings(self, m, emit, params):
        self.box.findings(lambda _src, fact, value, detail, **extra: emit(fact, value, detail, **extra))
