"""Settings and sizes people state in forms the reader missed or misread (session 16, issue 10): a tuple
assignment pairs names and values by position; "the suggested data" is no question; a value in a clause of
what it caused is an earlier run's; a count of epochs written as a word, "the number of epochs", "epoch no. 28"
as a position; a split named with its count and what it counts. The sentences are written for the tests; each
asserts the echo a user sees before any question."""

import pytest
from conftest import echo_with

from traindx.engine.api import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb([])


@pytest.mark.parametrize("text, shown", [
    # a tuple assignment: each name takes the value in its position
    ("my script starts with\nn_epochs, lr, dropout, batch_size = 40, 0.003, 0.2, 16\nand the loss never moves",
     "learning_rate 0.003"),
    ("my script starts with\nn_epochs, lr, dropout, batch_size = 40, 0.003, 0.2, 16\nand the loss never moves",
     "batch_size 16"),
    ("my script starts with\nn_epochs, lr, dropout, batch_size = 40, 0.003, 0.2, 16\nand the loss never moves",
     "epochs 40"),
    # "suggested"/"recommended" said of what was used is no question about another setting
    ("I ran the repo with the suggested data and the recommended settings, lr = 2e-4, batch_size = 12, "
     "and the val loss goes up", "batch_size 12"),
    # the run's value beside an earlier one given as a cause
    ("trained 12 epochs with learning rate = 0.0002 (because lr = 0.002 gave NaN right away), loss stays at 4",
     "learning_rate 0.0002"),
    # epochs: a count written as a word, said of the run; the number of epochs
    ("we are doing two epochs fine-tuning and the eval loss rises", "epochs 2"),
    ("I trained the model for only three epochs, the validation loss is already higher than train",
     "epochs 3"),
    ("I set the number of epochs to 120 and the accuracy still drops", "epochs 120"),
    ("no. of layers = 4, no. of epochs = 75, hidden = 256; the loss is stuck", "epochs 75"),
    # a split named with its count and what it counts
    ("train set 2400 pictures, valid set 600 pictures, val acc 52% while train acc hits 99%", "val_size 600"),
    ("train set 2400 pictures, valid set 600 pictures, val acc 52% while train acc hits 99%", "train_size 2400"),
    ("I fine-tune on a training dataset (5000 images) and a test dataset (700 images), the test loss grows",
     "val_size 700"),
    ("the training data set has 2 million items, the validation set has 20000 items", "train_size 2000000"),
    ("I train with 8k documents and additional 2k documents for evaluation", "val_size 2000"),
    # a mini-batch size written as one camel-cased word
    ("miniBatchSize=48, the loss oscillates a lot", "batch_size 48"),
])
def test_the_echo_reads_the_stated_value(kb, text, shown):
    assert shown in echo_with(kb, text)


@pytest.mark.parametrize("text, not_shown", [
    # the earlier value in a clause of what it caused is not the run's
    ("trained 12 epochs with learning rate = 0.0002 (because lr = 0.002 gave NaN right away), loss stays at 4",
     "learning_rate 0.002 "),
    # in a tuple assignment, the last name before "=" does not take the first value
    ("n_epochs, lr, batch_size = 40, 0.003, 16 and the loss never moves", "batch_size 40"),
    # a shape's tuple is no assignment of settings
    ("h, w = 224, 224 and batch_size = 8, the loss is flat", "batch_size 224"),
    # one epoch as the unit of a time is no count of the run's epochs
    ("it takes about 7 hours to train one epoch on my GPU", "epochs"),
    ("I found it takes me about 3 hours for one epoch.", "epochs"),
    ("One epoch of training takes 40 minutes, is that normal?", "epochs"),
    # "epoch no. 12" is a position, not the value of the metric after it
    ("from epoch no. 12 the validation loss is going up", "val_loss 12"),
    # a split named with its count is no value of a metric
    ("train set 2400 pictures, valid set 600 pictures, the val loss climbs", "train_loss 2400"),
    ("train set 2400 pictures, valid set 600 pictures, the val loss climbs", "val_loss 600"),
    # the count of the test set's classes is no size
    ("the test set has 10 classes and the val acc is 12%", "val_size"),
])
def test_the_echo_does_not_read(kb, text, not_shown):
    assert not_shown not in echo_with(kb, text) + " "


@pytest.mark.parametrize("text, shown, not_shown", [
    # a retry told with an outcome that it did not help: the run asked about keeps its own value
    ("the loss is nan after 300 steps, batch size 24 and lr 3e-4. I then reduced the lr to 3e-6, still the same",
     "learning_rate 0.0003", "learning_rate 3e-06"),
    ("bs = 6, lr = 1e-3, grad norm goes to nan. Later I adjusted them (bs = 3, lr = 1e-5) and the error persists",
     "batch_size 6", "batch_size 3"),
    ("出现了nan，学习率 5e-4，批大小 8。随后我把学习率调整为 5e-6，问题依旧",
     "learning_rate 0.0005", "learning_rate 5e-06"),
])
def test_a_retry_that_did_not_help_keeps_the_runs_value(kb, text, shown, not_shown):
    echo = echo_with(kb, text) + " "
    assert shown in echo and not_shown + " " not in echo


def test_a_change_that_worked_is_the_runs_value(kb):
    # no futile outcome: the change names the run's value now
    echo = echo_with(kb, "lr was 0.01 and the loss exploded. I lowered the lr to 1e-4 and now the val loss rises")
    assert "learning_rate 0.0001" in echo


@pytest.mark.parametrize("text, shown", [
    # an arrow alone between two values is a change: the later one is where the metric is now
    ("my val_loss went 0.31->0.77 over ten epochs while train loss keeps falling", "val_loss 0.77"),
    ("training loss 3.1 → 1.4 → nan within 400 steps", "train_loss 1.4"),
])
def test_an_arrow_is_a_change(kb, text, shown):
    assert shown in echo_with(kb, text)


@pytest.mark.parametrize("text, not_shown", [
    # a value the run is measured against is not the run's
    ("the target accuracy is 92% but my model stops at 71%", "train_accuracy 0.92"),
    ("expected loss around 0.05, it never goes under 0.6", "train_loss 0.05"),
    # a NaN after an arrow is no level of the loss
    ("training loss 3.1 → 1.4 → nan within 400 steps", "train_loss nan"),
    # a setting denied in one clause and said in another: no reading of whether it is used
    ("Without fp16 everything trains, with fp16 the loss turns nan after 2k steps", "uses_amp"),
    ("with amp the grad norm overflows, without amp it is fine", "uses_amp"),
])
def test_contrasts_and_references_are_not_read(kb, text, not_shown):
    assert not_shown not in echo_with(kb, text)


def test_a_pasted_collate_error_is_a_dataloader_error(kb):
    # the traceback's last line is default_collate's own message: the error is the batching step's
    import sys
    sys.path.insert(0, "benchmarks")
    from run_complaints import feed

    from traindx.engine.api import Session
    s = Session(kb)
    feed(s, "I get this at the first batch, any idea?\n"
            "Traceback (most recent call last):\n"
            '  File "train.py", line 88, in <module>\n'
            "    for x, y in loader:\n"
            "RuntimeError: stack expects each tensor to be equal size, but got [3, 64, 64] at entry 0 and "
            "[3, 64, 50] at entry 5")
    assert s.value("error_kind") == "dataloader_error"
