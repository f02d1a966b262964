"""Session 44's two console-pattern mends, checked against the patterns they replaced: the same output, and
time linear in a long name instead of quadratic.

    python benchmarks/console_pattern_mends.py [--random 200000] [--seed 0]

1. The tokenizer's name (``console_lines._TOKEN``): a run of digits inside a name is tested once, at its start,
   for a glued decimal that ends the token (``loss0.685``); the replaced form tested at every digit.
2. The named-tuple split (``console_tuples._GROUP``, ``Loss:(a, b)/(1.0, 2.0)``): a name starts where a word
   does; the replaced form was tried from every letter.

Both replaced forms are rebuilt here from the current patterns by the one edit each mend made. Compared on
random strings and on every line (cut at 4,096 characters, as the reader cuts them) of the pasted logs, the
finished runs' console logs and the real logs; then one 4,000-character line timed with each. Benchmarks
measure; they are not tests.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_NAME = r"(?:[^\W\d]|(?!\d+\.\d+(?:[eE][-+]?\d+)?(?![\w./\\]))\d+(?!\d))*"
OLD_NAME = r"(?:[^\W\d]|\d(?!\d*\.\d+(?:[eE][-+]?\d+)?(?![\w./\\])))*"
WORD_START = r"(?<![\w.-])"


def _lines(roots):
    for pat in roots:
        for f in sorted(glob.glob(pat, recursive=True)):
            if os.path.isfile(f):
                with open(f, encoding="utf-8", errors="replace") as fh:
                    for line in fh.read().splitlines():
                        yield line[:4096]


def _cpu(f, arg):
    t = time.process_time()
    f(arg)
    return time.process_time() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--random", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    from traindx.probes.readers import console_tuples as ct
    from traindx.probes.readers.console_lines import _TOKEN
    assert _TOKEN.pattern.count(NEW_NAME) == 1 and ct._GROUP.pattern.startswith(WORD_START)
    old_token = re.compile(_TOKEN.pattern.replace(NEW_NAME, OLD_NAME), _TOKEN.flags)
    old_group = re.compile(ct._GROUP.pattern[len(WORD_START):], ct._GROUP.flags)

    def toks(rx, s):
        return [(m.lastgroup, m.group(m.lastgroup), m.start(), m.end()) for m in rx.finditer(s)]

    def split(rx, s):
        return s if not ct.has_named_tuple(s) else rx.sub(lambda m: ct._pairs(m) or m.group(0), s)

    rng = random.Random(a.seed)
    alpha = "ab_Z1234567890.eE-+/ :=|x\\é()"
    rand = ["".join(rng.choice(alpha) for _ in range(rng.randint(1, 14))) for _ in range(a.random)]
    real = list(_lines([os.path.join(HERE, "pasted_logs", "*", "*.txt"),
                        os.path.join(HERE, "finished_runs", "*", "*", "console.log"),
                        "/work/shared/real-logs/**/*"]))
    tok_diff = sum(toks(_TOKEN, s) != toks(old_token, s) for s in rand + real)
    marked = [s for s in rand + real if ct.has_named_tuple(s)]
    grp_diff = sum(split(ct._GROUP, s) != split(old_group, s) for s in marked)
    print(f"{len(rand)} random strings, {len(real)} benchmark log lines")
    print(f"tokenizer: {tok_diff} strings tokenized differently")
    print(f"named tuples: {len(marked)} strings hold a tuple mark, {grp_diff} split differently")
    digits = "w" + "".join(rng.choice("0123456789") for _ in range(4000)) + " loss 0.5"
    word = "".join(rng.choice("abcdefgh") for _ in range(4000)) + " x):( y"
    print(f"one 4,000-digit name: tokenizer {_cpu(lambda s: toks(_TOKEN, s), digits) * 1e3:.2f} ms of CPU, "
          f"replaced form {_cpu(lambda s: toks(old_token, s), digits) * 1e3:.2f} ms")
    print(f"one 4,000-letter word before '):(': split {_cpu(lambda s: split(ct._GROUP, s), word) * 1e3:.2f} ms, "
          f"replaced form {_cpu(lambda s: split(old_group, s), word) * 1e3:.2f} ms")
    return 1 if tok_diff or grp_diff else 0


if __name__ == "__main__":
    sys.exit(main())
