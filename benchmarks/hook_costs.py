"""Where the always-on probes' cost per training step goes: each of traindx's entry points into a
watched step (the loss hook, the optimizer pre-hook, the forward pre-hook, the loader tap, the clip
wrapper and the gradient sentinel) timed on its own, on ``bench_overhead.py``'s ``always`` variant.

    python benchmarks/hook_costs.py [--steps 3000] [--warmup 300] [--model mlp] [--warm 2000]

Each entry point is wrapped in a timer (wall clock, ``perf_counter_ns``: ~0.1 us a read, where the
thread CPU clock costs ~2 us a read on this VM and would swamp the smaller hooks); per entry point the
median and mean microseconds a step and its calls. Medians stand for the usual step (a machine's load
inflates the means); the sampled looks (every Nth step) show in the mean. Nested timers count into their
parent. The clock's own cost is printed first. ``--warm N``: then each entry point is called N times in a
row with the arguments of its last call in the run (no training work in between, so the interpreter, the
monitor's attributes and the hook's code stay in the caches): its median there beside its median in the
step says how much of a hook's cost is its own instructions and how much is coming back to a cold cache
after the step's tensor work. Benchmarks measure; they are not tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

#: the monitor's methods that a watched step enters, as hooks or from the user's calls
HOOKS = ("_pre_forward", "_pre_step", "_sentinel_grad_hook", "on_loss", "_on_train_loss", "_on_pre_step",
         "on_train_batch", "_on_clip", "_record_train_wait")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--model", default="mlp", help="mlp, mlp256 or cnn (bench_overhead.build)")
    ap.add_argument("--warm", type=int, default=0, help="then call each entry point N times in a row (warm caches)")
    a = ap.parse_args(argv)
    import torch
    import torch.nn.utils as utils

    import bench_overhead as bo
    import traindx.probes as tp
    torch.set_num_threads(1)
    for name, clock in (("perf_counter_ns", time.perf_counter_ns), ("thread_time_ns", time.thread_time_ns)):
        print(f"clock {name}: {timeit.timeit(clock, number=100000) * 10:.2f} us a read")
    calls: dict[str, list[int]] = {}
    last: dict[str, tuple] = {}

    def timed(name, f):
        def wrapper(*args, **kwargs):
            last[name] = (f, args, kwargs)
            t = time.perf_counter_ns()
            try:
                return f(*args, **kwargs)
            finally:
                calls.setdefault(name, []).append(time.perf_counter_ns() - t)
        return wrapper

    v = bo.Variant("always", a.model, torch, tp, "thread")
    m = v.w.monitor
    for name in HOOKS:
        if hasattr(m, name):
            setattr(m, name, timed(name, getattr(m, name)))
    v.w.observe = timed("observe (the user's call)", v.w.observe)
    v.open(50, utils)
    try:
        for _ in range(a.warmup):
            v.one()
        calls.clear()
        t0 = time.thread_time()
        for _ in range(a.steps):
            v.one()
        step = (time.thread_time() - t0) / a.steps * 1e6
        run = {name: list(s) for name, s in calls.items()}     # the warm calls below count apart
        warm = _warm_medians(last, a.warm) if a.warm > 0 else {}
    finally:
        v.close()
    print(f"{a.model}: {step:.0f} us a watched step (thread CPU time), {a.steps} steps")
    for name, s in sorted(run.items(), key=lambda kv: -sum(kv[1])):
        w = f"  warm median {warm[name]:6.1f} us" if name in warm else ""
        print(f"  {name:28s} median {statistics.median(s) / 1000:7.1f} us  mean/step {sum(s) / a.steps / 1000:7.1f} us"
              f"  calls {len(s)}{w}")
    return 0


def _warm_medians(last, n):
    """Each entry point's median over ``n`` calls in a row with the arguments of its last call in the
    run (the unwrapped function: an outer entry point's time includes its nested ones). Microseconds."""
    out = {}
    for name, (f, args, kwargs) in last.items():
        ts = []
        for _ in range(n):
            t = time.perf_counter_ns()
            f(*args, **kwargs)
            ts.append(time.perf_counter_ns() - t)
        out[name] = statistics.median(ts) / 1000
    return out


if __name__ == "__main__":
    sys.exit(main())
