"""The loss total read by the sum identity (a value equal to the sum of the unnamed numbers printed
beside it) costs time linear in a line's numbers: a garbage log whose lines are packed with word /
number pairs is refused in seconds, not minutes, and the identity still reads a total printed
before its components or after them. Each sample is written for this test. Torch-free."""

import random
import string
import time

import pytest

from conftest import diagnose_log_report
from traindx.engine.errors import InputError
from traindx.engine.parameters import resolve
from traindx.probes.readers.console import read_console_text


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def test_a_total_printed_before_its_components_is_read_as_the_loss(tmp_path):
    lines = []
    for k in range(12):
        parts = [2.0 - 0.1 * k, 1.5 - 0.05 * k, 0.8 - 0.04 * k]
        cells = "  ".join(f"p{j}={v:.4f}" for j, v in enumerate(parts))
        lines.append(f"it {20 * k:5d}  tot={sum(parts):.4f}  {cells}")
    rep, out = diagnose_log_report(tmp_path, "\n".join(lines))
    assert "1 metric (loss)" in out
    f = _facts(rep)
    assert abs(f["initial_loss"] - 4.3) < 0.2 and f["loss_trend"] == "decreasing"


def _named_parts(n: int) -> str:
    """Twelve records of ``n`` unnamed components (two-letter names) and their total ``T``."""
    lines = []
    for k in range(12):
        parts = [0.5 - 0.01 * k + 0.01 * j for j in range(n)]
        cells = " | ".join(f"{string.ascii_uppercase[j] * 2}: {v:.3f}" for j, v in enumerate(parts))
        lines.append(f"[{k:3d}] {cells} | T: {sum(parts):.3f}")
    return "\n".join(lines)


def test_a_total_of_more_components_than_any_loss_prints_is_not_read():
    # four components and their total are a loss; twenty are not (no detector prints twenty loss
    # terms, console.sum_total_max_parts), unless a pack raises the bound
    assert "loss" in read_console_text(_named_parts(4)).series
    with pytest.raises(InputError):
        read_console_text(_named_parts(20))
    raised = dict(resolve(None), **{"console.sum_total_max_parts": 32})
    assert "loss" in read_console_text(_named_parts(20), params=raised).series


def test_lines_packed_with_word_number_pairs_are_refused_in_bounded_time():
    rng = random.Random(7)

    def line(pairs):
        return " ".join(f"{''.join(rng.choice('qwxzvk') for _ in range(5))} {rng.random():.4f}" for _ in range(pairs))

    text = "\n".join(line(200) for _ in range(60))
    t0 = time.perf_counter()
    try:
        read_console_text(text)
    except InputError:
        pass
    # cubic in the pairs of a line before session 25 (~100 s at 120 pairs); linear now (~2 s)
    assert time.perf_counter() - t0 < 30.0
