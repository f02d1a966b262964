"""Finished runs read from their console log (session 51, issue 13): the PyTorch tutorials' unnamed
progress value (``500 50% (0m 7s) 1.1889 ...``, ``0m 24s (5000 5%) 2.6593``) is the training loss at
that iteration, and a count inside a metric's name is what the metric was computed over, not its value:
``accuracy on 800 held-out names = 0.59`` is no training accuracy of 800, and ``Mean test loss of 296
batches: 4.1`` is a validation loss of 4.1."""


from traindx.probes.readers.console import read_console_text
from cli_reports import diagnose_log, report_facts


def _diagnose(tmp_path, log: str, script: str | None = None) -> dict:
    return diagnose_log(tmp_path, log, script)


def _facts(report: dict) -> dict:
    return report_facts(report)


_CLASSIFY_LOSSES = [2.07, 1.97, 1.73, 1.58, 1.49, 1.40, 1.29, 1.26, 1.24, 1.19, 1.17, 1.16, 1.12, 1.14, 1.10,
                    1.10, 1.08, 1.06, 1.05, 1.04]
_VAL = [(1.63, 0.385), (1.33, 0.564), (1.23, 0.587), (1.13, 0.625), (1.12, 0.631)]


def _tutorial_log(losses, val, final: str) -> str:
    """The char-RNN classification tutorial's print: ``iter percent% (elapsed) loss name / guess mark``."""
    lines = ["categories: 8", "train names: 4000, val names: 800"]
    n = len(losses)
    for k, loss in enumerate(losses, 1):
        it = 50 * k
        lines.append(f"{it} {100 * k // n}% (0m {2 * k}s) {loss:.4f} Qghvghoxg / Belunic ✗ (Dathi)")
        if k % 4 == 0:
            vl, va = val[k // 4 - 1]
            lines.append(f"-- val loss {vl:.4f}  val accuracy {va:.3f}")
    lines.append(final)
    return "\n".join(lines) + "\n"


def test_the_tutorial_progress_value_is_read_as_the_training_loss_at_its_iteration():
    log = read_console_text(_tutorial_log(_CLASSIFY_LOSSES, _VAL, "done"))
    assert log.x_label == "step"
    loss = log.series["loss"]
    assert loss.rows == len(_CLASSIFY_LOSSES)
    assert loss.head[0][1] == 2.07 and loss.last_value == 1.04 and loss.last_x == 1000
    assert log.series["val_loss"].last_x == 1000   # the evaluation takes the iteration printed above it
    assert any("read as the training loss" in n for n in log.notes)


def test_the_generation_and_seq2seq_tutorials_print_the_loss_after_the_elapsed_time():
    gen = "\n".join(f"0m {5 * k}s ({5000 * k} {5 * k}%) {3.0 - 0.1 * k:.4f}" for k in range(1, 7))
    s2s = "\n".join(f"{k}m 4s (- {9 - k}m 12s) ({5000 * k} {10 * k}%) {4.0 - 0.3 * k:.4f}" for k in range(1, 7))
    for text, last in ((gen, 2.4), (s2s, 2.2)):
        loss = read_console_text(text).series["loss"]
        assert loss.rows == 6 and loss.last_x == 30000 and abs(loss.last_value - last) < 1e-9


def test_a_healthy_tutorial_run_is_not_called_overfitting_by_its_held_out_count(tmp_path):
    final = "Finished: accuracy on 800 held-out names = 0.631"
    report = _diagnose(tmp_path, _tutorial_log(_CLASSIFY_LOSSES, _VAL, final))
    assert report["status"] == "healthy"
    facts = _facts(report)
    assert "train_accuracy" not in facts     # 800 is the count of names, not an accuracy
    assert facts["loss_trend"] == "decreasing"


def test_a_three_digit_count_inside_a_metric_name_is_no_value():
    log = read_console_text("epoch 1 loss 0.9\nepoch 2 loss 0.7\nFinished: accuracy on 800 held-out names = 0.59\n"
                            "Accuracy of the network on the 300 test images: 49 %\n")
    assert "accuracy" not in log.series

def test_a_count_of_batches_inside_a_test_loss_name_leaves_the_test_loss_its_value():
    log = read_console_text("Epoch 1 Mean training loss: 3.93\nMean test loss of 619 batches: 4.3702\n"
                            "Epoch 2 Mean training loss: 3.92\nMean test loss of 619 batches: 4.2670\n")
    val = log.series["val_loss"]
    assert val.rows == 2 and abs(val.last_value - 4.267) < 1e-9
