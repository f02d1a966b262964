"""Where the always-on cost goes: each entry point the live monitor installs, timed inside the
overhead benchmark's mlp training loop (``bench_overhead.py``'s ``always`` variant: every always-on
probe, the self-starting LR-decay test held off).

Each entry point (the forward pre-hook, the optimizer pre-step hook, the clip listener, the sentinel
gradient hook, ``observe`` and, inside it, ``Experiments.keep``, and the loader's ``next()``) is
wrapped with ``perf_counter`` around the call; the report is the median and the mean of the fastest
90 % per call (preemption cut off), and their sum per step. Wrapping adds a frame per call, so the
sum is an upper bound of traindx's own Python per step, not torch's hook dispatch around it.
Compare two trees by running this file from each (alternated; the level drifts with machine load).

Usage:
    python benchmarks/bench_entry_points.py [--steps 2000]
"""
import argparse
import functools
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000, help="timed training steps (in segments of 50)")
    args = ap.parse_args()

    import torch

    import traindx.probes as tp
    from bench_overhead import Variant

    torch.set_num_threads(1)
    v = Variant("always", "mlp", torch, tp, time.process_time)
    w, m = v.w, v.w.monitor
    times: dict = {}

    def wrap(obj, name, label=None):
        f, got = getattr(obj, name), times.setdefault(label or name, [])

        @functools.wraps(f)
        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                got.append(time.perf_counter() - t)
        setattr(obj, name, timed)

    for name in ("_pre_forward", "_pre_step", "_on_clip", "_sentinel_grad_hook"):
        wrap(m, name)
    wrap(w, "observe")
    wrap(m.costly["experiment"].box, "keep", "keep (inside observe)")
    nexts = times.setdefault("loader next()", [])

    def segment(n):
        w.attach()
        it = iter(w.loader([v.batches[i % len(v.batches)] for i in range(n)], phase="train"))
        try:
            while True:
                t = time.perf_counter()
                try:
                    x, y = next(it)
                except StopIteration:
                    break
                nexts.append(time.perf_counter() - t)
                out = v.model(x)
                loss = v.crit(out, y)
                w.observe(loss, outputs=out, targets=y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(v.model.parameters(), 5.0)
                v.opt.step()
                v.opt.zero_grad()
        finally:
            w.detach()

    segment(100)                      # warm up: the monitor's first looks are not the steady state
    for got in times.values():
        got.clear()
    for _ in range(max(1, args.steps // 50)):
        segment(50)
    steps = max(1, args.steps // 50) * 50
    print(f"{steps} steps (mlp, always-on); per entry point, µs per call (perf_counter, in the loop):")
    total = 0.0
    for label, got in times.items():
        if not got:
            continue
        fastest = sorted(got)[: max(1, int(len(got) * 0.9))]
        if "inside" not in label:
            total += statistics.mean(fastest) * len(got) / steps
        print(f"  {label:24s} median {statistics.median(got) * 1e6:7.2f}   mean of fastest 90% "
              f"{statistics.mean(fastest) * 1e6:7.2f}   calls/step {len(got) / steps:.2f}")
    print(f"  sum of the entry points: {total * 1e6:.1f} µs/step")


if __name__ == "__main__":
    main()
