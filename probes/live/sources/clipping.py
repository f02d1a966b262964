"""``probe:clipping``: ``clip_grad_norm_``'s max_norm, how much it shrinks the gradients, and where it
sits in the step (after ``optimizer.step()``, or before ``scaler.unscale_``; ``clip_order``)."""

from __future__ import annotations

import traindx.probes.live.updates as U
from traindx.probes.live.probe import Probe


def effective_clip_max(m) -> float | None:
    """The max_norm the run's clip puts on the gradients its steps use: max_norm itself; max_norm /
    scale when the clip ran on gradients still scaled by a GradScaler; None when it ran after the
    step (no update is clipped). A copy trained without the scaler clips as the run does at that norm."""
    order = m._clip_order
    if m._clip_max is None or order.clips_after_step():
        return None
    scale = order.scale() if order.on_scaled_gradients() else None
    return m._clip_max / scale if scale else m._clip_max


class Clipping(Probe):
    source = "probe:clipping"
    facts = ("clip_shrink_ratio", "clip_max_norm", "clip_on_scaled_gradients", "clip_after_step")
    needs = frozenset({"optimizer"})
    schedule = "every clip_grad_norm_ call; the norm it returns at the sampled gradient steps"

    def findings(self, m, emit, params):
        if not (m._clip_calls and m._clip_max is not None):
            return
        emit("clip_max_norm", m._clip_max, f"clip_grad_norm_(max_norm={m._clip_max:g})")
        order = m._clip_order
        after = order.clips_after_step()
        if after is not None:
            n = order.after_step + order.in_step
            emit("clip_after_step", after,
                 f"clip_grad_norm_ ran after optimizer.step() at {order.after_step} of {n} clips: it clips "
                 "gradients the step already used, no update" if after
                 else f"clip_grad_norm_ ran between backward and the step at {order.in_step} of {n} clips")
        if after:
            return
        sr = U.clip_shrink_ratio(m._clip_shrinks)
        emit("clip_shrink_ratio", sr, f"clipping scales gradients to {sr * 100:.1f}% of their norm (median)"
             if sr is not None else "")
        scaled = order.on_scaled_gradients()
        if scaled is None:
            return
        n = order.scaled + order.unscaled
        if scaled:
            detail = (f"clip_grad_norm_ ran before scaler.unscale_(optimizer) at {order.scaled} of {n} clipped steps: "
                      f"max_norm={m._clip_max:g} applies to the gradients times the scale "
                      f"({order.scale() or 0:g}), {effective_clip_max(m):.3g} on the true gradients")
        else:
            detail = f"scaler.unscale_(optimizer) ran before clip_grad_norm_ at {order.unscaled} of {n} clipped steps"
        emit("clip_on_scaled_gradients", scaled, detail)
