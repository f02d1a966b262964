"""How often ``--patch`` can hand over the fix: for every tuning script whose labelled cause has a
patch template in the knowledge base, is a diff written (against the script, or the config file it
reads the value from), and does the patched file still parse?

    python benchmarks/patch_coverage.py [--list]

It asks for the labelled cause's patch directly (no diagnosis), so it measures locating the fault in
the code and editing it, not naming the cause. Tuning material only: finished runs of
FINISHED_TUNING and scenarios before the held-out ones (``code_fact_scan.tuning_only``).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import sys
import tomllib

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def labelled() -> list[tuple[str, str]]:
    """(script, labelled cause) for every tuning scenario and finished run."""
    from code_fact_scan import scripts, tuning_only
    causes = {}
    with open(os.path.join(HERE, "scenarios", "manifest.yaml"), encoding="utf-8") as fh:
        for e in yaml.safe_load(fh) or []:
            causes[os.path.join(HERE, "scenarios", e["file"])] = e.get("root_cause")
    with open(os.path.join(HERE, "finished_runs", "index.yaml"), encoding="utf-8") as fh:
        for r in yaml.safe_load(fh)["runs"]:
            causes[os.path.join(HERE, "finished_runs", r["split"], r["id"], "train.py")] = r.get("cause")
    paths = [p for p in tuning_only(scripts()) if p in causes]
    return [(p, causes[p]) for p in paths if causes[p]]


def _applied(path: str, diff: str) -> str:
    """The script with the diff's hunks applied (a unified diff of one file)."""
    lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
    out, i = [], 0
    for hunk in re.split(r"(?m)^@@ ", diff)[1:]:
        start = int(re.match(r"-(\d+)", hunk).group(1)) - 1
        out += lines[i:start]
        i = start
        for row in hunk.splitlines(keepends=True)[1:]:
            if row.startswith("+"):
                out.append(row[1:])
            elif row.startswith("-"):
                i += 1
            elif row.startswith(" "):
                out.append(lines[i])
                i += 1
    return "".join(out + lines[i:])


def _parse(path: str, text: str) -> None:
    """Parse the patched file as what it is: Python, YAML, JSON or TOML (raises when it does not)."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".py":
        ast.parse(text)
    elif ext == ".json":
        json.loads(text)
    elif ext == ".toml":
        tomllib.loads(text)
    else:
        yaml.safe_load(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="name each script with a template and no patch")
    args = ap.parse_args(argv)
    from traindx.engine.frontends.gather import fix_patch
    from traindx.engine.loader import load_kb
    from traindx.probes.readers.patch import patch_edits
    kb = load_kb()
    per = collections.defaultdict(lambda: [0, 0, 0])
    missed = []
    for path, cause in labelled():
        if not patch_edits(kb, cause):
            continue
        row = per[cause]
        row[0] += 1
        p = fix_patch([path], {}, cause, kb)
        if p is None:
            missed.append((os.path.relpath(path, HERE), cause))
            continue
        row[1] += 1
        target = os.path.abspath(p["file"])
        try:
            _parse(target, _applied(target, p["diff"]))
            row[2] += 1
        except (SyntaxError, ValueError, yaml.YAMLError):
            why = f" (patched {os.path.basename(target)} does not parse)"
            missed.append((os.path.relpath(path, HERE), cause + why))
    total = [sum(r[k] for r in per.values()) for k in range(3)]
    print(f"{'cause':32} {'with template':>13} {'patched':>8} {'parses':>7}")
    for cause, (n, made, ok) in sorted(per.items()):
        print(f"{cause:32} {n:13d} {made:8d} {ok:7d}")
    print(f"{'total':32} {total[0]:13d} {total[1]:8d} {total[2]:7d}")
    if args.list:
        for path, why in missed:
            print(f"  no patch: {path} ({why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
