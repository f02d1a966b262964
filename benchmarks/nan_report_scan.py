"""Which tuning console logs hold a NaN/Inf report that names its own step ("Loss became infinite or NaN at
iteration=756!"), and by what axis their records are counted: the reader takes that step for ``nan_first_step`` only
where the records carry no step of their own (the axis is ``row``), so this lists the pasted and finished tuning logs
that change can touch (session 46, words46).

    python benchmarks/nan_report_scan.py

Reads only the PASTED_TUNING and FINISHED_TUNING splits of benchmarks/curve_features.py."""

from __future__ import annotations

import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main() -> int:
    from curve_features import FINISHED_TUNING, PASTED_TUNING

    from traindx.engine.api import load_kb
    from traindx.engine.errors import InputError
    from traindx.probes.readers.console import read_console_text
    params = load_kb([]).params()
    files = []
    for split in PASTED_TUNING:
        files += sorted(glob.glob(os.path.join(HERE, "pasted_logs", split, "*.txt")))
    for split in FINISHED_TUNING:
        files += sorted(glob.glob(os.path.join(HERE, "finished_runs", split, "*", "console.log")))
    named = changed = 0
    for path in files:
        with open(path, errors="replace") as fh:
            try:
                log = read_console_text(fh.read(), name=os.path.basename(path), params=params)
            except InputError:          # a log the reader refuses (a reinforcement-learning run, no metrics)
                continue
        if log.nan_report_step is None:
            continue
        named += 1
        changed += log.x_label == "row"
        print(f"{os.path.relpath(path, HERE)}: axis {log.x_label}, the report names step {log.nan_report_step}")
    print(f"{len(files)} tuning console logs; {named} name the step of a NaN/Inf report; "
          f"{changed} count their records by row (nan_first_step taken from the report)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
