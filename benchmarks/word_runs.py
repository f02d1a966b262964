"""The complaint reader on hostile lines, with every run of word characters in a language pattern bounded
(``engine/understand.py`` ``bounded_runs``, session 47, words47) and unbounded as before, in one process.

    python benchmarks/word_runs.py                 # 4 KB lines of one word repeated, and the tune half's CPU time
    python benchmarks/word_runs.py --chars 1000    # shorter lines (the unbounded reader is cubic on some)
    python benchmarks/word_runs.py --vocabulary    # the bounded reader on a line of each word of every term

For each word: CPU seconds to understand a line of that word repeated without spaces, cut to ``--chars`` characters,
bounded and unbounded (the unbounded one in a forked child, given up after ``--give-up`` seconds of wall time).
Then the CPU milliseconds per complaint over the tune half's texts (``benchmarks/complaints/tune``), bounded and
unbounded, one after the other on each text (first one, then the other) so that both see the same load, and how many
texts the two read differently (symptom or facts)."""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

WORDS = ["VOC", "acc", "val", "train", "validation", "fluctu", "валидаци", "训练", "loss", "a "]


def _languages():
    """The core language compiled twice: with the bounded runs, and with the patterns as written."""
    from traindx.engine import kbmemo
    from traindx.engine import understand as reader
    from traindx.engine.loader import load_kb
    bounded = load_kb(entry_point_packs=False).language
    kept = reader._regex
    reader._regex = functools.lru_cache(maxsize=reader._PATTERNS_KEPT)(lambda e: re.compile(e, re.IGNORECASE))
    try:
        kbmemo.clear()
        unbounded = load_kb(entry_point_packs=False).language
    finally:
        reader._regex = kept
        kbmemo.clear()
    return bounded, unbounded


def _cpu(fn, *args):
    t = time.process_time()
    out = fn(*args)
    return time.process_time() - t, out


def _cpu_only(fn, *args) -> float:
    return _cpu(fn, *args)[0]


def _in_child(fn, limit: float):
    """``fn()`` (a float) in a forked child, or None when it takes longer than ``limit`` seconds."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=lambda: child.send(fn()))
    proc.start()
    got = parent.recv() if parent.poll(limit) else None
    if got is None:
        proc.kill()
    proc.join()
    return got


def _vocabulary(chars: int) -> int:
    from traindx.engine.loader import load_kb
    from traindx.engine.understand import understand
    lang = load_kb(entry_point_packs=False).language
    understand("warm up", lang)
    words = set(WORDS) | {"1", "0.5 ", " ", ". ", "-", "=", "%", "nan ", "1e-3", "loss: ", "val_loss"}
    for variants in lang.terms.values():
        words.update(re.findall(r"[a-z]{2,}|[\u4e00-\u9fff]{1,3}|[\u0400-\u04ff]{2,}", variants.lower()))
    took = []
    for w in sorted(words):
        took.append((_cpu(understand, (w * (chars // len(w) + 1))[:chars], lang)[0], w))
    took.sort(reverse=True)
    print(f"{len(took)} lines of {chars} characters; the slowest (CPU s): "
          + ", ".join(f"{w!r} {t:.2f}" for t, w in took[:12]))
    return 0


def _reading(u) -> tuple:
    return u.symptom, tuple(sorted((r.fact, repr(r.value)) for r in u.facts))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=4096)
    ap.add_argument("--give-up", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="every Nth text of the tune half (a quicker comparison)")
    ap.add_argument("--vocabulary", action="store_true",
                    help="only the bounded reader, on a line of each word of every kb/language term (and digits, "
                         "blanks, punctuation): the slowest lines")
    args = ap.parse_args()
    if args.vocabulary:
        return _vocabulary(args.chars)
    from run_complaints import load

    from traindx.engine.understand import understand
    bounded, unbounded = _languages()
    understand("warm up", bounded)
    understand("warm up", unbounded)
    print(f"lines of one word repeated, {args.chars} characters: CPU s bounded / unbounded")
    for w in WORDS:
        line = (w * (args.chars // len(w) + 1))[:args.chars]
        b, _ = _cpu(understand, line, bounded)
        u = _in_child(functools.partial(_cpu_only, understand, line, unbounded), args.give_up)
        print(f"  {w!r:14} {b:7.3f} / " + (f"{u:7.3f}" if u is not None else f"over {args.give_up:.0f} s (given up)"))
    if args.no_corpus:
        return 0
    texts = [e["text"] for e in load("tune")][::args.every]
    spent = {"bounded": 0.0, "unbounded": 0.0}
    differ = 0
    for _ in range(args.rounds):
        for i, t in enumerate(texts):
            # which reader reads a text first alternates: a second reading of the same text finds some of its work
            # kept (the classifier's features of the text), so the first would always pay more
            if i % 2:
                u, uu = _cpu(understand, t, unbounded)
                b, ub = _cpu(understand, t, bounded)
            else:
                b, ub = _cpu(understand, t, bounded)
                u, uu = _cpu(understand, t, unbounded)
            spent["bounded"] += b
            spent["unbounded"] += u
            differ += _reading(ub) != _reading(uu)
    n = len(texts) * args.rounds
    print(f"tune half, {len(texts)} texts x {args.rounds} rounds: CPU ms per complaint bounded "
          f"{1000 * spent['bounded'] / n:.1f}, unbounded {1000 * spent['unbounded'] / n:.1f}; "
          f"readings that differ: {differ // args.rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
