"""``probe:data_timing``: the share of each step spent waiting for the data loader, GPU use, step time."""

from __future__ import annotations

import traindx.probes.live.timing as T
from traindx.engine.parameters import resolve
from traindx.probes.live.probe import Probe


class DataTiming(Probe):
    source = "probe:data_timing"
    facts = ("data_time_fraction", "gpu_utilization", "step_time_trend")
    needs = frozenset({"loader", "optimizer"})
    schedule = ("every batch wait and every optimizer step (without a DataLoader: the time from each step to "
                "the next training forward); GPU utilisation first step, every 50")
    parameters = ("data_timing.min_steps", "data_timing.outlier_share", "data_timing.host_gap_min_s",
                  "data_timing.warmup_steps",
                  "data_timing.step_time_min_steps", "data_timing.step_time_ratio", "trends.min_points")

    def findings(self, m, emit, params):
        waits = m._synced_waits if (m.on_cuda and m._synced_waits) else m._waits
        f = T.data_time_fraction(waits, m._intervals, params)
        cut = resolve(params)["data_timing.outlier_share"]
        if f is not None:
            emit("data_time_fraction", f,
                 f"{f * 100:.1f}% of each step is spent waiting for the data loader "
                 f"(mean wait {T.trimmed_mean(waits, cut) * 1e3:.2f} ms, "
                 f"step {T.trimmed_mean(m._intervals, cut) * 1e3:.2f} ms, the longest {cut:.0%} of each left out)")
        elif not waits and not m.on_cuda:
            gaps, iv = m._gaps, m._gap_intervals
            f = T.host_gap_fraction(gaps, iv, params)
            if f is not None:
                emit("data_time_fraction", f,
                     f"no DataLoader: {f * 100:.1f}% of each step passes between the end of the optimizer "
                     f"step and the next training forward, where the script makes its batch "
                     f"(median over {len(gaps)} steps; "
                     f"mean gap {sum(gaps) / len(gaps) * 1e3:.2f} ms of a {sum(iv) / len(iv) * 1e3:.2f} ms step)")
        u = T.gpu_utilization(m._gpu_util)
        emit("gpu_utilization", u, f"average GPU utilisation {u * 100:.0f}%" if u is not None else "")
        tr = T.step_time_trend(list(m._step_times), params)
        emit("step_time_trend", tr, f"time per step {tr}")
