#!/usr/bin/env python
"""How long traindx takes to read a complaint: the example classifier alone (similarities and resemblance
of every tune utterance) and a whole complaint (``Session.add_complaint`` + ``report``, every 12th tune
complaint), in CPU milliseconds per text. Measures and prints; not a timed test.

    python benchmarks/bench_understand.py [--every 12]

Run it with two installations (a worktree of the old commit and the new) to compare them on one machine.
"""

from __future__ import annotations

import argparse
import glob
import os
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=12, help="whole complaints: every Nth tune complaint")
    args = ap.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
