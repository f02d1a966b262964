"""Which tuning logs meet rule loss-falls-answers-do-not's curve conditions (session 43, scripts43).

Reads every pasted tuning log and every finished tuning run's console.log with the log reader alone
(``analyze_log``, no code, no rules) and lists those whose training loss lost at least
rules.unscored_fall.min_fall of its start while the training accuracy did not rise and stays under
rules.zero_loss.max_accuracy (the rule's first form); the last two columns say whether the later
conditions (accuracy at least rules.unscored_fall.min_accuracy, validation accuracy not rising) hold.
Held-out splits are never read (PASTED_TUNING / FINISHED_TUNING only).

    python benchmarks/loss_falls_answers_scan.py
"""
from __future__ import annotations

import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from curve_features import FINISHED_TUNING, PASTED_TUNING, cases  # noqa: E402


def _params() -> dict:
    with open(os.path.join(HERE, "..", "kb", "parameters", "rules.yaml"), encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    return {p["id"]: p["value"] for p in doc["parameters"]}


def main() -> int:
    from traindx.probes.readers.logs import analyze_log
    p = _params()
    fall, top, floor = p["rules.unscored_fall.min_fall"], p["rules.zero_loss.max_accuracy"], \
        p["rules.unscored_fall.min_accuracy"]
    n = 0
    for corpus, sp, cid, want, log, _code in cases(list(PASTED_TUNING), list(FINISHED_TUNING)):
        n += 1
        try:
            findings = analyze_log(log)[0] or []
        except Exception:  # noqa: BLE001 -- an unreadable log meets no condition
            continue
        f = {x.fact: x.value for x in findings}
        acc = f.get("train_accuracy")
        if (f.get("loss_trend") in ("decreasing", "plateaued") and (f.get("loss_decrease_fraction") or 0) >= fall
                and f.get("accuracy_trend") in ("flat", "falling") and acc is not None and acc < top
                and f.get("loss_negative") is not True):
            print(f"{corpus}:{sp}/{cid} want={want} train_accuracy={acc} fall={f.get('loss_decrease_fraction')} "
                  f"above_floor={acc >= floor} val_accuracy_trend={f.get('val_accuracy_trend')}")
    print(f"{n} tuning logs read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
