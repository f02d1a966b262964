"""Session 41 (paste41, issue 13): an excerpt pasted to ask why a run is slow often shows its
progress bar or throughput lines and the loss printed once among them (a Trainer dict after a
stretch of ``s/it`` bars, a ``Steps/second`` line every few seconds beside one step summary).

The one loss record has no course to read, so traindx answered Healthy ("one record: nothing in it
is a fault") and dropped the speed lines, because the text printed a metric. The speeds printed
apart from the metrics are now counted (``speed_lines_apart``), and more of them than the loss's
single record make the excerpt one about speed: Training Slow, as a log of speeds alone already is.
A loss curve of many records is still read by the curve rules.

The excerpts are written for these tests in the shape of those prints."""
from __future__ import annotations

import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main
from traindx.probes.readers.console import read_console_text


def _diagnose(path) -> dict:
    res = CliRunner().invoke(main, ["diagnose", "--non-interactive", "--format", "json", "--log", str(path)])
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("{"):])


def _bars(n: int, start: int = 120, sec: float = 95.2, total: int = 3000) -> list[str]:
    return [f" {100 * i // total:2d}%|#         | {i}/{total} [1:{i % 60:02d}:00<80:00:00, {sec + i % 3 / 10:.2f}s/it]"
            for i in range(start, start + n)]


def test_slow_progress_bars_beside_one_loss_dict_are_training_slow(tmp_path):
    lines = _bars(12) + ["{'loss': 2.114, 'learning_rate': 0.0002, 'epoch': 0.04}"] + _bars(3, start=132)
    p = tmp_path / "pasted.txt"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert rep["symptom"]["id"] == "slow_training"
    facts = {e["fact"]: e["value"] for e in rep["symptom"]["evidence"]}
    assert facts["speed_lines_apart"] == 15
    # the same loss record without the bars still shows nothing wrong
    p.write_text(lines[12] + "\n")
    assert _diagnose(p)["status"] == "healthy"


def test_throughput_lines_beside_one_step_summary_are_training_slow(tmp_path):
    lines = ["I0308 16:13:45.249 trainer.py:521] step:   905 loss:4.9611 log_pplx:4.9607"]
    lines += [f"I0308 16:{14 + i // 6:02d}:{i % 6 * 10:02d}.943 trainer.py:371] Steps/second: 0.0142{i % 10}, "
              f"Examples/second: 0.731{i % 10}" for i in range(8)]
    p = tmp_path / "pasted.txt"
    p.write_text("\n".join(lines) + "\n")
    assert _diagnose(p)["symptom"]["id"] == "slow_training"
    # a falling loss curve beside the same kind of speed lines is read by its curve
    curve = []
    for i in range(20):
        curve += _bars(1, start=120 + i)
        curve.append(f"{{'loss': {2.2 * 0.9 ** i:.4f}, 'learning_rate': 0.0002, 'epoch': {i / 10:.2f}}}")
    p.write_text("\n".join(curve) + "\n")
    assert _diagnose(p)["symptom"]["id"] != "slow_training"
    assert len(read_console_text(p.read_text()).series["loss"].points) == 20
