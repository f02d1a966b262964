"""The tune-half complaints a change of the language files can move: every entry that a phrasing or fact pattern of
kb/language/symptoms.yaml or facts.yaml matches which ``--ref`` (a git commit) does not have, and, with ``--reads
FACT``, every entry the metric reader (``_read_metrics``) reads FACT from (a metric a code change newly reads).
Entries no new pattern matches read the same before and after (the example classifier's utterances unchanged), so
scoring this list with ``run_complaints.py --ids FILE`` before and after gives the change's whole effect on the tune
half, at a fraction of the full run's time (a change to a pattern's weight alone, or to code that reads something
other than the ``--reads`` facts, is not caught: list those entries by hand).

    python benchmarks/complaints/touched.py --ref main [--reads test_accuracy] > /tmp/ids.txt
    python benchmarks/run_complaints.py --split tune --ids /tmp/ids.txt

Only ``benchmarks/complaints/tune/`` is read."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILES = {"symptoms": "kb/language/symptoms.yaml", "facts": "kb/language/facts.yaml"}


def patterns(doc: dict, kind: str) -> set:
    """The pattern strings of a symptoms file (phrases and negated) or a facts file (each fact's patterns)."""
    out = set()
    if kind == "symptoms":
        for s in doc.get("symptoms") or []:
            for key in ("phrases", "negated"):
                out.update(p["pattern"] for p in s.get(key) or [])
    else:
        for f in doc.get("facts") or []:
            out.update(f.get("patterns") or [])
    return out


def new_patterns(ref: str, lang) -> list:
    """(file kind, compiled pattern) for every pattern the working tree has and ``ref`` lacks."""
    from traindx.engine import understand as U
    out = []
    for kind, path in FILES.items():
        old = yaml.safe_load(subprocess.run(["git", "show", f"{ref}:{path}"], cwd=ROOT, check=True,
                                            capture_output=True, text=True).stdout)
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            cur = yaml.safe_load(fh)
        for p in sorted(patterns(cur, kind) - patterns(old, kind)):
            out.append((kind, U._compile(p, lang.terms, path)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="main", help="the git commit the language files are compared with")
    ap.add_argument("--reads", action="append", default=[], metavar="FACT",
                    help="also list the entries from which the metric reader reads FACT")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(HERE))
    import run_complaints as rc
    from traindx.engine.loader import load_kb
    from traindx.engine.understand import _read_metrics
    lang = load_kb(entry_point_packs=False).language
    rxs = new_patterns(args.ref, lang)
    for e in rc.load("tune"):
        text = e["text"]
        why = [kind for kind, rx in rxs if rx.search(text)]
        if args.reads:
            why += [r.fact for r in _read_metrics(text, lang) if r.fact in args.reads]
        if why:
            print(e["id"], ",".join(sorted(set(why))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
