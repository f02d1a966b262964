"""Replay the scenarios' per-step training losses through the curve reader, with and without the
"hard batches, not instability" reading of one-point spikes (``probes/readers/curves.py``, step 6).

For every runnable manifest entry (or ``--only``), the script is run plainly in a temporary
directory with ``torch.Tensor.backward`` wrapped to record each scalar loss it is called on (the
script itself is not changed). The recorded series is then read by
:func:`traindx.probes.live.losses.curve_analysis` at every ``--every``-th step and at its end, once as
shipped and once with one-point spikes always counted (``curves.blip_points = 0``, the reading
before the change), and every cut where ``loss_trend`` differs is printed.

    python benchmarks/replay_curves.py -j 2                # all scenarios, ~20 minutes on 2 cores
    python benchmarks/replay_curves.py --only s14,s82      # a few
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
SCEN = HERE / "scenarios"

_RECORDER = r"""
import json, os, runpy, sys
import torch
losses = []
_orig = torch.Tensor.backward
def _backward(self, *a, **k):
    if self.numel() == 1:
        losses.append(float(self.detach()))
    return _orig(self, *a, **k)
torch.Tensor.backward = _backward
out, path = sys.argv[1], sys.argv[2]
sys.argv = [path]
try:
    runpy.run_path(path, run_name="__main__")
except BaseException:
    pass
finally:
    json.dump(losses, open(out, "w"))
"""


def record(name: str, timeout: float) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "losses.json")
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        try:
            subprocess.run([sys.executable, "-c", _RECORDER, out, str(SCEN / name)], cwd=d, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        try:
            return json.load(open(out))
        except (OSError, ValueError):
            return []


def changes(losses: list[float], every: int) -> list[tuple[int, str, str]]:
    from traindx.engine.parameters import shipped
    from traindx.probes.live import losses as L

    params = shipped()
    blips_counted = {**params, "curves.blip_points": 0.0}    # the reading before the change
    out = []
    cuts = list(range(every, len(losses), every)) + [len(losses)]
    for cut in cuts:
        if cut < 8:
            continue
        before = L.curve_analysis(range(cut), losses[:cut], params=blips_counted).facts.get("loss_trend")
        after = L.curve_analysis(range(cut), losses[:cut], params=params).facts.get("loss_trend")
        if before != after:
            out.append((cut, before, after))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scenario names (s14,s82)")
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args(argv)
    manifest = yaml.safe_load(open(SCEN / "manifest.yaml"))
    entries = [e for e in manifest if not e.get("gpu_only")]
    if a.only:
        want = {w.strip().removesuffix(".py") for w in a.only.split(",")}
        entries = [e for e in entries if e["file"].removesuffix(".py") in want]
    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        series = list(pool.map(lambda e: record(e["file"], a.timeout), entries))
    changed = 0
    for e, losses in zip(entries, series):
        diff = changes(losses, a.every)
        final = [d for d in diff if d[0] == len(losses)]
        if diff:
            changed += 1
            print(f"{e['file']:8} {e['symptom']}/{e.get('root_cause')}  {len(losses)} losses  "
                  f"final reading {'CHANGED' if final else 'same'}; differing cuts: "
                  + ", ".join(f"{c}: {b} -> {n}" for c, b, n in diff[:6]) + (" ..." if len(diff) > 6 else ""))
    print(f"{changed} of {len(entries)} scenarios read differently at some cut")
    return 0


if __name__ == "__main__":
    sys.exit(main())
