"""Probe overhead: what watching a training step costs, side by side in one run.

    python benchmarks/bench_overhead.py [--method pairs|segments] [--pairs 3000] [--rounds 5]
        [--reps 30] [--steps 50] [--threads 1] [--models mlp,cnn]
        [--variants bare,control,cheap,always,armed,anomaly] [--clock process|thread] [--dump PREFIX]

Variants of the same training step (forward, cross-entropy, backward, clip_grad_norm_, optimizer
step, zero_grad) on a CPU MLP (``mlp``: batch 64, ~4 ms a step on one core), the same MLP on a
4x larger batch (``mlp256``: a larger step, as most real ones are) and a small CNN (``cnn``):

* ``bare``    the step alone;
* ``cheap``   inside ``traindx.probes.watch`` at its default level (cheap probes always on), with the
  batches going through ``w.loader`` and the loss through ``w.observe`` as a user would write it;
* ``always``  ``cheap`` with the self-starting LR-decay test held off: what is always on. The LR-decay
  test starts when the loss plateaus under a held LR -- the bench's eight repeated batches do -- and
  then trains two copies of the model for a while: an experiment the evidence asked for, not an
  always-on probe. ``cheap`` counts it, ``always`` does not; the difference is its cost here;
* ``armed``   every costly probe on (``level="full"``: activation hooks each step, gradient norms
  each step, update ratio every 5th; the one-off overfit-one-batch probe runs during warm-up and is
  not timed);
* ``anomaly`` the bare step under ``torch.autograd.detect_anomaly()``, for reference;
* ``control`` a second bare step on its own model and optimizer: an A/A check of the method (its
  ratio must read 1.00 within its interval, else the method, not traindx, is what was measured).

Two methods (``--method``):

**pairs** (the default; ``--pairs 3000 --rounds 5 --warmup 100 --block 100``). The bench steps one
step at a time: each variant's step runs right beside a bare step, each timed on its own with this
thread's CPU time (``time.thread_time``, the default clock here: traindx starts no thread, and at one
intra-op thread the step runs in this one; ``--clock process`` counts every thread). Pairs go
bare-first, variant-first, variant-first, bare-first, ... (B V V B B V), so every kind of step
follows every kind equally often and a step's place in its pair (the second step of a pair runs
with the other model's data in cache) cancels. Every variant owns its model, optimizer and batches;
every watch stays attached for the whole round, and the bare, control and anomaly steps call the
``clip_grad_norm_`` captured before traindx is imported (the wrapper traindx installs is
process-wide: a bare step calling it would pay for it and feed the watched monitor another model's
norm). A loader pass is ``--steps`` batches, the new pass counted in the step that starts it.
Variants take turns by blocks of ``--block`` pairs; ``--rounds`` rounds each build fresh models (whatever is tied
to one model's memory, such as its layout in the caches, is drawn afresh and shows in the interval:
one round of 1,000 pairs once read the A/A control at 0.992 [0.985, 0.997]) after
``--warmup`` untimed steps per variant (allocator, first-step probes, the overfit probe).
Per variant: ``ms/step``, its mean step; ``ratio``, 1 + (mean paired difference) / (mean bare step)
-- every step counted, the sampled looks' steps too, so a probe that looks every 100th step pays its
share; the 95 % interval is a two-level percentile bootstrap (rounds drawn with replacement, then
each drawn round's blocks of 100 pairs, a multiple of every sampling period); ``+us/step``, the
mean paired difference (the median beside it, the usual step); then each round's mean difference.
``control`` is the A/A check: at 3,000 pairs on this VM (load 7-15) it read 1.004 [0.999, 1.011].
Per-pair differences spread by ~600 µs (10 % of a step) under load; 3,000 pairs bring the
interval to about +-0.6 %.

**segments** (the method before session 16; ``--reps 30 --steps 50``). Repetitions are
interleaved (bare, cheap, always, ... with the order rotated each repetition) so that drift in
machine load hits every variant alike (A/B repeats). Each variant owns its model and optimizer and
is attached only during its own segments (the clip/GradScaler wrappers are global). A segment is
``--steps`` steps, long enough that every sampled probe's period (at most 50 steps) lands in it in
proportion. Times are CPU time (``--clock process``, the default for segments: every thread of this
process; ``thread``: this thread only); wall time is printed beside it. Per variant: ``ms/step``,
the median over repetitions of the segment's mean time per step; ``ratio``, the median over
repetitions of the variant's segment time over the ``bare`` segment of the same repetition, with a
95 % bootstrap interval of that median (2,000 resamples of the repetitions, seeded); ``sum``, total
variant time over total bare time; ``+us/step``, the median paired difference. On a shared 2-core
VM a 50-step segment (0.2-0.3 s) is long enough for the machine's load to change within it, so the
pairing does not cancel drift: the same always-on question read 0.98x and 1.08x a minute apart
(session 16). Use it for large effects (armed, anomaly), where both methods agree.

The always-on target (<= 3 % of a step) is judged on ``always``'s ratio and its interval: met when
the interval's top is at or below 1.03, not met when its bottom is above, unresolved otherwise (the
machine's noise is wider than the question). The load average is printed at the start and the end.
Benchmarks measure; they are not tests.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import time

VARIANTS = ("bare", "control", "cheap", "always", "armed", "anomaly")


def build(kind, torch):
    nn = torch.nn
    torch.manual_seed(0)
    if kind in ("mlp", "mlp256"):
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        x = torch.randn(64 if kind == "mlp" else 256, 784)
    elif kind == "cnn":
        model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Dropout(0.1), nn.Linear(32 * 8 * 8, 10))
        x = torch.randn(32, 3, 32, 32)
    else:
        raise SystemExit(f"unknown model {kind!r} (mlp, mlp256, cnn)")
    y = torch.randint(0, 10, (x.shape[0],))
    batches = [(x + 0.01 * i, y.roll(i)) for i in range(8)]
    return model, batches


class Variant:
    def __init__(self, name, kind, torch, tp, clock):
        self.name, self.torch, self.clock = name, torch, clock
        self.model, self.batches = build(kind, torch)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.crit = torch.nn.CrossEntropyLoss()
        self.w = None
        if name in ("cheap", "always", "armed"):
            self.w = tp.watch(self.model, self.opt, level="full" if name == "armed" else "cheap")
        if name == "always":
            # hold off the self-starting LR-decay test (an experiment, not an always-on probe)
            self.w.monitor.costly["lr_decay"].plateau_check = lambda m, an: None
        self.it = iter(())

    # ------------------------------------------------------------------ paired method: one step at a time
    def open(self, epoch, utils):
        """For :func:`run_pairs`: attach (once, for the whole run) and make the step's callables.
        ``utils`` is where the step looks ``clip_grad_norm_`` up: ``torch.nn.utils`` for a watched
        variant (traindx's wrapper, as a user's call finds it), a namespace holding the original
        captured before any attach for ``bare`` and ``anomaly`` (the wrapper is process-wide: a bare
        step calling it would pay for it and feed the watched monitor a norm)."""
        self.epoch, self.utils = epoch, utils
        if self.w is not None:
            self.w.attach()

    def close(self):
        if self.w is not None:
            self.w.detach()

    def _new_epoch(self):
        feed = [self.batches[i % len(self.batches)] for i in range(self.epoch)]
        return iter(self.w.loader(feed, phase="train") if self.w is not None else feed)

    def one(self):
        """One training step (a new pass over the loader every ``epoch`` steps, counted in the step
        that starts it), the segment's loop body."""
        try:
            x, y = next(self.it)
        except StopIteration:
            self.it = self._new_epoch()
            x, y = next(self.it)
        if self.name == "anomaly":
            with self.torch.autograd.detect_anomaly():
                self._body(x, y)
        else:
            self._body(x, y)

    def _body(self, x, y):
        model, opt, w = self.model, self.opt, self.w
        out = model(x)
        loss = self.crit(out, y)
        if w is not None:
            w.observe(loss, outputs=out, targets=y)
        loss.backward()
        self.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        opt.zero_grad()

    def segment(self, steps):
        """Run ``steps`` steps; return (wall, cpu) mean seconds per step (cpu: this process's or this
        thread's CPU time, which other processes on a busy machine inflate far less than wall time)."""
        torch, model, opt, crit, w, clock = self.torch, self.model, self.opt, self.crit, self.w, self.clock
        ctx = torch.autograd.detect_anomaly() if self.name == "anomaly" else contextlib.nullcontext()
        feed = (self.batches[i % len(self.batches)] for i in range(steps))
        if w is not None:
            w.attach()
            feed = iter(w.loader(list(feed), phase="train"))
        try:
            with ctx:
                t0, c0 = time.perf_counter(), clock()
                for x, y in feed:
                    out = model(x)
                    loss = crit(out, y)
                    if w is not None:
                        w.observe(loss, outputs=out, targets=y)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                    opt.step()
                    opt.zero_grad()
                dt, dc = time.perf_counter() - t0, clock() - c0
        finally:
            if w is not None:
                w.detach()
        return dt / steps, dc / steps


def median_interval(xs, n=2000, seed=0):
    """A 95 % percentile-bootstrap interval of the median of ``xs``."""
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def run(kind, reps, steps, names, torch, tp, clock):
    variants = {n: Variant(n, kind, torch, tp, clock) for n in names}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # detect_anomaly's warning
        for v in variants.values():               # warm-up: allocator, first-step probes, overfit probe
            v.segment(max(steps, 30))
        wall = {n: [] for n in names}
        cpu = {n: [] for n in names}
        for r in range(reps):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                w, c = variants[n].segment(steps)
                wall[n].append(w)
                cpu[n].append(c)
    out = {}
    for n in names:
        # paired: each repetition's variants ran back to back, so their ratio cancels slow drift
        ratios = [a / b for a, b in zip(cpu[n], cpu["bare"])]
        out[n] = {"cpu": statistics.median(cpu[n]), "wall": statistics.median(wall[n]),
                  "ratio": statistics.median(ratios), "interval": median_interval(ratios),
                  "sum": sum(cpu[n]) / sum(cpu["bare"]),
                  "diff_us": 1e6 * statistics.median(a - b for a, b in zip(cpu[n], cpu["bare"])),
                  "wall_ratio": statistics.median(a / b for a, b in zip(wall[n], wall["bare"]))}
    return out, variants


def nested_interval(rounds, n=2000, seed=0):
    """A 95 % percentile interval of ``1 + sum(diffs) / sum(bare)`` by a two-level bootstrap: the
    rounds (each on freshly built models, so the memory layout's luck differs) are drawn with
    replacement, then within each drawn round its blocks of consecutive pairs (whole sampling
    periods, so a probe that looks every k-th step keeps its share) are drawn with replacement.
    ``rounds``: per round, a list of (sum of differences, sum of bare seconds) per block."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(n):
        d = b = 0.0
        for blocks in rng.choices(rounds, k=len(rounds)):
            for bd, bb in rng.choices(blocks, k=len(blocks)):
                d += bd
                b += bb
        ratios.append(1 + d / b)
    ratios.sort()
    return ratios[int(0.025 * n)], ratios[int(0.975 * n) - 1]


def pair_round(kind, pairs, warmup, epoch, names, torch, tp, clock, plain, block):
    """One round of the paired method on freshly built models: per variant, a list of (bare seconds,
    variant seconds) per pair. Every watch stays attached for the whole round."""
    variants = {n: Variant(n, kind, torch, tp, clock) for n in names}
    for v in variants.values():
        v.open(epoch, torch.nn.utils if v.w is not None else plain)
    others = [n for n in names if n != "bare"]
    bare = variants["bare"]
    t = {n: [] for n in others}
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # detect_anomaly's warning
            for _ in range(warmup):                  # allocator, first-step probes, overfit probe
                for v in variants.values():
                    v.one()
            for start in range(0, pairs, block):      # variants take turns, a block of pairs each
                for n in others:
                    v, got = variants[n], t[n]
                    for k in range(start, min(pairs, start + block)):
                        if k % 2 == 0:
                            c0 = clock(); bare.one(); c1 = clock(); v.one(); c2 = clock()  # noqa: E702
                            got.append((c1 - c0, c2 - c1))
                        else:
                            c0 = clock(); v.one(); c1 = clock(); bare.one(); c2 = clock()  # noqa: E702
                            got.append((c2 - c1, c1 - c0))
    finally:
        for v in variants.values():
            v.close()
    return t, variants


def run_pairs(kind, pairs, rounds, warmup, epoch, names, torch, tp, clock, clip_ref, block, dump=None):
    """The paired method: every variant's step runs right beside a bare step (bare first on even
    pairs, second on odd ones: B V V B B V ..., so each kind of step follows each kind equally often),
    each timed on its own; the variants take turns by blocks of pairs; ``rounds`` rounds, each on
    fresh models, share the pairs. The cost is the mean of the per-pair differences (every step
    counted, the sampled looks' steps too) over the mean bare step."""
    import gc
    import types

    plain = types.SimpleNamespace(clip_grad_norm_=clip_ref)
    per = -(-pairs // rounds)
    per = max(block, -(-per // block) * block)                # whole blocks in every round
    others = [n for n in names if n != "bare"]
    got = {n: [] for n in others}                              # per round: [(bare, variant), ...]
    variants = None
    for _ in range(rounds):
        variants = None
        gc.collect()
        t, variants = pair_round(kind, per, warmup, epoch, names, torch, tp, clock, plain, block)
        for n in others:
            got[n].append(t[n])
    if dump:
        import json

        with open(f"{dump}.{kind}.json", "w") as fh:
            json.dump(got, fh)
    allb = [b for n in others for r in got[n] for b, _ in r]
    out = {"bare": {"cpu": statistics.fmean(allb), "ratio": 1.0, "interval": (1.0, 1.0), "diff_us": 0.0,
                    "median_diff_us": 0.0, "rounds_us": []}}
    for n in others:
        flat = [p for r in got[n] for p in r]
        b = [p[0] for p in flat]
        d = [p[1] - p[0] for p in flat]
        blocks = [[(sum(v - b for b, v in r[i:i + block]), sum(b for b, _ in r[i:i + block]))
                   for i in range(0, len(r), block)] for r in got[n]]
        out[n] = {"cpu": statistics.fmean(p[1] for p in flat), "ratio": 1 + sum(d) / sum(b),
                  "interval": nested_interval(blocks), "diff_us": 1e6 * statistics.fmean(d),
                  "median_diff_us": 1e6 * statistics.median(d),
                  "rounds_us": [1e6 * statistics.fmean(v - b for b, v in r) for r in got[n]]}
    return out, variants


def verdict(stats, target):
    lo, hi = stats["interval"]
    return "met" if hi <= target else "NOT met" if lo > target else "unresolved"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", choices=("pairs", "segments"), default="pairs",
                    help="pairs (default): step-level pairs; segments: interleaved segments of --steps")
    ap.add_argument("--pairs", type=int, default=3000, help="pairs method: timed pairs per variant")
    ap.add_argument("--rounds", type=int, default=5, help="pairs method: rounds on freshly built models")
    ap.add_argument("--warmup", type=int, default=100, help="pairs method: untimed steps per variant first")
    ap.add_argument("--block", type=int, default=100,
                    help="pairs method: bootstrap block, in pairs (a multiple of every sampling period)")
    ap.add_argument("--dump", help="pairs method: write each pair's (bare, variant) seconds to DUMP.MODEL.json")
    ap.add_argument("--reps", type=int, default=30, help="segments method: interleaved repetitions")
    ap.add_argument("--steps", type=int, default=50,
                    help="steps per segment (segments method); loader pass length (pairs method)")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1: stable timings)")
    ap.add_argument("--models", default="mlp,cnn")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="bare is always included")
    ap.add_argument("--clock", choices=("process", "thread"), default=None,
                    help="CPU time of the whole process or of this thread (default: thread for pairs, "
                         "process for segments)")
    args = ap.parse_args(argv)
    names = ["bare"] + [n for n in args.variants.split(",") if n and n != "bare"]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variant(s) {unknown} (choose from {', '.join(VARIANTS)})")
    clock_name = args.clock or ("thread" if args.method == "pairs" else "process")
    clock = time.process_time if clock_name == "process" else time.thread_time
    import torch
    import torch.nn.utils.clip_grad as clip_home

    clip_ref = clip_home.clip_grad_norm_     # captured before traindx is imported or attached

    import traindx.probes as tp

    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.method == "pairs":
        print(f"torch {torch.__version__}, {args.threads} thread(s), {clock_name} CPU time, load {load:.2f}; "
              f"{args.pairs} step-level pairs per variant in {args.rounds} rounds on fresh models (bare "
              f"step beside a variant step, order alternated), each after {args.warmup} untimed steps, loader "
              f"pass {args.steps} steps; ms/step: mean; ratio: 1 + mean paired difference / mean bare step "
              f"[95% bootstrap of rounds, then of blocks of {args.block} pairs]; "
              f"+us/step: mean paired difference (median beside it)")
        print(f"{'model':7} {'variant':8} {'cpu ms/step':>11} {'ratio':>8} {'[95% interval]':>17} "
              f"{'+us/step':>9} {'median':>7}  per round +us/step")
    else:
        print(f"torch {torch.__version__}, {args.threads} thread(s), load {load:.2f}; {args.reps} interleaved "
              f"repetitions x {args.steps} steps, {clock_name} CPU time; ms/step: median over repetitions of "
              f"mean time per step; ratio: median of paired per-repetition ratios to bare [95% bootstrap "
              f"interval]; sum: total over total bare; +us/step: median paired difference")
        print(f"{'model':7} {'variant':8} {'cpu ms/step':>11} {'ratio':>8} {'[95% interval]':>17} {'sum':>7} "
              f"{'+us/step':>9} {'wall ms':>8} {'wall ratio':>10}")
    ok = True
    for kind in args.models.split(","):
        if args.method == "pairs":
            out, variants = run_pairs(kind, args.pairs, args.rounds, args.warmup, args.steps, names, torch, tp,
                                      clock, clip_ref, args.block, args.dump)
        else:
            out, variants = run(kind, args.reps, args.steps, names, torch, tp, clock)
        for n, st in out.items():
            lo, hi = st["interval"]
            if args.method == "pairs":
                print(f"{kind:7} {n:8} {st['cpu'] * 1e3:11.3f} {st['ratio']:7.3f}x [{lo:6.3f}, {hi:6.3f}] "
                      f"{st['diff_us']:9.1f} {st['median_diff_us']:7.1f}  "
                      + " ".join(f"{x:.0f}" for x in st["rounds_us"]))
            else:
                print(f"{kind:7} {n:8} {st['cpu'] * 1e3:11.3f} {st['ratio']:7.3f}x [{lo:6.3f}, {hi:6.3f}] "
                      f"{st['sum']:6.3f}x {st['diff_us']:9.0f} {st['wall'] * 1e3:8.3f} {st['wall_ratio']:9.3f}x")
        for n, target in (("always", 1.03), ("cheap", 1.03), ("armed", 1.5)):
            if n in out:
                v = verdict(out[n], target)
                ok &= v != "NOT met"
                print(f"{kind:7} {n} <= {target}x: {v}")
        if "armed" in variants:
            facts = {f.fact for f in variants["armed"].w.findings()}
            print(f"{kind:7} armed run produced {len(facts)} facts")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load at the end {load:.2f}")
    print("targets on CPU time (always-on <= 1.03x, armed <= 1.5x):", "none missed" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
