"""``probe:nan_trace``: at the first NaN/Inf training loss, that batch's inputs and labels and the first
module whose output is non-finite (a replay of that forward on a model copy, taken by the monitor)."""

from __future__ import annotations

from traindx.probes.live.probe import Probe


class NanTrace(Probe):
    source = "probe:nan_trace"
    facts = ("nan_first_step", "inputs_have_nan", "nonfinite_first_module", "output_range_max", "nan_grad_params")
    needs = frozenset({"model", "batch", "loss"})
    schedule = "once, at the first non-finite training loss; output range at the sampled losses"
    parameters = ("nan_trace.loss_made_max_output",)

    def findings(self, m, emit, params):
        info = m._nan_info or {}
        if m._nan_first is not None:
            emit("nan_first_step", int(m._nan_first),
                 f"first NaN/Inf training loss at step {m._nan_first}"
                 + (f"; labels in {info['label_range']}" if info.get("label_range") else ""),
                 **{k: v for k, v in info.items() if k in ("label_range", "outputs_nonfinite", "params_nonfinite")})
            if "inputs_have_nan" in info:
                earlier = info.get("inputs_nan_step")
                emit("inputs_have_nan", bool(info["inputs_have_nan"]),
                     (f"the inputs of step {earlier}'s batch contain NaN/Inf: they passed the forward "
                      "with a finite loss and made the gradients, then the weights, non-finite"
                      if earlier is not None else "the inputs of that batch contain NaN/Inf")
                     if info["inputs_have_nan"] else "the inputs of that batch are finite")
            mod = info.get("module")
            if mod:
                emit("nonfinite_first_module", mod,
                     "the model outputs were finite: the loss computation produced the NaN/Inf" if mod == "loss"
                     else f"replaying that forward, '{mod}' is the first module whose output is NaN/Inf")
        if m._outputs["range"] > 0 or m._outputs["activation"]:
            r = m._outputs["range"]
            emit("output_range_max", float(r), f"largest |output| seen {r:.4g}")
