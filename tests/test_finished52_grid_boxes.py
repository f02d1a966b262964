"""Finished runs printed as a key/value box drawn with ``+`` corners (PrettyTable, tabulate's grid), session 52."""

import pytest

from traindx.probes.readers.console import read_console_text


def _grid_box_log(epochs: int = 8) -> str:
    """One ``+-----+-----+`` box of ``| key | value |`` rows per epoch, as PrettyTable prints a dict."""
    lines = ["log-key model: 14190 train windows, 3537 val windows, 28 keys"]
    for e in range(1, epochs + 1):
        rows = [("epoch", f"{e}/{epochs}"), ("train_loss", f"{3.2 - 0.15 * e:.4f}"),
                ("val_loss", f"{3.1 - 0.14 * e:.4f}"), ("val_top1_acc", f"{0.1 + 0.04 * e:.4f}"),
                ("lr", "0.01"), ("elapsed_s", f"{9.5 * e:.1f}")]
        lines.append("+---------------+--------+")
        lines += [f"| {k:<13} | {v:>6} |" for k, v in rows]
        lines.append("+---------------+--------+")
    return "\n".join(lines + ["Finished Training"]) + "\n"


def test_a_box_drawn_with_plus_corners_is_read_one_record_per_epoch():
    log = read_console_text(_grid_box_log())
    assert log.series["loss"].rows == 8
    assert log.series["loss"].points[0].mean == pytest.approx(3.05, rel=1e-3)
    assert log.series["loss"].points[-1].mean == pytest.approx(2.0, rel=1e-3)
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.98, rel=1e-3)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.42, rel=1e-3)


def test_a_grid_table_with_a_header_row_is_still_read_as_a_table():
    lines = ["+-------+--------+----------+", "| epoch | loss   | val_loss |", "+=======+========+==========+"]
    for e in range(1, 7):
        lines += [f"| {e:<5} | {1.0 / e:.4f} | {1.1 / e:.4f}   |", "+-------+--------+----------+"]
    log = read_console_text("\n".join(lines) + "\n")
    assert log.series["loss"].rows == 6
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.1 / 6, rel=1e-3)
