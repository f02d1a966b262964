"""A mixed-precision loss scale that fell to a fraction of 1, derived once for every log reader.

A dynamic loss scaler (torch.amp's GradScaler, apex, DeepSpeed, fairseq, Megatron) halves its scale
only on a step whose gradients overflowed, and skips that step. A scale printed at or below
``console.loss_scale_floor`` and ``console.loss_scale_fall_halvings`` halvings or more below the
highest scale printed before it (or ``console.loss_scale_start_min`` when none was higher) means the
gradients overflow at nearly every step: ``loss_scale_collapsed``, and the gradients are not finite
(``grads_have_nan``).

The console reader feeds :class:`ScaleFall` each scale it reads (a record's loss-scale column, the
scale an overflow report sets); the structured readers (CSV, JSON lines, TensorBoard) bind a column
or tag named like ``console.loss_scale_names`` to the ``loss_scale`` role, and :func:`scale_fall_findings`
reads the fall off that series. Torch-free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

#: The role a structured log's loss-scale column is bound to.
ROLE = "loss_scale"


class ScaleFall:
    """The deepest fall of the loss scales seen so far, in the order the run printed them:
    ``fall = (halvings, highest scale before, scale, where, how)`` or None."""

    def __init__(self, params: Mapping | None = None):
        p = resolve(params)
        self.floor = float(p["console.loss_scale_floor"])
        self.halvings = float(p["console.loss_scale_fall_halvings"])
        self.start = float(p["console.loss_scale_start_min"])
        self.high: float | None = None   # the highest loss scale seen so far
        self.fall: tuple | None = None

    def seen(self, scale: float, where, how: str) -> None:
        """One loss scale the run printed (``where``: its line or step; ``how``: ``"column"`` or
        ``"overflow"``); kept in :attr:`fall` when it is the deepest fall so far."""
        high = max(self.start, self.high or 0.0)
        self.high = max(scale, self.high or 0.0)
        if scale > self.floor:
            return
        halvings = math.log2(high / scale) if scale > 0 else math.inf
        if halvings >= self.halvings and (self.fall is None or halvings > self.fall[0]):
            self.fall = (halvings, high, scale, where, how)


def fall_said(fall: tuple) -> str:
    """The finding's words for a fall (the console reader's and the structured readers')."""
    halvings, high, low, _where, how = fall
    what = "printed loss scale" if how == "column" else "loss scale the overflow reports set"
    return (f"the {what} falls to {low:.4g}" + (f", {halvings:.0f} halvings below {high:.4g}"
            if math.isfinite(halvings) else "") + ": a dynamic loss scaler halves only on a step "
            "whose gradients overflowed, so they overflow at nearly every step, which is skipped")


def fall_grads_said(fall: tuple) -> str:
    """Why a fall means the gradients are not finite."""
    return (f"the loss scale fell to {fall[2]:.4g}: the gradients overflowed at the steps that halved it, "
            "so they are not finite")


def scale_fall_findings(log, params: Mapping | None = None) -> list:
    """``loss_scale_collapsed`` and ``grads_have_nan`` from a structured log's ``loss_scale`` series
    (bucket by bucket, in order: each bucket's highest scale, then its lowest); empty when the scale
    did not fall. A column that is never above 0 is no scale (a placeholder), not a fall."""
    s = log.series.get(ROLE) if hasattr(log, "series") else None
    if s is None or not s.finite or s.max <= 0:
        return []
    watch = ScaleFall(params)
    for p in s.finite_points():
        for scale in (p.hi, p.lo):
            if scale >= 0:   # a negative "scale" is no scale a scaler prints
                watch.seen(scale, p.x1, "column")
    if watch.fall is None:
        return []
    where, step = f"log:{log.name}:{s.column}", f" ({log.x_label} {watch.fall[3]:g})"
    return [Finding("loss_scale_collapsed", True, where, fall_said(watch.fall) + step),
            Finding("grads_have_nan", True, where, fall_grads_said(watch.fall) + step)]
