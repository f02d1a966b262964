"""``probe:grad_norms``: the total gradient norm over the sampled steps, its trend, NaN/Inf gradients."""

from __future__ import annotations

import traindx.probes.live.gradients as G
from traindx.engine.parameters import resolve
from traindx.probes.live.probe import Probe


class GradNorms(Probe):
    source = "probe:grad_norms"
    facts = ("grad_norm_max", "grad_norm_median", "grad_norm_trend", "grad_norm_blowup", "grads_have_nan",
             "nan_grad_params")
    needs = frozenset({"model", "optimizer"})
    schedule = "one batched norm reduction at the sampled steps (first 10, every 50; every step while armed)"
    parameters = ("grad_norms.trend_ratio", "trends.min_points", "grad_norms.start_steps")

    def findings(self, m, emit, params):
        if not m._grad_samples:
            return
        series = list(m._grad_series)
        med, mx = G.grad_norm_median(series), G.grad_norm_max(series)
        emit("grad_norm_median", med, f"median total gradient norm {med:.4g} over {len(series)} sampled steps"
             if med is not None else "")
        emit("grad_norm_max", mx, f"largest total gradient norm {mx:.4g}" if mx is not None else "")
        first = int(resolve(params)["grad_norms.start_steps"])
        up = G.grad_norm_blowup(series, first)
        if up is not None:
            emit("grad_norm_blowup", round(up, 2),
                 f"largest total gradient norm {mx:.4g} is x{up:.4g} the median of the first {first} sampled steps")
        tr = G.grad_norm_trend(series, params)
        emit("grad_norm_trend", tr, f"total gradient norm {tr} (last third vs first third)")
        nan = sorted(m._nan_grad, key=m._nan_grad.get)
        emit("grads_have_nan", bool(nan),
             f"NaN/Inf gradients from step {min(m._nan_grad.values())} in {len(nan)} parameter(s)" if nan
             else f"no NaN/Inf in gradients ({m._grad_samples} sampled steps)")
        emit("nan_grad_params", nan,
             ("NaN/Inf gradient in " + ", ".join(nan[:5])) if nan else "no parameter had a NaN/Inf gradient")
