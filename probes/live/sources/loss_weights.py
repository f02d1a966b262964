"""``probe:loss_weights``: the script changes the weights of its loss's terms during the run (a KL or
auxiliary-loss weight annealed on a schedule), so the loss's level is not comparable across the run."""

from __future__ import annotations

import traindx.probes.live.losses as L
from traindx.probes.live.probe import Probe


class LossWeights(Probe):
    source = "probe:loss_weights"
    facts = ("loss_weights_scheduled",)
    needs = frozenset({"loss"})
    schedule = "the training loss's graph before backward: the first 10 losses, then every 50th"
    parameters = ("loss_weights.change_factor", "loss_weights.min_samples", "loss_weights.max_nodes",
                  "loss_weights.max_samples")

    def findings(self, m, emit, params):
        samples = m._loss_weights
        if len(samples) < params["loss_weights.min_samples"]:
            return
        found = L.weights_scheduled(samples, params["loss_weights.change_factor"])
        if found is None:
            emit("loss_weights_scheduled", False,
                 f"the loss's {len(samples[0][1])} constant term weight(s) stay put over "
                 f"steps {samples[0][0]}-{samples[-1][0]}")
            return
        i, first, last = found
        emit("loss_weights_scheduled", True,
             f"the weight of the loss's term {i + 1} goes {first:.4g} -> {last:.4g} over steps "
             f"{samples[0][0]}-{samples[-1][0]}: the script changes its own objective during the run")
