"""``probe:loss_weights``: the script changes the weights of its loss's terms during the run (a KL or
auxiliary-loss weight annealed on a schedule), so the loss's level is not comparable across the run."""

from __future__ import annotations

import traindx.probes.live.losses as L
from traindx.probes.live.probe import Probe


class LossWeights(Probe):
    source = "probe:loss_weights"
    facts = ("loss_weights_scheduled", "loss_negative_own_terms")
    needs = frozenset({"loss"})
    schedule = ("the training loss's graph before backward: the first 10 losses, then every 50th; a composite "
                "loss's total and its stock criteria (--script runs): the first 10, then every 50th")
    parameters = ("loss_weights.change_factor", "loss_weights.min_samples", "loss_weights.max_nodes",
                  "loss_weights.max_samples", "monitor.negative_loss_tolerance")

    def findings(self, m, emit, params):
        self.own_terms(m, emit, params)
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

    @staticmethod
    def own_terms(m, emit, params):
        """loss_negative_own_terms: a composite training loss below zero while each stock criterion in
        it stays at or above zero -- the negative value is the script's own terms (an entropy bonus
        subtracted, a negated likelihood), which the loss allows; a stock criterion below zero is
        fed the wrong thing."""
        samples = getattr(m, "_loss_parts", None)
        if not samples:
            return
        tol = params["monitor.negative_loss_tolerance"]
        rows = [(step, float(total), float(low)) for step, total, low in samples]
        below = [r for r in rows if r[1] < -tol]
        if not below:
            return
        own = [r for r in below if r[2] >= -tol]
        if own:
            step, total, low = own[0]
            emit("loss_negative_own_terms", True,
                 f"at step {step} the loss backpropagated was {total:.4g} while its stock criteria stayed >= 0 "
                 f"(the lowest {low:.4g}): the value below zero comes from the script's own terms added to them, "
                 "which allow it")
        else:
            step, total, low = below[0]
            emit("loss_negative_own_terms", False,
                 f"at step {step} the loss backpropagated was {total:.4g} with a stock criterion itself at "
                 f"{low:.4g}: the value below zero comes from a stock loss")
