"""Finished runs read from what they left behind (session 49, issue 11): a Keras progress bar's
running mean is no data-order cycle, and a loss that stopped where the schedule took the learning rate
away early is that schedule's plateau."""

import json
import math

from click.testing import CliRunner

from traindx.engine.frontends import gather
from traindx.engine.frontends.cli import main


def _diagnose(tmp_path, log: str) -> dict:
    (tmp_path / "console.log").write_text(log, encoding="utf-8")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(tmp_path / "console.log"), "--non-interactive",
                                    "--format", "json"])
    out = res.output
    return json.loads(out[out.index("{"):])


def _facts(tmp_path, log: str) -> dict:
    path = tmp_path / "console.log"
    path.write_text(log, encoding="utf-8")
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def _keras_log(epochs: int = 10, steps: int = 63, every: int = 16) -> str:
    """model.fit's console: each epoch's progress redraws (carriage returns) and its closing line, the
    loss printed as the mean of the epoch's batches so far, of a per-batch loss that falls smoothly."""
    def batch_loss(i):   # i counts batches from the start of training
        return 0.08 + 1.31 * math.exp(-i / 120)

    lines = ["Found 2000 training and 600 validation samples"]
    for e in range(epochs):
        lines.append(f"Epoch {e + 1}/{epochs}")
        bars, total = [], 0.0
        for k in range(1, steps + 1):
            total += batch_loss(e * steps + k)
            if k % every == 0 or k == steps:
                mean = total / k
                acc = 1 - mean / 1.5
                if k < steps:
                    bars.append(f"{k:3d}/{steps} [{'=' * (30 * k // steps - 1)}>{'.' * (30 - 30 * k // steps)}]"
                                f" - ETA: 2s - loss: {mean:.4f} - accuracy: {acc:.4f}")
                else:
                    val = mean * 0.9
                    bars.append(f"{steps}/{steps} [{'=' * 30}] - 4s 60ms/step - loss: {mean:.4f} - accuracy: "
                                f"{acc:.4f} - val_loss: {val:.4f} - val_accuracy: {1 - val / 1.5:.4f}")
        lines.append("\r".join(bars))
    return "\n".join(lines) + "\n"


def test_a_keras_progress_bar_running_mean_is_no_epoch_cycle(tmp_path):
    log = _keras_log()
    assert _facts(tmp_path, log).get("oscillation_pattern") != "periodic"
    report = _diagnose(tmp_path, log)
    assert report["status"] == "healthy"
    assert not report["root_causes"] or report["root_causes"][0]["id"] != "lr_too_high"


def _collapse_log(collapse_at: int = 9, steps: int = 380, start: float = 1.36, end: float = 1.22,
                  val: float = 1.27) -> str:
    """A per-step log whose LR an epoch scheduler stepped every batch takes to ~0 by ``collapse_at``:
    the loss falls a little, then stays where the LR left it; validation every 47 steps."""
    lines = []
    for s in range(steps + 1):
        lr = 0.01 * (0.5 ** s)
        f = min(s, collapse_at) / collapse_at
        loss = start - (start - end) * f + 0.02 * math.sin(s * 1.7)
        lines.append(f"step {s} | loss {loss:.4f} | lr {lr:.3e}")
        if s and s % 47 == 0:
            lines.append(f"step {s} | val_loss {val + 0.005 * math.sin(s):.4f}")
    return "\n".join(lines) + "\n"


def test_a_loss_stopped_where_the_schedule_took_the_lr_is_a_plateau(tmp_path):
    log = _collapse_log()
    facts = _facts(tmp_path, log)
    assert facts["lr_collapse_fraction"] < 0.3
    report = _diagnose(tmp_path, log)
    assert report["symptom"]["id"] == "plateau"
    assert report["root_causes"][0]["id"] == "lr_schedule_collapse"


def test_a_loss_at_chance_under_a_collapsed_lr_still_never_learned(tmp_path):
    chance = math.log(4)
    log = _collapse_log(start=chance + 0.002, end=chance + 0.001, val=chance + 0.01)
    log = "num_classes=4\n" + log
    report = _diagnose(tmp_path, log)
    assert report["symptom"]["id"] != "plateau"
