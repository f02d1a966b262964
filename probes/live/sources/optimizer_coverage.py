"""``probe:optimizer_coverage``: trainable parameters in no param group; the optimizer and its LR."""

from __future__ import annotations

import traindx.probes.live.model_config as MC
from traindx.probes.live.probe import Probe


class OptimizerCoverage(Probe):
    source = "probe:optimizer_coverage"
    facts = ("params_not_in_optimizer", "params_not_in_optimizer_share", "optimizer", "learning_rate", "momentum",
             "adam_eps")
    needs = frozenset({"model", "optimizer"})
    schedule = "once, when findings are gathered (the initial LR at bind time)"

    def findings(self, m, emit, params):
        mod, o = m.model, m.optimizer
        if mod is not None and o is not None:
            missing = MC.params_not_in_optimizer(mod, o)
            hidden = {n for n, _ in MC.hidden_params(mod)} & set(missing)
            others, opts = m.unbound_modules() if hasattr(m, "unbound_modules") else ([], [])
            outside = MC.unheld_with_grad(others, [o, *opts]) if others else []
            missing = missing + [n for n, _ in outside]
            emit("params_not_in_optimizer", missing,
                 (f"{len(missing)} trainable parameter(s) in no param group: " + ", ".join(missing[:5])
                  + (f" ({len(hidden)} of them kept in plain Python lists/attributes, invisible to "
                     "model.parameters())" if hidden else "")
                  + (f" ({len(outside)} of them in a module run beside the model that the loss's backward "
                     "reaches, held by no optimizer)" if outside else "")) if missing
                 else "every trainable parameter is in the optimizer")
            share = MC.share_not_in_optimizer(mod, o)
            if share is not None:
                emit("params_not_in_optimizer_share", round(share, 4),
                     f"{share:.1%} of the model's trainable weights are in no param group")
        if o is not None:
            emit("optimizer", MC.optimizer_name(o), f"{type(o).__name__}")
            lr = m._initial_lr if m._initial_lr is not None else MC.learning_rate(o)
            peak = max((v for _, v in m._lr_changes if v is not None), default=None)
            if lr is not None and peak is not None and peak > lr:
                # a warm-up (from 0, or from a fraction of the rate): the rate the run was set to
                # train at is the one it rose to, not the first step's
                emit("learning_rate", peak,
                     f"learning rate {peak:g} at its peak so far (a warm-up: it started at {lr:g})")
            else:
                emit("learning_rate", lr, f"initial learning rate {lr:g}" if lr is not None else "")
            mom = MC.group_setting(o, "momentum")
            if mom is not None:
                emit("momentum", mom, f"{type(o).__name__} momentum={mom:g}")
            eps = MC.group_setting(o, "eps")
            if eps is not None and MC.adam_family(o):
                emit("adam_eps", eps, f"{type(o).__name__} eps={eps:g}")
