"""Julia's prints (session 27): a Float32 prints with an ``f0`` suffix (``0.5f0``), and Knet's
examples print each epoch as a tuple of symbols and values (``(:epoch,3,:trn,0.41f0,:tst,0.47f0)``).
Both were unreadable; the number before ``f0`` is the value, and a symbol names the value after it."""

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text


def test_a_knet_symbol_tuple_reads_its_split_values():
    text = "\n".join(f"(:epoch,{e},:trn,{1.9 / e:.6f}f0,:tst,{2.0 / e + 0.05:.6f}f0)" for e in range(1, 9))
    log = read_console_text(text)
    assert log.series["loss"].rows == 8
    assert log.series["loss"].points[-1].mean == pytest.approx(1.9 / 8, rel=1e-4)
    assert log.series["val_loss"].points[0].mean == pytest.approx(2.05, rel=1e-4)


def test_a_float32_suffix_is_no_part_of_the_value():
    text = "\n".join(f"epoch {e}: loss = {0.9 - 0.05 * e:.4f}f0, accuracy = {0.5 + 0.03 * e:.4f}f0" for e in range(8))
    log = read_console_text(text)
    assert log.series["loss"].points[-1].mean == pytest.approx(0.55, rel=1e-4)
    assert log.series["accuracy"].rows == 8


def test_a_symbol_that_names_no_number_stays_unread():
    """``(:atype,"KnetArray")(:fast,false)``: settings, not metrics."""
    with pytest.raises(InputError):
        read_console_text('opts=(:seed,-1)(:atype,"KnetArray{Float32}")(:fast,false)\n' * 3)
