#!/usr/bin/env python
"""Which pasted tuning excerpts a given symptom rule decides, with the curve facts it saw: to tell whether
a rule's right and wrong verdicts differ in any fact before tuning it.

    python benchmarks/pasted_rule_census.py --rule symptom-flat-mid-run --labels healthy,plateau

Diagnoses each excerpt of the tuning splits (``curve_features.PASTED_TUNING``; held-out splits are never
read) whose label is among ``--labels`` and prints those whose symptom the rule set: id, label, verdict and
the curve facts.
"""

from __future__ import annotations

import argparse
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_finished as RF  # noqa: E402
from curve_features import PASTED_TUNING  # noqa: E402

SHOWN = ("loss_trend", "loss_noise", "run_length_steps", "val_evaluations", "val_still_improving",
         "val_loss_trend", "loss_decrease_fraction", "loss_pace", "loss_creeping", "train_val_gap",
         "current_loss", "initial_loss", "train_accuracy", "val_accuracy", "accuracy_trend")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rule", required=True, help="a symptom rule id, e.g. symptom-flat-mid-run")
    ap.add_argument("--labels", required=True, help="labelled symptoms to look at, comma-separated")
    a = ap.parse_args(argv)
    labels = set(a.labels.split(","))
    root = os.path.join(HERE, "pasted_logs")
    with open(os.path.join(root, "index.yaml"), encoding="utf-8") as fh:
        index = yaml.safe_load(fh)
    counts: dict = {}
    for e in index:
        if e["split"] not in PASTED_TUNING or e["symptom"] not in labels:
            continue
        rep = RF._diagnose(["--log", os.path.join(root, e["split"], e["id"] + ".txt")])
        facts = {f["fact"]: f for f in rep.get("facts") or []}
        if facts.get("symptom", {}).get("source") != "rule:" + a.rule:
            continue
        got = RF._symptom(rep)
        counts[(e["symptom"], got)] = counts.get((e["symptom"], got), 0) + 1
        print(e["id"], e["symptom"], "->", got, {k: facts[k]["value"] for k in SHOWN if k in facts})
    for (want, got), n in sorted(counts.items()):
        print(f"{n:4d}  {want} -> {got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
