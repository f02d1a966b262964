"""Finished runs whose evidence was lost between the log and the code (session 47, issue 13)."""

import pytest

from traindx.engine.frontends import gather
from traindx.probes.readers.console import read_console_text


def _right_aligned_table(rows: int = 12) -> str:
    """A header printed right-aligned over its columns (``f"{'epoch':>5} {'loss':>8} ..."``): the gaps
    between its names vary with the names' widths, some are one space wide."""
    head = f"{'epoch':>5} {'loss':>8} {'train_acc':>9} {'val_loss':>8} {'val_acc':>7} {'time':>7}"
    lines = ["nodes=1200 edges=2041 classes=6", head]
    for e in range(1, rows + 1):
        loss = 1.8 / e
        lines.append(f"{e:5d} {loss:8.4f} {min(1.0, 0.2 + 0.07 * e):9.4f} {loss + 0.05:8.4f} "
                     f"{min(0.97, 0.2 + 0.06 * e):7.4f} {0.08:6.3f}s")
    return "\n".join(lines) + "\n"


def test_a_right_aligned_header_whose_names_stand_one_space_apart_heads_its_table():
    log = read_console_text(_right_aligned_table())
    assert log.series["loss"].rows == 12
    assert log.series["loss"].points[-1].mean == pytest.approx(1.8 / 12, rel=1e-3)
    assert log.series["val_loss"].points[0].mean == pytest.approx(1.85, rel=1e-3)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.92, rel=1e-3)


def test_a_header_with_multi_word_names_in_wide_gaps_keeps_them_whole():
    lines = ["epoch   train loss   valid loss"] + [f"{e:5d}   {1.0 / e:10.4f}   {1.1 / e:10.4f}" for e in range(1, 9)]
    log = read_console_text("\n".join(lines))
    assert log.series["loss"].rows == 8
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.1 / 8, rel=1e-3)


def _nan_run(warning: str) -> str:
    lines = [warning, "  x = x / np.abs(x).max(1, keepdims=True)  # peak normalisation",
             "Train Epoch: 1 [0/7200 (0%)]\tLoss: 1.914000"]
    lines += [f"Train Epoch: {e} [{b * 640}/7200 ({b * 9}%)]\tLoss: nan" for e in range(1, 5) for b in (1, 5, 10)]
    lines += [f"Test Epoch: {e}\tAccuracy: 84/450 (19%)" for e in range(1, 5)]
    return "\n".join(lines) + "\n"


def _facts(text: str, tmp_path) -> dict:
    path = tmp_path / "console.log"
    path.write_text(text, encoding="utf-8")
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def test_numpy_warning_that_the_scripts_own_division_made_nan_is_read(tmp_path):
    facts = _facts(_nan_run("/home/me/audio/train.py:49: RuntimeWarning: invalid value encountered in divide"),
                   tmp_path)
    assert facts.get("script_made_nan") is True
    assert facts.get("loss_has_nonfinite") is True


@pytest.mark.parametrize("warning", [
    "/usr/lib/python3.11/site-packages/numpy/_core/_methods.py:142: RuntimeWarning: invalid value encountered "
    "in divide",
    "/home/me/train.py:80: RuntimeWarning: invalid value encountered in scalar divide",
])
def test_a_librarys_or_a_scalars_nan_warning_is_not_the_scripts_data(warning, tmp_path):
    assert "script_made_nan" not in _facts(_nan_run(warning), tmp_path)


_PEAK_SCRIPT = '''import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)


def make_set(n):
    x = np.stack([np.zeros(800) if rng.rand() < 0.02 else rng.randn(800) for _ in range(n)])
    x = x / np.abs(x).max(1, keepdims=True)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(rng.randint(0, 5, n))


x, y = make_set(7200)
model = nn.Sequential(nn.Linear(800, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(1, 5):
    for b in range(0, 7200, 16):
        loss = nn.functional.cross_entropy(model(x[b:b + 16]), y[b:b + 16])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if b % 640 == 0:
            print(f"Train Epoch: {epoch} [{b}/7200 ({100 * b // 7200}%)]\\tLoss: {loss.item():.6f}")
'''


def test_a_finished_run_whose_script_made_nan_in_its_data_names_the_data(tmp_path):
    import json

    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    (tmp_path / "train.py").write_text(_PEAK_SCRIPT)
    (tmp_path / "console.log").write_text(_nan_run(f"{tmp_path}/train.py:10: RuntimeWarning: invalid value "
                                                   "encountered in divide"))
    res = CliRunner().invoke(main, ["diagnose", "--code", str(tmp_path / "train.py"), "--log",
                                    str(tmp_path / "console.log"), "--non-interactive", "--format", "json"])
    out = res.output
    report = json.loads(out[out.index("{"):])
    assert report["symptom"]["id"] == "explosion"
    assert report["status"] == "diagnosed"
    assert report["root_causes"][0]["id"] == "nan_in_inputs"
