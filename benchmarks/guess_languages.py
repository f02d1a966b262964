#!/usr/bin/env python
"""How well metric names in an unknown language are read from their values alone
(probes/readers/console_guess.py), measured on the tuning logs whose languages the knowledge base
does know: each log that reads only thanks to console.local_words / console.latin_words is read
again with both emptied (the language unknown), guessing on, and the guessed reading is compared
with the reading under the real words (the roles found, and each role's last value).

    python benchmarks/guess_languages.py [-v]

Held-out splits are never read (the tuning lists of curve_features.py).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING, PASTED_TUNING  # noqa: E402

#: the relative difference of two last values that still counts as the same reading
SAME_VALUE = 1e-6


def _logs() -> list[str]:
    root = os.path.dirname(HERE)
    paths = []
    for split in FINISHED_TUNING:
        paths += sorted(glob.glob(os.path.join(root, "benchmarks", "finished_runs", split, "*", "console.log")))
    for split in PASTED_TUNING:
        paths += sorted(glob.glob(os.path.join(root, "benchmarks", "pasted_logs", split, "*.txt")))
    return paths


def _roles(log) -> dict:
    keep = ("loss", "val_loss", "accuracy", "val_accuracy")
    return {r: s.points[-1].mean for r, s in log.series.items() if r in keep and s.points}


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= SAME_VALUE * max(1.0, abs(b))


def _verdict(truth: dict, got: dict | None) -> str:
    if got is None:
        return "unread"
    if any(r not in truth for r in got):
        return "wrong role"
    if any(not _same(v, truth[r]) for r, v in got.items()):
        return "other series"
    return "same" if got.keys() == truth.keys() else "fewer"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", action="store_true", help="one line per log")
    args = ap.parse_args(argv)
    from traindx.engine.errors import InputError
    from traindx.engine.parameters import shipped
    from traindx.probes.readers.console import read_console
    full = shipped()
    bare = dict(full, **{"console.local_words": {}, "console.latin_words": {}})
    tally = {"same": 0, "fewer": 0, "other series": 0, "wrong role": 0, "unread": 0}
    for path in _logs():
        try:
            truth = _roles(read_console(path, params=full, guess=False))
        except Exception:   # noqa: BLE001 -- unreadable even with the words: not counted
            continue
        try:
            read_console(path, params=bare, guess=False)
            continue                       # reads without the language words: not a language's log
        except InputError:
            pass
        except Exception:   # noqa: BLE001 -- a reader fault without the words: not counted
            continue
        try:
            got = _roles(read_console(path, params=bare, guess=True))
        except InputError:
            got = None
        verdict = _verdict(truth, got)
        tally[verdict] += 1
        if args.v:
            print(f"  {verdict:8s} {os.path.relpath(path, os.path.dirname(HERE))}: words {sorted(truth)}, "
                  f"guessed {sorted(got) if got is not None else '-'}")
    n = sum(tally.values())
    print(f"{n} tuning logs that read only with their language's words; read with those words unknown: "
          + ", ".join(f"{k} {v}" for k, v in tally.items())
          + " (same: every role and last value the words give; fewer: some of them, none other; other series: a"
          " role the words give, read from another printed series of it (an epoch's training loss for the"
          " step's); wrong role: a role the words do not give)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
