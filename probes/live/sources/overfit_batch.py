"""``probe:overfit_batch`` (costly): can a copy of the model fit the latest training batch, and does it
fit the true labels faster than shuffled ones? Runs once, on copies (:mod:`traindx.probes.live.overfit`),
when a flat loss (or ``Monitor.arm``/``run_overfit``) calls for it."""

from __future__ import annotations

import traindx.probes.live.data as D
import traindx.probes.live.loss_tape as LT
import traindx.probes.live.losses as L
import traindx.probes.live.overfit as OF
from traindx.probes.live.probe import CostlyProbe

#: Arming reasons that do not call for this probe: a run that blows up or keeps spiking is not one
#: that cannot fit.
NOT_FOR = ("nonfinite", "spike", "gap")


class OverfitBatch(CostlyProbe):
    source = "probe:overfit_batch"
    facts = ("overfit_one_batch", "labels_match_inputs", "overfit_still_falling")
    needs = frozenset({"model", "optimizer", "batch", "loss"})
    schedule = "once per run, at the next sampled step after arming (not for NaN/spike/gap arming)"
    parameters = ("overfit.stop_loss", "overfit.fits_ratio", "overfit.fits_loss", "overfit.no_fit_ratio",
                  "overfit.labels_min_progress", "overfit.labels_ratio", "overfit.still_falling_share",
                  "overfit.still_falling_min_fall", "overfit.still_falling_window",
                  "overfit.still_falling_end_share", "overfit.still_falling_min_steps")

    def __init__(self):
        self.ready = False        # run at the next sampled step
        self.done = False         # ran (or was skipped for good): never again
        self.result = None

    @property
    def pending(self) -> bool:
        return self.ready and not self.done

    def arm(self, m, reason):
        if not self.done and not str(reason).startswith(NOT_FOR):
            self.ready = True

    def skip(self, why: str) -> None:
        """Never run in this monitor (e.g. a model whose forward is a collective)."""
        self.ready = False
        if not self.done:
            self.done = True
            self.result = {"skipped": why}

    def run(self, m):
        self.ready = False
        if self.done or m.model is None or m.optimizer is None:
            return
        args, kwargs, targets = m._last_args, m._last_kwargs, m._last_targets
        fn = m._loss_fn or L.loss_callable(m._loss_name)
        tape = m._last_tape
        if fn is None and tape is not None and tape[0] + 1 == m._train_loss_count:
            # a hand-written loss, no stock criterion to replay: the latest training loss's own tape,
            # on that batch. A criterion given or identified is replayed alone, even where the loss adds
            # other terms: overfitting one batch tests the data term, with the regularisers left out
            targets, fn = tape[1], LT.replay_loss
        if args is None or targets is None or fn is None:
            self.result = {"skipped": "needs a training batch, its targets and a stock, given or recorded loss"}
            return
        self.done = True
        try:
            with m._torch.enable_grad():
                self.result = OF.overfit_one_batch(m.model, m.optimizer, args, kwargs, targets, fn,
                                                   out_shape=m._last_out_shape, autocast=m._fwd_autocast,
                                                   params=m.params)
        except Exception as e:
            self.result = {"error": f"{type(e).__name__}: {e}"[:200]}

    def finish(self, m, final):
        if self.pending:
            m._run_costly(self)       # armed too late in the run for a step to run it

    def summary(self):
        return dict(self.result) if self.result else None

    def findings(self, m, emit, params):
        r = self.result
        if not r or r.get("fits") is None and r.get("labels_match_inputs") is None:
            return
        extra = {k: r[k] for k in ("initial", "final", "steps", "optimizer", "lr", "examples") if k in r}
        if r.get("fits") is not None:
            emit("overfit_one_batch", bool(r["fits"]),
                 f"a copy ({r['optimizer']}, lr {r['lr']:g}) took one batch of {r['examples']} from loss "
                 f"{r['initial']:.4g} to {r['final']:.4g} in {r['steps']} steps", **extra)
        if r.get("still_falling") is not None:
            how = "still falling steadily" if r["still_falling"] else "no longer falling"
            emit("overfit_still_falling", bool(r["still_falling"]),
                 f"the copy's loss on the batch was {how} when its {r['steps']} steps ran out (lr {r['lr']:g})",
                 **extra)
        if r.get("labels_match_inputs") is not None and D.labels_related(m._label_nn, params) is None:
            emit("labels_match_inputs", bool(r["labels_match_inputs"]),
                 f"mean loss while fitting the true labels is {r['auc_ratio']:.2f}x that with the labels shuffled"
                 + " (the labels are learnable from the inputs)", **extra)
