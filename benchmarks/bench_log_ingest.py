"""Log ingestion throughput and memory: CSV logs of 10^5, 10^6 and 10^7 rows.

For each size a CSV like a real per-step training log is generated in a temporary folder
(``step,loss,val_loss,accuracy,lr``: a noisy falling loss, a validation loss on every 100th row
and empty elsewhere, accuracy, a decaying learning rate). Then a fresh Python process runs
``traindx.probes.readers.logs.analyze_log`` on it (reading + curve analysis, all facts) and reports its
wall time, CPU time and peak resident memory (``VmHWM`` from ``/proc/self/status``, else
``getrusage().ru_maxrss``, which on Linux can carry the parent's peak across exec). A process that
only imports traindx gives the baseline memory, so "over baseline" is what ingestion itself costs.

Usage::

    python benchmarks/bench_log_ingest.py                 # 1e5, 1e6, 1e7 rows
    python benchmarks/bench_log_ingest.py --sizes 1e5 1e6 --keep /tmp/logs

Prints a table plus the throughput and memory ratios between sizes; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time

def peak_rss_kb():
    # VmHWM belongs to this process image; ru_maxrss can carry the parent's peak over exec
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

from traindx.probes.readers.logs import analyze_log
path = sys.argv[1]
if path == "-":
    print(json.dumps({"maxrss_kb": peak_rss_kb()}))
    sys.exit(0)
ru0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
findings, analysis = analyze_log(path)
t1 = time.perf_counter()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "wall_s": t1 - t0,
    "cpu_s": (ru.ru_utime + ru.ru_stime) - (ru0.ru_utime + ru0.ru_stime),
    "maxrss_kb": peak_rss_kb(),
    "rows": analysis.log.rows,
    "points": len(analysis.log["loss"].points),
    "facts": len(findings),
    "loss_trend": analysis.loss_trend,
}))
"""


def generate(path: str, rows: int) -> float:
    """Write a per-step CSV log of ``rows`` rows; returns seconds taken."""
    t = time.perf_counter()
    chunk = 200_000
    with open(path, "w", newline="") as f:
        f.write("step,loss,val_loss,accuracy,lr\n")
        for start in range(0, rows, chunk):
            stop = min(rows, start + chunk)
            lines = []
            for i in range(start, stop):
                frac = i / rows
                noise = ((i * 7919) % 1000 - 500) / 5000.0  # +-0.1, deterministic
                loss = 0.3 + 2.0 * math.exp(-5 * frac) + noise
                val = f"{0.45 + 2.0 * math.exp(-5 * frac):.5f}" if i % 100 == 0 else ""
                acc = 0.9 - 0.8 * math.exp(-5 * frac)
                lines.append(f"{i},{loss:.5f},{val},{acc:.4f},{1e-3 * (1 - frac) + 1e-6:.4e}\n")
            f.write("".join(lines))
    return time.perf_counter() - t


def run_child(arg: str) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, arg], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"child failed on {arg}:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    ap.add_argument("--keep", metavar="DIR", help="write (and reuse) the logs here")
    args = ap.parse_args(argv)

    folder = args.keep or tempfile.mkdtemp(prefix="traindx-bench-")
    os.makedirs(folder, exist_ok=True)
    base = run_child("-")["maxrss_kb"] / 1024
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; baseline RSS (import only) "
          f"{base:.1f} MiB")
    results = []
    try:
        for size in args.sizes:
            rows = int(size)
            path = os.path.join(folder, f"log_{rows}.csv")
            if not (args.keep and os.path.exists(path)):
                gen = generate(path, rows)
                print(f"  generated {rows:,} rows ({os.path.getsize(path) / 2**20:.0f} MiB) "
                      f"in {gen:.1f} s", flush=True)
            r = run_child(path)
            r["size_mib"] = os.path.getsize(path) / 2**20
            results.append(r)
            if not args.keep:
                os.remove(path)
    finally:
        if not args.keep:
            try:
                os.rmdir(folder)
            except OSError:
                pass

    print()
    print("| rows | file MiB | wall s | CPU s | rows/s (wall) | rows/s (CPU) | peak RSS MiB "
          "| over baseline MiB | points kept | loss_trend |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        rss = r["maxrss_kb"] / 1024
        print(f"| {r['rows']:,} | {r['size_mib']:.0f} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} "
              f"| {r['rows'] / r['wall_s']:,.0f} | {r['rows'] / r['cpu_s']:,.0f} | {rss:.1f} "
              f"| {rss - base:.1f} | {r['points']} | {r['loss_trend']} |")
    if len(results) > 1:
        a, b = results[0], results[-1]
        print()
        print(f"{b['rows'] / a['rows']:.0f}x the rows: CPU time x{b['cpu_s'] / a['cpu_s']:.1f}, "
              f"peak RSS x{b['maxrss_kb'] / a['maxrss_kb']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
