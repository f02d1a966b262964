#!/usr/bin/env python
"""How the console reader's time grows with the pairs a line holds: garbage logs of 60 lines, each
packed with N random ``word number`` pairs (and other packed shapes), read as a paste. A reader whose
work per line is linear in its pairs roughly doubles from one N to the next; the loss-total search
before session 25 was cubic (60 lines x 120 pairs: ~100 s).

    python benchmarks/bench_packed_lines.py [--pairs 15,30,60,120] [--lines 60] [--seed 0]
"""
from __future__ import annotations

import argparse
import random
import time

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text


def _shapes(rng: random.Random) -> dict:
    def w():
        return "".join(rng.choice("abcdefghij") for _ in range(5))

    def v():
        return f"{rng.random():.4f}"
    return {
        "word number": lambda n: " ".join(f"{w()} {v()}" for _ in range(n)),
        "key=value": lambda n: " ".join(f"{w()}={v()}" for _ in range(n)),
        "key: value |": lambda n: " | ".join(f"{w()}: {v()}" for _ in range(n)),
        "dict": lambda n: "{" + ", ".join(f"'{w()}': {v()}" for _ in range(n)) + "}",
        "[word number]": lambda n: " ".join(f"[{w()} {v()}]" for _ in range(n)),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="15,30,60,120")
    ap.add_argument("--lines", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sizes = [int(n) for n in args.pairs.split(",")]
    read_console_text("epoch 1 loss 0.5\nepoch 2 loss 0.4\nepoch 3 loss 0.3")   # load the knowledge base once
    print(f"{'shape':<16}" + "".join(f"{n:>10}" for n in sizes) + "   (seconds per log of "
          f"{args.lines} lines; pairs per line across)")
    for name, make in _shapes(random.Random(args.seed)).items():
        row = []
        for n in sizes:
            text = "\n".join(make(n) for _ in range(args.lines))
            t0 = time.perf_counter()
            try:
                read_console_text(text)
            except InputError:
                pass
            row.append(time.perf_counter() - t0)
        print(f"{name:<16}" + "".join(f"{t:>10.2f}" for t in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
