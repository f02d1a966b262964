"""Where a geometric LR schedule (StepLR, ExponentialLR) stepped once per pass of a counted loop leaves
the learning rate: its ratio to the start at the last pass and the share of the run after which it is
at or below ``curves.lr_collapse`` of the start — the ``lr_final_ratio`` and ``lr_collapse_fraction``
a log's LR column gives, known from the code before the run (a helper of ``facts/loop.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..text import format_number
from ..values import Const, Event, IterVal, SchedVal

#: range() takes at most three arguments (start, stop, step); the step is the third
RANGE_ARGS = 3

#: relative slack on the collapse cut: a gamma of 0.1 lands on 1% exactly, up to float rounding
ROUNDING = 1e-9


@dataclass
class DecayReading:
    final_ratio: float
    collapse_fraction: float
    passes: int
    detail: str


def range_length(src) -> int | None:
    """The number of passes of ``for _ in range(...)`` with constant bounds, else None."""
    if not (isinstance(src, IterVal) and src.kind == "range" and 1 <= len(src.args) <= RANGE_ARGS):
        return None
    vals = [a.value for a in src.args if isinstance(a, Const) and isinstance(a.value, int)
            and not isinstance(a.value, bool)]
    if len(vals) != len(src.args) or (len(vals) == RANGE_ARGS and vals[-1] == 0):
        return None
    return len(range(*vals))


def read_decay(sched: SchedVal, ev: Event, collapse: float) -> DecayReading | None:
    """The LR trace of ``sched`` stepped by ``ev`` once per pass of the loop it sits in (not under a
    condition); None when the decay, the loop's length or the placement is unknown."""
    if sched.decay is None or ev.cond:
        return None
    passes = range_length(ev.src)
    if not passes:
        return None
    period, gamma = sched.decay
    # the LR of pass e (0-based) is gamma ** (e // period): the scheduler steps at the end of each pass
    factors = [gamma ** math.floor(e / period) for e in range(passes)]
    final = factors[-1]
    low = next((e for e, f in enumerate(factors) if f <= collapse * (1 + ROUNDING)), None)
    frac = low / passes if low is not None else 1.0
    when = (f"from pass {low + 1} of {passes} on ({frac:.0%} of the run)" if low is not None
            else f"at no pass of {passes}")
    detail = (f"`{sched.text}` (line {sched.line}) multiplies the LR by {format_number(gamma)} every "
              f"{format_number(period)} pass(es) of a {passes}-pass loop: x{format_number(final)} at the last "
              f"pass, at or below {collapse:.0%} of the start {when}")
    return DecayReading(final, frac, passes, detail)
