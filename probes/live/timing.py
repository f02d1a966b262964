"""Timing quantities: share of the step spent blocked on the data loader, GPU utilisation, step time.

Source (kb/sources.yaml): ``probe:data_timing``.

How ``data_time_fraction`` is measured: the wait is the time blocked inside the loader iterator's
``__next__`` for one batch; the rest of the step is everything until the next ``__next__`` call.
fraction = sum(wait) / sum(wait + rest), over iterations 2.. (the first one includes starting the
workers), the longest ``data_timing.outlier_share`` of each left out (one stall is no bottleneck).
On CUDA the tap calls ``torch.cuda.synchronize()`` before timing a sampled ``__next__``, so
queued GPU work is counted as compute, not as data wait; only the synchronised samples then give the
wait, and the mean iteration time gives the denominator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from traindx.engine.parameters import resolve
from traindx.probes.live.losses import trend


def data_time_fraction(waits: Sequence[float], intervals: Sequence[float], params=None) -> float | None:
    """mean(wait) / mean(iteration time), clipped to [0, 1]; None with fewer than
    ``data_timing.min_steps`` iterations. The longest ``data_timing.outlier_share`` of the waits
    and of the iteration times are left out of the two means: a loader that cannot keep up stalls
    batch after batch, while one stall (a garbage collection, a page fault, the machine preempting
    the process) is no pattern and, in a ratio of sums over a hundred millisecond steps, would alone
    decide the fraction."""
    P = resolve(params)
    if len(intervals) < P["data_timing.min_steps"] or not waits:
        return None
    w = trimmed_mean(waits, P["data_timing.outlier_share"])
    t = trimmed_mean(intervals, P["data_timing.outlier_share"])
    if t <= 0:
        return None
    return float(min(1.0, max(0.0, w / t)))


def trimmed_mean(values: Sequence[float], share: float) -> float:
    """The mean of ``values`` without its largest ``share`` (rounded down: a short run keeps all)."""
    vals = sorted(values)
    kept = vals[:len(vals) - int(len(vals) * share)] or vals
    return sum(kept) / len(kept)


def host_gap_fraction(gaps: Sequence[float], intervals: Sequence[float], params=None) -> float | None:
    """A script without a DataLoader makes its batch between steps: the share of each training step
    from the end of the optimizer step to the next training forward (the batch made in Python,
    logging; the update itself is compute and is left out where the step's post-hook ran), the
    median over the timed steps of gap / interval. No worker pipeline stands between
    the script and its batches, so every step does the same work and a step the machine preempted
    is an outlier, not the pattern (a ratio of sums lets one such step decide the fraction).
    None with fewer than ``data_timing.min_steps`` steps, or when the median gap is under
    ``data_timing.host_gap_min_s`` (a small model's Python overhead is a large share of a tiny step,
    and no bottleneck)."""
    P = resolve(params)
    n = len(gaps)
    if n < P["data_timing.min_steps"] or n != len(intervals):
        return None
    ratios = [g / t for g, t in zip(gaps, intervals) if t > 0]
    if not ratios or _median(list(gaps)) < P["data_timing.host_gap_min_s"]:
        return None
    return float(min(1.0, max(0.0, _median(ratios))))


def _median(values: list) -> float:
    v = sorted(values)
    k = len(v) // 2
    return v[k] if len(v) % 2 else (v[k - 1] + v[k]) / 2


def step_time_trend(step_times: Sequence[float], params=None) -> str | None:
    """increasing / steady / decreasing time per step (last third vs first third,
    ``data_timing.step_time_ratio`` either way), ignoring the first ``data_timing.warmup_steps``
    steps; None with fewer than ``data_timing.step_time_min_steps`` after them."""
    P = resolve(params)
    s = list(step_times)[int(P["data_timing.warmup_steps"]):]
    if len(s) < P["data_timing.step_time_min_steps"]:
        return None
    return trend(s, ratio=P["data_timing.step_time_ratio"], min_points=P["trends.min_points"],
                 labels=("increasing", "steady", "decreasing"))


def gpu_utilization_sample() -> float | None:
    """One reading of ``torch.cuda.utilization()`` as a fraction, or None (no CUDA / no NVML)."""
    try:
        import torch

        if not torch.cuda.is_available():
            return None
        return float(torch.cuda.utilization()) / 100.0
    except Exception:
        return None


def gpu_utilization(samples: Sequence[float]) -> float | None:
    """Average of the utilisation samples taken while training."""
    s = [v for v in samples if v is not None]
    return float(sum(s) / len(s)) if s else None


def split_batch(batch):
    """(inputs, targets) from what a loader yields: ``(x, y)``, ``[x, y, ...]``, a dict with the usual
    keys, or a bare tensor (targets None)."""
    if isinstance(batch, (tuple, list)) and len(batch) >= 2:
        return batch[0], batch[1]
    if isinstance(batch, dict):
        x = next((batch[k] for k in ("input", "inputs", "x", "image", "images", "pixel_values",
                                      "input_ids", "features", "data") if k in batch), None)
        y = next((batch[k] for k in ("label", "labels", "target", "targets", "y") if k in batch), None)
        return x, y
    return batch, None


class LoaderTap:
    """Wrap an iterable (a DataLoader) so that every ``__next__`` is timed and every batch is seen.

    Iterating a tap iterates the wrapped loader exactly as the user would (one ``iter()`` per
    pass, the same batches, the same RNG draws); it only adds ``monitor.on_data_wait(seconds)`` and
    ``monitor.on_batch(inputs, targets, phase=...)`` around each batch. ``phase`` None infers it
    from ``torch.is_grad_enabled()`` at each ``__next__`` (validation loops run under no_grad).
    On CUDA every ``sync_every``-th wait is timed after ``torch.cuda.synchronize()``.

    The per-batch work is three calls that :class:`~traindx.probes.live.guard.SafeLoader` also makes
    around the user's own iterator (one generator per batch, not two): :meth:`start` at each pass,
    :meth:`before_next` just before a ``__next__`` and :meth:`seen` with the batch and the wait.
    """

    def __init__(self, loader, monitor, *, phase: str | None = None, sync_every: int = 10):
        self.loader = loader
        self.monitor = monitor
        self.phase = phase
        self.sync_every = sync_every
        self._cuda = False
        self._grad_enabled = None
        self._fused = None
        self._i = 0

    def __len__(self):
        return len(self.loader)

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def __iter__(self):
        it = iter(self.loader)
        self.start()
        clock = time.perf_counter
        while True:
            synced = self.before_next()
            t0 = clock()
            try:
                batch = next(it)
            except StopIteration:
                return
            self.seen(batch, clock() - t0, synced)
            yield batch

    def start(self) -> None:
        """A new pass: whether its waits are timed after a CUDA sync, and the batch count from 0."""
        import torch

        self._cuda = torch.cuda.is_available() and getattr(self.monitor, "on_cuda", False)
        self._grad_enabled = torch.is_grad_enabled
        self._fused = getattr(self.monitor, "on_train_batch", None)
        self._i = 0

    def before_next(self):
        """Just before the loader's ``__next__``: on CUDA every ``sync_every``-th wait is timed after a
        ``torch.cuda.synchronize()`` (returns True then, else None)."""
        if self._cuda and self._i % self.sync_every == 0:
            import torch

            torch.cuda.synchronize()
            return True
        return None

    def seen(self, batch, seconds, synced) -> None:
        """The batch the loader returned after blocking ``seconds``: to the monitor's feeds."""
        mon = self.monitor
        phase = self.phase or ("train" if self._grad_enabled() else "val")
        fused = self._fused
        if fused is None or phase != "train":
            mon.on_data_wait(seconds, synced=synced, phase=phase)
        if type(batch) is tuple or type(batch) is list:
            x, y = (batch[0], batch[1]) if len(batch) >= 2 else (batch, None)
        else:
            x, y = split_batch(batch)
        if fused is None or phase != "train":
            mon.on_batch(x, y, phase=phase)
        else:
            fused(seconds, synced, x, y)          # the two calls above in one (Monitor.on_train_batch)
        self._i += 1
