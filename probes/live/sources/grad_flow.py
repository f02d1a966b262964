"""``probe:grad_flow``: which parameters are frozen, which never receive a gradient, all-zero gradients."""

from __future__ import annotations

import traindx.probes.live.gradients as G
from traindx.probes.live.probe import Probe


class GradFlow(Probe):
    source = "probe:grad_flow"
    facts = ("params_without_grad", "frozen_params", "grads_all_zero", "grad_norm_median", "frozen_weights")
    needs = frozenset({"model", "optimizer"})
    schedule = "per-parameter .grad presence at the sampled steps (first 10, every 50; every step while armed)"
    parameters = ("grad_flow.zero_norm", "grad_flow.zero_recent_samples")

    def findings(self, m, emit, params):
        if m.model is not None:
            fr = G.frozen_params(m.model)
            emit("frozen_params", fr,
                 f"{len(fr)} parameter(s) with requires_grad=False" + (f": {', '.join(fr[:5])}" if fr else ""))
            earlier = getattr(m, "earlier_params", None)
            new = G.frozen_since(m.model, earlier) if earlier and fr else []
            if new:
                emit("frozen_weights", "random_init",
                     f"{', '.join(new[:5])} built after the earlier training phase and frozen: never trained by "
                     "this run, it keeps its initialisation")
        if not m._grad_samples:
            return
        # the model's parameters (an optimizer-only parameter without a gradient is the
        # wrong-instance case, which params_not_in_optimizer reports)
        model_ids = {id(p) for p in m.model.parameters()} if m.model is not None else None
        trainable = [n for n, p in m._tracked if p.requires_grad and (model_ids is None or id(p) in model_ids)]
        nog = G.params_without_grad(trainable, m._ever_grad)
        emit("params_without_grad", nog,
             (f"{len(nog)} trainable parameter(s) never received a gradient in {m._grad_samples} sampled steps: "
              + ", ".join(nog[:5])) if nog else
             f"every trainable parameter received a gradient ({m._grad_samples} sampled steps)")
        z = G.grads_all_zero(m._grad_series, params)
        emit("grads_all_zero", z,
             "every gradient was zero at the latest sampled steps" if z else "gradients are non-zero")
