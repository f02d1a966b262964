#!/usr/bin/env python
"""Generate the fault-injection benchmark: every base program (bases.py) crossed with every fault
operator that applies to it (operators.py), at each of its magnitudes, plus healthy controls.

Writes one script per run and a manifest (``manifest.yaml``, the scenario suite's format plus
``base``, ``operator``, ``magnitude`` and ``symptoms``: every acceptable symptom) into OUT
(default ``benchmarks/faultgen/generated/``, git-ignored: the scripts are made on demand, never
committed).

Usage:
    python benchmarks/faultgen/generate.py [--out DIR] [--bases a,b] [--operators x,y] [--list]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bases import BASES  # noqa: E402
from operators import OPERATORS  # noqa: E402
from render import render  # noqa: E402

DEFAULT_OUT = HERE / "generated"


def cases(bases=None, operators=None):
    """[(case_id, base, operator, magnitude)] in a fixed order."""
    out = []
    for b in BASES:
        if bases and b.name not in bases:
            continue
        for op in OPERATORS:
            if operators and op.name not in operators:
                continue
            if not op.applies(b):
                continue
            for mag in op.magnitudes:
                out.append((f"{b.name}__{op.name}__{mag[0]}", b, op, mag))
    return out


def manifest_entry(case_id, base, op, mag):
    return {
        "file": f"{case_id}.py",
        "symptom": op.symptoms[0],
        "symptoms": list(op.symptoms),
        "root_cause": op.cause,
        "also_acceptable": list(op.also),
        "gpu_only": False,
        "num_classes": None,
        "summary": f"{base.name} ({base.family}, {base.kind}, {'DataLoader' if base.loader else 'raw tensors'}): "
                   f"{op.summary} [{mag[0]}]",
        "base": base.name,
        "operator": op.name,
        "magnitude": mag[0],
    }


def generate(out: Path, bases=None, operators=None):
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for case_id, base, op, mag in cases(bases, operators):
        spec = op.spec(base, mag)
        title = f"faultgen {case_id}: generated; do not edit."
        (out / f"{case_id}.py").write_text(render(base, spec, seed=0, title=title))
        entries.append(manifest_entry(case_id, base, op, mag))
    (out / "manifest.yaml").write_text(yaml.safe_dump(entries, sort_keys=False, width=200))
    return entries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--bases", default="", help="comma-separated base names (default: all)")
    ap.add_argument("--operators", default="", help="comma-separated operator names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the runs and their ground truth, write nothing")
    args = ap.parse_args(argv)
    bases = {s for s in args.bases.split(",") if s} or None
    ops = {s for s in args.operators.split(",") if s} or None
    found = cases(bases, ops)
    if args.list:
        for case_id, base, op, mag in found:
            print(f"{case_id:<60} {op.cause or 'healthy'}")
    else:
        entries = generate(Path(args.out), bases, ops)
        print(f"wrote {len(entries)} scripts and manifest.yaml to {args.out}")
    faulty = sum(1 for c in found if c[2].cause)
    print(f"{len(found)} runs: {faulty} faulty, {len(found) - faulty} healthy controls, "
          f"{len({c[1].name for c in found})} bases, {len({c[2].name for c in found})} operators")
    return 0


if __name__ == "__main__":
    sys.exit(main())
