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


def held_out_from() -> int:
    """The first held-out scenario number: the last ``Held out: sNNN on`` of the scenario manifest."""
    import re
    with open(os.path.join(HERE, "scenarios", "manifest.yaml"), encoding="utf-8") as fh:
        found = re.findall(r"Held out: s(\d+) on", fh.read())
    return int(found[-1])


def tuning_only(paths: list[str]) -> list[str]:
    """The scripts that are tuning material: finished runs of FINISHED_TUNING splits, scenarios before the
    held-out ones, and the fault-injection bases."""
    import re
    sys.path.insert(0, HERE)
    from curve_features import FINISHED_TUNING
    first = held_out_from()
    out = []
    for p in paths:
        rel = os.path.relpath(p, HERE).split(os.sep)
        if rel[0] == "finished_runs" and rel[1] not in FINISHED_TUNING:
            continue
        m = re.match(r"s(\d+)", rel[-1]) if rel[0] == "scenarios" else None
        if m and int(m.group(1)) >= first:
            continue
        out.append(p)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fact", help="a code fact's id, e.g. loss_own_terms_signed")
    ap.add_argument("--tuning", action="store_true", help="read tuning material only (no held-out script)")
    args = ap.parse_args(argv)
    from traindx.engine.errors import InputError
    from traindx.probes.readers.code import analyze_code

    paths = tuning_only(scripts()) if args.tuning else scripts()
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
