"""Where the run's ``clip_grad_norm_`` sits in its step (source ``probe:clipping``).

Two orders make the max_norm mean something else than it says:

* the clip runs *after* ``optimizer.step()`` (no backward since the step): it shrinks gradients the
  step already used and the next ``zero_grad`` discards, so no update is clipped at all;
* the clip runs on gradients a GradScaler still holds multiplied by its scale (``clip_grad_norm_``
  before ``scaler.unscale_(optimizer)``): the true gradients are cut to max_norm / scale.

:class:`ClipOrder` counts both from what the monitor already sees (its backward count since the
last step; the scaler's per-optimizer stage, read with ``.get``: nothing is created or changed).
"""

from __future__ import annotations

import weakref


class ClipOrder:
    def __init__(self):
        self.scaled = 0
        self.unscaled = 0
        self.after_step = 0
        self.in_step = 0
        self._clips_seen = 0
        self._scaler = None

    def at_clip(self, steps: int, backwards_since_step: int, counting: bool) -> bool:
        """Count one clip; True when it came after the optimizer step with no backward since (it
        binds no update: the caller reads nothing from it)."""
        if not counting:
            return False
        after = steps > 0 and backwards_since_step == 0
        if after:
            self.after_step += 1
        else:
            self.in_step += 1
        return after

    def clips_after_step(self) -> bool | None:
        """True when most clips came after the step; None when none was placed."""
        if not (self.after_step or self.in_step):
            return None
        return self.after_step > self.in_step

    def at_scaler_step(self, scaler, optimizer, clip_calls: int) -> None:
        """At ``GradScaler.step``: were the gradients of a clip since the last step unscaled first?"""
        if clip_calls <= self._clips_seen:
            return
        self._clips_seen = clip_calls
        try:
            from torch.amp.grad_scaler import OptState

            if not scaler.is_enabled():
                return
            state = scaler._per_optimizer_states.get(id(optimizer))
            stage = state.get("stage", OptState.READY) if state is not None else OptState.READY
        except Exception:   # another torch's GradScaler: say nothing
            return
        self._scaler = weakref.ref(scaler)
        if stage is OptState.UNSCALED:
            self.unscaled += 1
        else:
            self.scaled += 1

    def on_scaled_gradients(self) -> bool | None:
        """True when most clipped scaler steps clipped scaled gradients; None when no clip met a scaler step."""
        if not (self.scaled or self.unscaled):
            return None
        return self.scaled > self.unscaled

    def scale(self) -> float | None:
        """The scaler's scale now (read when asked, never at a step)."""
        sc = self._scaler() if self._scaler is not None else None
        try:
            return float(sc.get_scale()) if sc is not None else None
        except Exception:
            return None
