"""Where the test suite's CPU goes: a pytest plugin that records each test's CPU, and a summary by module.

The wall clock of a test on a shared 2-core machine says more about the load than about the test; the CPU it
uses (its process and every child it waited for, ``resource.getrusage``) does not. Record, then summarise:

    SUITE_CPU_DIR=/tmp/cpu PYTHONPATH=benchmarks python -m pytest -q -n 2 --dist loadscope -p suite_cpu
    python benchmarks/suite_cpu.py /tmp/cpu [--top 25]

Each worker appends ``nodeid<TAB>own CPU s<TAB>children's CPU s<TAB>wall s`` rows to ``DIR/<pid>.tsv``
(fixture setup and teardown included: a module's fixture counts in its first test).
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import sys
import time
from collections import defaultdict

import pytest

_out = None


def _cpu() -> tuple[float, float]:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _out
    if _out is None:
        d = os.environ.get("SUITE_CPU_DIR", "suite_cpu")
        os.makedirs(d, exist_ok=True)
        _out = open(os.path.join(d, f"{os.getpid()}.tsv"), "a", encoding="utf-8")
    a, b = _cpu()
    w = time.perf_counter()
    yield
    c, d = _cpu()
    _out.write(f"{item.nodeid}\t{c - a:.3f}\t{d - b:.3f}\t{time.perf_counter() - w:.3f}\n")
    _out.flush()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)
    cpu, n = defaultdict(float), defaultdict(int)
    for path in glob.glob(os.path.join(args.dir, "*.tsv")):
        with open(path, encoding="utf-8") as fh:
            for row in fh:
                node, own, kids, _wall = row.rstrip("\n").split("\t")
                mod = node.split("::")[0]
                cpu[mod] += float(own) + float(kids)
                n[mod] += 1
    total = sum(cpu.values())
    print(f"{sum(n.values())} tests, {total:.0f} s of CPU")
    for mod in sorted(cpu, key=cpu.get, reverse=True)[:args.top]:
        print(f"{cpu[mod]:8.1f} s  {100 * cpu[mod] / max(total, 1e-9):5.1f}%  {n[mod]:4d} tests  {mod}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
