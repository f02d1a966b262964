"""``probe:loss_vs_chance``: the training-loss curve read as the log reader reads it, against chance."""

from __future__ import annotations

import traindx.probes.live.losses as L
from traindx.probes.live.probe import Probe


class LossVsChance(Probe):
    source = "probe:loss_vs_chance"
    facts = ("initial_loss", "current_loss", "num_classes", "loss_trend", "loss_decrease_fraction",
             "loss_has_nonfinite", "loss_negative", "loss_spikes", "loss_noise", "oscillation_trend",
             "run_length_steps", "loss_blowup", "loss_flat_share")
    needs = frozenset({"loss"})
    schedule = "every training loss (read at each flush: every 25 steps on CPU, 10 off it)"
    parameters = tuple(f"curves.{n}" for n in (
        "spike_bands", "spike_rel", "spike_progress_share", "flat_fraction", "diverge_rise", "diverge_magnitude",
        "osc_noise",
        "plateau_share", "plateau_rel", "tail_fraction", "noisy", "wander_tail", "wander_rebound",
        "still_falling_total", "still_falling_rel", "blip_points", "rare_spikes", "oscillation_growth",
        "wander_net_progress", "spiky_events", "spiky_coverage", "nonfinite_share", "diverge_climb_back",
        "diverge_above_best", "osc_progress_share", "plateau_band", "noise_min_points", "tail_min_points",
        "now_share", "now_min_points", "start_share", "start_max_points", "start_min_steps",
        "wander_min_points", "spiky_min_covering", "oscillation_min_points")) + (
        "monitor.curve_min_losses", "monitor.negative_loss_tolerance")

    def findings(self, m, emit, params):
        s = m._train_series()
        if not s:
            return
        nc, how = m._num_classes()
        chance = L.chance_loss(nc) if m._loss_name in (None, "cross_entropy", "nll") else None
        ch = f" (chance ln({nc}) = {chance:.4f})" if chance else ""
        init, cur = L.initial_loss(s, params), L.current_loss(s, params)
        emit("initial_loss", init, f"training loss at the first steps {init:.4g}{ch}" if init is not None else "")
        per = "" if m._loss_terms is None else \
            f" per term (the loss adds up ~{m._loss_terms:.0f} {m._loss_name or 'criterion'} calls)"
        emit("current_loss", cur,
             f"training loss now {cur:.4g}{per}{ch} after {m.steps} steps" if cur is not None else "")
        if nc:
            emit("num_classes", nc, f"{nc} classes ({how})")
        an = L.curve_analysis(m._train_steps, s, (), nc, params=params)
        m._on_curve(an)          # the costly probes that wait for a curve shape (lr_decay)
        if an is not None:
            # the log reader's method, so that a live run and its log read alike: loss_flat_share
            # with loss_trend (a loss levelled only over its last stretch is settling, not a plateau)
            for fact in ("loss_trend", "loss_spikes", "loss_noise", "oscillation_trend", "loss_blowup",
                         "loss_flat_share"):
                f = an.finding(fact)
                if f is not None:
                    emit(fact, f.value, f.detail)
        else:
            tr = L.short_run_trend(s, params)
            emit("loss_trend", tr, f"the training loss ends NaN/Inf after {len(s)} losses")
        f = L.loss_decrease_fraction(s, params)
        emit("loss_decrease_fraction", f, f"loss fell by {f * 100:.1f}% of its start" if f is not None else "")
        nf = L.loss_has_nonfinite(s)
        emit("loss_has_nonfinite", nf,
             f"loss became NaN/Inf at step {m._nan_first}" if nf else "every training loss was finite")
        neg = L.loss_negative(s, params)
        emit("loss_negative", neg, "the loss went below zero" if neg else "the loss stayed >= 0")
