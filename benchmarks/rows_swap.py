#!/usr/bin/env python
"""Totals of a finished-run benchmark with some runs' rows taken from another tree's rows.

When a change provably touches only some runs (``reading_fingerprint.py`` lists the logs it reads differently, a
scan of the scripts bounds a code-reader change), the other tree's totals over a whole corpus are its rows for those
runs put in place of this tree's: ``run_finished.py finished --rows ALL.jsonl`` on one tree, ``--only RUNS --rows
SUB.jsonl`` on the other, then

    python benchmarks/rows_swap.py ALL.jsonl SUB.jsonl

prints symptom, top-1, causes named on healthy runs and the ECE (as ``run_finished.py`` scores them) of ALL with
SUB's rows swapped in, and of ALL as it is.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_finished as RF  # noqa: E402


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def totals(rows: list[dict]) -> str:
    s = RF._summary_finished(rows)
    s = s.get("all") or next(v for k, v in s.items() if k != "_rows")
    ece = "n/a" if s["ece"] is None else f"{s['ece']:.3f}"
    return (f"{s['runs']} runs: symptom {s['symptom']}/{s['runs']}, top-1 {s['top1']}/{s['faulty']}, cause named "
            f"on healthy runs {s['cause_on_healthy']}/{s['healthy']}, ECE {ece}")


def main(argv: list[str]) -> int:
    base, sub = _rows(argv[0]), {r["id"]: r for r in _rows(argv[1])}
    missing = set(sub) - {r["id"] for r in base}
    if missing:
        print(f"not in {argv[0]}: {', '.join(sorted(missing))}", file=sys.stderr)
        return 2
    print(f"{argv[0]} as it is:       {totals(base)}")
    print(f"with {len(sub)} rows of {argv[1]}: {totals([sub.get(r['id'], r) for r in base])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
