"""Probe overhead: what watching a training step costs, side by side in one run.

    python benchmarks/bench_overhead.py [--reps 40] [--steps 10] [--threads 1] [--models mlp,cnn]

Four variants of the same training step (forward, cross-entropy, backward, clip_grad_norm_,
optimizer step, zero_grad) on a CPU MLP and a small CNN:

* ``bare``    the step alone;
* ``cheap``   inside ``traindx.probes.watch`` at its default level (cheap probes always on), with the
  batches going through ``w.loader`` and the loss through ``w.observe`` as a user would write it;
* ``armed``   the same with every costly probe on (``level="full"``: activation hooks each step,
  gradient norms each step, update ratio every 5th; the one-off overfit-one-batch probe runs during
  warm-up and is not timed);
* ``anomaly`` the bare step under ``torch.autograd.detect_anomaly()``, for reference.

Repetitions are interleaved (bare, cheap, armed, anomaly, bare, ... with the order rotated each
repetition) so that drift in machine load hits every variant alike. Each variant owns its model and
optimizer and is attached only during its own segments (the clip/GradScaler wrappers are global).
A segment is ``--steps`` steps; the time per step is the median over repetitions of the segment's
mean time per step (the mean, so the cheap probes' sampled steps are counted; the median over
segments, so a noisy neighbour does not decide); the ratio is the median over repetitions of the
variant's segment time over the ``bare`` segment of the same repetition (paired, so slow drift in
machine load cancels). Both this thread's CPU time (``time.thread_time``, not
inflated when other processes share the cores; the targets are judged on it) and wall time are
printed. Ratios are against ``bare``. Benchmarks measure; they are not tests.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time


def build(kind, torch):
    nn = torch.nn
    torch.manual_seed(0)
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        x = torch.randn(64, 784)
    else:
        model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Dropout(0.1), nn.Linear(32 * 8 * 8, 10))
        x = torch.randn(32, 3, 32, 32)
    y = torch.randint(0, 10, (x.shape[0],))
    batches = [(x + 0.01 * i, y.roll(i)) for i in range(8)]
    return model, batches


class Variant:
    def __init__(self, name, kind, torch, tp):
        self.name, self.torch = name, torch
        self.model, self.batches = build(kind, torch)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.crit = torch.nn.CrossEntropyLoss()
        self.w = None
        if name in ("cheap", "armed"):
            self.w = tp.watch(self.model, self.opt, level="full" if name == "armed" else "cheap")

    def segment(self, steps):
        """Run ``steps`` steps; return (wall, cpu) mean seconds per step (cpu: this thread's CPU
        time, which other processes on a busy machine do not inflate)."""
        torch, model, opt, crit, w = self.torch, self.model, self.opt, self.crit, self.w
        ctx = torch.autograd.detect_anomaly() if self.name == "anomaly" else contextlib.nullcontext()
        feed = (self.batches[i % len(self.batches)] for i in range(steps))
        if w is not None:
            w.attach()
            feed = iter(w.loader(list(feed), phase="train"))
        try:
            with ctx:
                t0, c0 = time.perf_counter(), time.thread_time()
                for x, y in feed:
                    out = model(x)
                    loss = crit(out, y)
                    if w is not None:
                        w.observe(loss, outputs=out, targets=y)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                    opt.step()
                    opt.zero_grad()
                dt, dc = time.perf_counter() - t0, time.thread_time() - c0
        finally:
            if w is not None:
                w.detach()
        return dt / steps, dc / steps


def run(kind, reps, steps, torch, tp):
    names = ["bare", "cheap", "armed", "anomaly"]
    variants = {n: Variant(n, kind, torch, tp) for n in names}
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
    mw = {n: statistics.median(t) for n, t in wall.items()}
    mc = {n: statistics.median(t) for n, t in cpu.items()}
    # paired: each repetition's variants ran back to back, so their ratio cancels slow drift
    pw = {n: statistics.median(a / b for a, b in zip(wall[n], wall["bare"])) for n in names}
    pc = {n: statistics.median(a / b for a, b in zip(cpu[n], cpu["bare"])) for n in names}
    return mw, mc, pw, pc, variants


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1: stable timings)")
    ap.add_argument("--models", default="mlp,cnn")
    args = ap.parse_args(argv)
    import torch

    import traindx.probes as tp

    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s), {args.reps} interleaved repetitions x "
          f"{args.steps} steps; ms/step: median over repetitions of mean time per step; "
          f"ratio: median of paired per-repetition ratios to bare")
    print(f"{'model':6} {'variant':8} {'cpu ms/step':>12} {'cpu ratio':>10} {'wall ms/step':>13} {'wall ratio':>11}")
    ok = True
    for kind in args.models.split(","):
        mw, mc, pw, pc, variants = run(kind, args.reps, args.steps, torch, tp)
        for n in mw:
            print(f"{kind:6} {n:8} {mc[n] * 1e3:12.3f} {pc[n]:9.3f}x {mw[n] * 1e3:13.3f} {pw[n]:10.3f}x")
        ok &= pc["cheap"] <= 1.03 and pc["armed"] <= 1.5
        facts = {f.fact for f in variants["armed"].w.findings()}
        print(f"{kind:6} armed run produced {len(facts)} facts")
    print("targets on CPU time (cheap <= 1.03x, armed <= 1.5x):", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
