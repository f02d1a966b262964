#!/usr/bin/env python
"""Diagnose every generated fault-injection run with the real ``traindx`` and score it.

For each run (``generate.py`` makes them on demand into ``--gen``), in a fresh temporary folder:
``traindx diagnose --script RUN.py --non-interactive --format json`` (benchmarks/run_scenarios.py's
machinery), scored against the run's ground truth: symptom (any of the operator's acceptable
symptoms), root-cause top-1 / top-3 on faulty runs, false alarms on healthy controls (status not
healthy, or any cause at >= 0.5), ECE over top-1 confidences, and -- for every ``--plain-every``-th
run, whose plain run is timed too -- the median diagnosis / plain time.

Leave-one-base-out: the summary reports every score per base program. A base's numbers are
held-out numbers as long as no rule was tuned on that base's runs; docs/BENCHMARKS.md records
which bases each fix was tuned on.

Results are appended to ``--results`` (JSON lines, one per run) as they arrive, so a long run can
be read (``--summarize``) or resumed (runs already in the file are skipped) at any time.

Usage:
    python benchmarks/faultgen/run.py [-j N] [--bases a,b] [--operators x,y] [--limit K]
        [--results FILE] [--plain-every K] [--summarize]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import run_scenarios as RS  # noqa: E402
from generate import DEFAULT_OUT, cases, generate  # noqa: E402


def stratified(found):
    """Order runs so that every prefix samples all bases and operators: round-robin over
    (operator, magnitude) groups, and inside each over the bases."""
    groups = defaultdict(list)
    for c in found:
        groups[(c[2].name, c[3][0])].append(c)
    keys = list(groups)
    out, i = [], 0
    rot = 0
    while any(groups.values()):
        k = keys[i % len(keys)]
        if groups[k]:
            lst = groups[k]
            out.append(lst.pop(rot % len(lst)))
        i += 1
        if i % len(keys) == 0:
            rot += 1
    return out


def score(entry, report, error):
    s = RS.score_case(entry, report, error, "script")
    ok_syms = set(entry.get("symptoms") or [entry["symptom"]])
    s["symptom_ok"] = bool(error is None and isinstance(report, dict) and s["symptom"] in ok_syms)
    return s


def run_one(entry, gen_dir, cmd_base, args, env, with_plain):
    script = gen_dir / entry["file"]
    root = Path(tempfile.mkdtemp(prefix="faultgen_", dir=args.workdir))
    try:
        plain = None
        if with_plain:
            plain = RS.plain_run(script, root / "plain", args.plain_timeout, env)
        report, err, secs, argv = RS.diagnose(cmd_base, "script", script, root / "script", None, args.timeout, env)
        s = score(entry, report, err)
        s["diag_seconds"] = secs
        s["plain_seconds"] = plain["seconds"] if plain else None
        s["base"], s["operator"], s["magnitude"] = entry["base"], entry["operator"], entry["magnitude"]
        s["command"] = " ".join(shlex.quote(a) for a in argv) if argv else None
        if isinstance(report, dict):
            s["caveats"] = [c for c in report.get("caveats") or [] if c.startswith("Ran ")]
        return s
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def load_results(path):
    out = {}
    p = Path(path)
    if p.exists():
        for line in p.read_text().splitlines():
            if line.strip():
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                out[r["file"]] = r
    return out


def print_summary(results, out=sys.stdout):
    scored = list(results.values())
    if not scored:
        print("no results", file=out)
        return {}
    summ = RS.summarize(scored)
    RS.print_mode_table("script (generated faults)", summ, out=out)
    print(f"  {'runs with a timed plain run':<30} {sum(1 for s in scored if s.get('plain_seconds')):>10}", file=out)
    # per base (leave-one-base-out)
    print("\n  per base: runs | symptom | top-1 | top-3 | false alarms | ECE", file=out)
    per = {}
    for base in sorted({s["base"] for s in scored}):
        sub = [s for s in scored if s["base"] == base]
        b = RS.summarize(sub)
        per[base] = b
        print(f"  {base:<28} {len(sub):>4} | {RS._pct(b['symptom_accuracy'])} | {RS._pct(b['top1_accuracy'])} | "
              f"{RS._pct(b['top3_accuracy'])} | {b['false_alarms']}/{b['healthy']} | {RS._num(b['ece'])}", file=out)
    print("\n  per operator: runs | symptom | top-1 | top-3 | false alarms", file=out)
    for op in sorted({s["operator"] for s in scored}):
        sub = [s for s in scored if s["operator"] == op]
        b = RS.summarize(sub)
        print(f"  {op:<22} {len(sub):>4} | {RS._pct(b['symptom_accuracy'])} | {RS._pct(b['top1_accuracy'])} | "
              f"{RS._pct(b['top3_accuracy'])} | {b['false_alarms']}/{b['healthy']}", file=out)
    summ["per_base"] = per
    return summ


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", default=str(DEFAULT_OUT), help="folder of generated runs (made if missing)")
    ap.add_argument("--bases", default="", help="comma-separated base names (default: all)")
    ap.add_argument("--operators", default="", help="comma-separated operator names (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many runs (stratified order)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--results", default="faultgen_results.jsonl", help="JSON lines, appended; resumable")
    ap.add_argument("--fresh", action="store_true", help="start a new results file instead of resuming")
    ap.add_argument("--plain-every", type=int, default=5, help="time the plain run of every K-th run (0: none)")
    ap.add_argument("--traindx", default=None)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--plain-timeout", type=float, default=600)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--summarize", action="store_true", help="only print the summary of --results")
    ap.add_argument("--json", dest="json_out", default=None, help="write the summary to this JSON file")
    args = ap.parse_args(argv)

    bases = {s for s in args.bases.split(",") if s} or None
    ops = {s for s in args.operators.split(",") if s} or None
    if args.summarize:
        res = load_results(args.results)
        res = {k: v for k, v in res.items() if (not bases or v["base"] in bases) and (not ops or v["operator"] in ops)}
        summ = print_summary(res)
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(summ, indent=2, default=str))
        return 0

    gen_dir = Path(args.gen)
    entries = {e["file"]: e for e in generate(gen_dir)}     # always regenerate: the scripts follow the code
    found = stratified(cases(bases, ops))
    if args.limit:
        found = found[:args.limit]
    if args.fresh and Path(args.results).exists():
        Path(args.results).unlink()
    done = load_results(args.results)
    todo = [(i, entries[f"{c[0]}.py"]) for i, c in enumerate(found) if f"{c[0]}.py" not in done]
    cmd_base = RS.traindx_command(args.traindx)
    env = RS.child_env(args.threads)
    print(f"traindx: {' '.join(cmd_base)}   runs: {len(found)} ({len(found) - len(todo)} already in "
          f"{args.results})   jobs: {args.jobs}", flush=True)
    t0 = time.monotonic()
    with open(args.results, "a") as sink, cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(run_one, e, gen_dir, cmd_base, args, env,
                            bool(args.plain_every) and i % args.plain_every == 0): e for i, e in todo}
        for n, fut in enumerate(cf.as_completed(futs), 1):
            e = futs[fut]
            try:
                s = fut.result()
            except Exception as exc:          # a runner fault on one run never loses the others
                s = score(e, None, f"runner error: {exc!r}")
                s["base"], s["operator"], s["magnitude"] = e["base"], e["operator"], e["magnitude"]
            sink.write(json.dumps(s, default=str) + "\n")
            sink.flush()
            done[s["file"]] = s
            mark = "ok" if RS._case_ok(s) else "miss"
            top = s["root_causes"][0] if s["root_causes"] else None
            top_txt = f"{top['id']}({RS._num(top['confidence'], '{:.2f}')})" if top else "-"
            print(f"  [{n}/{len(todo)} {time.monotonic() - t0:.0f}s] {s['file']:<58} {mark:<4} "
                  f"{s['status']}/{s['symptom']} {top_txt}", flush=True)
    wanted = {f"{c[0]}.py" for c in found}
    summ = print_summary({k: v for k, v in done.items() if k in wanted})
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summ, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
