"""Console excerpts in print shapes the reader missed (issue 13, session 33, paste33). Each sample is
written for this test (invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE`` or what the console reader makes of the text. Torch-free.

Shapes: a metric named as a path of namespaces whose last part is one component of a loss
(``train/generator_loss``, ``losses/value_loss``, ``val/box_loss``: a summary tag's name, printed one
tag per line by a vocoder's or an RL trainer's logger).
"""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text


def _tag_lines(values: dict, steps) -> str:
    """One tag per line, the step in front (a logger printing each summary tag it averaged)."""
    out = []
    for k, step in enumerate(steps):
        for tag, vals in values.items():
            out.append(f"[2024-03-01 10:{k:02d}:00] INFO (trainer:212) step {step}: {tag} = {vals[k]:.4f}")
    return "\n".join(out) + "\n"


def test_a_path_named_loss_component_is_read_as_the_loss():
    gen = [3.91, 3.42, 3.10, 2.86, 2.70, 2.55, 2.44, 2.36]
    text = _tag_lines({"train/adversarial_loss": gen, "train/feature_match_loss": [v / 3 for v in gen]},
                      range(500, 4500, 500))
    log = read_console_text(text)
    assert "loss" in log.series
    assert len(log.series["loss"].points) == len(gen)


def test_a_path_named_component_under_a_validation_namespace_is_the_validation_loss():
    lines = []
    for k in range(8):
        lines.append(f"epoch {k + 1} train/box_loss: {0.09 * 0.9 ** k:.4f} train/cls_loss: {0.05 * 0.9 ** k:.4f}")
        lines.append(f"epoch {k + 1} val/box_loss: {0.08 + 0.004 * k:.4f} val/cls_loss: {0.04 + 0.003 * k:.4f}")
    log = read_console_text("\n".join(lines) + "\n")
    assert "loss" in log.series and "val_loss" in log.series


def test_nan_under_a_path_named_loss_component_is_an_explosion(tmp_path):
    vals = [2.31, 2.05, 1.92, float("nan"), float("nan"), float("nan")]
    text = _tag_lines({"train/generator_loss": vals, "train/mel_loss": [v / 4 for v in vals]},
                      range(1000, 7000, 1000))
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "explosion"


def test_a_path_whose_last_part_names_no_loss_stays_unread():
    """``lr/pg0``, ``time/fps``: a path's last part that is no loss component names no loss."""
    text = "".join(f"step {k * 10} lr/pg0 = {0.01:.4f} time/fps = {300 + k}\n" for k in range(6))
    try:
        log = read_console_text(text)
    except Exception:   # nothing read at all: the reader refuses, as it should
        return
    assert "loss" not in log.series
