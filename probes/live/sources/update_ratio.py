"""``probe:update_ratio``: |update| / |weight| per optimizer step (weights snapshotted around the step)."""

from __future__ import annotations

import traindx.probes.live.updates as U
from traindx.probes.live.probe import Probe


class UpdateRatio(Probe):
    source = "probe:update_ratio"
    facts = ("update_ratio",)
    needs = frozenset({"model", "optimizer"})
    schedule = "steps 1-3, then every 100th; every 5th while armed"

    def findings(self, m, emit, params):
        r = U.update_ratio(m._update_steps)
        if r is None:
            return
        top = U.update_ratio(m._update_max)
        emit("update_ratio", r, f"median |update|/|weight| per step {r:.3g} over layers, "
             f"{top:.3g} for the layer that moves most ({len(m._update_steps)} sampled steps; healthy ~1e-3)",
             largest_layer=top)
