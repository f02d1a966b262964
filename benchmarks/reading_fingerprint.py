#!/usr/bin/env python
"""Fingerprint what the log readers make of every tuning log, to show that a change reads nothing
differently (or to list the logs whose reading it changed).

For each finished run's console.log and each pasted excerpt of the tuning splits (the lists in
``curve_features.py``), and each real log, it hashes: the front-end's one-line summary, findings and
notes (``gather.read_log``), the log reader's series and attributes, and, for console text, the same
text read as a paste. Run it with each tree's own Python and compare:

    TREE_A/.venv/bin/python benchmarks/reading_fingerprint.py --out A.json
    TREE_B/.venv/bin/python benchmarks/reading_fingerprint.py --out B.json --compare A.json

Held-out splits are never read.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING, PASTED_TUNING  # noqa: E402

#: the decimals a series' values are compared at: a change in the seventh digit is no change of reading
DECIMALS = 6
#: characters of a reading kept beside its hash, to show what changed
SHOWN_CHARS = 200


def tuning_logs(real_root: str) -> list[str]:
    paths = []
    for split in FINISHED_TUNING:
        paths += sorted(glob.glob(os.path.join(ROOT, "benchmarks", "finished_runs", split, "*", "console.log")))
    for split in PASTED_TUNING:
        paths += sorted(glob.glob(os.path.join(ROOT, "benchmarks", "pasted_logs", split, "*.txt")))
    if real_root and os.path.isdir(real_root):
        paths += sorted(glob.glob(os.path.join(real_root, "*")))
    return paths


def _log_print(log) -> str:
    attrs = {k: v for k, v in vars(log).items() if not k.startswith("_") and k != "series"}
    series = {r: (s.rows, [tuple(round(float(x), DECIMALS) for x in p) for p in s.points])
              for r, s in log.series.items()}
    return repr(sorted(attrs.items(), key=lambda kv: kv[0])) + repr(sorted(series.items()))


def _attempt(fn) -> str:
    try:
        return fn()
    except Exception as exc:   # a reader's refusal is part of its reading (whole: a cut made before the
        return f"ERR {type(exc).__name__} {exc}"   # tree's path is replaced would differ between trees)


def fingerprint(path: str, ignore: frozenset = frozenset()) -> str:
    """The hash of what the readers make of ``path``; findings of the facts in ``ignore`` are left out."""
    from traindx.engine.frontends.gather import read_log
    from traindx.probes.readers.console import read_console_text
    from traindx.probes.readers.logs import read_log as read_raw

    def front():
        r = read_log(path)
        return r.summary + repr(sorted((f.fact, repr(f.value), f.source) for f in r.findings
                                       if f.fact not in ignore)) + repr(r.notes)

    parts = [_attempt(front), _attempt(lambda: _log_print(read_raw(path)))]
    if path.endswith((".txt", ".log")):
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        parts.append(_attempt(lambda: _log_print(read_console_text(text))))
    parts = [p.replace(ROOT, "ROOT") for p in parts]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest() + " " + parts[0][:SHOWN_CHARS].replace("\n", " ")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="write the fingerprints here (JSON)")
    ap.add_argument("--compare", help="an earlier --out file: list the logs whose reading differs")
    ap.add_argument("--real", default=os.path.join(os.path.dirname(ROOT), "shared", "real-logs"),
                    help="folder of real logs (default: ../shared/real-logs)")
    ap.add_argument("--ignore-fact", action="append", default=[], metavar="FACT",
                    help="leave this fact's findings out (repeatable): a change that adds a new fact reads nothing "
                         "else differently when the logs compare equal without it")
    args = ap.parse_args(argv)
    ignore = frozenset(args.ignore_fact)
    prints = {os.path.relpath(p, ROOT) if p.startswith(ROOT) else p: fingerprint(p, ignore)
              for p in tuning_logs(args.real)}
    with open(args.out, "w") as fh:
        json.dump(prints, fh, indent=0)
    print(f"{len(prints)} logs fingerprinted -> {args.out}")
    if args.compare:
        with open(args.compare) as fh:
            before = json.load(fh)
        changed = sorted(k for k in prints if before.get(k, "").split(" ")[0] != prints[k].split(" ")[0])
        print(f"{len(changed)} of {len(prints)} read differently from {args.compare}")
        for k in changed:
            print(f"  {k}\n    before: {before.get(k, '(absent)')[41:]}\n    after:  {prints[k][41:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
