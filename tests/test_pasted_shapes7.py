"""Console excerpts in the shapes of session 12's tuning material (pasted set fresh7 and the pasted
tuning sets before it): each sample is written for this test — synthetic numbers in the print
shapes of common tools — and asserts what a user sees through ``traindx diagnose --log FILE``.

Shapes: a fixed-width table that leaves its evaluation cells blank on most rows (Chainer's
``PrintReport``) under metric names printed as namespace paths (``main/loss``,
``validation/main/accuracy``); a table whose count column is ``#`` and whose loss columns are
``LOSS <component>`` (spaCy); the command line that started the run, whose ``--option value``
pairs are settings, not records; a loss printed as a list of values; a name's bracketed index
before its value; a count inside a metric's name. Evidence: an accuracy that is 0 at every record
beside a flat loss is Not Learning, mid-run too. Each has a twin that must not change. Torch-free.
"""

import math
import random

from conftest import diagnose_log_report, diagnose_log_text, report_symptom

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


# ------------------------------------------------------------------ fixed-width tables, blank cells
def _fixed(cells, widths):
    return "".join(f"{c:<{w}}" for c, w in zip(cells, widths)).rstrip() + "   "


def test_a_fixed_width_table_with_blank_evaluation_cells_is_read(tmp_path):
    names = ["epoch", "iteration", "main/loss", "main/accuracy", "validation/main/loss",
             "validation/main/accuracy", "elapsed_time"]
    widths = [12, 12, 12, 15, 23, 27, 14]
    lines = ["/usr/lib/python3/site-packages/chainer/optimizer.py:88: UserWarning: something deprecated",
             _fixed(names, widths)]
    for k in range(1, 13):
        loss, acc = 2.4 * math.exp(-0.15 * k), 0.2 + 0.05 * k
        cells = [str(k // 4), str(50 * k), f"{loss:.5f}", f"{acc:.5f}", "", "", f"{3.1 * k:.3f}"]
        if k % 4 == 0:
            cells[4], cells[5] = f"{loss * 1.1:.5f}", f"{acc - 0.03:.5f}"
        lines.append(_fixed(cells, widths))
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "loss" in out and "val_loss" in out and "val_accuracy" in out, out.splitlines()[0]
    f = _facts(rep)
    assert abs(f["initial_loss"] - 2.4 * math.exp(-0.15)) < 0.3 and f["loss_trend"] == "decreasing"
    assert _symptom(rep) == "healthy"


def test_a_row_of_words_under_a_fixed_width_header_is_no_row(tmp_path):
    # the twin: a line of words and numbers under the header is not spread over its columns
    names = ["epoch", "iteration", "main/loss", "lr"]
    widths = [12, 12, 12, 12]
    lines = [_fixed(names, widths)]
    for k in range(1, 9):
        lines.append(_fixed([str(k), str(100 * k), f"{2.0 - 0.1 * k:.4f}", "0.01"], widths))
        lines.append(f"saving snapshot 7 of {k}")
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["run_length_steps"] == 701


def test_a_table_with_a_count_column_and_loss_components_is_read(tmp_path):
    lines = ["=========================== Initializing pipeline ===========================",
             "E    #       LOSS ENCODER  LOSS TAGGER  TAG_ACC  SCORE ",
             "---  ------  ------------  -----------  -------  ------"]
    for k in range(8):
        lines.append(f"{k // 3:>3}  {250 * k:>6}  {90.0 - 8 * k:>12.2f}  {400.0 - 35 * k:>11.2f}"
                     f"  {40 + 5 * k:>7.2f}  {0.4 + 0.05 * k:>6.2f}")
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    # the components summed: 490 at the first row
    assert abs(f["initial_loss"] - 490.0) < 40 and f["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ the command line is no record
def test_the_command_lines_options_are_no_record(tmp_path):
    lines = ["python train.py --data ./data --workers 4 --learning-rate 0.0001 --epoch 300"]
    for k in range(1, 15):
        lines.append(f"iteration {100 * k}  loss {3.0 * math.exp(-0.1 * k):.4f}  lr 0.0001")
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "restart" not in out.splitlines()[0], out.splitlines()[0]
    f = _facts(rep)
    assert f["run_length_steps"] == 1301 and f["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ values in brackets
def test_a_loss_printed_as_a_list_reads_its_first_value(tmp_path):
    rnd = random.Random(3)
    lines = []
    for k in range(1, 13):
        total = 180.0 * rnd.uniform(0.7, 1.5) * (3.0 if k == 12 else 1.0)
        parts = [total, total * 0.45, total * 0.25]
        lines.append(f"[Epoch {k}/300] LR = {1e-5 * k:.6f} Time = 512.3 (s) Losses = "
                     + str([f"{v:.4f}" for v in parts]))
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert "loss" in out.splitlines()[0]
    assert f["initial_loss"] > 100  # the total printed first, not a component
    assert _symptom(rep) == "instability"


def test_a_bracketed_index_before_the_value_is_no_value(tmp_path):
    lines = []
    for e in range(5, 9):
        for b in (100, 200, 300):
            lines.append(f"Loss [{e}, {b}](epoch, minibatch):  {2.0 - 0.01 * e - 0.001 * b:.10f}")
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert 1.5 < f["initial_loss"] < 2.0 and f["current_loss"] < f["initial_loss"]


def test_a_count_inside_a_metrics_name_is_not_its_value(tmp_path):
    lines = []
    for e in range(1, 4):
        for b in (2000, 4000, 6000):
            lines.append(f"[{e}, {b:5d}] loss: {2.2 - 0.1 * e - 0.00002 * b:.3f}")
        lines.append(f"Accuracy on 10,000 test images: {40 + 5 * e:.2f} %")
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    # 10 (of "10,000") is no training accuracy of 10%
    assert f.get("train_accuracy") is None, f.get("train_accuracy")


# ------------------------------------------------------------------ an accuracy never above 0
def _ocr_line(step: int, loss: float, acc: float | None) -> str:
    acc_part = f"acc: {acc:.6f}, " if acc is not None else ""
    return (f"[2024/03/02 10:{step % 60:02d}:11] ocr INFO: epoch: [6/50], global_step: {step}, lr: 0.000900, "
            f"{acc_part}edit_dis: 0.041, loss: {loss:.6f}, avg_batch_cost: 0.0871 s, eta: 0:20:01")


def test_a_flat_loss_beside_an_accuracy_never_above_zero_is_not_learning(tmp_path):
    rnd = random.Random(5)
    lines = [_ocr_line(4000 + 20 * k, 24.0 * rnd.uniform(0.95, 1.05), 0.0) for k in range(6)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep).get("accuracy_all_zero") is True
    assert _symptom(rep) == "not_learning"


def test_the_same_excerpt_without_the_accuracy_stays_a_plateau(tmp_path):
    rnd = random.Random(5)
    lines = [_ocr_line(4000 + 20 * k, 24.0 * rnd.uniform(0.95, 1.05), None) for k in range(6)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "plateau"


def test_a_zero_accuracy_beside_a_falling_loss_is_not_called_not_learning(tmp_path):
    # an accuracy metric on a regression stays 0 while the loss falls: the model learns
    lines = []
    for k in range(1, 11):
        lines.append(f"Epoch {k}/100")
        lines.append(f"120/120 [==============================] - 0s 80us/step - loss: {0.2 * math.exp(-0.3 * k):.4f}"
                     f" - acc: 0.0000e+00 - val_loss: {0.22 * math.exp(-0.3 * k):.4f} - val_acc: 0.0000e+00")
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) != "not_learning"


def test_an_unreadable_fixed_width_table_is_still_one_line(tmp_path):
    lines = ["epoch       iteration   main/loss", "0           100         ---", "0           200         ---"]
    res = diagnose_log_text(tmp_path, "\n".join(lines))
    assert res.exit_code == 2
    msg = res.output.strip().splitlines()
    assert len(msg) == 1 and "run.out" in msg[0]
