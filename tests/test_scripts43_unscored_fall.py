"""A loss that falls while the answers the run counts do not move (issue 12, session 43).

What a user would notice: a U-Net trained with nn.BCELoss on two output channels, each given the same
0/1 mask, prints a training loss that falls from 0.49 to 0.007 over 40 epochs while its arg-max
accuracy stays at 0.30 (s509). traindx called that run healthy (a falling loss, nothing else wrong).
A loss that lost most of its start beside an accuracy that never rose and stays under 50% learned
something other than what the accuracy counts: Not Learning, with the loss as the first suspect;
and the code shows why (the one label copied to every channel the script arg-maxes).
"""
from __future__ import annotations

import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main as cli


def _diagnose(*args):
    res = CliRunner().invoke(cli, ["diagnose", *args, "--non-interactive", "--format", "json"])
    out = res.stdout if hasattr(res, "stdout") else res.output
    assert "{" in out, out
    return json.loads(out[out.index("{"):])


def _log(tmp_path, acc):
    rows = ["epoch,train_loss,train_acc"]
    for e in range(1, 41):
        rows.append(f"{e},{0.49 * 0.9 ** (e - 1):.6f},{acc(e):.4f}")
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_a_falling_loss_beside_a_flat_low_accuracy_is_not_learning_with_the_loss_first(tmp_path):
    rep = _diagnose("--log", _log(tmp_path, lambda e: 0.30 + 0.004 * (-1) ** e))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["root_causes"][0]["id"] == "wrong_loss_function"


def test_the_same_loss_beside_a_rising_accuracy_is_not_flagged(tmp_path):
    rep = _diagnose("--log", _log(tmp_path, lambda e: min(0.3 + 0.02 * e, 0.98)))
    assert rep["symptom"]["id"] != "not_learning"
    assert not rep["root_causes"] or rep["root_causes"][0]["id"] != "wrong_loss_function" \
        or rep["root_causes"][0]["confidence"] < 0.3


def test_a_copied_bce_target_is_not_learning_though_the_per_channel_accuracy_is_high(tmp_path):
    """--script measures its own accuracy on the BCE's targets (each channel right about the mask,
    99.7%) and called s509 healthy; the code shows the one label copied to the channels the script
    arg-maxes, so the answers it counts cannot be learned."""
    facts = {"loss_target_copied": True, "loss_function": "bce", "output_activation": "sigmoid",
             "loss_trend": "decreasing", "initial_loss": 0.488, "current_loss": 0.0074,
             "loss_decrease_fraction": 0.985, "train_accuracy": 0.997, "val_accuracy": 0.998,
             "val_loss_trend": "decreasing", "loss_has_nonfinite": False}
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(facts))
    rep = _diagnose("--answers", str(answers))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["root_causes"][0]["id"] == "wrong_loss_function"
