"""The scenario runner's scoring functions, on hand-made reports (fast; runs no training and no traindx)."""
import importlib.util
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_scenarios", ROOT / "benchmarks" / "run_scenarios.py")
rs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rs)

FAULT = {"file": "s01.py", "symptom": "not_learning", "root_cause": "lr_too_low",
         "also_acceptable": ["frozen_parameters"], "gpu_only": False, "num_classes": 5}
HEALTHY = {"file": "s02.py", "symptom": "healthy", "root_cause": None, "also_acceptable": [],
           "gpu_only": False, "num_classes": 4}
OOS = {"file": "s16.py", "symptom": "out_of_scope", "root_cause": None, "also_acceptable": [],
       "gpu_only": False, "num_classes": 10}


def report(status="diagnosed", symptom=None, causes=()):
    return {"schema_version": "1", "status": status,
            "symptom": {"id": symptom, "name": symptom} if symptom else None,
            "root_causes": [{"id": i, "confidence": c} for i, c in causes]}


def test_fault_top1_and_top3():
    r = report(symptom="not_learning", causes=[("lr_too_low", 0.8), ("bad_initialization", 0.1)])
    s = rs.score_case(FAULT, r)
    assert s["symptom_ok"] and s["top1_ok"] and s["top3_ok"]
    assert s["top1_correct"] is True and s["top1_confidence"] == 0.8
    assert s["outcome_ok"] is None and s["false_alarm"] is None


def test_also_acceptable_counts_for_top1():
    s = rs.score_case(FAULT, report(symptom="plateau", causes=[("frozen_parameters", 0.6)]))
    assert s["top1_ok"] and not s["symptom_ok"]


def test_top3_only():
    causes = [("bad_initialization", 0.5), ("dead_relu", 0.3), ("lr_too_low", 0.2), ("x", 0.1)]
    s = rs.score_case(FAULT, report(symptom="not_learning", causes=causes))
    assert s["top1_ok"] is False and s["top3_ok"] is True and s["top1_correct"] is False
    causes = [("a", 0.5), ("b", 0.3), ("c", 0.2), ("lr_too_low", 0.1)]
    assert rs.score_case(FAULT, report(causes=causes))["top3_ok"] is False


def test_error_is_a_miss_not_a_crash():
    s = rs.score_case(FAULT, None, "traindx exit 1: boom")
    assert s["top1_ok"] is False and s["top3_ok"] is False and s["symptom_ok"] is False
    assert s["top1_correct"] is None and s["error"].startswith("traindx exit 1")
    # a report that came back together with an error is not trusted either
    s = rs.score_case(FAULT, report(symptom="not_learning", causes=[("lr_too_low", 0.9)]), "late error")
    assert s["top1_ok"] is False


def test_healthy_false_alarm_rules():
    ok = rs.score_case(HEALTHY, report(status="healthy", symptom="healthy"))
    assert ok["outcome_ok"] and ok["symptom_ok"] and ok["false_alarm"] is False
    # healthy status without a symptom object still counts as the healthy symptom
    assert rs.score_case(HEALTHY, {"status": "healthy", "root_causes": []})["symptom_ok"]
    weak = rs.score_case(HEALTHY, report(status="healthy", symptom="healthy", causes=[("missing_lr_decay", 0.3)]))
    assert weak["false_alarm"] is False and weak["top1_correct"] is False
    strong = rs.score_case(HEALTHY, report(status="healthy", symptom="healthy", causes=[("missing_lr_decay", 0.5)]))
    assert strong["false_alarm"] is True
    wrong_status = rs.score_case(HEALTHY, report(status="insufficient_evidence"))
    assert wrong_status["false_alarm"] is True and wrong_status["outcome_ok"] is False
    failed = rs.score_case(HEALTHY, None, "timeout")
    assert failed["false_alarm"] is None and failed["outcome_ok"] is False


def test_out_of_scope_outcome():
    s = rs.score_case(OOS, {"status": "out_of_scope", "symptom": {"id": "out_of_scope"}, "root_causes": [],
                            "deferral": {"to": "pytorch-engineering", "found": False}})
    assert s["outcome_ok"] and s["symptom_ok"] and s["false_alarm"] is None
    assert rs.score_case(OOS, report(symptom="explosion", causes=[("lr_too_high", 0.7)]))["outcome_ok"] is False


def test_bad_confidences_are_ignored():
    r = {"status": "diagnosed", "symptom": {"id": "not_learning"},
         "root_causes": [{"id": "lr_too_low", "confidence": "high"}, {"confidence": 0.2}, "junk"]}
    s = rs.score_case(FAULT, r)
    assert s["top1_ok"] and s["top1_confidence"] is None and s["top1_correct"] is None
    assert [c["id"] for c in s["root_causes"]] == ["lr_too_low"]


def test_ece():
    assert rs.expected_calibration_error([]) is None
    assert rs.expected_calibration_error([(1.0, True), (1.0, True)]) == pytest.approx(0.0)
    assert rs.expected_calibration_error([(0.9, False)]) == pytest.approx(0.9)
    # two bins: {0.95: right, 0.95: wrong} -> |0.5-0.95|; {0.25: wrong} -> 0.25; weights 2/3, 1/3
    pairs = [(0.95, True), (0.95, False), (0.25, False)]
    assert rs.expected_calibration_error(pairs) == pytest.approx(2 / 3 * 0.45 + 1 / 3 * 0.25)
    # confidence exactly 1.0 falls in the last bin; out-of-range values are clamped
    assert rs.expected_calibration_error([(1.0, False), (1.7, False)]) == pytest.approx(1.0)


def test_summarize():
    cases = [
        rs.score_case(FAULT, report(symptom="not_learning", causes=[("lr_too_low", 0.9)])),
        rs.score_case(FAULT, report(symptom="plateau", causes=[("dead_relu", 0.6), ("lr_too_low", 0.3)])),
        rs.score_case(FAULT, None, "traindx exit 3: crash"),
        rs.score_case(HEALTHY, report(status="healthy", symptom="healthy")),
        rs.score_case(HEALTHY, report(symptom="plateau", causes=[("missing_lr_decay", 0.7)])),
        rs.score_case(OOS, {"status": "out_of_scope", "symptom": {"id": "out_of_scope"}, "root_causes": []}),
    ]
    for c, (d, p) in zip(cases, [(2, 1), (4, 1), (None, 1), (3, 2), (6, 2), (1, 0.5)]):
        c["diag_seconds"], c["plain_seconds"] = d, p
    s = rs.summarize(cases)
    assert (s["cases"], s["faults"], s["healthy"], s["out_of_scope"], s["errors"]) == (6, 3, 2, 1, 1)
    assert s["symptom_accuracy"] == pytest.approx(3 / 6)
    assert s["top1_accuracy"] == pytest.approx(1 / 3)
    assert s["top3_accuracy"] == pytest.approx(2 / 3)
    assert s["healthy_accuracy"] == pytest.approx(1 / 2)
    assert s["out_of_scope_accuracy"] == 1.0
    assert s["false_alarms"] == 1 and s["false_alarm_rate"] == pytest.approx(0.5)
    # calibration pairs: (0.9, right), (0.6, wrong), (0.7, wrong on a healthy run)
    assert s["ece"] == pytest.approx((0.1 + 0.6 + 0.7) / 3)
    assert s["median_time_ratio"] == pytest.approx(2.0)  # ratios 2, 4, 1.5, 3, 2
    assert s["median_diag_seconds"] == pytest.approx(3)


def test_parse_report_text():
    assert rs.parse_report_text("") is None
    assert rs.parse_report_text('{"status": "healthy"}') == {"status": "healthy"}
    mixed = 'epoch 0 loss 1.2\n{"not": "a report"}\n{"status": "diagnosed", "root_causes": [{"id": "x"}]}\n'
    assert rs.parse_report_text(mixed)["status"] == "diagnosed"
    assert rs.parse_report_text("no json at all {") is None


def test_manifest_is_consistent():
    entries = rs.load_manifest(rs.DEFAULT_MANIFEST)
    scen = rs.DEFAULT_MANIFEST.parent
    assert len(entries) >= 45
    files = [e["file"] for e in entries]
    assert len(set(files)) == len(files)
    symptoms = {"not_learning", "plateau", "instability", "explosion", "overfitting", "slow_training",
                "healthy", "out_of_scope"}
    for e in entries:
        assert (scen / e["file"]).exists(), e["file"]
        assert e["symptom"] in symptoms, e
        # healthy and out-of-scope runs have no cause; a faulty run may leave it unsettled (None), and is then
        # scored on its symptom only (case_kind "unsettled")
        if e["symptom"] in ("healthy", "out_of_scope"):
            assert e["root_cause"] is None, e
        assert isinstance(e["gpu_only"], bool) and e["summary"]
        assert e["root_cause"] not in e["also_acceptable"]
    assert sum(e["symptom"] == "healthy" for e in entries) >= 6
    assert sum(e["symptom"] == "out_of_scope" for e in entries) >= 2


def test_code_mode_healthy_is_no_bug_found():
    # code alone cannot show a healthy curve: "no bug found" is the right answer there
    quiet = report(status="insufficient_evidence", symptom=None, causes=[("lr_too_low", 0.2)])
    s = rs.score_case(HEALTHY, quiet, mode="code")
    assert s["outcome_ok"] is True and s["false_alarm"] is False
    loud = report(status="diagnosed", symptom="not_learning", causes=[("lr_too_low", 0.8)])
    assert rs.score_case(HEALTHY, loud, mode="code")["false_alarm"] is True
    assert rs.score_case(HEALTHY, quiet, mode="script")["false_alarm"] is True


def test_cases_jsonl_keeps_each_case_and_a_stopped_run_resumes(tmp_path):
    """--cases-jsonl appends each finished case; a later run takes back the cases that hold every
    requested mode (a line cut short by a stopped run is skipped) and runs only the others."""
    path = tmp_path / "cases.jsonl"
    s = rs.score_case(FAULT, report(symptom="not_learning", causes=[("lr_too_low", 0.9)]), mode="code")
    rs.append_case(str(path), {"entry": FAULT, "plain": {"seconds": 1.0}, "modes": {"code": s}})
    with open(path, "a") as fh:
        fh.write('{"file": "s02.py", "plain"')          # the run was stopped while writing
    kept = rs.kept_cases(str(path), [FAULT, HEALTHY], ["code"])
    assert [k["entry"]["file"] for k in kept] == ["s01.py"] and kept[0]["modes"]["code"]["top1_ok"]
    assert rs.kept_cases(str(path), [FAULT, HEALTHY], ["code", "log"]) == []   # log mode not run yet
    assert rs.kept_cases(None, [FAULT], ["code"]) == []


def test_console_mode_hands_traindx_the_script_and_what_it_printed(tmp_path):
    """A finished run as its user has it: the plain run keeps stdout and stderr interleaved in
    console.log, and the console mode diagnoses `--code script --log console.log`."""
    import sys
    script = tmp_path / "s99.py"
    script.write_text("import sys\nprint('epoch 1 loss 2.30', flush=True)\n"
                      "print('a warning', file=sys.stderr, flush=True)\nprint('epoch 2 loss 2.29', flush=True)\n")
    plain = rs.plain_run(script, tmp_path / "plain", 60, rs.child_env(1))
    assert plain["returncode"] == 0 and plain["metrics"] is None
    assert Path(plain["console"]).read_text().splitlines() == ["epoch 1 loss 2.30", "a warning", "epoch 2 loss 2.29"]
    # a stand-in for traindx that prints the arguments it got as a report
    fake = tmp_path / "fake_traindx.py"
    fake.write_text("import json, sys\nout = sys.argv[sys.argv.index('--output') + 1]\n"
                    "json.dump({'status': 'healthy', 'argv': sys.argv[1:]}, open(out, 'w'))\n")
    report, err, _, _ = rs.diagnose([sys.executable, str(fake)], "console", script, tmp_path / "console",
                                    plain["metrics"], 60, rs.child_env(1), plain["console"])
    assert err is None
    argv = report["argv"]
    assert argv[:5] == ["diagnose", "--code", "s99.py", "--log", "console.log"]
    assert (tmp_path / "console" / "console.log").read_text().startswith("epoch 1 loss 2.30")


def test_console_mode_skips_a_cache_kept_without_console_output(tmp_path):
    _, err, _, _ = rs.diagnose(["traindx"], "console", tmp_path / "s99.py", tmp_path / "c", None, 5, {}, None)
    assert "predates the console mode" in err


UNSETTLED = {"file": "s40.py", "symptom": "slow_training", "root_cause": None, "also_acceptable": [],
             "gpu_only": False, "num_classes": None}


def test_a_symptom_with_no_settled_cause_is_scored_on_its_symptom_only():
    # a faulty run whose cause nobody settled is no healthy run: a cause named for it is no false alarm,
    # and it cannot be right or wrong, so it stays out of top-1 and the calibration error
    s = rs.score_case(UNSETTLED, report(symptom="slow_training", causes=[("data_loading_bottleneck", 0.7)]))
    assert s["kind"] == "unsettled" and s["symptom_ok"]
    assert s["false_alarm"] is None and s["top1_ok"] is None and s["top1_correct"] is None
    assert s["outcome_ok"] is None      # a right symptom with a cause named is no miss in the list
    shown = io.StringIO()
    rs.print_misses("script", [s], out=shown)
    assert "misses (script): 0" in shown.getvalue()
    summary = rs.summarize([s, rs.score_case(HEALTHY, report(status="healthy"))])
    assert summary["healthy"] == 1 and summary["false_alarms"] == 0 and summary["unsettled"] == 1
    assert summary["faults"] == 0 and summary["ece"] is None and summary["symptom_accuracy"] == 1.0
    assert rs.score_case(UNSETTLED, report(symptom="not_learning"))["symptom_ok"] is False


def test_rescore_scores_a_saved_result_against_the_manifest_as_it_is_now(tmp_path):
    # a saved result scored when an unsettled case still counted as healthy: rescored, it is no false alarm
    old = rs.score_case(UNSETTLED, report(symptom="slow_training", causes=[("data_loading_bottleneck", 0.7)]))
    old.update(kind="healthy", false_alarm=True, diag_seconds=2.0, plain_seconds=4.0)
    saved = tmp_path / "run.json"
    case = {"file": "s40.py", "modes": {"script": old}}
    saved.write_text(__import__("json").dumps({"modes": ["script"], "cases": [case]}))
    buf = __import__("io").StringIO()
    assert rs.rescore(saved, [UNSETTLED], out=buf) == 0
    out = buf.getvalue()
    assert "1 with no settled cause" in out and "0/0" in out and "0.50x" in out
