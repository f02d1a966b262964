"""``probe:lr_trace``: the learning rate over the run, its collapse, a scheduler stepped per batch."""

from __future__ import annotations

import traindx.probes.live.updates as U
from traindx.probes.live.probe import Probe


class LrTrace(Probe):
    source = "probe:lr_trace"
    facts = ("lr_final_ratio", "lr_peak_ratio", "lr_collapse_fraction", "scheduler_step_per_batch", "learning_rate",
             "scheduler", "lr_base_ratio")
    needs = frozenset({"optimizer"})
    schedule = "every optimizer step (the LR of group 0 at each change); every scheduler.step()"
    parameters = ("curves.lr_collapse", "lr_trace.min_steps", "lr_trace.per_batch_share", "lr_trace.per_epoch_share",
                  "lr_trace.min_changes")

    def findings(self, m, emit, params):
        if m.optimizer is None or not m.steps:
            return
        ch = m._lr_changes
        emit("lr_final_ratio", U.lr_final_ratio(ch),
             f"lr {ch[-1][1]:.3g} now vs {ch[0][1]:.3g} at the start" if ch else "")
        top = max(lr for _, lr in ch) if ch else None
        emit("lr_peak_ratio", U.lr_peak_ratio(ch),
             f"lr peaked at {top:.3g} vs {ch[0][1]:.3g} at the start" if ch else "")
        base = U.lr_base_ratio(ch, m.optimizer)
        emit("lr_base_ratio", base,
             f"the lr stepped with at most {top:.3g}, {base:.3g} of the rate its scheduler scales (the "
             "initial_lr it recorded)" if base is not None else "")
        cf = U.lr_collapse_fraction(ch, m.steps, params)
        cut = f"{params['curves.lr_collapse']:.0%}"
        emit("lr_collapse_fraction", cf,
             f"the lr never fell below {cut} of its peak" if cf == 1.0 else
             f"the lr fell below {cut} of its peak after {cf * 100:.0f}% of the run" if cf is not None else "")
        pb = U.scheduler_steps_per_batch(m._sched_steps, m.steps, params)
        if pb is not None:
            emit("scheduler_step_per_batch", pb,
                 f"scheduler.step() ran {m._sched_steps} times in {m.steps} optimizer steps")
        elif not m._sched_steps:
            n = m._lr_n_changes - 1
            pb = None if m.steps < params["lr_trace.min_steps"] or not ch else (
                n >= params["lr_trace.min_changes"] and n >= params["lr_trace.per_batch_share"] * (m.steps - 1))
            emit("scheduler_step_per_batch", pb, f"no scheduler seen; the lr changed at {n} of {m.steps} steps")
