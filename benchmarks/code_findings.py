#!/usr/bin/env python
"""The code reader's findings on every benchmark script, written out and compared: the reach of a
code-reader change, before any diagnosis (which (fact, value, source) a change adds or removes where).

    python benchmarks/code_findings.py --out AFTER.json [--compare BEFORE.json] [--tuning]

(``--tuning``: tuning material only, the held-out scenarios and finished splits left unread.)

Reads every ``benchmarks/scenarios/s*.py`` and ``benchmarks/finished_runs/*/*/train.py`` with the installed
traindx; run it once on the old code (``--out BEFORE.json``) and once on the new (``--compare``).
"""

from __future__ import annotations

import argparse
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def findings(tuning: bool = False) -> dict[str, list]:
    from traindx.probes.readers.code import analyze_code
    paths = sorted(glob.glob(os.path.join(HERE, "scenarios", "s*.py"))
                   + glob.glob(os.path.join(HERE, "finished_runs", "*", "*", "train.py")))
    if tuning:
        import sys
        sys.path.insert(0, HERE)
        from code_fact_scan import tuning_only
        paths = tuning_only(paths)
    out = {}
    for p in paths:
        try:
            rows = {(f.fact, json.dumps(f.value, default=str), f.source) for f in analyze_code(p).findings}
        except Exception as e:  # noqa: BLE001 - an unreadable script is a row too
            rows = {("ERROR", type(e).__name__, "")}
        out[os.path.relpath(p, HERE)] = sorted(rows)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare")
    ap.add_argument("--tuning", action="store_true", help="read tuning material only (no held-out script)")
    args = ap.parse_args(argv)
    now = findings(args.tuning)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(now, fh)
    print(f"{len(now)} scripts read")
    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            before = json.load(fh)
        changed = 0
        for k in sorted(set(before) | set(now)):
            a, b = set(map(tuple, before.get(k, []))), set(map(tuple, now.get(k, [])))
            if a != b:
                changed += 1
                print(f"{k}: removed {sorted(a - b)} added {sorted(b - a)}")
        print(f"{changed} of {len(now)} scripts read differently")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
