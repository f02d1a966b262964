"""``probe:activations``: dead ReLUs, saturated tanh/sigmoid, activations and gradients fading with depth."""

from __future__ import annotations

from statistics import median

import traindx.probes.live.activations as A
from traindx.probes.live.probe import Probe


class Activations(Probe):
    source = "probe:activations"
    facts = ("dead_relu_fraction", "saturated_fraction", "activation_depth_ratio", "grad_depth_ratio")
    needs = frozenset({"model"})
    cost = "costly"
    schedule = "forward hooks on activation and Linear/Conv modules, every step, only while armed"

    def findings(self, m, emit, params):
        if m._act is not None:
            m._collect_activations()
        layers = m._act_layers
        if not layers:
            return
        d = A.dead_relu_fraction(layers, m._act_lin_order)
        emit("dead_relu_fraction", d, f"up to {d * 100:.0f}% of a layer's ReLU units are 0 for a whole batch"
             if d is not None else "")
        s = A.saturated_fraction(layers)
        emit("saturated_fraction", s, f"up to {s * 100:.0f}% of a layer's tanh/sigmoid outputs saturated"
             if s is not None else "")
        r = A.activation_depth_ratio(layers, m._act_order, m._act_lin_order)
        emit("activation_depth_ratio", r, f"activation RMS at the last hidden layer is {r:.3g}x the first"
             if r is not None else "")
        if m._grad_depth:
            g = float(median(m._grad_depth))
            emit("grad_depth_ratio", g, f"first layer's gradient norm is {g:.3g}x the last layer's")
