#!/usr/bin/env python
"""How the step-time facts a log gives (``step_time_trend``, ``step_time_stalls``) fall by labelled
symptom, on the tuning material only: the pasted excerpts of ``PASTED_TUNING`` and the finished runs'
console logs of ``FINISHED_TUNING``. For each log with a time per step it reads the log as
``traindx diagnose --log`` does (the curve facts alone, no rules) and counts, per expected symptom,
the logs whose step time is increasing, steady or decreasing, and those whose stalls reach
``rules.step_stall_share``:

    python benchmarks/step_time_shapes.py            # both corpora
    python benchmarks/step_time_shapes.py --list     # also each log with a trend or stalls
    python benchmarks/step_time_shapes.py --slowdown # each log with a step_time_slowdown, and its loss_trend
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from collections import Counter, defaultdict

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING, PASTED_TUNING  # noqa: E402


def _logs() -> list[tuple[str, str, str]]:
    """(corpus, path, expected symptom) of every tuning log."""
    out = []
    with open(os.path.join(HERE, "pasted_logs", "index.yaml"), encoding="utf-8") as fh:
        want = {e["id"]: e["symptom"] for e in yaml.safe_load(fh) if e["split"] in PASTED_TUNING}
    for split in PASTED_TUNING:
        for p in sorted(glob.glob(os.path.join(HERE, "pasted_logs", split, "*.txt"))):
            out.append(("pasted", p, want.get(os.path.basename(p)[:-4])))
    for split in FINISHED_TUNING:
        for p in sorted(glob.glob(os.path.join(HERE, "finished_runs", split, "*", "console.log"))):
            with open(os.path.join(os.path.dirname(p), "meta.yaml"), encoding="utf-8") as fh:
                out.append(("finished", p, (yaml.safe_load(fh) or {}).get("symptom")))
    return out


def main(argv=None) -> int:
    from traindx.engine.parameters import shipped
    from traindx.probes.readers.curves import analyze
    from traindx.probes.readers.logs import read_log

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print each log with a trend other than steady, or stalls")
    ap.add_argument("--slowdown", action="store_true",
                    help="print each log with a step_time_slowdown (a step time that outgrows its counter)")
    args = ap.parse_args(argv)
    params = shipped()
    share = params["rules.step_stall_share"]
    table: dict = defaultdict(Counter)
    for corpus, path, want in _logs():
        try:
            _, an = analyze(read_log(path), params=params)
        except Exception:   # a log no reader takes has no step time
            continue
        trend, stalls = an.facts.get("step_time_trend"), an.facts.get("step_time_stalls")
        if trend is None and stalls is None:
            continue
        slow = an.facts.get("step_time_slowdown")
        if args.slowdown and slow is not None:
            print(f"  slowdown {corpus:8s} {want!s:14s} {slow:8.2f}x loss_trend {an.facts.get('loss_trend')!s:12s} "
                  f"{os.path.relpath(path, HERE)}")
        row = table[(corpus, want)]
        row["timed"] += 1
        row[trend or "no trend"] += 1
        row["stalls"] += bool(stalls is not None and stalls >= share)
        if args.list and (trend not in (None, "steady") or (stalls or 0) >= share):
            print(f"  {corpus:8s} {want!s:14s} {trend!s:10s} stalls {stalls}  {os.path.relpath(path, HERE)}")
    print(f"{'corpus':8s} {'symptom':14s} {'timed':>5s} {'incr':>5s} {'steady':>6s} {'decr':>5s} {'none':>5s} "
          f"{'stalls':>6s}")
    for (corpus, want), c in sorted(table.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        print(f"{corpus:8s} {want!s:14s} {c['timed']:5d} {c['increasing']:5d} {c['steady']:6d} "
              f"{c['decreasing']:5d} {c['no trend']:5d} {c['stalls']:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
