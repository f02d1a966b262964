"""``probe:lr_decay`` (costly): would an LR decay lower this plateau? Started when the training loss
levels off under a held LR (or by ``Monitor.start_lr_decay``): the next training batches are kept and
two copies continue on them (:mod:`traindx.probes.live.lr_decay`); a run whose own schedule already
decayed through the plateau answers the question itself.

State: ``state`` is None -> ``"collecting"`` -> ``"ready"`` -> None (done; re-armed by a later
plateau). A clear answer stands until the run has doubled since it; an unclear one is asked again
after ``lr_decay.retry_steps`` or a quarter of the run; ``lr_decay.max_tests`` at most.
"""

from __future__ import annotations

import traindx.probes.live.data as D
import traindx.probes.live.losses as L
import traindx.probes.live.loss_tape as LT
import traindx.probes.live.lr_decay as LD
from traindx.engine.parameters import resolve
from traindx.probes.live.probe import CostlyProbe




def _min_batches(P) -> int:
    """The fewest kept batches the test can run on: lr_decay.min_train_batches + min_held_out_batches."""
    return int(P["lr_decay.min_train_batches"]) + int(P["lr_decay.min_held_out_batches"])


class LrDecay(CostlyProbe):
    source = "probe:lr_decay"
    facts = ("lr_decay_helps", "loss_stopped_at_lr_collapse")
    needs = frozenset({"model", "optimizer", "batch", "loss"})
    schedule = ("a plateau look every eighth of the run (paced by losses); on a plateau under a held LR, "
                "the next 64 training batches, then copies at the next sampled step; 3 tests at most")
    parameters = ("lr_decay.batches", "lr_decay.lr_held", "lr_decay.max_tests", "lr_decay.retry_steps",
                  "lr_decay.helps", "lr_decay.no_help", "lr_decay.min_z", "lr_decay.noise_multiple",
                  "lr_decay.val_helps", "lr_decay.within_noise", "curves.decay_held", "curves.decay_cut",
                  "monitor.curve_min_losses", "lr_decay.min_train_batches", "lr_decay.min_held_out_batches",
                  "lr_decay.first_look_losses", "lr_decay.look_min_gap_losses", "lr_decay.buffer_bytes",
                  "lr_decay.val_batches", "lr_decay.val_buffer_bytes", "loss_tape.max_ops",
                  "curves.decay_held_share", "curves.lr_collapse")

    def __init__(self):
        self.state = None
        self.val: list = []        # the latest validation batches the run scored (lr_decay.val_batches at most)
        self.val_bytes = 0
        self.batches: list = []
        self.bytes = 0
        self.runs: list[dict] = []
        self.next_check = None     # the training loss of the next plateau look (lr_decay.first_look_losses first)
        self.target = None         # batches to keep (lr_decay.batches unless start() was given a count)
        self.seen = None           # the run's own decay through the plateau, when it has one
        self.onset = None          # whether the plateau began where the LR collapsed (None: no collapse)

    @property
    def state(self):
        return self._state

    @state.setter
    def state(self, value) -> None:
        # ready and collecting are read on every step: plain attributes, set when the state changes
        self._state = value
        self.ready = value == "ready"
        self.collecting = value == "collecting"

    @property
    def pending(self) -> bool:
        return self.state is not None

    def start(self, batches: int | None = None, params=None) -> None:
        """Start collecting now (``Monitor.start_lr_decay``): ``batches`` training batches, by
        default ``lr_decay.batches``."""
        if self.state is not None:
            return
        self.state = "collecting"
        p = resolve(params)
        self.target = max(_min_batches(p), int(p["lr_decay.batches"] if batches is None else batches))
        self.batches, self.bytes = [], 0

    # ------------------------------------------------------------------ arming
    def on_train_value(self, m, n: int) -> None:
        """The n-th finite training loss was recorded: look for a plateau first after
        ``lr_decay.first_look_losses`` losses, then every eighth of the run so far (at least
        ``lr_decay.look_min_gap_losses`` apart). Paced by losses, never by the clock, so the same
        script reads its plateau at the same step on an idle and on a busy machine (a reading costs
        milliseconds; the growing interval keeps their number logarithmic)."""
        nxt = self.next_check
        if nxt is None:
            nxt = self.next_check = m.params["lr_decay.first_look_losses"]
        if n < nxt or self.state is not None:
            return
        self.next_check = n + max(m.params["lr_decay.look_min_gap_losses"], n // 8)
        self.plateau_check(m, None)

    def on_curve(self, m, an) -> None:
        """The training-loss curve was read (at findings): a plateau may start the test; the run's
        own decay through it is remembered."""
        if m._attached:
            self.plateau_check(m, an)
        self.seen = self._decay_through_plateau(m, an)
        self.onset = self._plateau_at_collapse(m, an)

    def _lr_held(self, m) -> bool:
        # against the peak, not the start: a warm-up then a decay is not a held LR
        lrs = m._lrs()
        return bool(lrs) and max(lrs) > 0 and lrs[-1] >= m.params["lr_decay.lr_held"] * max(lrs)

    def plateau_check(self, m, an) -> None:
        """Start the test when the training loss has levelled off under a held LR."""
        p = m.params
        if (self.state is not None or len(self.runs) >= p["lr_decay.max_tests"]
                or m.model is None or m.optimizer is None or m._nan_first is not None):
            return
        if self.runs:
            last = self.runs[-1]
            # a clear answer stands until the run has doubled; an unclear one is asked again soon
            wait = last.get("at_step", 0) if last.get("helps") is not None else \
                max(p["lr_decay.retry_steps"], last.get("at_step", 0) // 4)
            if m.steps < last.get("at_step", 0) + wait:
                return
        if not self._lr_held(m):
            return
        try:
            if an is None:
                nc, _ = m._num_classes()
                an = L.curve_analysis(m._train_steps, m._train_series(), (), nc, params=p)
            if an is None or an.facts.get("loss_trend") != "plateaued":
                return
        except Exception as e:
            m._note("plateau_check", e)
            return
        self.state = "collecting"
        self.target = int(p["lr_decay.batches"])
        self.batches, self.bytes = [], 0

    def on_train_loss(self, m, outputs, targets) -> None:
        torch = m._torch
        args, kwargs = m._last_args, m._last_kwargs
        tape = type(targets) is LT.LossTape      # a hand-written loss's tape stands for the targets
        if args is None or targets is None or not (tape or torch.is_tensor(targets)):
            return
        if self.batches and self.batches[-1][2] is targets:
            return      # the same loss seen twice (a wrapper and the functional it calls)
        size = sum(t.numel() * t.element_size() for t in D.tensors_in([list(args), kwargs or {},
                                                                       None if tape else targets]))
        size += targets.nbytes if tape else 0
        if self.bytes + size > m.params["lr_decay.buffer_bytes"]:
            self.state = "ready"
            return
        out_shape = tuple(outputs.shape) if outputs is not None and torch.is_tensor(outputs) else None
        self.batches.append((tuple(args), dict(kwargs or {}), targets, out_shape))
        self.bytes += size
        if len(self.batches) >= self.target:
            self.state = "ready"

    def on_val_loss(self, m, outputs, targets) -> None:
        """A validation loss: keep its batch (references, the latest ``lr_decay.val_batches``,
        ``lr_decay.val_buffer_bytes`` at most), so that the copies are also scored on data the run
        never trains on."""
        torch = m._torch
        args, kwargs = m._last_args, m._last_kwargs
        if (args is None or targets is None or not torch.is_tensor(targets) or m.model is None
                or len(self.runs) >= m.params["lr_decay.max_tests"]):
            return
        if self.val and self.val[-1][2] is targets:
            return
        size = sum(t.numel() * t.element_size() for t in D.tensors_in([list(args), kwargs or {}, targets]))
        keep, most = m.params["lr_decay.val_batches"], m.params["lr_decay.val_buffer_bytes"]
        if size > most:
            return
        out_shape = tuple(outputs.shape) if outputs is not None and torch.is_tensor(outputs) else None
        self.val.append((tuple(args), dict(kwargs or {}), targets, out_shape, size))
        self.val_bytes += size
        while len(self.val) > keep or self.val_bytes > most:
            self.val_bytes -= self.val.pop(0)[4]

    # ------------------------------------------------------------------ the experiment
    def run(self, m) -> None:
        batches, self.batches, self.bytes = self.batches, [], 0
        self.state = None
        fn = m._replay_fn(batches)
        run = {"at_step": m.steps, "batches": len(batches)}
        if fn is None:
            run["skipped"] = "needs a stock or given loss function"
        elif len(batches) < _min_batches(m.params):
            run["skipped"] = f"only {len(batches)} batches fit in memory"
        else:
            try:
                # validation batches carry stock targets, not tapes: a replayed loss is scored on the
                # held-out training batches only
                val = [b[:4] for b in self.val] if fn is not LT.replay_loss else []
                r = LD.lr_decay_test(m.model, m.optimizer, batches, fn, autocast=m._fwd_autocast, params=m.params,
                                     val=val)
                run.update(r or {"skipped": "the model or optimizer could not be copied"})
            except Exception as e:
                run["error"] = f"{type(e).__name__}: {e}"[:200]
        del batches
        self.runs.append(run)

    def finish(self, m, final) -> None:
        if final and self.state is not None:
            m._run_costly(self)           # the run ended while the test was collecting batches

    def summary(self):
        return [dict(r) for r in self.runs]

    # ------------------------------------------------------------------ findings
    @staticmethod
    def _decay_through_plateau(m, an):
        """The run's own LR-decay test (:func:`~traindx.probes.readers.curves.decayed_through_plateau`,
        as the log reader reads it), or None."""
        if an is None or an.facts.get("loss_trend") != "plateaued" or an.region is None:
            return None
        from traindx.probes.readers.curves import decayed_through_plateau

        cut = decayed_through_plateau(m._lr_changes, an.region.start, m.params, end=an.region.end)
        return None if cut is None else {"start": int(an.region.start), "lr_start": cut[0], "lr_now": cut[1]}

    @staticmethod
    def _plateau_at_collapse(m, an):
        """``(answer, plateau start)`` of :func:`~traindx.probes.readers.curves.plateau_at_lr_collapse`,
        or None (no plateau, or an LR that never collapsed)."""
        if an is None or an.facts.get("loss_trend") != "plateaued" or an.region is None:
            return None
        from traindx.probes.readers.curves import plateau_at_lr_collapse

        at = plateau_at_lr_collapse(m._lr_changes, an.region.start, an.region.end, m.params)
        return None if at is None else (at, int(an.region.start))

    def findings(self, m, emit, params):
        if self.onset is not None:
            at, start = self.onset
            emit("loss_stopped_at_lr_collapse", at,
                 f"the loss levelled off at step {start}, as the schedule took the LR below "
                 f"{params['curves.lr_collapse']:.0%} of its peak for the rest of the run" if at else
                 f"the loss levelled off at step {start}, well before the schedule took the LR below "
                 f"{params['curves.lr_collapse']:.0%} of its peak", at_step=start)
        # the run's own decay through the plateau is the stronger answer: the real run, over more
        # steps than the copies train
        seen = self.seen
        if seen is not None:
            emit("lr_decay_helps", False,
                 f"the run's own schedule cut the LR {seen['lr_start']:.3g} -> {seen['lr_now']:.3g} after the "
                 f"loss levelled off at step {seen['start']}, and the loss did not move",
                 lr=seen["lr_start"], lr_now=seen["lr_now"], at_step=seen["start"])
            return
        r = next((r for r in reversed(self.runs) if r.get("helps") is not None), None)
        lrs = m._lrs()
        if r is not None and r["helps"] and lrs and r.get("lr") and lrs[-1] <= params["curves.decay_cut"] * r["lr"]:
            r = None        # "a decay would help" -- and the run's schedule has since decayed it
        if r is None:
            return
        extra = {k: r[k] for k in ("gain", "loss_before", "loss_same_lr", "loss_lower_lr", "lr", "factor", "steps",
                                   "held_out", "at_step", "z", "batch_spread", "val_gain", "val_z",
                                   "val_batches") if k in r}
        emit("lr_decay_helps", bool(r["helps"]),
             f"at step {r['at_step']}, two copies continued {r['steps']} steps on recent batches: held-out "
             + (f"loss {r['loss_before']:.4g} before, " if r.get("loss_before") is not None else "loss ")
             + f"{r['loss_same_lr']:.4g} at lr {r['lr']:.3g}, {r['loss_lower_lr']:.4g} at "
             f"{r['factor']:g}x that ({-r['gain']:+.1%}"
             + (f"; the held-out batches' own spread {r['batch_spread']:.1%}, paired z {r['z']:.1f}"
                if r.get("batch_spread") is not None and r.get("z") is not None else "")
             + (f"; on {r['val_batches']} validation batches {-r['val_gain']:+.1%}"
                if r.get("val_gain") is not None else "") + ")", **extra)
