"""Which benchmark scripts a code fact fires on: the reach of a code-reader change, before any run.

A new code fact can only move the diagnoses of scripts it fires on, so this bounds what a change can
touch. It reads every scenario script, finished-run ``train.py`` and fault-injection base with the
code reader (torch-free, a second or two per script) and lists the scripts where FACT is found, with
its value and detail.

    python benchmarks/code_fact_scan.py loss_own_terms_signed

It lists hits only: a held-out script that fires is named (so a change's reach is known) but its
label and diagnosis are not shown.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = ("scenarios/s*.py", "finished_runs/*/*/train.py", "faultgen/**/*.py")


def scripts() -> list[str]:
    out = []
    for pat in PATTERNS:
        out += sorted(glob.glob(os.path.join(HERE, pat), recursive=True))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fact", help="a code fact's id, e.g. loss_own_terms_signed")
    args = ap.parse_args(argv)
    from traindx.engine.errors import InputError
    from traindx.probes.readers.code import analyze_code

    paths = scripts()
    hits, unread = [], 0
    for p in paths:
        try:
            report = analyze_code(p)
        except (InputError, SyntaxError, UnicodeDecodeError):
            unread += 1
            continue
        hits += [(os.path.relpath(p, HERE), f.value, f.detail) for f in report.findings if f.fact == args.fact]
    print(f"{len(paths)} scripts read ({unread} unreadable); {args.fact} found in {len(hits)}")
    for path, value, detail in hits:
        print(f"  {path}: {value!r} | {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
