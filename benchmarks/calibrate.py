#!/usr/bin/env python
"""Fit the displayed-confidence calibration map on scored runs, and measure it on held-out ones.

The map (``engine/confidence.py`` :func:`calibrated`; parameters ``confidence.calibration.*`` in
kb/parameters/engine.yaml) is a monotone logistic map of the diagnosed cause's log-odds,
``p' = sigmoid(slope * logit(p) + shift)``, applied only when the report's status is ``diagnosed``
(undecided and healthy reports show the raw posterior): it leaves every ranking and every decision
(which use the raw posterior) as they are and only changes the number a report shows. Because it is
applied after everything else, its effect on a scored run is the map applied to the run's top-1
confidence, so cached results of the same code are re-scored without re-running traindx (up to the
two-decimal rounding of the cached confidence).

Inputs are result files of ``benchmarks/faultgen/run.py`` (JSON lines, with a ``base`` per run) or
``benchmarks/run_scenarios.py --json`` (script mode). ``--tune`` files are fitted on; ``--test``
files are only measured. With ``--lobo`` every faultgen base of the tune files is held out in turn
(the map fitted on the other bases), and the held-out ECE is reported over all runs. With
``--lobo-files`` every tune file (a batch: one faultgen run, one scenario batch) is held out in turn
the same way: leave one batch out.

A file scored on code that already applied a map is given as ``FILE@SLOPE,SHIFT`` (the map it
showed), and its diagnosed confidences are mapped back first.

Usage:
    python benchmarks/calibrate.py --tune FG.jsonl [--tune ...] [--test P.json ...] [--lobo]
        [--slope A --shift B]   # measure a given map instead of fitting one
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_scenarios as RS  # noqa: E402

EPS = 1e-3


def load(path: str) -> list[dict]:
    """Scored runs (script mode) of a faultgen JSON-lines file or a run_scenarios JSON file.

    ``FILE@SLOPE,SHIFT``: the file was scored on code that already showed its diagnosed causes
    under that map (``confidence.calibration.*`` at the time); their confidences are mapped back to
    the posterior (up to the two-decimal rounding, and 0.99 shown stays 0.99: the cap hides more)
    so that every file is fitted and measured on the same footing."""
    applied = None
    if "@" in path:
        path, _, spec = path.rpartition("@")
        sa, _, sb = spec.partition(",")
        applied = (float(sa), float(sb or 0.0))
    rows = _load(path)
    if applied is not None:
        a, b = applied
        rows = [{**r, "top1_confidence": unmapped(r["top1_confidence"], a, b)}
                if r.get("status") == "diagnosed" and r["top1_confidence"] < 0.99 else r for r in rows]
    return rows


def unmapped(p: float, slope: float, shift: float) -> float:
    """The posterior that the map ``sigmoid(slope * logit(q) + shift)`` shows as ``p``."""
    return 1.0 / (1.0 + math.exp(-(logit(p) - shift) / slope))


def _load(path: str) -> list[dict]:
    text = Path(path).read_text()
    if path.endswith(".jsonl"):
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        rows = [c["modes"]["script"] if "modes" in c else c for c in json.loads(text)["cases"]]
    return [r for r in rows if r.get("top1_correct") is not None and r.get("top1_confidence") is not None]


def logit(p: float) -> float:
    p = min(max(p, EPS), 1 - EPS)
    return math.log(p / (1 - p))


def mapped(p: float, slope: float, shift: float) -> float:
    return 1.0 / (1.0 + math.exp(-(slope * logit(p) + shift)))


def mapped_row(r: dict, slope: float, shift: float) -> float:
    """A scored run's top-1 confidence as the engine shows it under the map."""
    p = r["top1_confidence"]
    return mapped(p, slope, shift) if r.get("status") == "diagnosed" else p


def fit(rows: list[dict], l2: float = 0.01) -> tuple[float, float]:
    """(slope, shift) minimising the log loss of the mapped top-1 confidence of the diagnosed runs
    (Newton's method, a small ridge toward the identity map slope 1, shift 0)."""
    rows = [r for r in rows if r.get("status") == "diagnosed"]
    if len(rows) < 10:
        return 1.0, 0.0
    xs = [logit(r["top1_confidence"]) for r in rows]
    ys = [1.0 if r["top1_correct"] else 0.0 for r in rows]
    a, b = 1.0, 0.0
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys):
            q = 1.0 / (1.0 + math.exp(-(a * x + b)))
            ga += (q - y) * x
            gb += q - y
            w = q * (1 - q)
            haa += w * x * x
            hab += w * x
            hbb += w
        n = len(xs)
        ga, gb = ga / n + l2 * (a - 1), gb / n + l2 * b
        haa, hab, hbb = haa / n + l2, hab / n, hbb / n + l2
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


def scores(rows: list[dict], slope: float = 1.0, shift: float = 0.0, cap: float = 0.99) -> dict:
    pairs = [(round(min(mapped_row(r, slope, shift), cap), 2), r["top1_correct"]) for r in rows]
    faults = [r for r in rows if r.get("kind") == "fault"]
    return {"n": len(rows), "ece": RS.expected_calibration_error(pairs),
            "top1": RS._rate([r.get("top1_ok") for r in faults]),
            "mean_conf": sum(c for c, _ in pairs) / len(pairs), "accuracy": sum(ok for _, ok in pairs) / len(pairs)}


def _line(name: str, before: dict, after: dict) -> str:
    return (f"  {name:34s} n={before['n']:3d}  top-1 {RS._pct(before['top1'])} -> {RS._pct(after['top1'])}  "
            f"ECE {before['ece']:.3f} -> {after['ece']:.3f}  (mean confidence {before['mean_conf']:.2f} -> "
            f"{after['mean_conf']:.2f}, top-1 right {before['accuracy']:.2f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune", action="append", default=[], help="result file to fit on (repeatable)")
    ap.add_argument("--test", action="append", default=[], help="result file only measured (repeatable)")
    ap.add_argument("--lobo", action="store_true", help="leave-one-base-out over the tune files' faultgen bases")
    ap.add_argument("--lobo-files", action="store_true",
                    help="leave-one-batch-out: each tune file held out in turn, the map fitted on the others")
    ap.add_argument("--slope", type=float, default=None)
    ap.add_argument("--shift", type=float, default=None)
    args = ap.parse_args(argv)
    batches = {p: load(p) for p in args.tune}
    tune = [r for rows in batches.values() for r in rows]
    if args.slope is not None:
        a, b = args.slope, args.shift or 0.0
    elif tune:
        a, b = fit(tune)
    else:
        ap.error("--tune or --slope is needed")
    print(f"map: p' = sigmoid({a:.3f} * logit(p) + {b:+.3f})   (fitted on {len(tune)} runs)")
    if tune:
        print(_line("tune (fitted on)", scores(tune), scores(tune, a, b)))
    if args.lobo and tune:
        bases = sorted({r.get("base") for r in tune if r.get("base")})
        held_before, held_after = [], []
        for base in bases:
            rest = [r for r in tune if r.get("base") != base]
            mine = [r for r in tune if r.get("base") == base]
            ba, bb = fit(rest)
            held_before += [dict(r) for r in mine]
            held_after += [{**r, "top1_confidence": mapped_row(r, ba, bb)} for r in mine]
        print(_line("tune, each base held out", scores(held_before), scores(held_after)))
    if args.lobo_files and len(batches) > 1:
        held_before, held_after = [], []
        for p, mine in batches.items():
            ba, bb = fit([r for q, rows in batches.items() if q != p for r in rows])
            print(_line(f"held out {Path(p.rpartition('@')[0] or p).name} ({ba:.3f}, {bb:+.3f})",
                        scores(mine), scores(mine, ba, bb)))
            held_before += mine
            held_after += [{**r, "top1_confidence": mapped_row(r, ba, bb)} for r in mine]
        print(_line("tune, each file held out", scores(held_before), scores(held_after)))
    for p in args.test:
        rows = load(p)
        print(_line(f"test {Path(p).name}", scores(rows), scores(rows, a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
