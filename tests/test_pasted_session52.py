"""Readings of session 52 (pasted console output, issue 13): shapes of print the reader did not know,
and a validation loss too short for its running median.

- an exception's class printed as Python writes a class, its message after it (a supervisor that
  reports what it caught: TensorFlow's ``Error reported to Coordinator: <class
  '...ResourceExhaustedError'>, OOM when allocating ...``; a script's ``print(type(e), e)``): a crash;
  TensorFlow's ``by allocator cpu`` names the host's memory, not a GPU's;
- a split's accuracy with qualifiers between the split word and the accuracy word of one identifier
  (``valid_en_mlm_acc``: a language and a task): that split's accuracy;
- a validation loss of a few evaluations that climbs at every evaluation since its lowest while the
  training loss falls: a rise, though the running median smooths the lowest away or counts the last
  rise as the tail's noise.

Each sample is written for this test (invented numbers) and asserts what a user sees through
``traindx diagnose --log FILE``; each has a twin that must not change. Torch-free.
"""

import json
import time

import pytest
from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.probes.readers.console import exception_message, read_console_text


def _steps(n: int = 10) -> list:
    return [f"INFO:tensorflow:global step {i}: loss = {3.1 - 0.04 * i:.4f} (1.{i % 10}13 sec/step)"
            for i in range(1, n + 1)]


# -- an exception's class printed as a class -------------------------------------------------------
_COORDINATOR = ("INFO:tensorflow:Error reported to Coordinator: <class "
                "'tensorflow.python.framework.errors_impl.ResourceExhaustedError'>, OOM when allocating tensor "
                "with shape[1,1,2048,4096,3] and type float on /job:localhost/replica:0/task:0/device:CPU:0 "
                "by allocator cpu")


def test_an_error_a_supervisor_reports_by_its_class_is_a_crash(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_steps() + [_COORDINATOR]) + "\n")
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_kind") == "other_error"   # the host's allocator, not a GPU's memory


def test_a_class_and_message_a_script_prints_is_a_crash(tmp_path):
    line = "<class 'RuntimeError'> CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total)"
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_steps() + [line]) + "\n")
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_kind") == "cuda_oom"


def test_the_same_steps_without_the_report_are_read_as_a_curve(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, "\n".join(_steps()) + "\n")
    assert report_symptom(rep) != "out_of_scope"


@pytest.mark.parametrize("line", [
    "model class: <class 'models.resnet.ResNet'>, 11.2M parameters",    # a class that is no exception
    "loss function <class 'torch.nn.modules.loss.CrossEntropyLoss'>",
    "catching <class 'ValueError'>",                                     # no message after it
])
def test_a_class_that_is_no_exception_or_has_no_message_is_no_crash(line):
    assert exception_message(line) is None


# -- a split's accuracy behind qualifiers ---------------------------------------------------------
def _json_epochs(acc_name: str) -> str:
    rows = []
    for e in range(8):
        acc = 4.68 if e == 0 else 5.0741   # frozen from the second evaluation on, at about 5 %
        rows.append(f"INFO - 02/20/19 1{e}:14:59 - {e}:50:54 - __log__:" + json.dumps(
            {"epoch": e, "valid_en_mlm_ppl": 1400.0 + 90 * e, acc_name: acc}))
    return "\n".join(rows) + "\n"


def test_a_split_accuracy_behind_qualifiers_is_that_splits_accuracy():
    log = read_console_text(_json_epochs("valid_en_mlm_acc"))
    assert log.series["val_accuracy"].last_value == pytest.approx(0.050741, abs=1e-6)


def test_a_frozen_qualified_validation_accuracy_is_not_learning(tmp_path):
    """What a user sees: a masked-token accuracy frozen at 5 % while the perplexity climbs is a model
    that does not learn, not a plateau of a learned one."""
    rep, _ = diagnose_log_report(tmp_path, _json_epochs("valid_en_mlm_acc"))
    assert report_symptom(rep) == "not_learning"
    assert "{" not in rep["symptom"]["how"]   # the explanation names no fact it does not hold


@pytest.mark.parametrize("name", ["valid_loss_acc", "en_valid_mlm_score", "valid_en_mlm_count"])
def test_a_name_that_is_no_qualified_accuracy_stays_unread(name):
    """The twins: a metric word in the middle, no split word first, no accuracy word last."""
    log = read_console_text(_json_epochs(name))
    assert "val_accuracy" not in log.series


# -- linear time on hostile lines ------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "<class '" + "a" * 4096, "<class '" + "a." * 2048 + "'>", "<class '" * 512, "<class 'x'>" * 400,
])
def test_the_class_search_stays_linear(line):
    t0 = time.perf_counter()
    exception_message(line)
    assert time.perf_counter() - t0 < 0.5


# -- a short validation series that climbs at every evaluation since its lowest ---------------------
def _epochs(train: list, val: list) -> str:
    n = len(train)
    return "\n".join(f"Epoch {i + 1}/{n + 2} \t loss={t:.4f} \t val_loss={v:.4f} \t time=10{i}.3s"
                     for i, (t, v) in enumerate(zip(train, val))) + "\n"


def test_a_validation_loss_climbing_since_its_first_evaluation_is_overfitting(tmp_path):
    """What a user sees: three epochs in which the training loss falls by a quarter while the
    validation loss climbs at every evaluation, 21 % above its lowest, is overfitting, not healthy."""
    rep, _ = diagnose_log_report(tmp_path, _epochs([2.40, 2.05, 1.80], [2.10, 2.16, 2.55]))
    assert report_fact(rep, "val_loss_trend") == "increasing"
    assert report_symptom(rep) == "overfitting"


def test_a_single_low_evaluation_then_a_climb_is_a_rise():
    """Five evaluations: the lowest (the third) is smoothed away by the running median, yet every
    evaluation since it climbs, by half of it."""
    from traindx.probes.readers.curves import analyze

    log = read_console_text(_epochs([9.3, 4.1, 2.8, 2.3, 2.1], [10.4, 7.5, 4.5, 6.0, 6.8]))
    _, an = analyze(log)
    assert an.facts["val_loss_trend"] == "increasing"


@pytest.mark.parametrize("train, val", [
    ([2.40, 2.05, 1.80], [2.10, 2.45, 2.30]),    # one climb and back down: one bad evaluation
    ([2.40, 2.05, 1.80], [2.10, 2.12, 2.15]),    # climbs, by less than a tenth
    ([2.40, 2.55, 2.80], [2.10, 2.16, 2.55]),    # the training loss climbs too: no divergence
])
def test_a_short_series_that_is_no_steady_climb_past_a_tenth_is_no_rise(tmp_path, train, val):
    rep, _ = diagnose_log_report(tmp_path, _epochs(train, val))
    assert report_fact(rep, "val_loss_trend") != "increasing"
