"""Code mode alone on chosen scenario scripts, without the plain runs run_scenarios.py times first:
``traindx diagnose --code sNN.py`` in-process for each, scored as run_scenarios.py scores code mode.
Quick before/after checks of a code-reader or report change on a wide sample (run it with each tree's
python). Never pass held-out scripts (manifest: "Held out: sNNN on").

Usage: python benchmarks/code_mode_quick.py --only s01,s02,... [--json OUT]
"""
import argparse
import json
import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_scenarios import load_manifest, score_case, summarize  # noqa: E402

from traindx.engine.frontends.cli import main as cli  # noqa: E402

SCEN = Path(__file__).resolve().parent / "scenarios"


def code_report(script: Path):
    res = CliRunner().invoke(cli, ["diagnose", "--code", str(script), "--non-interactive", "--format", "json"])
    out = res.stdout if hasattr(res, "stdout") else res.output
    if res.exit_code != 0 or "{" not in out:
        return None, f"exit {res.exit_code}"
    return json.loads(out[out.index("{"):]), None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", required=True, help="comma-separated scenario names (s01,s02)")
    ap.add_argument("--json", help="write the scored cases here")
    args = ap.parse_args(argv)
    want = {n.strip().removesuffix(".py") for n in args.only.split(",") if n.strip()}
    entries = [e for e in load_manifest(SCEN / "manifest.yaml") if e["file"].removesuffix(".py") in want]
    scored = []
    for e in entries:
        rep, err = code_report(SCEN / e["file"])
        s = score_case(e, rep, err, mode="code")
        scored.append(s)
        causes = ", ".join(f"{c['id']} {c['confidence']}" for c in s["root_causes"][:2])
        print(f"{e['file']:<8} want {s['expected_symptom']}/{s['expected_root_cause']}; got {s['status']} "
              f"symptom={s['symptom']} [{causes}] sym={'ok' if s['symptom_ok'] else 'miss'}")
    summ = summarize(scored)
    print(json.dumps({k: summ[k] for k in ("cases", "symptom_accuracy", "top1_accuracy", "top3_accuracy",
                                          "healthy_accuracy", "false_alarms", "ece") if k in summ}))
    if args.json:
        Path(args.json).write_text(json.dumps(scored, indent=1))


if __name__ == "__main__":
    main()
