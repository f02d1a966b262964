"""``probe:init``: constant weight matrices and weight scales against PyTorch's default, at bind time."""

from __future__ import annotations

import traindx.probes.live.model_config as MC
from traindx.probes.live.probe import Probe


class Init(Probe):
    source = "probe:init"
    facts = ("init_constant", "init_scale_ratio")
    needs = frozenset({"model"})
    schedule = "once, when the model is bound before any optimizer step"

    def findings(self, m, emit, params):
        if m._init is None:
            return
        const = m._init["constant"]
        emit("init_constant", bool(const),
             ("constant weights at bind time: " + ", ".join(const[:5])) if const
             else "no constant weight matrix at bind time")
        r = MC.init_scale_ratio(m._init["ratios"])
        if r is not None:
            emit("init_scale_ratio", r[0], f"weight std of '{r[1]}' is {r[0]:.3g}x PyTorch's default for its fan-in")
