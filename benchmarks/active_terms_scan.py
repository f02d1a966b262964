"""Which public tuning scripts (benchmarks/scenarios/, s547 and earlier) the code reader reads as a
loss averaged over its own active terms (loss_mean_over_active_terms), with their manifest labels.

Usage: python benchmarks/active_terms_scan.py
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from traindx.probes.readers.code import analyze_code

HERE = Path(__file__).parent / "scenarios"
#: the last tuning script; later ones are held out
LAST_TUNING = 547


def main() -> None:
    hits = 0
    for e in yaml.safe_load((HERE / "manifest.yaml").read_text()):
        n = int(re.findall(r"\d+", e["file"])[0])
        if n > LAST_TUNING:
            continue
        try:
            rep = analyze_code(HERE / e["file"])
        except Exception:
            continue
        if any(f.fact == "loss_mean_over_active_terms" and f.value is True for f in rep.findings):
            hits += 1
            print(e["file"], e["symptom"], e["root_cause"])
    print(f"{hits} script(s) read as a loss averaged over its active terms")


if __name__ == "__main__":
    main()
