"""Session 40 (paste40): two console shapes the pasted logs of issue 13 share.

- A log copied out of a terminal keeps the terminal's line breaks: every record longer than the
  width is cut into a line of exactly that width and its remainder, often inside a name
  (``val`` + ``_loss=0.55``). The cut records are joined back before they are read
  (``console_wrap``), so the names cut in two are read; rows that merely share one width (a table,
  a Keras epoch line before the next ``Epoch 2/8``, a progress bar's ``]``) are never joined.
- ``objf``, the objective function as Kaldi and k2 print it, is the loss: Kaldi prints it as a
  log-probability that rises toward 0 (negated to read it), k2/snowfall print it negated, a positive
  value that falls (kept); the first value's sign says which.

The excerpts are written for these tests in the shape of those prints."""
import pytest

from traindx.probes.readers.console import read_console, read_console_text
from traindx.probes.readers.console_wrap import wrap_width

WIDTH = 100


def _record(e: int) -> str:
    return (f"2024-03-01 10:{e:02d}:00 INFO trainer.py:88] epoch {e:>3} step {e * 250:>6} "
            f"train_loss={0.9 / e:.4f} train_acc={0.5 + e / 40:.4f} val_loss={0.5 + e / 20:.4f} "
            f"val_acc={0.7 - e / 100:.4f}")


def _wrapped(n: int = 10, width: int = WIDTH) -> str:
    out = []
    for e in range(1, n + 1):
        r = _record(e)
        out += [r[i:i + width] for i in range(0, len(r), width)]
    return "\n".join(out) + "\n"


def _means(log, role):
    return [p.mean for p in log.series[role].points]


def test_a_record_cut_at_the_terminal_width_is_read_whole():
    text = _wrapped()
    assert "val\n_loss=" in text   # the validation loss's name is cut in two on every record
    log = read_console_text(text)
    val = _means(log, "val_loss")
    assert len(val) == 10 and val[0] == pytest.approx(0.55) and val[-1] == pytest.approx(1.0)
    assert _means(log, "val_accuracy")[-1] == pytest.approx(0.6)
    assert len(_means(log, "loss")) == 10


def test_a_wrapped_file_keeps_counting_its_physical_lines(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(_wrapped(8) + "Traceback (most recent call last):\n  File \"t.py\", line 3\n"
                    "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    log = read_console(str(path))
    assert len(_means(log, "val_loss")) == 8
    assert wrap_width(path.read_text()) == WIDTH


def test_the_width_is_found_only_where_records_are_cut_inside_a_token():
    assert wrap_width(_wrapped()) == WIDTH
    keras = "".join(f"Epoch {e}/8\n1299/1298 [==============================] - 27s 21ms/step - loss: "
                    f"0.{5580 - e:04d} - acc: 0.{7216 + e:04d}\n" for e in range(1, 9))
    assert wrap_width(keras) is None
    table = "".join(f"{e:<6}{e * 100:<8}{0.9 / e:<12.6f}{0.5 + e / 40:<12.6f}{1e-4:<12g}\n" for e in range(1, 12))
    assert wrap_width(table) is None
    bars = "".join(f"Epoch {e}/8: 100%|##########| 79/79 [00:01<00:00, 61.19it/s, acc=0.543, loss=0.6977]\n"
                   f"epoch {e}: train_loss=0.6956 val_loss=0.69\n" for e in range(1, 9))
    assert wrap_width(bars) is None


def _k2_line(b: int, objf: float) -> str:
    return (f"2021-01-01 16:06:{b % 60:02d},566 INFO [train.py:211] batch {b}, epoch 0/8 global average objf: "
            f"{objf:.6f} over {29888.0 * (b + 1):.1f} frames (100.0% kept), current batch average objf: "
            f"{objf * 0.9:.6f} over 29888 frames (100.0% kept)")


def test_a_positive_objf_is_the_loss_itself():
    text = "\n".join(_k2_line(b, 2.2 - 0.07 * i) for i, b in enumerate(range(0, 100, 10))) + "\n"
    log = read_console_text(text)
    losses = _means(log, "loss")
    assert len(losses) == 10 and losses[0] == pytest.approx(2.2) and losses[-1] < losses[0]


def test_a_negative_objf_is_a_log_probability_read_negated():
    text = "\n".join(f"2020-01-31 16:17:{i:02d},226 INFO [train.py:102] Process {i * 100}/3161 "
                     f"global average objf: {-1.2 + 0.08 * i:.6f} over {6400.0 * (i + 1):.1f} frames, "
                     f"current batch average objf: {-1.1 + 0.08 * i:.6f} over 6400 frames, epoch 0"
                     for i in range(10)) + "\n"
    log = read_console_text(text)
    losses = _means(log, "loss")
    assert len(losses) == 10 and losses[0] == pytest.approx(1.2)
    assert all(a > b for a, b in zip(losses, losses[1:]))


def test_a_negative_objf_that_improves_is_diagnosed_healthy(tmp_path):
    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    path = tmp_path / "kaldi.log"
    path.write_text("\n".join(f"2020-01-31 16:{i:02d}:00,000 INFO [train.py:102] Process {i * 100}/3161 "
                              f"global average objf: {-1.2 * 0.85 ** i:.6f} over {6400.0 * (i + 1):.1f} frames, "
                              "epoch 0" for i in range(12)) + "\n")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(path), "--non-interactive", "--format", "json"])
    out = res.stdout if hasattr(res, "stdout") else res.output
    assert '"status": "healthy"' in out, out[-1500:]
