"""A per-epoch log with no LR column and no script: a loss that fell, levelled off and still ticks
down record after record, beside training and validation accuracy level with each other, is a run
at its data's floor (healthy); the same curve whose levelled part only wanders in its noise (what a
schedule that drove the LR to zero leaves) stays a plateau."""
import json
import math

from click.testing import CliRunner
from conftest import report_fact

from traindx.engine.frontends.cli import main


def _csv(drift: float) -> str:
    rows = ["epoch,loss,accuracy,val_loss,val_accuracy"]
    for e in range(1, 121):
        wobble = 0.004 * math.sin(e * 2.3)
        loss = 0.45 + 0.5 * math.exp(-e / 6) - drift * e + wobble
        acc = 0.80 - 0.3 * math.exp(-e / 6) + 0.003 * math.cos(e * 1.7)
        val_loss = 0.40 + 0.6 * math.exp(-e / 5) + 0.006 * math.sin(e * 1.3)
        val_acc = 0.81 - 0.35 * math.exp(-e / 5) + 0.008 * math.cos(e * 0.9)
        rows.append(f"{e},{loss:.4f},{acc:.4f},{val_loss:.4f},{val_acc:.4f}")
    return "\n".join(rows) + "\n"


def _diagnose(tmp_path, drift):
    (tmp_path / "log.csv").write_text(_csv(drift))
    res = CliRunner().invoke(main, ["diagnose", "--log", str(tmp_path / "log.csv"), "--non-interactive",
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    return json.loads(out[out.index("\n{") + 1:] if not out.startswith("{") else out)


def test_a_levelled_loss_still_drifting_down_beside_level_accuracies_is_healthy(tmp_path):
    rep = _diagnose(tmp_path, drift=0.0002)
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_fact(rep, "loss_late_drift") is True
    assert rep["status"] == "healthy"


def test_the_same_curve_without_the_drift_stays_a_plateau(tmp_path):
    rep = _diagnose(tmp_path, drift=0.0)
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_fact(rep, "loss_late_drift") is False
    assert rep["symptom"]["id"] == "plateau"
