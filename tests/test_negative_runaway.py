"""A classifier's log (it prints an accuracy) whose loss runs off below zero without bound: a
classification loss cannot go below zero, so the loss is fed the wrong thing — the leading cause is
the loss function, not the LR or the gradients, and the report asks which loss the run trains with.
Without an accuracy (a density's likelihood may be negative) nothing points at the loss."""
import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _diagnose(tmp_path, with_accuracy):
    head = "epoch,loss,accuracy,val_loss,val_accuracy" if with_accuracy else "epoch,loss,val_loss"
    rows = [head]
    for e in range(1, 11):
        loss, val = -5000.0 * e ** 4.5, -12000.0 * e ** 4.2
        acc = f",{0.33 + 0.002 * (e % 3):.4f}" if with_accuracy else ""
        vacc = f",{0.32 + 0.003 * (e % 2):.4f}" if with_accuracy else ""
        rows.append(f"{e},{loss:.1f}{acc},{val:.1f}{vacc}")
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(tmp_path / "log.csv"), "--non-interactive",
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    return json.loads(out[out.index("\n{") + 1:] if not out.startswith("{") else out)


def test_a_classifier_loss_running_to_minus_infinity_points_at_the_loss(tmp_path):
    rep = _diagnose(tmp_path, with_accuracy=True)
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] == "wrong_loss_function"
    assert any("Which loss function" in g for g in rep["information_gaps"]) or \
        rep["status"] == "diagnosed"


def test_without_an_accuracy_the_runaway_does_not_single_out_the_loss(tmp_path):
    rep = _diagnose(tmp_path, with_accuracy=False)
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] != "wrong_loss_function"
