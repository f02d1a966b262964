"""A step counter printed per epoch (``epoch 2 step 10 loss ...``, or ``step N`` lines under
``epoch K: ...`` summaries) counts again from the start of each epoch. That is one run, not a
restart per epoch: the whole curve is read, from its first loss. A run printed again from an
earlier epoch (or without epochs) is still a restart. Torch-free; synthetic logs."""

import random

import pytest

from conftest import diagnose_log_report


def _losses(n, seed=0):
    rnd = random.Random(seed)
    loss, out = 2.3, []
    for _ in range(n):
        loss *= 0.97
        out.append(loss + rnd.uniform(-0.02, 0.02))
    return out


def _epoch_on_line(epochs=5, per=10):
    v = iter(_losses(epochs * per))
    return "\n".join(f"epoch {e} step {10 * s} loss {next(v):.4f}"
                     for e in range(1, epochs + 1) for s in range(1, per + 1)) + "\n"


def _summary_after(epochs=5, per=10):
    v = iter(_losses(epochs * per))
    lines = []
    for e in range(1, epochs + 1):
        for s in range(1, per + 1):
            last = next(v)
            lines.append(f"step {10 * s} loss {last:.4f}")
        lines.append(f"epoch {e}: train_loss={last:.4f} val_acc={0.5 + 0.08 * e:.3f}")
    return "\n".join(lines) + "\n"


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


@pytest.mark.parametrize("shape", [_epoch_on_line, _summary_after])
def test_steps_counted_per_epoch_are_one_run_read_from_its_first_loss(tmp_path, shape):
    rep, out = diagnose_log_report(tmp_path, shape())
    first_line = out.splitlines()[0]
    assert "restart" not in first_line and "over 5 epochs" in first_line, first_line
    facts = _facts(rep)
    # on the parent each epoch restarted the curve: the last epoch's first loss (~1.95) was "initial"
    assert facts["initial_loss"] == pytest.approx(_losses(1)[0], abs=1e-3)
    assert facts.get("log_starts_mid_run") in (None, False)


def test_a_run_printed_again_from_an_earlier_epoch_is_still_a_restart(tmp_path):
    text = _epoch_on_line(epochs=3) + _epoch_on_line(epochs=3)
    rep, out = diagnose_log_report(tmp_path, text)
    assert "1 restart at line 31" in out.splitlines()[0]
