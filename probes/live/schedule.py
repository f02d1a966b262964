"""When the monitor looks: the cheap and armed schedules, the flush periods and the step gate.

``step`` = optimizer steps so far; "first N, every k" = steps < N, then every k-th. All sampled step
work falls on multiples of one gate period (the gcd of the periods), so the steps in between only
record the time, the learning rate and the loss.
"""

from __future__ import annotations

import functools
import math
import time

from traindx.probes.live.probe import ARMED_SCHEDULE, SCHEDULE, Schedule

GRADS, UPDATE, UPDATE_ARMED = SCHEDULE["grads"], SCHEDULE["update"], ARMED_SCHEDULE["update"]
OUTPUTS, ACC, INPUTS, LABELS = SCHEDULE["outputs"], SCHEDULE["accuracy"], SCHEDULE["inputs"], SCHEDULE["labels"]
AMP, CLEAR, GPU = SCHEDULE["amp"], SCHEDULE["grad_clear"], SCHEDULE["gpu_util"]
#: Loss values are processed (and, off the CPU, read) every this many steps.
FLUSH_EVERY = {"cpu": 25, "device": 10}
#: The sampled step work runs on the first FIRST steps and on multiples of GATE: the largest
#: period that divides every schedule's period and the flush periods.
FIRST = max(s.first for s in (GRADS, UPDATE, CLEAR, GPU))
GATE = math.gcd(GRADS.every, UPDATE.every, CLEAR.every, GPU.every, *FLUSH_EVERY.values())
#: The same per device kind: on the CPU the flush comes every 25 steps, not 10, so the gate can too
#: (the GPU-utilisation sample never runs there); a step between gates costs one test.
GATES = {k: math.gcd(GRADS.every, UPDATE.every, CLEAR.every, *(() if k == "cpu" else (GPU.every,)), every)
         for k, every in FLUSH_EVERY.items()}
#: The sampled looks at a training loss (outputs, accuracy, squash, labels, loss weights) fall on the
#: first LOSS_FIRST training losses and on multiples of LOSS_GATE; the losses in between only record.
_LOSS_LOOKS = tuple(SCHEDULE[k] for k in ("outputs", "accuracy", "squash", "labels", "loss_weights"))
LOSS_FIRST = max(s.first for s in _LOSS_LOOKS)
LOSS_GATE = math.gcd(*(s.every for s in _LOSS_LOOKS))


def due(s: Schedule, i: int) -> bool:
    """``s(i)`` without a method call (the hot path runs it several times per step)."""
    return i < s.first or i % s.every == 0


def own_time(fn):
    """Time spent in the monitor's own one-off work (overfit probe, NaN replay, findings) is taken
    out of the step and data-wait intervals it falls into, so it never reads as the user's time."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if self._own_depth:
            return fn(self, *args, **kwargs)
        self._own_depth = 1
        t0 = time.perf_counter()
        try:
            return fn(self, *args, **kwargs)
        finally:
            dt = time.perf_counter() - t0
            self._own_wait += dt
            self._own_step += dt
            self._own_depth = 0

    return wrapper
