"""Diagnose finished runs and pasted console logs from what they left behind; print accuracy.

Corpora (each ``index.yaml`` / ``meta.yaml`` says what is expected):

- ``finished``: ``benchmarks/finished_runs/<split>/<id>/{train.py, console.log, config.yaml?,
  meta.yaml}`` — each run is diagnosed as a user would from its artifacts,
  ``traindx diagnose --code train.py [--config config.yaml] --log console.log --non-interactive
  --format json``. Scored: symptom accuracy, top-1 cause accuracy, and causes named on healthy
  runs, and the expected calibration error (ECE, as ``run_scenarios.py`` computes it: the top-listed
  cause's confidence against whether it is the run's cause); ``--rows FILE.jsonl`` writes one line per
  run, which ``benchmarks/calibrate.py`` fits and measures on (``base`` is the run's base program, so
  ``--lobo`` holds each out in turn). A run whose expected symptom is ``out_of_scope`` (a crash: shape,
  dtype, collate, OOM) is right when the report hands it on (status ``out_of_scope``); its "cause" is
  the deferral.
- ``pasted``: ``benchmarks/pasted_logs/<split>/<id>.txt`` with ``index.yaml`` — console excerpts
  pasted into public threads (tune: GitHub, test: other sites), read with
  ``traindx diagnose --log FILE --non-interactive --format json``; scored on the symptom.
- ``real``: ``../shared/real-logs/*.csv``, which record no labels: scored against
  ``benchmarks/real_logs/labels.yaml``, one expert's reading of each curve made by someone who had
  never run traindx (strictly, and counting the labeller's own second readings where unsure).

The symptom of a report is its symptom id; a healthy report counts as ``healthy`` and an
out-of-scope one as ``out_of_scope``. Everything runs in-process through the CLI (click's test
runner), so the numbers are the command line's.

    python benchmarks/run_finished.py finished --split tune
    python benchmarks/run_finished.py pasted --split test -v
    python benchmarks/run_finished.py real
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_scenarios as RS  # noqa: E402
REAL = os.path.join(HERE, "..", "..", "shared", "real-logs")


def _diagnose(args: list[str]) -> dict:
    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    res = CliRunner().invoke(main, ["diagnose", *args, *EXTRA_ARGS, "--non-interactive", "--format", "json"])
    if res.exit_code == 2:
        return {"status": "error", "error": (res.stderr if hasattr(res, "stderr") else res.output).strip()}
    if res.exit_code != 0:
        raise RuntimeError(f"traindx failed on {args}: {res.exception!r}\n{res.output[-2000:]}")
    out = res.stdout if hasattr(res, "stdout") else res.output
    start = out.index("{")
    return json.loads(out[start:])


#: options added to every diagnosis (``--kb DIR``: a pack, e.g. one overriding a parameter for an A/B run)
EXTRA_ARGS: list[str] = []


def _symptom(rep: dict) -> str | None:
    st = rep.get("status")
    if st == "healthy":
        return "healthy"
    if st == "out_of_scope":
        return "out_of_scope"
    sym = rep.get("symptom")
    return sym["id"] if sym else None


def _top(rep: dict) -> str | None:
    if rep.get("status") == "out_of_scope":
        return "out_of_scope"
    if rep.get("status") != "diagnosed" or not rep.get("root_causes"):
        return None
    return rep["root_causes"][0]["id"]


def _reader(path: str) -> str:
    """The format traindx's log reader takes ``path`` for (csv, jsonl, json, console, tensorboard), as it
    sniffs it before reading: ``--reader`` keeps the runs a change to one reader can touch."""
    from traindx.engine import bounded
    from traindx.probes.readers import logs
    try:
        return logs._sniff(path, bounded.limits(), logs.log_words(None))
    except Exception:       # an unreadable log: its own class
        return "unreadable"


def run_finished(root: str, split: str | None, verbose: bool, only: set | None = None,
                 readers: set | None = None) -> dict:
    rows = []
    for sp in sorted(os.listdir(root)):
        d = os.path.join(root, sp)
        if not os.path.isdir(d) or (split and sp not in split.split(",")):
            continue
        for rid in sorted(os.listdir(d)):
            run = os.path.join(d, rid)
            meta_p = os.path.join(run, "meta.yaml")
            if not os.path.isfile(meta_p) or not os.path.isfile(os.path.join(run, "console.log")):
                continue
            if only and rid not in only:
                continue
            if readers and _reader(os.path.join(run, "console.log")) not in readers:
                continue
            with open(meta_p, encoding="utf-8") as fh:
                meta = yaml.safe_load(fh)
            args = ["--code", os.path.join(run, "train.py")]
            cfg = meta.get("config") or ("config.yaml" if os.path.isfile(os.path.join(run, "config.yaml")) else None)
            if cfg and os.path.isfile(os.path.join(run, cfg)):
                args += ["--config", os.path.join(run, cfg)]
            args += ["--log", os.path.join(run, "console.log")]
            t0 = time.perf_counter()
            rep = _diagnose(args)
            dt = time.perf_counter() - t0
            want_s, want_c = meta["symptom"], meta["cause"]
            got_s, got_c = _symptom(rep), _top(rep)
            if want_s == "out_of_scope":
                cause_ok = got_c == "out_of_scope"
            elif want_c == "healthy":
                cause_ok = got_c is None
            else:
                cause_ok = got_c == want_c
            rows.append({"id": f"{sp}/{rid}", "split": sp, "style": meta.get("style"), "base": meta.get("base"),
                         "want_symptom": want_s, "got_symptom": got_s, "want_cause": want_c,
                         "got_cause": got_c, "symptom_ok": got_s == want_s, "cause_ok": cause_ok,
                         "healthy": want_c == "healthy", "seconds": dt,
                         "error": rep.get("error"), **_calibration_row(rep, want_s, want_c)})
            if verbose:
                r = rows[-1]
                mark = ("S" if r["symptom_ok"] else "s") + ("C" if r["cause_ok"] else "c")
                print(f"{mark} {r['id']:28s} {r['style'] or '':14s} symptom {want_s}->{got_s}  "
                      f"cause {want_c}->{got_c}" + (f"  [{r['error']}]" if r["error"] else ""))
    return _summary_finished(rows)


def _calibration_row(rep: dict, want_s: str, want_c: str) -> dict:
    """What calibration is measured on, as ``run_scenarios.py`` scores it: the report's status and its
    top-listed cause's confidence, right when that cause is the run's (a cause listed on a healthy or
    out-of-scope run is wrong). ``kind``/``top1_ok`` make the row readable by ``calibrate.py``."""
    causes = RS.ranked_causes(rep)
    kind = "out_of_scope" if want_s == "out_of_scope" else ("healthy" if want_c == "healthy" else "fault")
    top_id, top_conf = causes[0] if causes else (None, None)
    correct = None if top_id is None or top_conf is None else (kind == "fault" and top_id == want_c)
    return {"kind": kind, "status": rep.get("status"), "top1_confidence": top_conf, "top1_correct": correct,
            "top1_ok": (top_id == want_c) if kind == "fault" else None}


def _ece(rows: list) -> float | None:
    return RS.expected_calibration_error([(r["top1_confidence"], r["top1_correct"]) for r in rows
                                          if r.get("top1_correct") is not None])


def _summary_finished(rows: list) -> dict:
    out = {}
    splits = sorted({r["split"] for r in rows})
    for sp in splits + (["all"] if len(splits) > 1 else []):
        rs = [r for r in rows if sp in ("all", r["split"])]
        healthy = [r for r in rs if r["healthy"]]
        faulty = [r for r in rs if not r["healthy"]]
        out[sp] = {
            "runs": len(rs),
            "styles": len({r["style"] for r in rs}),
            "symptom": sum(r["symptom_ok"] for r in rs),
            "top1": sum(r["cause_ok"] for r in faulty),
            "faulty": len(faulty),
            "healthy": len(healthy),
            "cause_on_healthy": sum(1 for r in healthy if r["got_cause"] is not None),
            "unread": sum(1 for r in rs if r["error"]),
            "seconds": round(sum(r["seconds"] for r in rs), 1),
            "confusion": _confusion(rs, "want_symptom", "got_symptom"),
            "ece": _ece(rs),
            "calibrated_on": sum(1 for r in rs if r.get("top1_correct") is not None),
        }
    out["_rows"] = rows
    return out


def _confusion(rows: list, want: str, got: str) -> dict:
    """Misread symptoms as ``{"want -> got": count}``: the error classes, without naming a case."""
    return dict(Counter(f"{r[want]} -> {r[got]}" for r in rows if r[want] != r[got]).most_common())


def run_pasted(root: str, split: str | None, verbose: bool, only: set | None = None,
               readers: set | None = None) -> dict:
    with open(os.path.join(root, "index.yaml"), encoding="utf-8") as fh:
        index = yaml.safe_load(fh)
    entries = index if isinstance(index, list) else index.get("logs") or index.get("entries") or []
    rows = []
    for e in entries:
        if (split and e["split"] not in split.split(",")) or (only and e["id"] not in only):
            continue
        path = os.path.join(root, e["split"], e["id"] + ".txt")
        if not os.path.isfile(path) or (readers and _reader(path) not in readers):
            continue
        rep = _diagnose(["--log", path])
        got = _symptom(rep)
        rows.append({"id": e["id"], "split": e["split"], "format": e.get("format"),
                     "want": e["symptom"], "got": got, "ok": got == e["symptom"],
                     "cause": _top(rep), "error": rep.get("error")})
        if verbose:
            r = rows[-1]
            print(f"{'+' if r['ok'] else '-'} {r['id']:10s} {r['format'] or '':16s} {r['want']} -> {r['got']}"
                  + (f" ({r['cause']})" if r["cause"] else "")
                  + (f"  [{r['error'][:150]}]" if r["error"] else ""))
    out = {}
    for sp in sorted({r["split"] for r in rows}):
        rs = [r for r in rows if r["split"] == sp]
        out[sp] = {"logs": len(rs), "formats": len({r["format"] for r in rs}),
                   "symptom": sum(r["ok"] for r in rs), "unread": sum(1 for r in rs if r["error"]),
                   "confusion": _confusion(rs, "want", "got")}
    return out


def run_real(root: str, verbose: bool) -> dict:
    """Each real log through ``--log``, scored against ``real_logs/labels.yaml`` (one expert's reading)."""
    labels_path = os.path.join(HERE, "real_logs", "labels.yaml")
    labels = {}
    if os.path.exists(labels_path):
        with open(labels_path, encoding="utf-8") as fh:
            labels = {e["file"]: e for e in yaml.safe_load(fh) or []}
    got, strict, lenient = {}, 0, 0
    for fn in sorted(os.listdir(root)):
        if fn.endswith(".csv"):
            rep = _diagnose(["--log", os.path.join(root, fn)])
            got[fn] = _symptom(rep) or rep.get("error")
            lab = labels.get(fn)
            ok = bool(lab) and got[fn] == lab["symptom"]
            ok2 = bool(lab) and (ok or got[fn] in (lab.get("also_acceptable") or []))
            strict += ok
            lenient += ok2
            if verbose:
                want = f"want {lab['symptom']}" + (f" (or {', '.join(lab['also_acceptable'])})"
                                                   if lab and lab.get("also_acceptable") else "") if lab else ""
                print(f"{'+' if ok else ('~' if ok2 else '-')} {fn}: {got[fn]}  {want}")
    return {"logs": len(got), "labelled": sum(1 for f in got if f in labels), "strict": strict,
            "with_second_readings": lenient, "by_symptom": dict(Counter(map(str, got.values()))), "each": got}


def _print_confusion(conf: dict) -> None:
    for pair, n in conf.items():
        print(f"    {n:3d}  {pair}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", choices=["finished", "pasted", "real"])
    ap.add_argument("--split", help="only these splits (comma-separated, e.g. tune,fresh3)")
    ap.add_argument("--kb", action="append", default=[], help="a pack folder added to every diagnosis (repeatable)")
    ap.add_argument("--root", help="corpus folder (default: the one in benchmarks/)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--confusion", action="store_true",
                    help="also print each misread symptom pair (want -> got) with its count")
    ap.add_argument("--rows", metavar="FILE.jsonl",
                    help="finished runs: also write one JSON line per run (status, top-1 confidence, right or "
                         "not), the input benchmarks/calibrate.py fits and measures on")
    ap.add_argument("--only", help="only these case ids (comma-separated: pasted ids, or finished run ids "
                                   "such as kws_03), e.g. to diagnose the same cases with two trees' Pythons")
    ap.add_argument("--reader", help="only the runs (pasted: logs) whose log traindx's log reader takes "
                                     "for one of these formats (comma-separated: csv, jsonl, json, console, "
                                     "tensorboard), the runs a change to that reader can touch")
    a = ap.parse_args(argv)
    only = set(a.only.split(",")) if a.only else None
    for d in a.kb:
        EXTRA_ARGS.extend(["--kb", d])
    if a.corpus == "finished":
        res = run_finished(a.root or os.path.join(HERE, "finished_runs"), a.split, a.verbose, only,
                           set(a.reader.split(",")) if a.reader else None)
        rows = res.pop("_rows")
        if a.rows:
            with open(a.rows, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r, default=str) + "\n" for r in rows)
        for sp, r in res.items():
            ece = "n/a" if r["ece"] is None else f"{r['ece']:.3f}"
            print(f"[{sp}] {r['runs']} runs in {r['styles']} print styles: symptom {r['symptom']}/{r['runs']} "
                  f"({100 * r['symptom'] / max(1, r['runs']):.1f}%), top-1 {r['top1']}/{r['faulty']} "
                  f"({100 * r['top1'] / max(1, r['faulty']):.1f}%), cause named on healthy runs "
                  f"{r['cause_on_healthy']}/{r['healthy']}, unreadable logs {r['unread']}, ECE {ece} "
                  f"(over {r['calibrated_on']} listed causes), {r['seconds']} s")
            if a.confusion:
                _print_confusion(r["confusion"])
    elif a.corpus == "pasted":
        res = run_pasted(a.root or os.path.join(HERE, "pasted_logs"), a.split, a.verbose, only,
                         set(a.reader.split(",")) if a.reader else None)
        for sp, r in res.items():
            print(f"[{sp}] {r['logs']} pasted logs in {r['formats']} formats: symptom {r['symptom']}/{r['logs']} "
                  f"({100 * r['symptom'] / max(1, r['logs']):.1f}%), unreadable {r['unread']}")
            if a.confusion:
                _print_confusion(r["confusion"])
    else:
        res = run_real(a.root or REAL, a.verbose)
        print(f"{res['logs']} real logs, {res['labelled']} labelled: symptom {res['strict']}/{res['labelled']} "
              f"({100 * res['strict'] / max(1, res['labelled']):.1f}%) against the label, "
              f"{res['with_second_readings']}/{res['labelled']} counting the labeller's second readings; read as "
              + ", ".join(f"{k} {v}" for k, v in sorted(res["by_symptom"].items())))
    if a.json:
        print(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
