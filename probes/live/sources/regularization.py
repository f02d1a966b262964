"""``probe:regularization``: dropout, batch norm, weight decay and label smoothing, read from the objects."""

from __future__ import annotations

import traindx.probes.live.model_config as MC
from traindx.probes.live.probe import Probe


class Regularization(Probe):
    source = "probe:regularization"
    facts = ("regularization", "weight_decay", "dropout_p", "model_has_dropout_or_bn", "label_smoothing")
    needs = frozenset({"model", "optimizer"})
    schedule = "once, when findings are gathered"

    def findings(self, m, emit, params):
        mod, o = m.model, m.optimizer
        if mod is not None or o is not None:
            reg = MC.regularization(mod, o, label_smoothing=m._label_smoothing)
            emit("regularization", reg, "in use: " + (", ".join(reg) if reg else "none"))
        if o is not None:
            wd = MC.weight_decay(o)
            emit("weight_decay", wd, f"largest weight_decay over param groups {wd:g}")
        if mod is not None:
            dp = MC.dropout_p(mod)
            emit("dropout_p", dp, f"largest dropout p {dp:g}")
            hb = MC.model_has_dropout_or_bn(mod)
            emit("model_has_dropout_or_bn", hb,
                 "the model has Dropout/BatchNorm layers" if hb else "no Dropout/BatchNorm layers")
