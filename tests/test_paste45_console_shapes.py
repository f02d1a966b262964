"""Console shapes read in session 45 (issue 13, paste45). Each sample is written for this test
(invented lines in the print shapes named) and asserts what a user reads off ``traindx diagnose
--log FILE``. Torch-free.

- a tab-separated table that a Python logger prints, header and rows behind the logger's prefix;
- a table that logs training and evaluation rows apart, printing ``nan`` in the split a row does
  not log: blanks, not a loss that turned NaN (a row NaN in both splits still is one);
- an error the C++ side logs in glog's dated form (``[E602 11:17:52.18 ProcessGroupNCCL.cpp:632]``).
"""

import random
import time

from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers.console import exception_message, read_console_text

_PREFIX = "{t} INFO [trainer/MainProcess] model._log_history : "


def _sparse_rows(prefix: str, nan_from: int | None = None) -> list:
    """Rows ``step<TAB>train<TAB>valid``: an evaluation every 2,000 steps, a training row every 3,000,
    each with ``nan`` in the column it does not log; from step ``nan_from`` on both are NaN."""
    rows = []
    for step in range(1000, 25000, 1000):
        if step % 2000 and step % 3000:
            continue
        train = f"{2.0 * 0.93 ** (step / 1000):.6f}" if step % 3000 == 0 else "nan"
        val = f"{2.2 * 0.94 ** (step / 1000):.6f}" if step % 2000 == 0 else "nan"
        if nan_from is not None and step >= nan_from:
            train = val = "nan"
        rows.append(prefix.format(t=f"2024-08-19 13:{step // 1000:02d}:48,101") + f"{step}\t{train}\t{val}")
    return rows


def test_a_loggers_tab_table_is_read_behind_its_prefix(tmp_path):
    head = _PREFIX.format(t="2024-08-19 13:00:00,001") + "Step\tTrain loss\tValid loss\t"
    rep, out = diagnose_log_report(tmp_path, "\n".join([head, *_sparse_rows(_PREFIX)]) + "\n")
    assert report_fact(rep, "train_loss") is not None and report_fact(rep, "val_loss") is not None
    assert report_symptom(rep) == "healthy"


def _frame(rows: list) -> str:
    """The rows as pandas prints a metrics file's frame (``print(pd.read_csv("metrics.csv"))``)."""
    out = ["     step  train_loss  val_loss"]
    for i, r in enumerate(rows):
        step, train, val = r.split("\t")
        out.append(f"{i:<4} {step:>5}  {train.replace('nan', 'NaN'):>10}  {val.replace('nan', 'NaN'):>8}")
    return "\n".join(out) + "\n"


def test_nan_in_the_split_a_row_does_not_log_is_a_blank(tmp_path):
    text = _frame(_sparse_rows(""))
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_fact(rep, "loss_has_nonfinite") is not True
    assert report_symptom(rep) == "healthy"


def test_a_row_nan_in_both_splits_is_still_a_nan_loss(tmp_path):
    text = _frame(_sparse_rows("", nan_from=14000))
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "explosion"


def test_a_nan_loss_beside_a_finite_accuracy_of_its_split_is_still_nan(tmp_path):
    lines = ["epoch  loss  acc  val_loss  val_acc"]
    for e in range(1, 9):
        loss = f"{1.5 * 0.8 ** e:.4f}" if e < 6 else "nan"
        vloss = f"{1.6 * 0.8 ** e:.4f}" if e < 6 else "nan"
        lines.append(f"{e}  {loss}  {0.5 + e / 40:.4f}  {vloss}  {0.5 + e / 50:.4f}")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == "explosion"


def test_a_glog_dated_cpp_error_ends_the_run_out_of_scope(tmp_path):
    lines = [f"{{'loss': {3.5 - s / 10:.4f}, 'grad_norm': 1.41, 'learning_rate': 2e-06, 'epoch': 0.0{s}}}"
             for s in range(1, 6)]
    lines.append(" 1%|          | 24/1752 [01:08<1:22:56,  2.88s/it][rank5]:[E602 11:17:52.185053341 "
                 "ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective operation timeout")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_kind") == "cuda_error"


def test_glog_lines_that_are_not_cpp_errors_are_left_alone():
    assert exception_message("I0602 11:17:52.185053 1234 ProcessGroupNCCL.cpp:632] NCCL_DEBUG set") is None
    assert exception_message("[W602 11:17:52.185053341 ProcessGroupNCCL.cpp:632] Warning: no group") is None
    assert exception_message("[E602 11:17:52.185 ProcessGroupNCCL.cpp:632] Watchdog caught a timeout") \
        .startswith("C++ error in ProcessGroupNCCL.cpp")


def test_a_header_needs_a_level_word_and_a_separator_before_its_tab():
    from traindx.probes.readers.console_logged import logged_header
    assert logged_header("epoch\tloss\tacc") is None
    assert logged_header("2024-01-01 INFO no separator here\tloss") is None
    assert logged_header("2024-01-01 INFO [x] y : Step\tloss") == ("INFO [x] y : ", "Step\tloss")


def test_hostile_lines_of_level_words_and_cpp_marks_read_in_linear_time():
    rng = random.Random(2)
    lines = []
    for i in range(200):
        words = "".join(rng.choice(("INFO ", "[E602 11:17:52.1 ", "- x ", "a.cpp", "\t")) for _ in range(400))
        lines.append(words[:4000] + f" step {i} loss 0.5")
    t0 = time.process_time()
    try:
        read_console_text("\n".join(lines))
    except InputError:
        pass
    assert time.process_time() - t0 < 9.0
