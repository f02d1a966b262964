"""``probe:amp``: autocast and low-precision weights, GradScaler use, its scale and skipped steps."""

from __future__ import annotations

import traindx.probes.live.amp as AMP
from traindx.probes.live.probe import Probe


class Amp(Probe):
    source = "probe:amp"
    facts = ("uses_amp", "grad_scaler_used", "amp_dtype", "grad_scale", "skipped_step_fraction")
    needs = frozenset({"model", "optimizer"})
    schedule = "autocast state at the first 10 forwards, every 50; every GradScaler step/update"

    def findings(self, m, emit, params):
        if m.model is None and not m._scaler_used:
            return
        md = AMP.param_dtype(m.model)
        emit("uses_amp", AMP.uses_amp(m._autocast_seen, md, m._scaler_used),
             f"autocast {'seen' if m._autocast_seen else 'not seen'} at forwards; weights {md}")
        dt = AMP.amp_dtype(sorted(m._autocast_dtypes), md)
        emit("amp_dtype", dt, "no low-precision dtype in use" if dt == "float32" else f"{dt} in use")
        emit("grad_scaler_used", bool(m._scaler_used),
             "GradScaler.step wraps the optimizer step" if m._scaler_used else "no GradScaler")
        if m._scaler_used:
            emit("grad_scale", m._scale, f"latest GradScaler scale {m._scale:g}" if m._scale is not None else "")
            sf = AMP.skipped_step_fraction(m._scaler_steps, m._scaler_skipped)
            emit("skipped_step_fraction", sf, f"{m._scaler_skipped}/{m._scaler_steps} scaler steps skipped")
