"""The shuffle experiment's error rates, measured on streams whose order is known.

    python benchmarks/shuffle_experiment_null.py [--seeds 12] [--configs all]

The experiment (``shuffle`` in ``kb/experiments.yaml``, ``probes/live/experiments.py``) trains a copy
of the model on the run's recent batches with their examples shuffled across batches, beside an
unchanged copy, and confirms ``unshuffled_data`` when the shuffled copy fits held-out examples
clearly better. Two kinds of stream, each on several models, optimizers and batch sizes:

* ``shuffled``: the examples come in random order already (a DataLoader with ``shuffle=True``):
  a reshuffle is one more random order, so any confirmation is a false one;
* ``memory``: shuffled too, on labels the inputs do not predict and a wider model (Adam, lr 1e-2):
  only memory of the very examples can lower a held-out loss, so a copy that trained on a held-out
  example (as the experiment's treated copy once did) wins by memory alone;
* ``sorted``: the examples come sorted by label within the window (a dataset stored by class
  and read without shuffling): the fault the experiment is there to confirm.

Before the experiment the model trains on a first stretch of the same kind of stream (the run so
far), then the experiment runs on the next ``experiments.buffer_batches`` batches as the monitor
would keep them. Printed per configuration and overall: confirms / inconclusive / refutes. A false
confirmation on a shuffled stream names a cause on a healthy run. Benchmarks measure; they are not tests.
"""

from __future__ import annotations

import argparse
import sys

CONFIGS = {
    # name: (batch size, optimizer, lr, momentum)
    "b4-sgdm": (4, "sgd", 0.05, 0.9),
    "b16-sgdm": (16, "sgd", 0.05, 0.9),
    "b4-adam": (4, "adam", 1e-3, 0.0),
    "b32-adam": (32, "adam", 1e-3, 0.0),
}


def _stream(torch, kind, n, classes, width, seed):
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, width, generator=g) * (0.0 if kind == "memory" else 1.2)
    y = torch.randint(0, classes, (n,), generator=g)
    x = centres[y] + torch.randn(n, width, generator=g)
    if kind == "sorted":
        order = torch.argsort(y, stable=True)
        x, y = x[order], y[order]
    return x, y


def _batches(torch, x, y, bs, classes):
    return [((x[i:i + bs],), {}, y[i:i + bs], (len(y[i:i + bs]), classes)) for i in range(0, len(y) - bs + 1, bs)]


def one(torch, kb, kind, cfg, seed, classes=5, width=16):
    from traindx.engine import differential
    from traindx.engine.parameters import resolve
    from traindx.probes.live.experiments import run_experiment
    bs, opt_name, lr, mom = CONFIGS[cfg]
    hidden = 32
    if kind == "memory":
        width, hidden, opt_name, lr = 48, 256, "adam", 1e-2
    keep = int(resolve(None)["experiments.buffer_batches"])
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes))
    opt = (torch.optim.SGD(model.parameters(), lr=lr, momentum=mom) if opt_name == "sgd"
           else torch.optim.Adam(model.parameters(), lr=lr))
    fn = torch.nn.CrossEntropyLoss()
    # the run so far: one pass over a first stretch of the same kind of stream (a memory run starts
    # its experiment from fresh weights: the first stretch teaches it nothing to keep)
    x, y = _stream(torch, kind, bs * keep * 2, classes, width, seed)
    first = _batches(torch, x[:bs * keep], y[:bs * keep], bs, classes)
    for (a,), _, t, _ in (first if kind != "memory" else ()):
        opt.zero_grad()
        fn(model(a), t).backward()
        opt.step()
    # the window the monitor keeps; a sorted run's window is sorted by label within itself
    wx, wy = x[bs * keep:], y[bs * keep:]
    if kind == "sorted":
        order = torch.argsort(wy, stable=True)
        wx, wy = wx[order], wy[order]
    r = run_experiment(model, opt, _batches(torch, wx, wy, bs, classes), fn, differential.spec(kb, "shuffle"))
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--configs", default="all")
    a = ap.parse_args(argv)
    import torch

    from traindx.engine.loader import load_kb
    torch.set_num_threads(1)
    kb = load_kb()
    cfgs = list(CONFIGS) if a.configs == "all" else a.configs.split(",")
    totals = {}
    for kind in ("shuffled", "memory", "sorted"):
        for cfg in cfgs:
            counts = {"confirms": 0, "inconclusive": 0, "refutes": 0, "skipped": 0}
            gains = []
            for seed in range(a.seeds):
                r = one(torch, kb, kind, cfg, seed)
                counts[r["outcome"] or "skipped"] += 1
                if r.get("gain") is not None:
                    gains.append(r["gain"])
            t = totals.setdefault(kind, {k: 0 for k in counts})
            for k, v in counts.items():
                t[k] += v
            med = sorted(gains)[len(gains) // 2] if gains else float("nan")
            print(f"{kind:9s} {cfg:9s} " + "  ".join(f"{k} {v:2d}" for k, v in counts.items())
                  + f"  median gain {med:+.3f}", flush=True)
    for kind, t in totals.items():
        n = sum(t.values())
        print(f"{kind:9s} all       " + "  ".join(f"{k} {v}/{n}" for k, v in t.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
