"""What loading the core knowledge base costs a fresh process, with the compiled schema validator and
with the Python one alone, side by side in one run.

    python benchmarks/bench_kb_load.py [--rounds 7]

Every ``traindx`` command that diagnoses or checks loads the knowledge base once in a new process, so
this is start-up time a user waits for each time. Each round starts one process per variant, in
alternating order, and reads the CPU seconds the process spent in ``load_kb`` (CPU time, so a busy
machine skews it less than wall time). Printed: the median per variant and their ratio, and the
share of the load spent in YAML, shape checks and pattern compilation for the compiled variant.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, re, time
import traindx.engine.loader as L
parts = {}
def timed(mod, name):
    f = getattr(mod, name)
    def g(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            parts[name] = parts.get(name, 0.0) + time.process_time() - t
    setattr(mod, name, g)
timed(L, "load_yaml"); timed(L, "validate_shape"); timed(re, "compile")
t = time.process_time()
L.load_kb(entry_point_packs=False)
print(json.dumps({"total": time.process_time() - t, **parts}))
"""

VARIANTS = {"compiled": "compiled", "python only": "python"}


def _one(variant: str) -> dict:
    env = dict(os.environ, TRAINDX_SCHEMA_VALIDATOR=VARIANTS[variant])
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    runs: dict = {v: [] for v in VARIANTS}
    for i in range(args.rounds):
        order = list(VARIANTS) if i % 2 == 0 else list(reversed(VARIANTS))
        for v in order:
            runs[v].append(_one(v))
    med = {v: statistics.median(r["total"] for r in runs[v]) for v in VARIANTS}
    for v in VARIANTS:
        parts = {k: statistics.median(r.get(k, 0.0) for r in runs[v]) for k in ("load_yaml", "validate_shape",
                                                                                 "compile")}
        print(f"{v:12s} load_kb {med[v]:.3f} s CPU (median of {args.rounds}); YAML {parts['load_yaml']:.3f} s, "
              f"shape checks {parts['validate_shape']:.3f} s, pattern compilation {parts['compile']:.3f} s")
    print(f"ratio compiled / python only: {med['compiled'] / med['python only']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
