"""``probe:mode``: ``model.training`` at the training and at the validation forwards."""

from __future__ import annotations

import traindx.probes.live.model_config as MC
from traindx.probes.live.probe import Probe


class Mode(Probe):
    source = "probe:mode"
    facts = ("model_mode_in_training", "model_mode_in_validation", "model_has_dropout_or_bn")
    needs = frozenset({"model", "loss"})
    schedule = "every loss (the mode of the forward that produced it); every forward"

    def findings(self, m, emit, params):
        for phase, fact in (("train", "model_mode_in_training"), ("val", "model_mode_in_validation")):
            t, e = m._mode[phase]
            if t + e == 0:
                # no losses seen: forwards with grad (train) / without (validation)
                base = 2 if phase == "train" else 0
                t, e = m._fwd_mode[base + 1], m._fwd_mode[base]
            if t + e:
                mode = MC.majority_mode([True] * t + [False] * e)
                emit(fact, mode, f"model.training was {mode == 'train'} at {max(t, e)}/{t + e} {phase} forwards")
