#!/usr/bin/env python
"""Which tuning logs hold the reader-side conditions of the frozen-accuracy guard on
``symptom-creeping-loss`` (session 43, paste43): a flat training loss beside a validation accuracy
whose median jump is at most ``rules.frozen_accuracy_swing`` over ``curves.frozen_val_min_evals``
evaluations or more, with neither accuracy rising. Only there can the guard change a symptom (from
Training Slow to Not Learning, where the loss also creeps). Reads the pasted excerpts of
``PASTED_TUNING`` and the finished runs' console logs of ``FINISHED_TUNING`` as ``traindx diagnose
--log`` does (curve facts alone, no rules) and prints each such log with its expected symptom; the
finished run ids, comma-separated, go to ``run_finished.py finished --only``:

    python benchmarks/frozen_accuracy_creeps.py
    python benchmarks/frozen_accuracy_creeps.py --ids finished
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from step_time_shapes import _logs  # noqa: E402


def main(argv=None) -> int:
    from traindx.engine.parameters import shipped
    from traindx.probes.readers.curves import analyze
    from traindx.probes.readers.logs import read_log

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ids", choices=["pasted", "finished"], help="print only this corpus's ids, comma-separated")
    args = ap.parse_args(argv)
    p = shipped()
    ids = []
    for corpus, path, want in _logs():
        try:
            _, an = analyze(read_log(path), params=p)
        except Exception:   # a log no reader takes
            continue
        f = an.facts
        swing = f.get("val_accuracy_swing")
        if f.get("loss_trend") != "flat" or swing is None or swing > p["rules.frozen_accuracy_swing"] \
                or (f.get("val_evaluations") or 0) < p["curves.frozen_val_min_evals"] \
                or "rising" in (f.get("accuracy_trend"), f.get("val_accuracy_trend")):
            continue
        rid = os.path.basename(os.path.dirname(path)) if corpus == "finished" else os.path.basename(path)[:-4]
        if args.ids:
            if corpus == args.ids:
                ids.append(rid)
        else:
            print(f"  {corpus:8s} {want!s:14s} {os.path.relpath(path, HERE)}")
    if args.ids:
        print(",".join(ids))
    return 0


if __name__ == "__main__":
    sys.exit(main())
