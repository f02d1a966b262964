"""Framework-callback overhead: a Lightning / transformers run with and without traindx's callback.

    python benchmarks/bench_callbacks.py [--reps 7] [--steps 150] [--skip 30] [--threads 1] [--frameworks lightning,hf]
    python benchmarks/bench_callbacks.py --breakdown --steps 500     # CPU us per step in each hook

For each framework the same Trainer configuration runs in three variants:

* ``bare``   the run alone (plus the step clock below, which every variant has);
* ``cheap``  with ``TrainDxCallback()`` at its default level (cheap probes always on);
* ``full``   with ``TrainDxCallback(level="full")`` (every costly probe on for the whole run), for
  reference.

Runs: Lightning, an MLP 784-512-512-10 (batch 64, Adam) fed from an in-memory ``TensorDataset``
through a ``DataLoader``; transformers, a BERT of 2 layers, hidden 128 (vocabulary 1000, sequences
of 64 tokens, batch 16, AdamW, the Trainer's defaults: linear schedule, ``max_grad_norm=1``),
``logging_steps=10``. No validation, checkpointing, progress bar or external logger in either.

A step clock callback (first in the callback list) stamps ``on_train_batch_start`` (Lightning) /
``on_step_begin`` (transformers): a step is the time from one stamp to the next, so it holds the
whole step — data, forward, backward, optimizer, every callback hook, logging. Per run: the mean
over the steps after the first ``--skip`` (default 30: past the monitor's "first 10 steps" probe
schedule, so this is the steady state of a long run; the mean, so the probes' sampled steps — every
25th, 50th — count); then the median over repetitions. The ratio is the median over repetitions of the
variant's per-step time over the
``bare`` run of the same repetition (paired: slow drift in machine load cancels). Repetitions are
interleaved (bare, cheap, full, then rotated), each run in a fresh Trainer and model from the same
seed. ``fit total`` is the whole ``fit()``/``train()`` call, one-off costs included (attaching,
the report at the end: about 0.3 s to load the knowledge base once per process, then the
findings). Times are this thread's CPU time (``time.thread_time``: not inflated when other
processes share the cores) and wall time. Benchmarks measure; they are not tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import statistics
import sys
import time
import warnings

#: Steps left out of the per-step mean (set by --skip).
SETTINGS = {"skip": 30}


class Clock:
    """Per-step (wall, cpu) stamps; framework-neutral, wrapped in each framework's callback class."""

    def __init__(self):
        self.wall, self.cpu = [], []

    def stamp(self):
        self.wall.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def per_step(self):
        k = SETTINGS["skip"]
        w, c = self.wall[k:], self.cpu[k:]
        n = len(w) - 1
        return ((w[-1] - w[0]) / n, (c[-1] - c[0]) / n) if n > 0 else (float("nan"), float("nan"))


# ------------------------------------------------------------------------------------ Lightning
def lightning_run(variant, steps, seed=0):
    import torch
    import lightning.pytorch as pl

    from traindx.probes.integrations.lightning import TrainDxCallback

    nn = torch.nn
    clock = Clock()

    class StepClock(pl.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            clock.stamp()

    class MLP(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                     nn.Linear(512, 10))

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return nn.functional.cross_entropy(self(x), y)

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=1e-3)

    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(1)
    n = 64 * 16
    ds = torch.utils.data.TensorDataset(torch.randn(n, 784, generator=g), torch.randint(0, 10, (n,), generator=g))
    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True)
    cbs = [StepClock()]
    if variant != "bare":
        cbs.append(TrainDxCallback(level="full" if variant == "full" else "cheap", verbose=False))
    trainer = pl.Trainer(max_steps=steps + 1, accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False, callbacks=cbs)
    model = MLP()
    t0, c0 = time.perf_counter(), time.thread_time()
    trainer.fit(model, loader)
    total = (time.perf_counter() - t0, time.thread_time() - c0)
    return clock.per_step(), total, (cbs[1] if len(cbs) > 1 else None)


# ------------------------------------------------------------------------------------ transformers
def hf_run(variant, steps, seed=0, out="/tmp/traindx-bench-callbacks"):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments

    from traindx.probes.integrations.hf import TrainDxCallback

    clock = Clock()

    class StepClock(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            clock.stamp()

    g = torch.Generator().manual_seed(1)
    data = []
    for _ in range(16 * 16):
        ids = torch.randint(5, 1000, (64,), generator=g)
        data.append({"input_ids": ids, "attention_mask": torch.ones(64, dtype=torch.long), "labels": int(ids[0] < 500)})
    torch.manual_seed(seed)
    model = BertForSequenceClassification(BertConfig(hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                                                     intermediate_size=256, vocab_size=1000, num_labels=2))
    cbs = [StepClock()]
    if variant != "bare":
        cbs.append(TrainDxCallback(level="full" if variant == "full" else "cheap", verbose=False, save_report=False))
    args = TrainingArguments(output_dir=out, max_steps=steps + 1, logging_steps=10, report_to=[], use_cpu=True,
                             per_device_train_batch_size=16, learning_rate=1e-3, save_strategy="no",
                             disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=cbs)
    t0, c0 = time.perf_counter(), time.thread_time()
    with contextlib.redirect_stdout(io.StringIO()):
        trainer.train()
    total = (time.perf_counter() - t0, time.thread_time() - c0)
    return clock.per_step(), total, (cbs[1] if len(cbs) > 1 else None)


RUNNERS = {"lightning": lightning_run, "hf": hf_run}

#: What --breakdown times: the callback's hooks (the monitor feeds they call included) and the
#: monitor's own hooks, per framework.
BREAKDOWN = {
    "lightning": ("on_train_batch_start", "on_before_backward", "on_train_batch_end"),
    "hf": ("on_step_begin", "on_step_end", "on_log", "_on_forward"),
}
MONITOR_HOOKS = ("_pre_step", "_post_step", "_pre_forward", "on_loss", "on_batch", "on_data_wait")


def breakdown(framework, steps):
    """CPU microseconds per optimizer step spent in each hook of a ``cheap`` run."""
    import traindx.probes.live.monitor as MM

    if framework == "lightning":
        from traindx.probes.integrations.lightning import TrainDxCallback
    else:
        from traindx.probes.integrations.hf import TrainDxCallback
    acc = {}
    saved = []

    def wrap(cls, name, key):
        f = cls.__dict__[name]
        saved.append((cls, name, f))

        def timed(*a, **k):
            t = time.thread_time_ns()
            try:
                return f(*a, **k)
            finally:
                acc[key] = acc.get(key, 0) + time.thread_time_ns() - t
        setattr(cls, name, timed)

    for h in BREAKDOWN[framework]:
        wrap(TrainDxCallback, h, f"callback.{h}")
    for h in MONITOR_HOOKS:
        wrap(MM.Monitor, h, f"Monitor.{h}")
    try:
        RUNNERS[framework]("cheap", 30)
        acc.clear()
        _, _, cb = RUNNERS[framework]("cheap", steps)
    finally:
        for cls, name, f in saved:
            setattr(cls, name, f)
    n = max(1, cb.monitor.steps)
    return {k: v / n / 1e3 for k, v in sorted(acc.items())}
VARIANTS = ["bare", "cheap", "full"]


def bench(framework, reps, steps):
    run = RUNNERS[framework]
    for v in VARIANTS:                     # warm-up: imports, allocator, the knowledge base
        run(v, steps)
    step = {v: [] for v in VARIANTS}
    total = {v: [] for v in VARIANTS}
    last = {}
    for r in range(reps):
        order = VARIANTS[r % 3:] + VARIANTS[:r % 3]
        for v in order:
            s, t, cb = run(v, steps)
            step[v].append(s)
            total[v].append(t)
            last[v] = cb
    rows = {}
    for v in VARIANTS:
        rows[v] = {
            "cpu_ms": statistics.median(c for _, c in step[v]) * 1e3,
            "wall_ms": statistics.median(w for w, _ in step[v]) * 1e3,
            "cpu_ratio": statistics.median(a[1] / b[1] for a, b in zip(step[v], step["bare"])),
            "wall_ratio": statistics.median(a[0] / b[0] for a, b in zip(step[v], step["bare"])),
            "total_cpu_s": statistics.median(c for _, c in total[v]),
            "total_ratio": statistics.median(a[1] / b[1] for a, b in zip(total[v], total["bare"])),
        }
    return rows, last


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--skip", type=int, default=SETTINGS["skip"], help="steps left out of the per-step mean")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1: stable timings)")
    ap.add_argument("--frameworks", default="lightning,hf")
    ap.add_argument("--breakdown", action="store_true",
                    help="instead: CPU us per step in each hook of one cheap run of --steps steps")
    args = ap.parse_args(argv)
    SETTINGS["skip"] = args.skip
    warnings.filterwarnings("ignore")
    for name in ("lightning", "lightning.pytorch", "transformers", "accelerate"):
        logging.getLogger(name).setLevel(logging.ERROR)
    import torch

    torch.set_num_threads(args.threads)
    versions = [f"torch {torch.__version__}"]
    for mod in ("lightning", "transformers"):
        with contextlib.suppress(ImportError):
            versions.append(f"{mod} {__import__(mod).__version__}")
    if args.breakdown:
        print(", ".join(versions) + f"; {args.threads} thread(s); CPU us per optimizer step in each hook "
              f"(a hook's time includes the monitor feeds it calls) over one cheap {args.steps}-step run")
        for fw in args.frameworks.split(","):
            for k, v in breakdown(fw, args.steps).items():
                print(f"{fw:10} {k:32} {v:8.1f}")
        return 0
    print(", ".join(versions) + f"; {args.threads} thread(s); {args.reps} interleaved repetitions of "
          f"{args.steps}-step runs; ms/step: median over repetitions of the mean step after the first {args.skip}; "
          "ratio: median of paired per-repetition ratios to bare")
    print(f"{'framework':10} {'variant':7} {'cpu ms/step':>11} {'cpu ratio':>9} {'wall ms/step':>12} "
          f"{'wall ratio':>10} {'fit total cpu s':>15} {'total ratio':>11}")
    for fw in args.frameworks.split(","):
        rows, last = bench(fw, args.reps, args.steps)
        for v, r in rows.items():
            print(f"{fw:10} {v:7} {r['cpu_ms']:11.3f} {r['cpu_ratio']:8.3f}x {r['wall_ms']:12.3f} "
                  f"{r['wall_ratio']:9.3f}x {r['total_cpu_s']:15.3f} {r['total_ratio']:10.3f}x")
        cb = last.get("cheap")
        if cb is not None:
            rep = cb.report()
            top = rep["root_causes"][0] if rep["root_causes"] else None
            print(f"{fw:10} cheap run: {len(cb.findings())} findings; status {rep['status']}"
                  + (f", top cause {top['id']} {top['confidence']:.2f}" if top else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
