#!/usr/bin/env python
"""Run the public scenario suite (benchmarks/scenarios/) through `traindx diagnose` and score it.

For every manifest entry (gpu_only ones are skipped when CUDA is unavailable) the runner, in a fresh
temporary directory:

1. times the plain run (`python sNN.py`), which also leaves the script's metrics.csv / metrics.jsonl;
2. runs traindx in each requested mode, reading the JSON report (contract section 6):
     script: traindx diagnose --script sNN.py --non-interactive --format json
     code:   traindx diagnose --code sNN.py --non-interactive --format json
     log:    traindx diagnose --log metrics.csv --non-interactive --format json   (the plain run's log)
     console: traindx diagnose --code sNN.py --log console.log --non-interactive --format json
             (a finished run as its user has it: the script and what the plain run printed, stdout and
             stderr interleaved as `python sNN.py > console.log 2>&1` leaves them)
3. scores the report against the manifest.

Scores per mode: symptom accuracy, root-cause top-1 (also_acceptable counts) and top-3 accuracy over the
faulty scenarios, outcome accuracy for healthy / out_of_scope scenarios (the report's status), false
alarms on healthy runs (status other than "healthy", or any root cause with confidence >= 0.5),
expected calibration error (ECE, 10 equal-width bins over top-1 root-cause confidences) and the median
of diagnosis time / plain run time.

A traindx call that fails (non-zero exit, timeout, no parsable JSON) is scored as a miss and its error is
recorded; it never stops the run.

By default every child process gets OMP_NUM_THREADS=1 (see --threads) so that timings of these small
CPU jobs do not depend on how busy the machine is; -j N runs N scenarios at once (timings then inflate).

Usage:
    python benchmarks/run_scenarios.py [--modes script,code,log] [--only s01,s02] [-j N] [--json OUT]
        [--plain-cache DIR] [--cases-jsonl FILE]
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "scenarios" / "manifest.yaml"
MODES = ("script", "code", "log", "console")
CONSOLE_FILE = "console.log"
HEALTHY, OUT_OF_SCOPE, UNSETTLED = "healthy", "out_of_scope", "unsettled"
FALSE_ALARM_CONFIDENCE = 0.5
METRIC_FILES = ("metrics.csv", "metrics.jsonl")


# --------------------------------------------------------------------------------------------------
# manifest
# --------------------------------------------------------------------------------------------------
def load_manifest(path):
    import yaml

    with open(path) as f:
        data = yaml.safe_load(f)
    if isinstance(data, dict):  # tolerate {"scenarios": [...]}
        data = data.get("scenarios", [])
    entries = []
    for raw in data or []:
        e = dict(raw)
        e.setdefault("root_cause", None)
        e["also_acceptable"] = list(e.get("also_acceptable") or [])
        e["gpu_only"] = bool(e.get("gpu_only", False))
        e.setdefault("num_classes", None)
        e.setdefault("summary", "")
        entries.append(e)
    return entries


def case_name(entry):
    return Path(entry["file"]).stem


# --------------------------------------------------------------------------------------------------
# report reading and scoring (pure functions; tested in tests/test_scenarios_runner.py)
# --------------------------------------------------------------------------------------------------
def predicted_symptom(report):
    """The report's symptom id; falls back to the status for healthy / out_of_scope reports."""
    if not isinstance(report, dict):
        return None
    sym = report.get("symptom")
    if isinstance(sym, dict) and sym.get("id"):
        return sym["id"]
    if isinstance(sym, str) and sym:
        return sym
    status = report.get("status")
    if status in (HEALTHY, OUT_OF_SCOPE):
        return status
    return None


def ranked_causes(report):
    """[(id, confidence)] best first, as listed in the report (confidence None when missing/invalid)."""
    out = []
    if not isinstance(report, dict):
        return out
    for rc in report.get("root_causes") or []:
        if not isinstance(rc, dict) or not rc.get("id"):
            continue
        conf = rc.get("confidence")
        try:
            conf = float(conf)
            if math.isnan(conf):
                conf = None
        except (TypeError, ValueError):
            conf = None
        out.append((rc["id"], conf))
    return out


def expected_status(entry):
    if entry.get("root_cause"):
        return "diagnosed"
    if entry.get("symptom") == OUT_OF_SCOPE:
        return OUT_OF_SCOPE
    return HEALTHY


def score_case(entry, report, error=None, mode="script"):
    """Score one report against one manifest entry.

    In code mode a healthy run cannot be *seen* to be healthy (no curve is observed): it counts as
    recognised when the code reveals no bug (no status "diagnosed", no cause at >= 0.5), and only a
    cause claimed at >= 0.5 is a false alarm.

    Returns a dict with: kind ("fault" | "healthy" | "out_of_scope" | "unsettled"), symptom_ok, top1_ok, top3_ok
    (None unless kind == "fault"), outcome_ok (None unless healthy/out_of_scope), false_alarm (None unless
    healthy), top1_id, top1_confidence, top1_correct (for calibration; None when no root cause was given),
    predicted symptom/status/causes and the error, if any.
    """
    kind = case_kind(entry)
    accepted = set([entry["root_cause"]] + list(entry.get("also_acceptable")
                                                or [])) if entry.get("root_cause") else set()
    ok_report = isinstance(report, dict) and error is None
    causes = ranked_causes(report) if ok_report else []
    status = report.get("status") if ok_report else None
    sym = predicted_symptom(report) if ok_report else None
    top1_id, top1_conf = (causes[0] if causes else (None, None))

    res = {
        "file": entry["file"],
        "kind": kind,
        "expected_symptom": entry.get("symptom"),
        "expected_root_cause": entry.get("root_cause"),
        "also_acceptable": list(entry.get("also_acceptable") or []),
        "status": status,
        "symptom": sym,
        "root_causes": [{"id": i, "confidence": c} for i, c in causes[:5]],
        "error": error,
        "symptom_ok": bool(ok_report and sym == entry.get("symptom")),
        "top1_ok": None,
        "top3_ok": None,
        "outcome_ok": None,
        "false_alarm": None,
        "top1_id": top1_id,
        "top1_confidence": top1_conf,
        "top1_correct": None,
    }
    if kind == "fault":
        res["top1_ok"] = bool(top1_id in accepted)
        res["top3_ok"] = bool(any(i in accepted for i, _ in causes[:3]))
    elif kind != UNSETTLED:      # an unsettled case is scored on its symptom only
        res["outcome_ok"] = bool(ok_report and status == expected_status(entry))
    if kind == HEALTHY:
        if not ok_report:
            res["false_alarm"] = None  # no answer is a miss, not an alarm
        else:
            confident = any(c is not None and c >= FALSE_ALARM_CONFIDENCE for _, c in causes)
            if mode == "code":
                res["false_alarm"] = bool(confident or status == "diagnosed")
                res["outcome_ok"] = not res["false_alarm"]
                res["symptom_ok"] = res["outcome_ok"]
            else:
                res["false_alarm"] = bool(status != HEALTHY or confident)
    if top1_id is not None and top1_conf is not None and kind != UNSETTLED:
        res["top1_correct"] = bool(top1_id in accepted)  # any cause on a healthy/oos run is wrong
    return res


def case_kind(entry) -> str:
    """"fault" (a root cause is labelled), "healthy", "out_of_scope", or "unsettled": a training
    symptom whose cause no one settled (a softmax over one output, plotting that slows each step).
    An unsettled case is scored on its symptom only: it is no healthy run, so a cause named for it
    is no false alarm, and no cause can be right or wrong, so it is left out of top-1 and the ECE."""
    if entry.get("root_cause"):
        return "fault"
    if entry.get("symptom") in (OUT_OF_SCOPE, HEALTHY):
        return entry["symptom"]
    return UNSETTLED


def expected_calibration_error(pairs, n_bins=10):
    """ECE over (confidence, correct) pairs with equal-width bins on [0, 1]; None when there are none."""
    pairs = [(min(max(float(c), 0.0), 1.0), bool(ok)) for c, ok in pairs if c is not None]
    if not pairs:
        return None
    bins = [[] for _ in range(n_bins)]
    for c, ok in pairs:
        bins[min(int(c * n_bins), n_bins - 1)].append((c, ok))
    total = len(pairs)
    ece = 0.0
    for b in bins:
        if b:
            conf = sum(c for c, _ in b) / len(b)
            acc = sum(1 for _, ok in b if ok) / len(b)
            ece += len(b) / total * abs(acc - conf)
    return ece


def _rate(values):
    vals = [v for v in values if v is not None]
    return (sum(1 for v in vals if v) / len(vals)) if vals else None


def summarize(scored, timings=None):
    """Aggregate scored cases (score_case outputs, optionally with diag_seconds / plain_seconds keys)."""
    faults = [s for s in scored if s["kind"] == "fault"]
    healthy = [s for s in scored if s["kind"] == HEALTHY]
    oos = [s for s in scored if s["kind"] == OUT_OF_SCOPE]
    ratios = [s["diag_seconds"] / s["plain_seconds"] for s in scored
              if s.get("diag_seconds") is not None and s.get("plain_seconds")]
    diag = [s["diag_seconds"] for s in scored if s.get("diag_seconds") is not None]
    alarms = [s["false_alarm"] for s in healthy]
    return {
        "cases": len(scored),
        "faults": len(faults),
        "healthy": len(healthy),
        "out_of_scope": len(oos),
        "unsettled": sum(1 for s in scored if s["kind"] == UNSETTLED),
        "errors": sum(1 for s in scored if s.get("error")),
        "symptom_accuracy": _rate([s["symptom_ok"] for s in scored]),
        "top1_accuracy": _rate([s["top1_ok"] for s in faults]),
        "top3_accuracy": _rate([s["top3_ok"] for s in faults]),
        "healthy_accuracy": _rate([s["outcome_ok"] for s in healthy]),
        "out_of_scope_accuracy": _rate([s["outcome_ok"] for s in oos]),
        "false_alarms": sum(1 for a in alarms if a),
        "false_alarm_rate": (sum(1 for a in alarms if a) / len(healthy)) if healthy else None,
        "ece": expected_calibration_error([(s["top1_confidence"], s["top1_correct"]) for s in scored
                                           if s.get("top1_correct") is not None]),
        "median_diag_seconds": statistics.median(diag) if diag else None,
        "median_time_ratio": statistics.median(ratios) if ratios else None,
    }


def parse_report_text(text):
    """A JSON report from a file's or stdout's text: the whole text, else the last top-level {...} object."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        obj = json.loads(text)
        return obj if isinstance(obj, dict) else None
    except ValueError:
        pass
    # stdout may carry the training script's own prints before the report
    dec = json.JSONDecoder()
    best = None
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict) and ("status" in obj or "root_causes" in obj):
            best = obj
        i = text.find("{", end)
    return best


# --------------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------------
def child_env(threads):
    env = dict(os.environ)
    if threads:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(threads)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _tail(text, n=1500):
    text = text or ""
    return text if len(text) <= n else "..." + text[-n:]


def plain_run(script, workdir, timeout, env):
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(script, workdir / script.name)
    t0 = time.perf_counter()
    console = workdir / CONSOLE_FILE
    try:
        # stdout and stderr into one file, as a redirected run leaves them (the console mode reads it)
        with open(console, "wb") as fh:
            p = subprocess.run([sys.executable, script.name], cwd=workdir, env=env, stdout=fh,
                               stderr=subprocess.STDOUT, timeout=timeout)
        rc = p.returncode
        err = _tail(console.read_text(encoding="utf-8", errors="replace")) if rc else None
    except subprocess.TimeoutExpired:
        rc, err = None, f"plain run timed out after {timeout}s"
    seconds = time.perf_counter() - t0
    metrics = next((workdir / m for m in METRIC_FILES if (workdir / m).exists()), None)
    return {"seconds": seconds, "returncode": rc, "error": err, "metrics": str(metrics) if metrics else None,
            "console": str(console) if console.exists() else None}


def cached_plain_run(script, workdir, args, env):
    """The plain run, or with --plain-cache the one kept in CACHE/<name>/ (run and kept there when absent).

    Two trees compared on the same cache read the very same metrics files, and the training runs once."""
    if not args.plain_cache:
        return plain_run(script, workdir, args.plain_timeout, env)
    kept = Path(args.plain_cache) / script.stem
    info = kept / "plain.json"
    if not info.exists():
        result = plain_run(script, kept, args.plain_timeout, env)
        info.write_text(json.dumps(result))
    result = json.loads(info.read_text())
    metrics = next((kept / m for m in METRIC_FILES if (kept / m).exists()), None)
    console = kept / CONSOLE_FILE  # absent in a cache kept before the console mode existed
    return {**result, "metrics": str(metrics) if metrics else None,
            "console": str(console) if console.exists() else None}


def traindx_command(spec):
    if spec:
        return shlex.split(spec)
    exe = shutil.which("traindx")
    return [exe] if exe else [sys.executable, "-m", "traindx.engine.frontends.cli"]


def diagnose(cmd_base, mode, script, workdir, metrics, timeout, env, console=None):
    """Run traindx once; returns (report | None, error | None, seconds, argv)."""
    workdir.mkdir(parents=True, exist_ok=True)
    out_json = workdir / "traindx_report.json"
    if mode == "script":
        shutil.copy(script, workdir / script.name)
        target = ["--script", script.name]
    elif mode == "code":
        shutil.copy(script, workdir / script.name)
        target = ["--code", script.name]
    elif mode == "log":
        if not metrics:
            return None, "no metrics file: the plain run wrote none", None, None
        shutil.copy(metrics, workdir / Path(metrics).name)
        target = ["--log", Path(metrics).name]
    elif mode == "console":
        if not console:
            return None, "no console output kept: the plain run predates the console mode", None, None
        shutil.copy(script, workdir / script.name)
        shutil.copy(console, workdir / CONSOLE_FILE)
        target = ["--code", script.name, "--log", CONSOLE_FILE]
    else:
        raise ValueError(mode)
    argv = list(cmd_base) + ["diagnose"] + target + ["--non-interactive", "--format", "json", "--output", str(out_json)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"traindx timed out after {timeout}s", time.perf_counter() - t0, argv
    except OSError as e:
        return None, f"could not start traindx: {e}", time.perf_counter() - t0, argv
    seconds = time.perf_counter() - t0
    report = None
    if out_json.exists():
        report = parse_report_text(out_json.read_text(errors="replace"))
    if report is None:
        report = parse_report_text(p.stdout)
    if p.returncode != 0:
        return None, f"traindx exit {p.returncode}: {_tail(p.stderr or p.stdout, 800)}", seconds, argv
    if report is None:
        return (None, f"no JSON report (stdout: {_tail(p.stdout, 300)!r}; stderr: {_tail(p.stderr, 500)!r})",
                seconds, argv)
    return report, None, seconds, argv


def run_case(entry, scen_dir, modes, cmd_base, args, env):
    script = scen_dir / entry["file"]
    root = Path(tempfile.mkdtemp(prefix=f"traindx_{case_name(entry)}_", dir=args.workdir))
    try:
        plain = cached_plain_run(script, root / "plain", args, env)
        per_mode = {}
        for mode in modes:
            if mode == "log" and not plain["metrics"]:
                per_mode[mode] = {"skipped": "the plain run wrote no metrics file"}
                continue
            if mode == "console" and not plain.get("console"):
                per_mode[mode] = {"skipped": "the plain-run cache predates the console mode (no console.log)"}
                continue
            report, err, secs, argv = diagnose(cmd_base, mode, script, root / mode, plain["metrics"], args.timeout, env,
                                               plain.get("console"))
            s = score_case(entry, report, err, mode)
            s["diag_seconds"] = secs
            s["plain_seconds"] = plain["seconds"]
            s["command"] = " ".join(shlex.quote(a) for a in argv) if argv else None
            per_mode[mode] = s
        return {"entry": entry, "plain": plain, "modes": per_mode}
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def kept_cases(path, entries, modes):
    """The cases of a --cases-jsonl file that hold every requested mode (the last record of a case wins)."""
    if not path or not Path(path).exists():
        return []
    by_file = {e["file"]: e for e in entries}
    kept = {}
    for line in Path(path).read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:  # a line cut short when a run was stopped
            continue
        if rec.get("file") in by_file and all(m in rec.get("modes", {}) for m in modes):
            kept[rec["file"]] = {"entry": by_file[rec["file"]], "plain": rec["plain"],
                                 "modes": {m: rec["modes"][m] for m in modes}}
    return list(kept.values())


def append_case(path, r):
    """Append one finished case to a --cases-jsonl file, so that a stopped run loses nothing."""
    if not path:
        return
    line = json.dumps({"file": r["entry"]["file"], "plain": r["plain"], "modes": r["modes"]}, default=str)
    with open(path, "a") as fh:
        fh.write(line + "\n")


def cuda_available():
    try:
        import torch  # noqa: F401

        return bool(torch.cuda.is_available())
    except Exception:
        return False


# --------------------------------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------------------------------
def _pct(x):
    return "  -  " if x is None else f"{100 * x:5.1f}%"


def _num(x, fmt="{:.3f}"):
    return "-" if x is None else fmt.format(x)


def print_mode_table(mode, summary, out=sys.stdout):
    s = summary
    unsettled = f", {s['unsettled']} with no settled cause" if s.get("unsettled") else ""
    print(f"\n=== mode: {mode}  ({s['cases']} cases: {s['faults']} faulty, {s['healthy']} healthy, "
          f"{s['out_of_scope']} out of scope{unsettled}; {s['errors']} traindx errors)", file=out)
    rows = [
        ("symptom accuracy", _pct(s["symptom_accuracy"])),
        ("root cause top-1 (faulty)", _pct(s["top1_accuracy"])),
        ("root cause top-3 (faulty)", _pct(s["top3_accuracy"])),
        ("healthy recognised", _pct(s["healthy_accuracy"])),
        ("out_of_scope recognised", _pct(s["out_of_scope_accuracy"])),
        ("false alarms on healthy", f"{s['false_alarms']}/{s['healthy']}"),
        ("calibration error (ECE)", _num(s["ece"])),
        ("median diagnosis seconds", _num(s["median_diag_seconds"], "{:.1f}")),
        ("median diagnosis/plain time", _num(s["median_time_ratio"], "{:.2f}x")),
    ]
    for k, v in rows:
        print(f"  {k:<30} {v:>10}", file=out)


def describe_miss(s):
    causes = ", ".join(f"{c['id']}({_num(c['confidence'], '{:.2f}')})" for c in s["root_causes"][:3]) or "none"
    want = s["expected_root_cause"] or s["expected_symptom"]
    got = f"status={s['status']} symptom={s['symptom']} causes=[{causes}]"
    line = f"  {s['file']:<8} want {s['expected_symptom']}/{want}; got {got}"
    if s.get("error"):
        line += f"\n           error: {s['error'].splitlines()[0][:200] if s['error'].strip() else s['error']}"
    return line


def print_misses(mode, scored, out=sys.stdout):
    misses = [s for s in scored if not s["symptom_ok"] or s["top1_ok"] is False or s["outcome_ok"] is False
              or s["false_alarm"] or s.get("error")]
    print(f"\n--- misses ({mode}): {len(misses)}", file=out)
    for s in misses:
        print(describe_miss(s), file=out)


# --------------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", default=str(DEFAULT_MANIFEST))
    ap.add_argument("--modes", default="script",
                    help="comma-separated subset of script,code,log,console (default: script)")
    ap.add_argument("--only", default="", help="comma-separated scenario names, e.g. s01,s02 (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="scenarios run in parallel (default 1)")
    ap.add_argument("--json", dest="json_out", default=None, help="write all results to this JSON file")
    ap.add_argument("--rescore", default=None, metavar="JSON",
                    help="score a --json result again against the manifest as it is now (runs nothing)")
    ap.add_argument("--traindx", default=None, help="command that starts traindx (default: traindx on PATH)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed per traindx call")
    ap.add_argument("--plain-timeout", type=float, default=120, help="seconds allowed per plain run")
    ap.add_argument("--threads", type=int, default=1, help="OMP/MKL threads for child processes (0: leave as is)")
    ap.add_argument("--plain-cache", default=None,
                    help="folder of kept plain runs (CACHE/sNN/): reused when present, else run and kept there")
    ap.add_argument("--workdir", default=None, help="parent folder for the per-case temporary folders")
    ap.add_argument("--keep", action="store_true", help="keep the per-case temporary folders")
    ap.add_argument("--list", action="store_true", help="list the selected scenarios and exit")
    ap.add_argument("--cases-jsonl", default=None,
                    help="append each case to this JSON-lines file as it ends; a case already there with every "
                         "requested mode is not run again (a stopped run resumes where it stopped)")
    args = ap.parse_args(argv)

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        ap.error(f"--modes: unknown {bad or modes}; choose from {','.join(MODES)}")

    manifest = Path(args.manifest)
    entries = load_manifest(manifest)
    if args.rescore:
        return rescore(args.rescore, entries)
    if args.only:
        wanted = {w.strip().removesuffix(".py") for w in args.only.split(",") if w.strip()}
        unknown = wanted - {case_name(e) for e in entries}
        if unknown:
            ap.error(f"--only: not in the manifest: {sorted(unknown)}")
        entries = [e for e in entries if case_name(e) in wanted]
    has_cuda = cuda_available()
    skipped = [e for e in entries if e["gpu_only"] and not has_cuda]
    entries = [e for e in entries if not (e["gpu_only"] and not has_cuda)]

    if args.list:
        for e in entries:
            print(f"{e['file']:<8} {e['symptom']:<14} {e['root_cause'] or '-':<28} {e['summary'][:80]}")
        for e in skipped:
            print(f"{e['file']:<8} (skipped: gpu_only and no CUDA)")
        return 0

    cmd_base = traindx_command(args.traindx)
    env = child_env(args.threads)
    scen_dir = manifest.parent
    print(f"traindx: {' '.join(cmd_base)}   modes: {','.join(modes)}   cases: {len(entries)}"
          f"{f'   skipped (no CUDA): {len(skipped)}' if skipped else ''}   jobs: {args.jobs}", flush=True)

    results = kept_cases(args.cases_jsonl, entries, modes)
    if results:
        print(f"  {len(results)} case(s) already in {args.cases_jsonl}: not run again", flush=True)
    done = {r["entry"]["file"] for r in results}
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(run_case, e, scen_dir, modes, cmd_base, args, env): e
                for e in entries if e["file"] not in done}
        for fut in cf.as_completed(futs):
            e = futs[fut]
            try:
                r = fut.result()
            except Exception as exc:  # a runner bug on one case must not lose the others
                r = {"entry": e, "plain": {"seconds": None, "returncode": None, "error": repr(exc), "metrics": None},
                     "modes": {m: score_case(e, None, f"runner error: {exc!r}") for m in modes}}
            results.append(r)
            append_case(args.cases_jsonl, r)
            marks = " ".join(f"{m}:{'ok' if _case_ok(r['modes'].get(m)) else 'miss'}" for m in modes)
            print(f"  {e['file']:<8} plain {_num(r['plain']['seconds'], '{:.1f}')}s  {marks}", flush=True)
    results.sort(key=lambda r: r["entry"]["file"])

    unexpected = [r for r in results if (r["plain"]["returncode"] != 0) != bool(r["entry"].get("expect_crash"))]
    if unexpected:
        print("\nplain runs that did not exit as the manifest expects:")
        for r in unexpected:
            print(f"  {r['entry']['file']}: exit {r['plain']['returncode']} {(r['plain']['error'] or '')[-200:]}")

    summaries = {}
    for m in modes:
        scored = [r["modes"][m] for r in results if "file" in r["modes"].get(m, {})]
        summaries[m] = summarize(scored)
        print_mode_table(m, summaries[m])
        not_run = [r["entry"]["file"] for r in results if "skipped" in r["modes"].get(m, {})]
        if not_run:
            print(f"  not scored (no metrics log): {', '.join(not_run)}")
        print_misses(m, scored)

    plain_secs = [r["plain"]["seconds"] for r in results if r["plain"]["seconds"] is not None]
    if plain_secs:
        print(f"\nplain runs: median {statistics.median(plain_secs):.1f}s, max {max(plain_secs):.1f}s")

    if args.json_out:
        payload = {
            "manifest": str(manifest),
            "traindx": cmd_base,
            "modes": modes,
            "threads": args.threads,
            "jobs": args.jobs,
            "skipped_gpu_only": [e["file"] for e in skipped],
            "summary": summaries,
            "cases": [{"file": r["entry"]["file"], "plain": r["plain"], "modes": r["modes"]} for r in results],
        }
        Path(args.json_out).write_text(json.dumps(payload, indent=2, default=str))
        print(f"results written to {args.json_out}")
    return 0


def rescore(path, entries, out=None) -> int:
    """The tables of a saved ``--json`` result scored by this version of :func:`score_case` against
    the manifest's current entries (a label or a scoring rule changed since the run): each report is
    rebuilt from what the result kept (status, symptom, ranked causes, error, times)."""
    by_file = {e["file"]: e for e in entries}
    data = json.loads(Path(path).read_text())
    for mode in data["modes"]:
        scored = []
        for case in data["cases"]:
            old = case["modes"].get(mode) or {}
            if "file" not in old or old["file"] not in by_file:
                continue
            report = None if old.get("status") is None else {
                "status": old["status"], "symptom": {"id": old["symptom"]} if old.get("symptom") else None,
                "root_causes": old.get("root_causes") or []}
            s = score_case(by_file[old["file"]], report, old.get("error"), mode)
            s.update({k: old[k] for k in ("diag_seconds", "plain_seconds") if k in old})
            scored.append(s)
        print_mode_table(mode, summarize(scored), out or sys.stdout)
    return 0


def _case_ok(s):
    if not s or "file" not in s:
        return False
    if s.get("error") or not s["symptom_ok"]:
        return False
    if s["kind"] == "fault":
        return bool(s["top1_ok"])
    if s["kind"] == UNSETTLED:
        return True
    return bool(s["outcome_ok"]) and not s.get("false_alarm")


if __name__ == "__main__":
    sys.exit(main())
