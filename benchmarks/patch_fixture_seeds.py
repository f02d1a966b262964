"""Whether a --patch test fixture's outcome holds beyond its one seed: the faulty and the patched script of a
fixture in tests/test_patch.py, trained under seeds 0..N-1, last loss over first loss for each.

A fixture whose symptom comes and goes with the seed also comes and goes with a CPU's float rounding (the
exploding-gradients fixture before session 42 never learned on an AVX-512 machine, clipped or not):

    python benchmarks/patch_fixture_seeds.py gradients_never_clipped --seeds 40
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))


def main(argv=None) -> int:
    import test_patch as T
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fixture", choices=sorted(T.FIXTURES))
    ap.add_argument("--seeds", type=int, default=40)
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="traindx-seeds-"))
    cause, text = T.FIXTURES[args.fixture]
    paths = {}
    for seed in range(args.seeds):
        T.FIXTURES[args.fixture] = (cause, text.replace("torch.manual_seed(0)", f"torch.manual_seed({seed})", 1))
        p, _orig, applied = T._patched(base / f"fixed{seed}", args.fixture)
        assert p is not None and applied.returncode == 0, applied
        (base / f"faulty{seed}").mkdir()
        (base / f"faulty{seed}" / "train.py").write_text(T.FIXTURES[args.fixture][1])
        paths[seed] = (base / f"faulty{seed}" / "train.py", base / f"fixed{seed}" / "train.py")
    res = T._run_many([p for pair in paths.values() for p in pair])
    ratio = {}
    for seed, (faulty, fixed) in paths.items():
        ratio[seed] = tuple(res[str(p)][1] / res[str(p)][0] if isinstance(res[str(p)], tuple) else float("nan")
                            for p in (faulty, fixed))
    faulty = [r[0] for r in ratio.values()]
    fixed = [r[1] for r in ratio.values()]
    low = min(f for f in faulty if f == f)
    print(f"{args.fixture}: {args.seeds} seeds; last/first loss unpatched min {low:.3f} (NaN counts as "
          f"not learning: {sum(f != f for f in faulty)}), patched max {max(fixed):.3f}; the tests ask unpatched "
          f">= 0.5 and patched < 0.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
