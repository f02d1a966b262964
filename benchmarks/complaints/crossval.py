"""Leave-one-collection-out cross-validation of the understanding on the TUNE half.

    python benchmarks/complaints/crossval.py                       # every tune collection in turn
    python benchmarks/complaints/crossval.py --set language.min_example_posterior=0.4
    python benchmarks/complaints/crossval.py --voice examples      # the example classifier alone

Each tune collection (``tune/gh_a.yaml``, ``tune/gh_b.yaml``, ``tune/web_c.yaml``, ...) is held out
in turn: its own complaints are removed from the example classifier's training utterances (the
ones ``make_utterances.py`` wrote into ``kb/language/utterances_tune.yaml``), the classifier is
rebuilt from what is left, and the held-out collection is scored through the runner's ``Session``
path. Collections come from different collectors and sources, so a fold measures what an unseen
collection would get — for the classifier. The phrasings were written on the tune half, so the
whole path's numbers here still flatter them; only the test half and fresh collections can show
what the phrasings are worth.

``--dump FILE`` writes, per held-out entry, what decided its symptom (the phrasings' scores, the
classifier's similarity to each symptom and its resemblance to the examples, and the symptom read):
the combination of the two voices (``language.min_example_*``, ``language.example_override_*``,
``language.example_sharpness``) can then be swept offline over the same folds.

``--voice examples`` scores the classifier alone (its best guess for every text, no abstaining);
``--voice phrases`` the phrasings alone (no classifier). ``--set`` overrides a parameter of
``kb/parameters/language.yaml`` for the run (a sweep without editing the KB). Only ``tune/`` is read.
Benchmarks measure and print; they are not tests.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a language parameter for this run")
    ap.add_argument("--voice", choices=["all", "examples", "phrases"], default="all")
    ap.add_argument("--fold", action="append", default=[], metavar="PREFIX",
                    help="hold out only these collections (default: each tune collection in turn)")
    ap.add_argument("--ids", metavar="FILE", help="score only the held-out entries whose ids FILE lists, one a line "
                    "(benchmarks/complaints/touched.py: the entries a language change can move); the classifier "
                    "still leaves the whole collection out")
    ap.add_argument("--show-failures", action="store_true", help="list each misread held-out entry")
    ap.add_argument("--dump", metavar="FILE", help="write each held-out entry's phrasing scores and classifier "
                    "similarities (JSON lines) for sweeping how the two voices combine")
    args = ap.parse_args(argv)

    import run_complaints as rc
    from make_utterances import utterance_text
    from traindx.engine import understand as U
    from traindx.engine.api import load_kb

    kb = load_kb([])
    lang = kb.language
    for item in args.set:
        name, _, value = item.partition("=")
        lang.params[name.strip()] = float(value)
    entries = rc.load("tune")
    folder = os.path.join(rc.CORPUS, "tune")
    collections = sorted(n[:-5] for n in os.listdir(folder) if n.endswith(".yaml"))
    if args.fold:
        collections = [c for c in collections if any(c.startswith(f) for f in args.fold)]
    by_id = {e["id"]: c for c in collections for e in rc.load("tune", only=[c])}
    wanted = rc.read_ids(args.ids) if args.ids else None
    training_all = [(s, t, o) for s, t, o in lang.examples + lang.utterances]
    original_model = lang.model
    if args.voice == "phrases":
        lang.params["language.min_example_similarity"] = 2.0      # the classifier never speaks
    rows_all = []
    if args.dump:
        open(args.dump, "w").close()
    print(f"leave-one-collection-out on tune ({len(entries)} entries), voice {args.voice}"
          + (f", set {' '.join(args.set)}" if args.set else ""))
    for coll in collections:
        held = [e for e in entries if by_id.get(e["id"]) == coll]
        texts = {utterance_text(e["text"]) for e in held}
        training = [(s, t, o) for s, t, o in training_all if t not in texts]
        if wanted is not None:
            held = [e for e in held if e["id"] in wanted]
        lang._model = U._Examples(training, lang.params, lang.stop_words)
        if args.voice == "examples":
            rows = [_classifier_only(lang, e) for e in held]
        else:
            rows = [rc.score_entry(kb, e) for e in held]
        s = rc.summarise(rows)
        v = s["voice"]
        print(f"  {coll:8s} {len(held):4d} held out ({len(training_all) - len(training)} utterances removed): "
              f"symptom {s['symptom_accuracy']:.1%} ({s['symptom_right']}/{s['entries']}), "
              f"facts {s['fact_recall']:.1%}, wrong {s['facts_read_wrong']}, "
              f"healthy alarmed {s['healthy_given_cause_over_0_5']}/{s['healthy_posts']}; named by "
              + ", ".join(f"{h} {c['n']} ({c['right']})" for h, c in v.items()))
        rows_all += rows
        if args.dump:
            _dump(args.dump, lang, coll, held, rows)
        if args.show_failures:
            for r in rows:
                if r["expected"] != r["got"]:
                    print(f"      {r['id']}: {r['expected']} -> {r['got']} ({r.get('how')})")
    lang._model = original_model
    s = rc.summarise(rows_all)
    print(f"  all      {len(rows_all):4d}: symptom {s['symptom_accuracy']:.1%} ({s['symptom_right']}/{s['entries']}), "
          f"facts {s['fact_recall']:.1%}, wrong {s['facts_read_wrong']}; named by "
          + ", ".join(f"{h} {c['n']} ({c['right']})" for h, c in s["voice"].items()))
    rc.print_summary("tune (cross-validated)", s)
    return 0


def _dump(path: str, lang, coll: str, held: list, rows: list) -> None:
    """Append one JSON line per held-out entry: what the phrasings scored and how close the
    classifier put it to each symptom (its prose, as the CLI splits it), beside the symptom read."""
    import json

    from make_utterances import utterance_text
    from traindx.engine import understand as U
    with open(path, "a", encoding="utf-8") as fh:
        for e, r in zip(held, rows):
            prose = utterance_text(e["text"])
            u = U.understand(prose, lang)
            fh.write(json.dumps({"id": e["id"], "collection": coll, "expected": e["symptom"], "got": r["got"],
                                 "how": u.how, "understood": u.symptom, "scores": u.scores,
                                 "similarities": lang.model.similarities(prose),
                                 "resemblance": lang.model.resemblance(prose)}) + "\n")


def _classifier_only(lang, entry: dict) -> dict:
    """The classifier's best guess for the entry's prose (what the understanding gets)."""
    from make_utterances import utterance_text
    guess, p, _ = lang.model.classify(utterance_text(entry["text"]))
    return {"id": entry["id"], "half": "tune", "expected": entry["symptom"], "got": guess or "none",
            "status": "", "stated": 0, "read_ok": [], "read_wrong": [], "missed": [], "extra_wrong": [],
            "extra": [], "top_cause": None, "top_confidence": 0.0, "understand_ms": 0.0,
            "understand_cpu_ms": 0.0, "total_ms": 0.0, "how": "examples"}


if __name__ == "__main__":
    sys.exit(main())
