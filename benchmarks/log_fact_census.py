"""Which tuning logs read with a given curve fact: the runs a change to that fact's reading can touch,
listed so its before/after can be measured on them alone (``run_finished.py finished --only``) when the
whole tuning set takes too long.

    python benchmarks/log_fact_census.py --fact oscillation_pattern --value periodic
    python benchmarks/log_fact_census.py --fact single_record --value true --split fresh36
    python benchmarks/log_fact_census.py --fact grad_norm_blowup --at-most 0.05
    python benchmarks/log_fact_census.py --fact val_mirrors_train --value true --pasted

Reads each finished tuning run's ``console.log`` (with ``--pasted``: each pasted tuning excerpt) with
traindx's log reader and curve analysis only (no script, no engine); a log the reader refuses is
skipped. ``--at-most X`` lists the logs whose numeric value of the fact is X or less, with the value.
Held-out splits are refused.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING, PASTED_TUNING  # noqa: E402


def _logs(splits: list[str], pasted: bool) -> list[tuple[str, str]]:
    """``(name, path)`` of every log of ``splits``: finished runs' console logs, or pasted excerpts."""
    out = []
    for sp in splits:
        d = os.path.join(HERE, "pasted_logs" if pasted else "finished_runs", sp)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, name) if pasted else os.path.join(d, name, "console.log")
            if os.path.isfile(path):
                out.append((f"{sp}/{name}", path))
    return out


def _matches(value, a) -> bool:
    if a.at_most is not None:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value <= a.at_most
    return str(value).lower() == a.value.lower()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fact", required=True, help="a curve fact, e.g. oscillation_pattern")
    ap.add_argument("--value", help="its value as printed (true/false for booleans)")
    ap.add_argument("--at-most", type=float, help="instead of --value: a numeric value at or below this")
    ap.add_argument("--pasted", action="store_true", help="the pasted tuning excerpts instead of finished runs")
    ap.add_argument("--split", help="tuning splits, comma-separated (default: every tuning split)")
    a = ap.parse_args(argv)
    if (a.value is None) == (a.at_most is None):
        ap.error("give one of --value and --at-most")
    tuning = PASTED_TUNING if a.pasted else FINISHED_TUNING
    splits = [s for s in (a.split or ",".join(tuning)).split(",") if s]
    bad = [s for s in splits if s not in tuning]
    if bad:
        print(f"held-out splits are not for tuning: {', '.join(bad)}", file=sys.stderr)
        return 2
    from traindx.engine.errors import InputError
    from traindx.probes.readers.logs import analyze_log
    hits, logs = [], _logs(splits, a.pasted)
    for name, path in logs:
        try:
            findings, _ = analyze_log(path)
        except InputError:
            continue
        value = {f.fact: f.value for f in findings}.get(a.fact)
        if _matches(value, a):
            hits.append((name, value))
    what = f"<= {a.at_most:g}" if a.at_most is not None else f"= {a.value}"
    print(f"{len(hits)} of {len(logs)} {'pasted' if a.pasted else 'finished'} tuning logs read {a.fact} {what}")
    for name, value in hits:
        print(f"{name}  {value}" if a.at_most is not None else name)
    if not a.pasted:
        print("--only " + ",".join(h.split("/", 1)[1] for h, _ in hits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
