"""Two console shapes of image-restoration and flow trainers: the objective printed by its function's
name ``l1`` (like ``mae``/``mse``: the loss when nothing says loss), and an epoch's duration printed
after the word epoch (``epoch:59.6s``), which is what the epoch took, not its index."""
import pytest

from conftest import diagnose_json

from traindx.probes.readers.console import read_console_text


def _vals(log, role):
    return [p.mean for p in log[role].points]


def test_a_loss_printed_as_l1_is_the_training_loss():
    text = "\n".join(f"Training Epoch {e} L1: {2.5 / (1 + e):.4f}, EPE: {4.0 / (1 + e):.4f}, lr: 1.0e-04"
                     for e in range(12))
    log = read_console_text(text)
    assert _vals(log, "loss")[0] == pytest.approx(2.5, rel=1e-3)
    assert _vals(log, "loss")[-1] == pytest.approx(2.5 / 12, rel=1e-2)


def test_a_named_loss_still_wins_over_an_l1_term():
    text = "\n".join(f"step {i} loss: {1.0 / (1 + i):.4f} l1: {0.3:.4f}" for i in range(20))
    log = read_console_text(text)
    assert _vals(log, "loss")[0] == pytest.approx(1.0, rel=1e-3)
    text = "\n".join(f"iter {i} total_loss={1 / (i + 1) + 0.5:.4f} l1_loss={0.3 / (i + 1):.4f} gan_loss=0.6"
                     for i in range(20))
    assert _vals(read_console_text(text), "loss")[0] == pytest.approx(1.5, rel=1e-3)


def test_an_epoch_duration_is_not_the_epoch_axis(tmp_path):
    # E n/400 counts the epochs; "epoch:59.6s" is each epoch's wall time. Read as the axis, the times
    # jumble the rows into restarts and keep only a falling tail, so the swings go unseen.
    l1 = [0.078, 0.130, 0.145, 0.026, 0.264, 0.093, 0.050, 0.147, 0.053, 0.051, 0.065, 0.069, 0.033]
    secs = [61.6, 70.8, 59.6, 59.0, 59.3, 59.3, 62.3, 58.7, 58.6, 56.9, 58.8, 61.7, 59.5]
    rows = [f"E {e + 1:3d}/400 B 2250 PSNR:{20 + 3 * (e % 3):.2f}dB l1:{v:.3f} cos:0.005  epoch:{s:.1f}s "
            f"Test:{21 + e * 0.2:.2f}dB 09.10s best:{21 + e * 0.2:.2f}dB" for e, (v, s) in enumerate(zip(l1, secs))]
    log = read_console_text("\n".join(rows))
    assert len(_vals(log, "loss")) == len(l1)
    assert not log.restarts
    p = tmp_path / "train.log"
    p.write_text("\n".join(rows) + "\n")
    rep = diagnose_json("--log", str(p))
    assert (rep.get("symptom") or {}).get("id") == "instability", rep.get("status")
