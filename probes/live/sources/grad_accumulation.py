"""``probe:grad_accumulation``: is ``.grad`` cleared between steps (zero_grad)?"""

from __future__ import annotations

import traindx.probes.live.gradients as G
from traindx.probes.live.probe import Probe


class GradAccumulation(Probe):
    source = "probe:grad_accumulation"
    facts = ("grad_accumulates", "zero_grad_called")
    needs = frozenset({"model", "optimizer"})
    schedule = ".grad of one small parameter at each backward of steps 1-5, then of every 100th"
    parameters = ("grad_clear.carried_share",)

    def findings(self, m, emit, params):
        acc = G.grad_accumulates(m._carried, params)
        if acc is None:
            return
        n = len(m._carried)
        k = sum(m._carried)
        emit("grad_accumulates", acc,
             f".grad still held the previous step's gradient through the backward passes of {k} of {n} checked steps")
        emit("zero_grad_called", not acc,
             f"gradients were cleared before the first backward of {n - k}/{n} checked steps")
