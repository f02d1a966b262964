"""Readings of session 51 (pasted console output, issue 13): crash reports in shapes the reader did
not know, an accuracy's error printed under the accuracy's name, a step behind its epoch in brackets,
and a detector that finds nothing.

- a shell's report of a job killed by a signal in front of the job's command
  (``run.sh: line 12:  4242 Killed    python train.py``, ``[1]+  Segmentation fault (core dumped) ...``);
- a fatal error logged without its exception's class (``WARNING:root:CUDA out of memory. Tried to
  allocate ...``: a script that catches the error and logs ``str(e)``);
- a traceback pasted without its ``Traceback (most recent call last):`` header (frames only);
- ``Top1 error`` / ``top1_err``: the complement of the top-1 accuracy, not the accuracy;
- the step that opens a line behind its epoch in brackets (YOLACT's ``[ 10]    1000 || ...``);
- a detector whose every evaluation summary (the YOLO family's ``all`` row) scores 0.

Each sample is written for this test (invented numbers) and asserts what a user sees through
``traindx diagnose --log FILE``; each has a twin that must not change. Torch-free.
"""

import time

import pytest
from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.probes.readers.console import exception_message, read_console_text

_OPENINGS = ("CUDA out of memory", "CUDA error:")


def _records(n: int = 10) -> list:
    return [f"epoch {i} | step {100 * i} | loss {2.3 - 0.05 * i:.4f}" for i in range(1, n + 1)]


# -- a shell's report of a job killed by a signal -------------------------------------------------
@pytest.mark.parametrize("line", [
    "train.sh: line 12:  4242 Killed                  python train.py --epochs 90",
    "bash: line 1: 23670 Aborted                 (core dumped) ( trainer --config a.yaml )",
    "/bin/bash: line 3:   811 Segmentation fault      (core dumped) python main.py",
    "[1]+  Killed                  nohup python train.py > out.log",
])
def test_a_shell_job_killed_by_a_signal_is_a_crash(tmp_path, line):
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_records() + [line]) + "\n")
    assert report_symptom(rep) == "out_of_scope"


def test_the_same_records_without_the_job_report_are_read_as_a_curve(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_records()) + "\n")
    assert report_symptom(rep) != "out_of_scope"


@pytest.mark.parametrize("line", [
    "see line 12: 4242 Killed by the scheduler?",          # a sentence, no shell's report in front
    "line 3: the run was Aborted by me",
    "[1]+  Done                    python train.py",       # a job that ended well
    "[1]+  Running                 python train.py &",
])
def test_words_that_are_no_job_report_are_no_crash(line):
    assert exception_message(line) is None


# -- a fatal error logged without its class -------------------------------------------------------
def _oom_logged(message: str) -> str:
    rows = _records(6)
    rows += [f"WARNING:root:{message} Tried to allocate 1.{i}0 GiB (GPU 0; 10.76 GiB total capacity; "
             f"4.01 GiB already allocated; 356.00 MiB free)" for i in range(4)]
    return "\n".join(rows) + "\n"


def test_an_out_of_memory_error_logged_without_its_class_is_a_crash(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _oom_logged("CUDA out of memory."))
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_kind") == "cuda_oom"


def test_a_logged_line_that_only_mentions_memory_is_no_crash(tmp_path):
    """The twin: a logger's line about memory that is no error message."""
    rep, _ = diagnose_log_report(tmp_path, _oom_logged("GPU memory in use:"))
    assert report_symptom(rep) != "out_of_scope"
    assert report_fact(rep, "error_kind") is None


def test_the_opening_counts_only_at_the_start_of_the_message():
    assert exception_message("2024-01-02 10:00:00 ERROR trainer: CUDA error: an illegal memory access",
                             _OPENINGS) is not None
    assert exception_message("INFO: no CUDA out of memory seen with batch 64", _OPENINGS) is None
    assert exception_message("WARNING:root:CUDA out of memory. Tried to allocate 2 GiB", ()) is None


# -- a traceback without its header ---------------------------------------------------------------
_FRAMES = [
    '  File "/opt/conda/bin/yolo", line 8, in <module>',
    "    sys.exit(entrypoint())",
    '  File "/opt/conda/lib/python3.10/site-packages/lib/engine/trainer.py", line 185, in train',
    "    subprocess.run(cmd, check=True)",
    '  File "/opt/conda/lib/python3.10/subprocess.py", line 526, in run',
    "    raise CalledProcessError(retcode, process.args,",
]


def test_a_traceback_pasted_without_its_header_is_a_crash(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_records() + [""] + _FRAMES) + "\n")
    assert report_symptom(rep) == "out_of_scope"


def test_a_file_named_inside_a_sentence_is_no_traceback(tmp_path):
    """The twin: a line that names a file and a line number in words is no frame."""
    text = "\n".join(_records() + ['saved to File "ckpt.pt", line 3 of the manifest']) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) != "out_of_scope"


# -- an accuracy's error ---------------------------------------------------------------------------
def _top1(name: str) -> str:
    rows = [f"Train Epoch: [{i}] loss: {4.6 - 0.3 * i:.4f} {name}: {92.0 - 6.5 * i:.4f}" for i in range(10)]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("name", ["Top1 error", "Top-1 err", "top1_err"])
def test_a_top1_error_is_read_as_one_minus_the_accuracy(name):
    log = read_console_text(_top1(name))
    acc = log.series["accuracy"]
    assert acc.last_value == pytest.approx(1 - (92.0 - 6.5 * 9) / 100, abs=1e-6)


def test_a_top1_accuracy_stays_the_accuracy():
    """The twin: the accuracy's own name, and an accuracy "rate", are the accuracy."""
    for name in ("Top1", "accuracy rate"):
        log = read_console_text(_top1(name))
        assert log.series["accuracy"].last_value == pytest.approx((92.0 - 6.5 * 9) / 100, abs=1e-6), name


def test_a_falling_top1_error_is_no_accuracy_that_collapses(tmp_path):
    """What a user sees: a top-1 error falling 92 -> 33.5 % is a model that learns (its latest
    accuracy, the median of the last three records, 60 %), not one whose accuracy falls to 40 %."""
    rep, _ = diagnose_log_report(tmp_path, _top1("Top1 error"))
    assert report_fact(rep, "train_accuracy") == pytest.approx(0.60, abs=0.01)
    assert report_symptom(rep) not in ("explosion", "instability")


# -- linear time on hostile lines ------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "*" * 4096 + "x", "line 1: " * 512, "[1]" + " " * 4096 + "x", 'File "' * 700,
    "WARNING:" + "a:" * 2000 + "CUDA out of memory", ":" * 4096,
], ids=["stars", "line-n", "job-blanks", "file-quotes", "logger-colons", "colons"])
def test_the_new_shapes_are_read_in_linear_time(line):
    from traindx.probes.readers.console import _LOGGER_NAME, _SHELL_JOB_DEATH, _TRACE_FRAME
    t = time.perf_counter()
    for _ in range(20):
        exception_message(line, _OPENINGS)
        for rx in (_LOGGER_NAME, _SHELL_JOB_DEATH, _TRACE_FRAME):
            rx.match(line)
            rx.match(" " * 2048 + line)
    assert time.perf_counter() - t < 1.0


# -- an epoch in brackets before the step that opens the line --------------------------------------
def _lead(fmt: str) -> str:
    return "\n".join(fmt.format(e=10, i=1000 + 10 * k, l=6.2 - 0.01 * k) for k in range(10)) + "\n"


@pytest.mark.parametrize("fmt", ["[{e:3d}] {i:7d} || loss: {l:.3f} | lr: 0.001 || ETA: 9 days, 1:00:00",
                                 "[{e}] {i} | loss: {l:.3f}", "{i:7d} || loss: {l:.3f}"],
                         ids=["yolact", "bracket-then-pipe", "double-pipe"])
def test_the_step_after_an_epoch_in_brackets_is_the_step(tmp_path, fmt):
    """The iteration that opens each line (1000, 1010, ...) is the step; the epoch in brackets before it
    (``[ 10]``) is no step: the excerpt starts mid-run, at step 1000."""
    log = read_console_text(_lead(fmt))
    loss = log.series["loss"]
    assert (loss.first_x, loss.last_x) == (1000, 1090)
    rep, _ = diagnose_log_report(tmp_path, _lead(fmt))
    assert report_fact(rep, "log_starts_mid_run") is True


def test_a_round_in_brackets_and_a_step_before_a_pipe_are_read_as_before():
    """The twins: gradient boosting's round in brackets, a step before one pipe."""
    rounds = "\n".join(f"[{r}]\ttrain-logloss:{0.6 - 0.01 * r:.4f}\tvalid-logloss:{0.62 - 0.01 * r:.4f}"
                       for r in range(10)) + "\n"
    assert read_console_text(rounds).series["loss"].last_x == 9
    assert read_console_text(_lead("{i} | loss: {l:.3f}")).series["loss"].first_x == 1000


# -- a detector that finds nothing -----------------------------------------------------------------
_DET_HEADER = "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|##| 4/4"


def _yolo(epochs, score: float, loss: str = "{box:.4g}") -> str:
    rows = []
    for e in epochs:
        rows.append("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size")
        box = loss.format(box=1.8 - 0.02 * e)
        rows.append(f"     {e}/100      5.54G      {box}     {2.19 - 0.01 * e:.4g}      1.1        220        640: "
                    "100%|##########| 8/8 [00:03<00:00,  2.67it/s]")
        rows.append(_DET_HEADER)
        rows.append(f"                   all        128        929      {score:g}      {score:g}      {score:g}"
                    f"      {score:g}")
        rows.append("")
    return "\n".join(rows) + "\n"


def test_a_detector_whose_every_score_is_zero_is_not_learning(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _yolo(range(54, 58), 0.0))
    assert report_fact(rep, "detection_score_best") == 0.0
    assert report_symptom(rep) == "not_learning"


def test_a_detector_that_finds_some_objects_is_not_read_as_finding_nothing(tmp_path):
    """The twin: the same losses beside scores of 0.45."""
    rep, _ = diagnose_log_report(tmp_path, _yolo(range(54, 58), 0.45))
    assert report_fact(rep, "detection_score_best") == pytest.approx(0.45)
    assert report_symptom(rep) != "not_learning"


def test_zero_scores_in_the_first_epochs_say_nothing_yet(tmp_path):
    """The twin: a detector from scratch that finds nothing at epochs 1-2 may still learn."""
    rep, _ = diagnose_log_report(tmp_path, _yolo(range(1, 3), 0.0))
    assert report_fact(rep, "detection_score_best") is None


def test_zero_scores_beside_a_nan_loss_stay_an_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _yolo(range(54, 58), 0.0, loss="nan"))
    assert report_symptom(rep) == "explosion"


def test_detection_headers_and_rows():
    from traindx.probes.readers.console_detect import header_counts, row_scores
    assert header_counts(_DET_HEADER) == 2
    assert header_counts("   Class      Images     Targets           P           R      mAP@.5  mAP@.5:.95: 100%") == 2
    assert header_counts("Class Images Labels P R mAP@.5 mAP@.5:.95") == 2
    assert header_counts("Epoch GPU_mem box_loss cls_loss mAP") is None
    assert header_counts("Class accuracy 0.5 mAP") is None
    assert row_scores("   all   5.57e+04   1.74e+05   0.000332   0.00039   2.4e-06   8.59e-07", 2) == \
        pytest.approx([0.000332, 0.00039, 2.4e-06, 8.59e-07])
    assert row_scores("   person   128   254   0.5   0.4   0.3   0.2", 2) is None   # one class's row
    assert row_scores("   all of them failed", 2) is None
