"""Fit the progress-symptom boundaries on tuning data and report them leave-one-set-out.

Input: the JSON lines that ``benchmarks/curve_features.py --out FILE`` writes (one row per tuning
case: label, returned symptom, curve facts). Each *boundary* below is a one-threshold decision on
one curve feature inside one region of cases (e.g. levelled-off losses of pasted logs that name no
loss function or class count). For each boundary the threshold is fitted on all tuning folders but
one (the cut that gets the most cases of those folders right, placed midway between the two
neighbouring feature values) and scored on the folder left out, beside that folder's score with
the boundary as shipped. A boundary earns a place in kb/parameters only when the folders left out
gain from it; the numbers printed are what docs/BENCHMARKS.md reports.

    python benchmarks/curve_features.py --out /tmp/features.jsonl
    python benchmarks/fit_progress.py /tmp/features.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys

#: the class counts rule:derive-levelled-at-ln2 tries (a standard task's C)
STANDARD_C = (2, 3, 4, 5, 10, 100, 1000)


def chance_distance(r: dict) -> float | None:
    """Relative distance of the current loss to the nearest ln C of a standard class count."""
    c = r.get("current_loss")
    if not isinstance(c, (int, float)):
        return None
    return min(abs(c - math.log(k)) / math.log(k) for k in STANDARD_C)


#: name -> (region test, feature, label predicted when feature <= cut, shipped cut)
BOUNDARIES = {
    "levelled at ln C (rules.ln2_level_tolerance)": (
        lambda r: r["corpus"] == "pasted" and r.get("loss_trend") in ("flat", "plateaued")
        and r.get("num_classes") is None,
        chance_distance, "not_learning", 0.002),
    "mid-run flat excerpt still falling (Kendall tau), healthy": (
        lambda r: r.get("loss_trend") == "flat" and r.get("log_starts_mid_run") is True
        and (r.get("n") or 0) >= 3,
        lambda r: r.get("tau"), "healthy", None),
    "mid-run flat excerpt still falling (Kendall tau), slow": (
        lambda r: r.get("loss_trend") == "flat" and r.get("log_starts_mid_run") is True
        and (r.get("n") or 0) >= 3,
        lambda r: r.get("tau"), "slow_training", None),
    "levelled off after a small fall is not learning (loss_decrease_fraction)": (
        lambda r: r.get("loss_trend") == "plateaued" and r.get("log_starts_mid_run") is False,
        lambda r: r.get("loss_decrease_fraction"), "not_learning", None),
    "levelled off after a small fall is slow (loss_decrease_fraction)": (
        lambda r: r.get("loss_trend") == "plateaued" and r.get("log_starts_mid_run") is False,
        lambda r: r.get("loss_decrease_fraction"), "slow_training", None),
    "levelled off at a low accuracy is not learning (accuracy, class count unknown)": (
        lambda r: r.get("loss_trend") == "plateaued" and r.get("num_classes") is None
        and _acc(r) is not None,
        lambda r: _acc(r), "not_learning", None),
}


def _acc(r: dict) -> float | None:
    accs = [r[k] for k in ("train_accuracy", "val_accuracy") if isinstance(r.get(k), (int, float))]
    return min(accs) if accs else None


def predict(r: dict, region, feature, label, cut, shipped) -> str | None:
    """The symptom with the boundary at ``cut`` (None: the boundary off). Rows the boundary does
    not cover keep what traindx returned; a row the shipped boundary labelled and ``cut`` does not
    counts as unknown (None: wrong), since which symptom it would get instead is not recorded."""
    v = feature(r) if region(r) else None
    if v is None:
        return r["got"]
    if cut is not None and v <= cut:
        return label
    if shipped is not None and v <= shipped and r["got"] == label:
        return None
    return r["got"]


def fit(rows: list, region, feature, label, shipped) -> float | None:
    vals = sorted({feature(r) for r in rows if region(r) and feature(r) is not None})
    cands = [None] + [(a + b) / 2 for a, b in zip(vals, vals[1:])] + ([vals[-1]] if vals else [])
    best, best_ok = shipped, sum(predict(r, region, feature, label, shipped, shipped) == r["want"] for r in rows)
    for c in cands:
        ok = sum(predict(r, region, feature, label, c, shipped) == r["want"] for r in rows)
        if ok > best_ok:
            best, best_ok = c, ok
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("features", help="JSON lines from benchmarks/curve_features.py --out")
    a = ap.parse_args(argv)
    with open(a.features, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    folders = sorted({(r["corpus"], r["split"]) for r in rows})
    for name, (region, feature, label, shipped) in BOUNDARIES.items():
        print(f"== {name}: predicts {label} when the feature <= cut; shipped cut {shipped}")
        cut_all = fit(rows, region, feature, label, shipped)
        tot_before = tot_after = tot_n = 0
        for corpus, sp in folders:
            held = [r for r in rows if (r["corpus"], r["split"]) == (corpus, sp)]
            rest = [r for r in rows if (r["corpus"], r["split"]) != (corpus, sp)]
            cut = fit(rest, region, feature, label, shipped)
            before = sum(predict(r, region, feature, label, shipped, shipped) == r["want"] for r in held)
            after = sum(predict(r, region, feature, label, cut, shipped) == r["want"] for r in held)
            tot_before, tot_after, tot_n = tot_before + before, tot_after + after, tot_n + len(held)
            cs = "off" if cut is None else f"{cut:.4g}"
            print(f"   {corpus:8s} {sp:7s} cut fitted on the others {cs:>7s}: "
                  f"{before}/{len(held)} -> {after}/{len(held)} ({after - before:+d})")
        print(f"   all folders left out in turn: {tot_before}/{tot_n} -> {tot_after}/{tot_n}; "
              f"cut fitted on every folder: {'off' if cut_all is None else f'{cut_all:.4g}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
