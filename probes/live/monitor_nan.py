"""The monitor's NaN trace: at the first non-finite training loss, where it came from.

A mixin of :class:`~traindx.probes.live.monitor.Monitor` beside the loss feed
(:class:`~traindx.probes.live.monitor_losses.LossFeed` calls :meth:`NanFeed._trace_nan` at the first
non-finite loss; the step feed asks :meth:`NanFeed._batch_nonfinite` about the batch of the first
non-finite gradient). Records what the nan_trace probe reads.
"""

from __future__ import annotations

import traindx.probes.live.data as D
import traindx.probes.live.nan_trace as NT
from traindx.probes.live.schedule import own_time


class NanFeed:
    """Mixin of :class:`~traindx.probes.live.monitor.Monitor`: the first non-finite loss traced back."""

    @staticmethod
    def _batch_nonfinite(pair):
        """Whether either of (loader batch inputs, model forward args) holds NaN/Inf; None when
        neither is known."""
        if pair is None or all(x is None for x in pair):
            return None
        return any(D.inputs_have_nan(x) for x in pair if x is not None)

    def _earlier_nonfinite_inputs(self, inputs):
        """The step whose batch had NaN/Inf inputs among the batch of the first non-finite gradient
        (:meth:`StepFeed._sample_grads`) and the batch of the step before this loss; None if neither."""
        earlier = []
        if self._nan_grad_inputs is not None:
            earlier.append(self._nan_grad_inputs)
        prev = self._step_inputs
        if prev is not None and not any(x is inputs for x in prev if x is not None):
            earlier.append((self.steps - 1, self._batch_nonfinite(prev)))
        return next((st for st, bad in earlier if bad), None)

    @own_time
    def _trace_nan(self, outputs, targets):
        """At the first non-finite training loss (read immediately on CPU): inputs, labels, outputs,
        and the first non-finite module from a replay on a model copy."""
        info = {"step": self.steps}
        self._busy = True
        try:
            inputs = self._last_inputs if self._last_inputs is not None else self._last_args
            # the loader's batch and the model's arguments both: a NaN the script makes between them
            # (its own normalisation, a log of a zero) reaches the model as input all the same
            bad = self._batch_nonfinite((self._last_inputs, self._last_args))
            if bad is not None:
                info["inputs_have_nan"] = bad
            if not info.get("inputs_have_nan"):
                # one step earlier: the batch of the first non-finite gradient, and the one before
                # this loss (a saturating forward turns an Inf input into a finite loss and NaN
                # gradients; the weights go NaN on that step, the loss on the next, finite, batch)
                hit = self._earlier_nonfinite_inputs(inputs)
                if hit is not None:
                    info["inputs_have_nan"] = True
                    info["inputs_nan_step"] = int(hit)
            if info.get("inputs_have_nan"):
                self._inputs_nan = True
            if targets is not None:
                info["label_range"] = NT.label_range(targets)
            if outputs is not None:
                info["outputs_nonfinite"] = NT.nonfinite(outputs)
                info["output_range_max"] = NT.output_range_max(outputs)
            if self.model is not None and self._last_args is not None:
                if info.get("outputs_nonfinite") is False:
                    info["module"] = "loss"
                elif NT.params_finite(self.model):
                    # a replay whose every module output is finite, on finite weights and inputs:
                    # the model's forward did not make the NaN/Inf, the loss computation did
                    mod = NT.first_nonfinite_module(
                        self.model, self._last_args, self._last_kwargs, autocast=self._fwd_autocast,
                        all_finite=None if info.get("inputs_have_nan") else "loss",
                        max_output=self.params["nan_trace.loss_made_max_output"])
                    if mod is not None:
                        info["module"] = mod or type(self.model).__name__
                else:
                    info["params_nonfinite"] = True
        except Exception as e:
            info["error"] = f"{type(e).__name__}: {e}"[:200]
        finally:
            self._busy = False
        return info
