"""The full fuzz run (issue 14) passes in CI: >= 10,000 generated hostile inputs, 0 tracebacks.

``benchmarks/fuzz.py`` feeds mutated knowledge-base files and packs, answers files, configs, logs of
every format, pasted complaints and MCP requests through the functions the CLI and MCP front-ends
call. Every case must end in a result or in a one-line rejection naming its file; anything else is
a traceback a user would see. Deterministic for its seed, so this test is not flaky.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
def test_ten_thousand_hostile_inputs_end_in_a_result_or_one_line():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "fuzz.py"), "--cases", "10000",
                           "--seed", "0"], capture_output=True, text=True, timeout=1800, cwd=ROOT)
    out = proc.stdout + proc.stderr
    total = re.search(r"^total\s+(\d+) cases\s+(\d+) accepted\s+(\d+) rejected\s+(\d+) tracebacks\s+"
                      r"(\d+) multi-line rejections\s+(\d+) rejections not naming their file", out, re.M)
    assert total, out[-3000:]
    cases, accepted, rejected, tracebacks, multiline, unnamed = map(int, total.groups())
    assert cases >= 10_000
    assert accepted + rejected == cases
    assert (tracebacks, multiline, unnamed) == (0, 0, 0), out[-3000:]
    peak = float(re.search(r"peak RSS (\d+) MB", out).group(1))
    # torch is imported to write TensorBoard files (~300 MB); hostile input must not add GBs on top.
    # (fuzz.py reads its own peak, VmHWM: ru_maxrss would carry the ~1 GB of the pytest worker it was
    # forked from, which failed this line in CI at 1045 MB while the fuzz run itself peaked near 470 MB)
    assert peak < 1024, out[-500:]
    # every case is answered in bounded time: one quadratic pattern made a 54 KB CSV take 31-60 s. The bound is
    # on the CPU one case used, which a busy machine does not inflate (under a load of 8 on 2 cores one
    # answers file took 19.6 s of wall clock for a fraction of that in CPU)
    most_cpu = float(re.search(r"most CPU in one case ([\d.]+) s", out).group(1))
    assert most_cpu < 10, out[-500:]
    assert proc.returncode == 0, out[-3000:]
