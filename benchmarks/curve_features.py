"""Dump the curve features the log reader computes, beside each tuning case's label.

For every pasted tuning log (``pasted_logs/<split>/<id>.txt``) and every finished tuning run
(``finished_runs/<split>/<id>/console.log`` with its script), the log is diagnosed as the CLI does
and the facts that decide the progress symptoms (loss_trend, loss_decrease_fraction, loss_noise,
loss_pace, loss_creeping, log_starts_mid_run, accuracies, ...) are printed or written as JSON lines
together with the expected and the returned symptom, plus a few shape measures computed here from
the training-loss series (Kendall's tau over the run and over its second half, the second half's
fall over the first half's). Held-out splits are refused: this is for tuning material only.

    python benchmarks/curve_features.py --out /tmp/features.jsonl
    python benchmarks/curve_features.py --pasted tune,tune2 --finished tune --table
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_finished import _diagnose, _symptom  # noqa: E402

PASTED_TUNING = ("tune", "tune2", "tune3", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9",
                 "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16", "fresh17",
                 "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24",
                 "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32",
                 "fresh33", "fresh34", "fresh35", "fresh36", "fresh37",
                 "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46")
FINISHED_TUNING = ("tune", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9",
                   "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16",
                   "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24",
                   "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31",
                   "fresh32", "fresh33", "fresh34",
                   "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43")
FACTS = ("loss_trend", "loss_decrease_fraction", "loss_noise", "loss_pace", "loss_creeping",
         "log_starts_mid_run", "run_length_steps", "initial_loss", "current_loss", "loss_spikes",
         "val_loss_trend", "train_accuracy", "val_accuracy", "loss_at_chance", "num_classes",
         "loss_frozen", "best_val_fraction", "train_val_gap", "step_time_trend", "data_time_fraction", "speed_only",
         "lr_rising")


def tau(ys: list) -> float | None:
    """Kendall's tau of ``ys`` against its order (ties count zero); None under 3 points."""
    n = len(ys)
    if n < 3:
        return None
    s = sum((ys[j] > ys[i]) - (ys[j] < ys[i]) for i in range(n) for j in range(i + 1, n))
    return s / (n * (n - 1) / 2)


def shape(path: str) -> dict:
    from traindx.probes.readers.logs import read_log
    try:
        log = read_log(path)
    except Exception as e:  # noqa: BLE001 -- an unreadable log is a row too
        return {"read_error": str(e)[:120]}
    s = log.series.get("loss") if hasattr(log, "series") else None
    if s is None:
        return {"n": 0}
    ys = [p.mean for p in s.points if isinstance(p.mean, float) and p.mean == p.mean and abs(p.mean) != float("inf")]
    out = {"n": len(ys)}
    if len(ys) >= 3:
        h = len(ys) // 2
        out["tau"] = round(tau(ys[:512]), 3)
        out["tau2"] = round(tau(ys[h:][:512]), 3) if len(ys) - h >= 3 else None
        first = ys[0] - ys[h]
        second = ys[h] - ys[-1]
        out["decel"] = round(second / first, 3) if first else None
    return out


def cases(pasted, finished):
    if pasted:
        with open(os.path.join(HERE, "pasted_logs", "index.yaml"), encoding="utf-8") as fh:
            index = yaml.safe_load(fh)
        for e in index:
            if e["split"] in pasted:
                yield ("pasted", e["split"], e["id"], e["symptom"],
                       os.path.join(HERE, "pasted_logs", e["split"], e["id"] + ".txt"), None)
    for sp in finished:
        root = os.path.join(HERE, "finished_runs", sp)
        for rid in sorted(os.listdir(root)):
            run = os.path.join(root, rid)
            if os.path.isfile(os.path.join(run, "meta.yaml")):
                with open(os.path.join(run, "meta.yaml"), encoding="utf-8") as fh:
                    meta = yaml.safe_load(fh)
                yield ("finished", sp, rid, meta["symptom"], os.path.join(run, "console.log"),
                       os.path.join(run, "train.py"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pasted", default=",".join(PASTED_TUNING))
    ap.add_argument("--finished", default=",".join(FINISHED_TUNING))
    ap.add_argument("--out", help="write JSON lines here")
    ap.add_argument("--table", action="store_true", help="print one line per case")
    a = ap.parse_args(argv)
    pasted = [s for s in a.pasted.split(",") if s]
    finished = [s for s in a.finished.split(",") if s]
    bad = [s for s in pasted if s not in PASTED_TUNING] + [s for s in finished if s not in FINISHED_TUNING]
    if bad:
        print(f"held-out splits are not for tuning: {', '.join(bad)}", file=sys.stderr)
        return 2
    out = open(a.out, "w", encoding="utf-8") if a.out else None
    for corpus, sp, cid, want, log, code in cases(pasted, finished):
        args = (["--code", code] if code else []) + ["--log", log]
        rep = _diagnose(args)
        facts = {f["fact"]: f["value"] for f in rep.get("facts") or [] if f["fact"] in FACTS}
        row = {"corpus": corpus, "split": sp, "id": cid, "want": want, "got": _symptom(rep),
               "error": (rep.get("error") or "")[:120] or None, **facts, **shape(log)}
        if out:
            out.write(json.dumps(row, default=str) + "\n")
        if a.table:
            keys = ("loss_trend", "loss_decrease_fraction", "loss_noise", "n", "tau", "tau2", "decel",
                    "log_starts_mid_run", "loss_pace", "loss_creeping", "train_accuracy", "val_accuracy")
            print(f"{'+' if row['want'] == row['got'] else '-'} {corpus[0]}:{sp}/{cid:10s} {want:>13s} -> "
                  f"{str(row['got']):13s} " + " ".join(f"{k}={_fmt(row.get(k))}" for k in keys if k in row)
                  + (f" ERR {row['error']}" if row["error"] else ""), flush=True)
    if out:
        out.close()
    return 0


def _fmt(v):
    return f"{v:.3g}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    sys.exit(main())
