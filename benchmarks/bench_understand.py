#!/usr/bin/env python
"""How long traindx takes to read a complaint: the example classifier alone (similarities and resemblance
of every tune utterance) and a whole complaint (``Session.add_complaint`` + ``report``, every 12th tune
complaint), in CPU milliseconds per text. Measures and prints; not a timed test.

    python benchmarks/bench_understand.py [--every 12]
    python benchmarks/bench_understand.py --fresh 3

Run it with two installations (a worktree of the old commit and the new) to compare them on one machine.
``--fresh N`` instead measures what one ``traindx diagnose --complaint`` costs in a new process (the CPU
of N child processes each, median), side by side in one run: with the classifier's store switched off
(built in every process), the first process of a new store (built and written), and later processes
(read from the store; engine/examplestore.py).
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=12, help="whole complaints: every Nth tune complaint")
    ap.add_argument("--fresh", type=int, default=0, metavar="N",
                    help="instead: CPU seconds of a complaint diagnosis in a new process, N runs per case")
    args = ap.parse_args(argv)
    if args.fresh:
        return fresh(args.fresh)
    from traindx.engine.api import Session
    from traindx.engine.loader import load_kb
    kb = load_kb(entry_point_packs=False)
    texts = []
    for f in sorted(glob.glob(os.path.join(HERE, "complaints", "tune", "*.yaml"))):
        with open(f, encoding="utf-8") as fh:
            texts += [c["text"] for c in yaml.safe_load(fh) or [] if isinstance(c, dict)]
    model = kb.language.model                      # built here, outside the clock
    t = time.process_time()
    for x in texts:
        model.similarities(x)
        model.resemblance(x)
    print(f"classifier: {len(texts)} texts, {1000 * (time.process_time() - t) / len(texts):.1f} ms a text (CPU)")
    some = texts[::args.every]
    s = Session(kb)
    s.add_complaint(some[0])
    s.report()                                     # warm
    t = time.process_time()
    for x in some:
        s = Session(kb)
        s.add_complaint(x)
        s.report()
    print(f"complaint: {len(some)} complaints, {1000 * (time.process_time() - t) / len(some):.1f} ms each "
          "(understanding + report, CPU)")
    return 0


COMPLAINT = "my loss is stuck at 2.3 after 5 epochs, 10 classes, Adam lr=1e-3"


def _child_cpu(cache: str) -> float:
    """CPU seconds (user + system) of one ``traindx diagnose --complaint`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "traindx.engine", "diagnose", "--complaint", COMPLAINT,
                    "--non-interactive"], check=True, capture_output=True,
                   env=dict(os.environ, TRAINDX_CACHE_DIR=cache))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fresh(n: int) -> int:
    off, cold, warm = [], [], []
    for _ in range(n):                      # interleaved, so a change in the machine's load hits all three
        off.append(_child_cpu("off"))
        with tempfile.TemporaryDirectory() as d:
            cold.append(_child_cpu(d))
            warm.append(_child_cpu(d))
    m = {k: statistics.median(v) for k, v in (("off", off), ("cold", cold), ("warm", warm))}
    print(f"complaint in a new process, CPU s (median of {n}): store off {m['off']:.2f}, "
          f"first (build + write) {m['cold']:.2f}, later (read) {m['warm']:.2f}; "
          f"later/off {m['warm'] / m['off']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
