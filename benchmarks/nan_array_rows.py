#!/usr/bin/env python
"""Which tuning logs print a row of NaN/Inf cells with no finite number beside them, more than
``console.min_headerless_row_numbers`` of them (an array printed after a blow-up; session 43,
paste43): the lines the console reader newly reads as a NaN report. Scans the pasted excerpts of
``PASTED_TUNING`` and the finished runs' console logs of ``FINISHED_TUNING`` and prints each log
with such a row, its expected symptom, the count and the first row:

    python benchmarks/nan_array_rows.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from step_time_shapes import _logs  # noqa: E402


def main() -> int:
    from traindx.engine.parameters import shipped
    from traindx.probes.readers import console as C

    n = int(shipped()["console.min_headerless_row_numbers"])
    found = 0
    for corpus, path, want in _logs():
        rows = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.rstrip("\n")
                m = C._PREFIX.match(line)
                cells = (line[m.end():] if m else line).replace("|", " ").split()
                if C._nan_row(line, n) and not any(C._ROW_NUMBER.fullmatch(c) for c in cells):
                    rows.append(line.strip())
        if rows:
            found += 1
            print(f"  {corpus:8s} {want!s:14s} {len(rows):3d}  {os.path.relpath(path, HERE)}  {rows[0][:80]}")
    print(f"{found} log(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
