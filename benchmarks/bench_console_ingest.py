"""Console-log ingestion speed and memory against the CSV reader: 10^5, 10^6, 10^7 lines.

For each size two logs of the same curve and the same number of lines are generated: a CSV
(``bench_log_ingest.generate``: ``step,loss,val_loss,accuracy,lr``) and the console output a
script would print for it — Python-logging prefixed ``step N loss ... acc ... lr ...`` lines, a
``Validation: loss ... acc ...`` line every 100 steps, and interleaved noise (a warning, a
tqdm-style progress bar redrawn with carriage returns, a checkpoint message, a blank line) on
one line in ten. A fresh Python process reads each with ``analyze_log`` (reading + curve
analysis, as ``traindx diagnose --log`` does) and reports wall/CPU time and peak resident memory
(``VmHWM``); an import-only process gives the baseline.

    python benchmarks/bench_console_ingest.py                       # 1e5, 1e6, 1e7 lines
    python benchmarks/bench_console_ingest.py --sizes 1e5 1e6

Prints a table (lines/s and peak RSS per reader and size); it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_log_ingest import generate, run_child  # noqa: E402

NOISE = [
    "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py:560: UserWarning: This DataLoader will create 8 worker processes",
    "  warnings.warn(_create_warning_msg(",
    "Epoch 3:  41%|####      | 210/512 [00:21<00:30,  9.9it/s]\rEpoch 3:  42%|####      | 215/512 [00:21<00:29, 10.1it/s]",
    "Saving checkpoint to runs/exp1/ckpt_last.pt",
    "",
]


def generate_console(path: str, lines: int) -> float:
    t = time.perf_counter()
    chunk = 200_000
    step = 0
    written = 0
    with open(path, "w", newline="\n") as f:
        while written < lines:
            out = []
            for _ in range(min(chunk, lines - written)):
                k = written + len(out)
                if k % 10 == 9:
                    out.append(NOISE[(k // 10) % len(NOISE)] + "\n")
                    continue
                frac = step / max(1, lines * 0.9)
                noise = ((step * 7919) % 1000 - 500) / 5000.0
                loss = 0.3 + 2.0 * math.exp(-5 * frac) + noise
                acc = 0.9 - 0.8 * math.exp(-5 * frac)
                ts = f"2024-05-01 12:{(step // 60) % 60:02d}:{step % 60:02d},{step % 1000:03d}"
                if step % 100 == 0 and k % 10 == 8:
                    out.append(f"{ts} - INFO - Validation: loss {0.45 + 2.0 * math.exp(-5 * frac):.5f} acc {acc:.4f}\n")
                    continue
                out.append(f"{ts} - INFO - step {step} loss {loss:.5f} acc {acc:.4f} lr {1e-3 * (1 - frac) + 1e-6:.4e}\n")
                step += 1
            f.write("".join(out))
            written += len(out)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    args = ap.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="traindx-console-bench-")
    base = run_child("-")["maxrss_kb"] / 1024
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; baseline RSS (import only) {base:.1f} MiB")
    rows = []
    try:
        for size in args.sizes:
            n = int(size)
            for kind in ("csv", "console"):
                path = os.path.join(folder, f"log_{n}.{'csv' if kind == 'csv' else 'out'}")
                gen = generate(path, n) if kind == "csv" else generate_console(path, n)
                mib = os.path.getsize(path) / 2**20
                print(f"  generated {kind} {n:,} lines ({mib:.0f} MiB) in {gen:.1f} s", flush=True)
                r = run_child(path)
                r.update(kind=kind, lines=n, size_mib=mib)
                rows.append(r)
                os.remove(path)
                rss = r["maxrss_kb"] / 1024
                print(f"  read {kind} {n:,} lines: wall {r['wall_s']:.2f} s, CPU {r['cpu_s']:.2f} s, "
                      f"{n / r['cpu_s']:,.0f} lines/CPU-s, peak RSS {rss:.1f} MiB "
                      f"({rss - base:.1f} over baseline), {r['points']} points, {r['loss_trend']}", flush=True)
    finally:
        for fn in os.listdir(folder):
            os.remove(os.path.join(folder, fn))
        os.rmdir(folder)
    print()
    print("| lines | reader | file MiB | wall s | CPU s | lines/s (wall) | lines/s (CPU) | peak RSS MiB | over baseline MiB | points kept | loss_trend |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        rss = r["maxrss_kb"] / 1024
        print(f"| {r['lines']:,} | {r['kind']} | {r['size_mib']:.0f} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} "
              f"| {r['lines'] / r['wall_s']:,.0f} | {r['lines'] / r['cpu_s']:,.0f} | {rss:.1f} | {rss - base:.1f} | {r['points']} | {r['loss_trend']} |")
    for n in sorted({r["lines"] for r in rows}):
        c = [r for r in rows if r["lines"] == n]
        if len(c) == 2:
            csv_r, con = c
            print(f"{n:,} lines: console/CSV wall time x{con['wall_s'] / csv_r['wall_s']:.1f}, "
                  f"peak RSS x{con['maxrss_kb'] / csv_r['maxrss_kb']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
