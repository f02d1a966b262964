"""``probe:update_ratio``: |update| / |weight| per optimizer step (weights snapshotted around the step)."""

from __future__ import annotations

import traindx.probes.live.updates as U
from traindx.probes.live.probe import Probe


class UpdateRatio(Probe):
    source = "probe:update_ratio"
    facts = ("update_ratio", "weight_norm_ratio")
    needs = frozenset({"model", "optimizer"})
    schedule = "steps 1-3, then every 100th; every 5th while armed"
    parameters = ("update_ratio.weight_norm_min_step", "update_ratio.recent_samples")

    def findings(self, m, emit, params):
        w = U.weight_norm_ratio(m._weight_norms, int(params["update_ratio.weight_norm_min_step"]))
        if w is not None:
            emit("weight_norm_ratio", w[0], f"|weights| at step {w[1]} is {w[0]:.3g}x their size before the "
                 f"first step ({len(m._weight_norms)} sampled steps)")
        k = int(params["update_ratio.recent_samples"])
        r = U.update_ratio(m._update_steps, k)
        if r is None:
            return
        top = U.update_ratio(m._update_max, k)
        emit("update_ratio", r, f"median |update|/|weight| per step {r:.3g} over layers, "
             f"{top:.3g} for the layer that moves most ({len(m._update_steps)} sampled steps; healthy ~1e-3)",
             largest_layer=top)
