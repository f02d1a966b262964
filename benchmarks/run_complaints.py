"""How well traindx understands what people write: the complaint corpus, scored.

    python benchmarks/run_complaints.py --split tune            # the half rules may be tuned on
    python benchmarks/run_complaints.py --split test --json     # the held-out half: report only
    python benchmarks/run_complaints.py --split tune --show-failures   # what went wrong (tune only)

Each entry's text goes in as a complaint through :class:`traindx.engine.api.Session` the way the
CLI and MCP take one — the words to the understanding (engine/understand.py), a pasted log or
traceback to the console reader (engine/frontends/gather.py) — non-interactively, without torch,
and is scored (``--words-only``: the whole text to the understanding):

- symptom accuracy (the deferral of an out-of-scope post counts as ``out_of_scope``) and a
  per-symptom confusion matrix;
- stated-fact recall: a fact the post states counts as read when its value matches (numbers within
  2% relative, lists as sets, strings and enums equal, case-insensitive);
- facts read wrong: a stated fact read with a different value, plus facts read that were not
  stated and contradict the entry (another stated fact they are equivalent to, or the symptom:
  an error kind on a post that is in scope, a NaN step on a post without a NaN, ...);
- healthy posts given a cause with confidence above 0.5;
- time per complaint (understanding alone, and understanding + report): mean and p95.

Benchmarks measure and print; they are not tests.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "complaints")
SYMPTOMS = ["not_learning", "plateau", "instability", "explosion", "overfitting", "slow_training", "healthy",
            "out_of_scope"]
#: facts the understanding sets for its own bookkeeping: never scored as "read"
INTERNAL = {"complaint", "complaint_symptom", "symptom"}
#: unstated facts that only make sense for one symptom: reading them elsewhere is reading wrong
ONLY_FOR = {"error_kind": {"out_of_scope"}, "nan_first_step": {"explosion"}}
TRUE_ONLY_FOR = {"rl_training": {"out_of_scope"}, "wants_architecture_advice": {"out_of_scope"},
                 "inputs_have_nan": {"explosion"}}
#: unstated fact -> a stated fact that must hold the same value
SAME_AS = {"current_loss": "train_loss", "train_loss": "current_loss"}


def load(split: str, exclude=(), only=()) -> list[dict]:
    """The entries of a split; files whose names start with one of ``exclude`` are never opened
    (a held-out file kept for someone else's first run); with ``only``, just the files whose names
    start with one of those (one collection scored alone)."""
    halves = ["tune", "test"] if split == "all" else [split]
    out = []
    for half in halves:
        folder = os.path.join(CORPUS, half)
        for name in sorted(os.listdir(folder)):
            if any(name.startswith(x) for x in exclude) or (only and not any(name.startswith(x) for x in only)):
                continue
            if name.endswith(".yaml"):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    for e in yaml.safe_load(fh) or []:
                        out.append({**e, "_half": half})
    return out


def same(expected, got) -> bool:
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        if expected == got:
            return True
        return abs(got - expected) <= 0.02 * max(abs(expected), 1e-12)
    if isinstance(expected, list) or isinstance(got, list):
        if not isinstance(expected, list) or not isinstance(got, list):
            return False
        return {str(x).lower() for x in expected} == {str(x).lower() for x in got}
    return str(expected).strip().lower() == str(got).strip().lower()


def predicted_symptom(session) -> str:
    if session.deferral() is not None:
        return "out_of_scope"
    return session.symptom() or "none"


def feed(session, text: str, words_only: bool = False) -> None:
    """The text as the CLI and MCP take a complaint: the user's words go to the understanding; a
    log excerpt or traceback pasted with them is read like a console log (engine/frontends/gather.py)."""
    if words_only:
        session.add_complaint(text)
        return
    from traindx.engine.errors import InputError
    from traindx.engine.frontends import gather
    prose, pasted = gather.split_paste(text)
    if prose.strip():
        session.add_complaint(prose)
    elif pasted is not None:
        session.add("complaint", text.strip().splitlines()[0][:200], "user")
    if pasted is not None:
        gather.settings_from_paste(session, pasted)
        try:
            gather.absorb(session, gather.read_pasted(pasted, num_classes=session.value("num_classes")))
        except InputError as err:
            session.notes.append(f"the pasted log could not be read: {err.message}")


def score_entry(kb, entry: dict, words_only: bool = False) -> dict:
    from traindx.engine.api import Session
    t0, c0 = time.perf_counter(), time.process_time()
    s = Session(kb)
    feed(s, entry["text"], words_only)
    facts = s.facts                         # runs the rules: understanding includes them
    t1, c1 = time.perf_counter(), time.process_time()
    report = s.report()
    t2 = time.perf_counter()
    symptom = predicted_symptom(s)
    stated = entry.get("facts") or {}
    read_ok, read_wrong, missed = [], [], []
    for name, value in stated.items():
        f = facts.get(name)
        if f is None:
            missed.append(name)
        elif same(value, f.value):
            read_ok.append(name)
        else:
            read_wrong.append(f"{name}={f.value!r} (stated {value!r})")
    extra_wrong, extra = [], []
    for name, f in s.base.items():
        if name in INTERNAL or name in stated or f.kind not in ("user", "log"):
            continue
        bad = False
        if name in ONLY_FOR and entry["symptom"] not in ONLY_FOR[name]:
            bad = True
        if name in TRUE_ONLY_FOR and f.value is True and entry["symptom"] not in TRUE_ONLY_FOR[name]:
            bad = True
        twin = SAME_AS.get(name)
        if twin in stated and not same(stated[twin], f.value):
            bad = True
        if name == "num_classes" and stated.get("task_type") == "binary" and f.value != 2:
            bad = True
        (extra_wrong if bad else extra).append(f"{name}={f.value!r}")
    top = report["root_causes"][0] if report["root_causes"] else None
    return {"id": entry["id"], "half": entry["_half"], "expected": entry["symptom"], "got": symptom,
            "status": report["status"], "stated": len(stated), "read_ok": read_ok, "read_wrong": read_wrong,
            "missed": missed, "extra_wrong": extra_wrong, "extra": extra,
            "top_cause": top["id"] if top else None, "top_confidence": top["confidence"] if top else 0.0,
            "understand_ms": (t1 - t0) * 1000, "understand_cpu_ms": (c1 - c0) * 1000, "total_ms": (t2 - t0) * 1000,
            "how": getattr(getattr(s, "understood", None), "how", "none") or "none"}


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)] if xs else 0.0


def summarise(rows: list[dict]) -> dict:
    n = len(rows)
    right = sum(r["expected"] == r["got"] for r in rows)
    stated = sum(r["stated"] for r in rows)
    read = sum(len(r["read_ok"]) for r in rows)
    wrong = sum(len(r["read_wrong"]) + len(r["extra_wrong"]) for r in rows)
    confusion = {e: {} for e in SYMPTOMS}
    for r in rows:
        confusion.setdefault(r["expected"], {})
        confusion[r["expected"]][r["got"]] = confusion[r["expected"]].get(r["got"], 0) + 1
    healthy = [r for r in rows if r["expected"] == "healthy"]
    alarmed = [r for r in healthy if r["top_cause"] and r["top_confidence"] > 0.5]
    per = {}
    for sym in SYMPTOMS:
        rs = [r for r in rows if r["expected"] == sym]
        if rs:
            per[sym] = {"n": len(rs), "right": sum(r["got"] == sym for r in rs)}
    # per fact name (aggregate only, so the test half can be reported by class without reading a post)
    by_fact: dict = {}
    for r in rows:
        for name in r["read_ok"]:
            by_fact.setdefault(name, {"stated": 0, "read": 0, "wrong": 0, "missed": 0, "extra_wrong": 0})
            by_fact[name]["stated"] += 1
            by_fact[name]["read"] += 1
        for name in r["missed"]:
            by_fact.setdefault(name, {"stated": 0, "read": 0, "wrong": 0, "missed": 0, "extra_wrong": 0})
            by_fact[name]["stated"] += 1
            by_fact[name]["missed"] += 1
        for item in r["read_wrong"]:
            name = item.split("=", 1)[0]
            by_fact.setdefault(name, {"stated": 0, "read": 0, "wrong": 0, "missed": 0, "extra_wrong": 0})
            by_fact[name]["stated"] += 1
            by_fact[name]["wrong"] += 1
        for item in r["extra_wrong"]:
            name = item.split("=", 1)[0]
            by_fact.setdefault(name, {"stated": 0, "read": 0, "wrong": 0, "missed": 0, "extra_wrong": 0})
            by_fact[name]["extra_wrong"] += 1
    u = [r["understand_ms"] for r in rows]
    uc = [r["understand_cpu_ms"] for r in rows]
    t = [r["total_ms"] for r in rows]
    # who named the symptom in the words: the phrasings, the example classifier (engine/understand.py), or nobody
    voice = {h: {"n": sum(r.get("how") == h for r in rows),
                 "right": sum(r.get("how") == h and r["got"] == r["expected"] for r in rows)}
             for h in ("phrases", "examples", "none")}
    return {"entries": n, "symptom_accuracy": right / n if n else 0.0, "symptom_right": right, "voice": voice,
            "facts_stated": stated, "facts_read": read, "fact_recall": read / stated if stated else 0.0,
            "facts_read_wrong": wrong, "facts_extra_unverified": sum(len(r["extra"]) for r in rows),
            "healthy_posts": len(healthy), "healthy_given_cause_over_0_5": len(alarmed),
            "healthy_alarms": sorted(f"{r['got']}:{r['top_cause']}" for r in alarmed),
            "per_symptom": per, "confusion": confusion, "by_fact": by_fact,
            "understand_ms_mean": statistics.fmean(u) if u else 0.0, "understand_ms_p95": p95(u),
            "understand_cpu_ms_mean": statistics.fmean(uc) if uc else 0.0, "understand_cpu_ms_p95": p95(uc),
            "complaint_ms_mean": statistics.fmean(t) if t else 0.0, "complaint_ms_p95": p95(t)}


def print_summary(split: str, s: dict) -> None:
    print(f"complaint corpus, split {split}: {s['entries']} entries")
    print(f"  symptom accuracy      {s['symptom_accuracy']:.1%} ({s['symptom_right']}/{s['entries']})")
    print(f"  stated facts read     {s['fact_recall']:.1%} ({s['facts_read']}/{s['facts_stated']})")
    print(f"  facts read wrong      {s['facts_read_wrong']}   (unstated facts read, not contradicted: "
          f"{s['facts_extra_unverified']})")
    print(f"  healthy posts given a cause > 0.5: {s['healthy_given_cause_over_0_5']}/{s['healthy_posts']}"
          + (f" (read as symptom:cause {', '.join(s['healthy_alarms'])})" if s["healthy_alarms"] else ""))
    print(f"  time per complaint    understanding {s['understand_ms_mean']:.1f} ms mean, "
          f"{s['understand_ms_p95']:.1f} ms p95 (CPU {s['understand_cpu_ms_mean']:.1f} / "
          f"{s['understand_cpu_ms_p95']:.1f} ms); with the report {s['complaint_ms_mean']:.1f} ms mean, "
          f"{s['complaint_ms_p95']:.1f} ms p95")
    v = s.get("voice", {})
    if v:
        print("  symptom named by      " + ", ".join(f"{h} {c['n']} ({c['right']} right)" for h, c in v.items()))
    cols = SYMPTOMS + ["none"]
    short = {"not_learning": "not_l", "plateau": "plat", "instability": "inst", "explosion": "expl",
             "overfitting": "overf", "slow_training": "slow", "healthy": "healt", "out_of_scope": "oos", "none": "none"}
    print("  confusion (rows: expected, columns: read as)")
    print("    " + " " * 14 + "".join(f"{short[c]:>6}" for c in cols) + "   right")
    for e in SYMPTOMS:
        row = s["confusion"].get(e, {})
        if not row:
            continue
        n = sum(row.values())
        print(f"    {e:14s}" + "".join(f"{row.get(c, 0) or '.':>6}" for c in cols) + f"   {row.get(e, 0)}/{n}")


def print_by_fact(s: dict) -> None:
    print("  by fact (stated: read / missed / read wrong; unstated read wrong)")
    for name, c in sorted(s["by_fact"].items(), key=lambda kv: (-kv[1]["stated"], kv[0])):
        print(f"    {name:24s} {c['stated']:4d}: {c['read']:4d} / {c['missed']:3d} / {c['wrong']:3d};"
              f" {c['extra_wrong']:3d}")


def read_ids(path):
    """The entry ids a file lists, one a line (the first word of each non-blank line)."""
    with open(path, encoding="utf-8") as fh:
        return {line.split()[0] for line in fh if line.strip()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=["tune", "test", "all"], default="tune")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    ap.add_argument("--show-failures", action="store_true",
                    help="list each misread entry (tune half only: the test half is never inspected)")
    ap.add_argument("--kb", action="append", default=[], help="extra knowledge pack folder(s)")
    ap.add_argument("--only", action="append", default=[], metavar="PREFIX",
                    help="score only corpus files whose names start with PREFIX (e.g. --only web_e)")
    ap.add_argument("--exclude", action="append", default=[], metavar="PREFIX",
                    help="skip corpus files whose names start with PREFIX, unopened (e.g. --exclude web_c)")
    ap.add_argument("--ids", metavar="FILE",
                    help="score only the entries whose ids FILE lists, one a line (e.g. what benchmarks/"
                         "complaints/touched.py writes: the entries a change of the language files can move)")
    ap.add_argument("--by-fact", action="store_true", help="add recall and errors per fact name (totals only)")
    ap.add_argument("--words-only", action="store_true",
                    help="give the whole text to the understanding (no pasted-log split)")
    args = ap.parse_args(argv)
    if args.show_failures and args.split != "tune":
        ap.error("--show-failures is for the tune half only")
    t0 = time.perf_counter()
    from traindx.engine.api import load_kb
    from traindx.engine.errors import KBError
    try:
        kb = load_kb(args.kb)
    except KBError as err:
        print(f"run_complaints: {err}", file=sys.stderr)
        return 2
    load_s = time.perf_counter() - t0
    entries = load(args.split, args.exclude, args.only)
    if args.ids:
        wanted = read_ids(args.ids)
        entries = [e for e in entries if e["id"] in wanted]
    rows = [score_entry(kb, e, args.words_only) for e in entries]
    s = summarise(rows)
    s["kb_load_s"] = round(load_s, 3)
    s["torch_imported"] = "torch" in sys.modules
    if args.json:
        print(json.dumps(s, indent=1))
    else:
        print_summary(args.split, s)
        if args.by_fact:
            print_by_fact(s)
        print(f"  knowledge base loaded in {load_s:.2f} s; torch imported: {s['torch_imported']}")
    if args.show_failures:
        for r in rows:
            bad = r["expected"] != r["got"] or r["missed"] or r["read_wrong"] or r["extra_wrong"]
            if bad:
                print(f"{r['id']}: {r['expected']} -> {r['got']} ({r['status']}, top {r['top_cause']} "
                      f"{r['top_confidence']:.2f}) missed={r['missed']} wrong={r['read_wrong'] + r['extra_wrong']}"
                      f" extra={r['extra']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
