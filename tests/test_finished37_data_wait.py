"""Session 37: a finished run whose epoch lines print how long the epoch took and, beside it, how much of
that was spent waiting for batches, with the total unnamed or named by a preposition (``(75.2s, loader
51.0s)``, ``finished in 80.1s (data wait 52.3s)``, ``data wait 40.0s of 66.0s``), is a data-loading
bottleneck: the wait's share of the total counts, as it does when the total is named (``time 75.2s``).
Each sample is written for this test; each has a twin that must not change (a time still to go, two
other durations, a total shorter than the wait). Torch-free.
"""

import math

from conftest import diagnose_log_report, report_symptom
from traindx.probes.readers.console import read_console_text


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def _losses(e):
    return 1.9 * math.exp(-0.35 * e) + 0.15, 1.8 * math.exp(-0.35 * e) + 0.17


def _top(rep):
    causes = rep.get("root_causes") or []
    return causes[0]["id"] if causes else None


def test_an_unnamed_epoch_time_beside_the_loader_wait_is_a_data_bottleneck(tmp_path):
    lines = []
    for e in range(1, 6):
        tr, va = _losses(e)
        lines.append(f"[ep {e:02d}/05] train {tr:.4f} | valid {va:.4f} | (7{e}.2s, loader 5{e}.0s, 2.1 it/s)")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert _facts(rep)["data_time_fraction"] > 0.6
    assert report_symptom(rep) == "slow_training"
    assert _top(rep) == "data_loading_bottleneck"


def test_a_total_after_in_or_of_counts_too(tmp_path):
    lines = []
    for e in range(1, 6):
        tr, va = _losses(e)
        lines.append(f"epoch {e} finished in 8{e}.1s (data wait 5{e}.3s) - loss={tr:.4f} val_loss={va:.4f}")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert _facts(rep)["data_time_fraction"] > 0.6
    assert _top(rep) == "data_loading_bottleneck"
    lines = []
    for e in range(1, 6):
        tr, va = _losses(e)
        lines += [f"fetched 120 batches, data wait 4{e}.0s of 6{e}.0s", f"epoch {e}: loss={tr:.4f} val_loss={va:.4f}"]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert _facts(rep)["data_time_fraction"] > 0.6
    # the timing line before each epoch's line is no record of its own: the curves stay by epoch
    log = read_console_text("\n".join(lines))
    assert [x for x, _y in log.series["loss"].head] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_time_still_to_go_or_two_durations_are_no_total(tmp_path):
    for tail in ("loader 5{e}.0s, eta 9{e}s", "loader 5{e}.0s, 9{e}s left", "loader 5{e}.0s, 7{e}.0s, 9{e}.0s",
                 "loader 5{e}.0s, 3{e}.0s"):
        lines = []
        for e in range(1, 6):
            tr, va = _losses(e)
            lines.append(f"[ep {e:02d}/05] train {tr:.4f} | valid {va:.4f} | " + tail.format(e=e))
        rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
        assert "data_time_fraction" not in _facts(rep), tail
        assert _top(rep) != "data_loading_bottleneck", tail
