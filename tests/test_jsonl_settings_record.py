"""A JSON-lines log that opens with a settings record (the run's config or a "start" event, no metric
in it) is read on the rows' own axis: the configured epoch count or batch size is not the x axis and
the configured LR is not an LR trace (fails before session 45: every row landed on x = 12 or 32)."""

from __future__ import annotations

import json
import math

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.logs import analyze_log, read_log


def _write(path, header, epochs=12):
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for e in range(1, epochs + 1):
            # falls fast, then levels off at a floor it never leaves
            f.write(json.dumps({"type": "train", "epoch": e, "step": 40 * e,
                                "loss": 0.03 + 0.5 * math.exp(-2 * e), "lr": 0.003}) + "\n")
            f.write(json.dumps({"type": "eval", "epoch": e, "val_mse": 0.035 + 0.3 * math.exp(-2 * e)}) + "\n")


@pytest.mark.parametrize("header", [
    {"type": "config", "model": {"hidden": 32}, "train": {"batch_size": 64, "epochs": 12, "lr": 0.003}},
    {"event": "start", "n_train": 2400, "lr": 0.002, "batch": 32, "epochs": 12},
])
def test_settings_record_is_not_the_x_axis(tmp_path, header):
    path = tmp_path / "run.jsonl"
    _write(path, header)
    log = read_log(path)
    assert log.x_label == "step" and log.x_column == "step"
    assert log.columns["lr"] == "lr"             # the logged trace, not the configured value
    assert log.rows == 24                         # the settings record is no row
    findings, _ = analyze_log(path)
    facts = {f.fact: f.value for f in findings}
    assert facts["run_length_steps"] > 1 and not facts.get("single_record")
    assert facts["loss_trend"] == "plateaued"     # the floor the user sees, not a one-point curve


def test_only_settings_records_still_say_no_metric(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"event": "start", "lr": 0.1, "epochs": 3}) + "\n")
    with pytest.raises(InputError, match="no loss"):
        read_log(path)
