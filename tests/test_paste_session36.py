"""Session 36 (issue 13, pasted console logs): a ``time`` printed on every record that only counts up is a
clock running since the start (seconds since launch), not the time each step took. Its differences per step
are the step time, as the CSV reader takes a time-stamp column's. Each log is an invented one, written in
the shape a custom ``logging``/``print`` loop writes."""
from __future__ import annotations

import json
import random

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _diagnose(path) -> dict:
    res = CliRunner().invoke(main, ["diagnose", "--non-interactive", "--format", "json", "--log", str(path)])
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("{"):])


def _facts(rep: dict) -> dict:
    return {f["fact"]: f["value"] for f in rep.get("facts") or []}


def _clock_log(tmp_path, per_epoch, name="time", epochs=12, seed=3):
    """A logging line per epoch whose ``time`` is the seconds since the run started."""
    rnd = random.Random(seed)
    t, loss, lines = 0.0, 2.3, []
    for ep in range(1, epochs + 1):
        t += per_epoch(ep) * rnd.uniform(0.95, 1.05)
        loss *= 0.85
        lines.append(f"2026-03-02 10:{ep:02d}:11 INFO trainer: epoch {ep}/40 | loss {loss:.4f} | lr 0.001 | "
                     f"{name} {t:.1f}s")
    p = tmp_path / "train.out"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_a_clock_since_the_start_is_no_slowing_step(tmp_path):
    """Each epoch takes about 100 s, printed as a running total 100, 200, 300 s: the step time is steady,
    not increasing, and the report says the column was read as a clock. A per-step ``time`` printed in the
    same place that goes up and down is the time each step took, as printed."""
    rep = _diagnose(_clock_log(tmp_path, lambda ep: 100.0))
    assert _facts(rep)["step_time_trend"] == "steady"
    assert rep["symptom"]["id"] == "healthy"
    assert "clock since the start" in json.dumps(rep)
    rnd = random.Random(5)
    lines = [f"step {s} loss {2.0 / s ** 0.3:.4f} time {rnd.uniform(0.45, 0.55):.3f}s" for s in range(10, 210, 10)]
    p = tmp_path / "steps.log"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert "clock since the start" not in json.dumps(rep)
    assert _facts(rep)["step_time_trend"] == "steady"


def test_a_resumed_runs_clock_that_starts_again_is_still_a_clock(tmp_path):
    """A run resumed from a checkpoint prints its clock from 0 again: one step back among thirty records is a
    restart of the clock, and the time per epoch stays steady."""
    rnd = random.Random(7)
    lines, t = [], 0.0
    for ep in range(1, 31):
        if ep == 16:
            lines.append("Resuming from checkpoint epoch_15.pt")
            t = 0.0
        t += rnd.uniform(40.0, 44.0)
        lines.append(f"Epoch {ep}, Time {t:.1f}s, Loss {1.5 * 0.93 ** ep:.4f}, LR 0.0100")
    p = tmp_path / "resumed.log"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert "clock since the start" in json.dumps(rep)
    assert _facts(rep)["step_time_trend"] == "steady"


def test_a_clock_that_jumps_at_every_fourth_epoch_shows_the_stalls(tmp_path):
    """A run that writes a checkpoint every fourth epoch: its clock jumps by seven times an ordinary epoch
    there. Read as durations the clock only climbs; read as a clock the stalls show, and the run is slow."""
    rep = _diagnose(_clock_log(tmp_path, lambda ep: 70.0 if ep % 4 == 0 else 10.0, epochs=16))
    assert _facts(rep)["step_time_stalls"] > 0
    assert rep["symptom"]["id"] == "slow_training"


def test_only_enough_rising_records_make_a_clock(tmp_path):
    """A step time that rises over four records (a run slowing down) is under console.clock_min_records: still
    read as the time per step. The same clock printed over eight epochs is read from its differences."""
    stamps = (10.0, 14.0, 19.0, 26.0, 31.0, 36.0, 41.0, 46.0)
    for n, clock in ((4, False), (8, True)):
        lines = [f"epoch {e} loss {1.0 / e:.4f} time {t:.1f}s" for e, t in zip(range(1, n + 1), stamps)]
        p = tmp_path / f"rising{n}.log"
        p.write_text("\n".join(lines) + "\n")
        assert ("clock since the start" in json.dumps(_diagnose(p))) is clock
