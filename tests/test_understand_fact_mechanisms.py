"""Facts read wrong on the complaint tune half (session 11, issue 10), fixed by mechanism: a decimal
comma, a change of optimizer stated with its old value, a split stated beside its total, a sweep of one
setting beside the value the run used, a machine-translated Chinese "binary classification". The
phrasings are written for the tests; each asserts the echo a user sees before any question."""

import pytest
from conftest import echo_with

from traindx.engine.api import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb([])


def _echo(kb, text: str) -> str:
    return echo_with(kb, text)


@pytest.mark.parametrize("text, shown, not_shown", [
    # a decimal comma after a leading zero is a decimal point (it was read as 0, or as 1 for "0,001")
    ("learning rate of 0,01 with adam and the loss turns into nan after a few steps", "learning_rate 0.01",
     "learning_rate 0 "),
    ("lr 0,001, batch size 1,000, the loss is stuck", "learning_rate 0.001", "learning_rate 1 "),
    # a change names the new optimizer, whatever the old one is written as
    ("all losses became nan after I changed the optimizer from default (SGD) to AdamW", "optimizer adamw",
     "optimizer sgd"),
    # the training part of a split stated with its total is the training set's size
    ("accuracy stuck at 20%, roughly 9000 pictures (8000 for training and 1000 for validation)",
     "train_size 8000", "train_size 9000"),
    # a sweep of one setting is not the run's value: the one the user says they used is
    ("val loss stops improving. my run uses --lr 3e-4. I also tried --lr 1e-3, --lr 1e-5 or --lr 1e-2",
     "learning_rate 0.0003", "learning_rate 0.01"),
    # 二进制分类 (machine-translated "binary classification") is a binary task
    ("我在做二进制分类，验证损失一直上升", "task_type binary", "task_type classification"),
])
def test_the_echo_reads_the_runs_own_value(kb, text, shown, not_shown):
    echo = _echo(kb, text) + " "
    assert echo.startswith("I read:")
    assert shown in echo and not_shown not in echo


def test_a_single_value_tried_is_still_the_runs(kb):
    echo = _echo(kb, "I tried lr 0.001 and batch size 32 and the loss goes to nan")
    assert "learning_rate 0.001" in echo and "batch_size 32" in echo
