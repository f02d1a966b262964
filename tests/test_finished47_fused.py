"""Finished runs whose evidence was lost between the log and the code (session 47, issue 13)."""

import pytest

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
