"""Which finished tuning runs' console logs read with a given curve fact: the runs a change to that
fact's reading can touch, listed so its before/after can be measured on them alone
(``run_finished.py finished --only``) when the whole tuning set takes too long.

    python benchmarks/log_fact_census.py --fact oscillation_pattern --value periodic
    python benchmarks/log_fact_census.py --fact single_record --value true --split fresh36

Reads each run's ``console.log`` with traindx's log reader and curve analysis only (no script, no
engine); a log the reader refuses is skipped. Held-out splits are refused.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fact", required=True, help="a curve fact, e.g. oscillation_pattern")
    ap.add_argument("--value", required=True, help="its value as printed (true/false for booleans)")
    ap.add_argument("--split", default=",".join(FINISHED_TUNING), help="finished tuning splits, comma-separated")
    a = ap.parse_args(argv)
    splits = [s for s in a.split.split(",") if s]
    bad = [s for s in splits if s not in FINISHED_TUNING]
    if bad:
        print(f"held-out splits are not for tuning: {', '.join(bad)}", file=sys.stderr)
        return 2
    from traindx.engine.errors import InputError
    from traindx.probes.readers.logs import analyze_log
    hits, total = [], 0
    for sp in splits:
        d = os.path.join(HERE, "finished_runs", sp)
        for rid in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            log = os.path.join(d, rid, "console.log")
            if not os.path.isfile(log):
                continue
            total += 1
            try:
                findings, _ = analyze_log(log)
            except InputError:
                continue
            value = {f.fact: f.value for f in findings}.get(a.fact)
            if str(value).lower() == a.value.lower():
                hits.append(f"{sp}/{rid}")
    print(f"{len(hits)} of {total} finished tuning runs read {a.fact} = {a.value}")
    for h in hits:
        print(h)
    print("--only " + ",".join(h.split("/", 1)[1] for h in hits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
