"""``probe:clipping``: ``clip_grad_norm_``'s max_norm and how much it shrinks the gradients."""

from __future__ import annotations

import traindx.probes.live.updates as U
from traindx.probes.live.probe import Probe


class Clipping(Probe):
    source = "probe:clipping"
    facts = ("clip_shrink_ratio", "clip_max_norm")
    needs = frozenset({"optimizer"})
    schedule = "every clip_grad_norm_ call; the norm it returns at the sampled gradient steps"

    def findings(self, m, emit, params):
        if not (m._clip_calls and m._clip_max is not None):
            return
        emit("clip_max_norm", m._clip_max, f"clip_grad_norm_(max_norm={m._clip_max:g})")
        sr = U.clip_shrink_ratio(m._clip_shrinks)
        emit("clip_shrink_ratio", sr, f"clipping scales gradients to {sr * 100:.1f}% of their norm (median)"
             if sr is not None else "")
