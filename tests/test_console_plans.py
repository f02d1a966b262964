"""The console reader's shortcuts read exactly what a full parse reads.

A repeated line shape is read by a remembered plan, a repeated line without a metric by what its
first full parse found, and a file in batches of lines: on a mixed log (several print styles,
warnings, progress bars redrawn with carriage returns, a table, restarts, NaN warnings, a
traceback; longer than one read block) the reader with every shortcut disabled
(``console.max_line_shapes: 0``), with them capped, and fed piece by piece gives the same log.
"""
import io
import math

from traindx.engine.parameters import resolve
from traindx.probes.readers.console import ConsoleReader, _finish, read_console


def _mixed_log(n: int = 3000) -> str:
    out = []
    step = 0
    for k in range(n):
        loss = 2.0 * math.exp(-k / 900) + ((k * 7919) % 100) / 1000
        style = k % 23
        if style == 0:
            out.append("/site-packages/torch/utils/data/dataloader.py:560: UserWarning: 8 workers")
        elif style == 1:
            out.append(f"Epoch {k // 300}:  {k % 100}%|####   | {k % 512}/512 [00:21<00:30,  9.9it/s]"
                       f"\rEpoch {k // 300}:  {k % 100 + 1}%|####   | {k % 512 + 1}/512 [00:22<00:29, 10.1it/s]")
        elif style == 2:
            out.append("Saving checkpoint to runs/exp1/ckpt_last.pt")
        elif style == 3:
            out.append("")
        elif style == 4:
            out.append(f"Validation: loss {loss + 0.1:.5f} acc {0.5 + k / 10000:.4f}")
        elif style == 5:
            out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {loss * 3:.3f}, 'learning_rate': 1e-4, "
                       f"'epoch': {k / 300:.2f}}}")
        elif style == 6 and k % 7 == 0:
            out.append("RuntimeWarning: detected NaN in the gradients")
        elif style == 7 and k % 11 == 0:
            out.append(f"Epoch {k // 300}/10 - loss: {loss:.5f} - val_acc: {0.4 + k / 10000:.4f}")
        elif style == 8 and k == 1503:
            step = 200          # a restart from an earlier checkpoint
            out.append("resuming from checkpoint")
        elif style == 9 and k % 5 == 0:
            out.append(f"step {step} loss nan grad_norm inf")
        elif style == 10 and k == 2310:
            out += ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
                    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"]
        elif style == 11 and k % 3 == 0:
            out.append(f"Epoch {k // 300}")
        elif style == 12 and k % 2 == 0:
            out.append("ValueError: skipped a corrupt sample")
        else:
            step += 1
            out.append(f"2024-05-01 12:{(step // 60) % 60:02d}:{step % 60:02d},{step % 1000:03d} - INFO"
                       f" - step {step} loss {loss:.5f} acc {0.1 + k / 5000:.4f} lr {1e-3 / (1 + k):.4e}")
    return "\n".join(out) + "\n"


def _state(log) -> str:
    """Everything the log holds, as text (a NaN equals a NaN)."""
    out = {k: v for k, v in vars(log).items() if k not in ("series", "path", "_timer")}
    out["series"] = {role: (s.column, s.rows, s.finite, s.nonfinite, s.min, s.max, s.first_x, s.last_x,
                            s.last_value, s.head, s.restarts, s.nonfinite_steps,
                            [(p.x, p.mean, p.n) for p in s.points])
                     for role, s in log.series.items()}
    return repr(out)


def _params(**over):
    p = dict(resolve(None))
    p.update(over)
    return p


def test_plans_and_remembered_lines_read_what_a_full_parse_reads(tmp_path):
    text = _mixed_log()
    assert len(text) > 1 << 16           # more than one read block: lines cut between blocks
    path = tmp_path / "run.out"
    path.write_text(text, encoding="utf-8")
    log = read_console(str(path), params=_params(**{"console.max_line_shapes": 0}))
    assert {"loss", "val_loss", "val_accuracy", "grad_norm", "lr"} <= set(log.series)
    assert log.restart_lines and log.nan_warnings and log.errors and log.epochs > 1
    full = _state(log)
    assert _state(read_console(str(path))) == full
    # plans and remembered lines capped: the shapes beyond the cap are parsed in full
    assert _state(read_console(str(path), params=_params(**{"console.max_line_shapes": 2}))) == full


def test_reading_in_batches_is_reading_piece_by_piece(tmp_path):
    text = _mixed_log(1500)
    path = tmp_path / "run.out"
    path.write_text(text, encoding="utf-8")
    reader = ConsoleReader(str(path))
    for line in io.StringIO(text, newline="\n").read().split("\n")[:-1]:
        pieces = [p for p in line.split("\r") if p.strip()] if "\r" in line else [line]
        if not pieces:
            reader.feed("", True)
        for i, piece in enumerate(pieces):
            reader.feed(piece, i == 0)
    log = reader.finish()
    _finish(log)
    assert _state(read_console(str(path))) == _state(log)
