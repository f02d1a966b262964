"""Facts missed or read wrong on the complaint tune half (session 15, issue 10), fixed by mechanism: a
pronoun that stands for the metric named before it, one value written twice with a slash, a decimal glued
to a metric's name, "can reach" said of the run's own split, a workaround's setting, one class of
objects, a shape error by its dimensions. The phrasings are written for the tests; each asserts the echo a
user sees before any question."""

import pytest
from conftest import echo_with

from traindx.engine.api import Session, load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb([])


def _echo(kb, text: str) -> str:
    return echo_with(kb, text)


@pytest.mark.parametrize("text, shown", [
    # a pronoun subject with a verb of where a value sits stands for the metric named before it
    ("my loss has not moved at all since epoch 4. It is around 5.2 and not going down", "train_loss 5.2"),
    ("the training loss plateaus after a while, even at epoch 30 its about 1.87 still", "train_loss 1.87"),
    # one value written twice with a slash is no count out of a total
    ("the loss stays around 0.93/0.94 after 2000 iterations", "train_loss 0.93"),
    ("train/val loss 0.41/0.58 after 12 epochs, the gap keeps growing", "val_loss 0.58"),
    # a decimal glued to the metric's name, and a "loss value" label
    ("训练了20万步，loss0.35，一直降不下去", "train_loss 0.35"),
    ("lossvalue=3.7 不再下降", "train_loss 3.7"),
    # "can reach" said of the run's own split and metric is the run's value (Chinese 能达到)
    ("the accuracy on the training set can reach 97%, but the validation set can only reach 61%",
     "val_accuracy 0.61"),
    ("the accuracy on the training set can reach 97%, but the validation set can only reach 61%",
     "train_accuracy 0.97"),
    # a metric joined to the split named after it labels the number after that split
    ("the accuracy of the validation set was quite poor, about 42%, while training went fine", "val_accuracy 0.42"),
    ("the loss on the training data stays, roughly, at 0.74 for ages", "train_loss 0.74"),
    # a loss computed by hand from tensors, or a weighted mix of terms, is a custom loss
    ("the loss is not decreasing, my_loss = sum(((feat_a - feat_b) ** 2)) then backward", "custom_loss yes"),
    ("用0.7*Loss + 0.3*kl训练，loss变成负数", "custom_loss yes"),
    # one class of objects
    ("training a detector for a single class, total loss stuck at 0.2", "num_classes 1"),
    ("I have only one class and the loss does not decrease", "num_classes 1"),
    ("loss goes down but 4 classifications get the same accuracy", "num_classes 4"),
])
def test_the_echo_reads_the_stated_value(kb, text, shown):
    assert shown in _echo(kb, text)


@pytest.mark.parametrize("text, not_shown", [
    # a pronoun with a verb of change, in a condition, or a relative "which" stands for no metric
    ("the loss is stuck. the learning rate is 0.01 and I changed it to 0.001, no difference", "loss 0.001"),
    ("my custom loss explodes. If it is above 3 I clip the gradients", "loss 3"),
    ("the loss keeps decreasing slowly. should I lower my learning rate, which is 3e-5?", "loss 3e-05"),
    ("val loss kept going up and down. It ranged from 0.21 to 0.47", "val_loss 0.47"),
    # "can reach" with the label after the number is someone else's value
    ("I tried the authors' code, it can reach above 90% training accuracy, mine is stuck", "train_accuracy 0.9"),
    # a coefficient ("0.3*kl") weighs a term, it is no loss value
    ("用0.7*Loss + 0.3*kl训练，loss变成负数", "train_loss 0.3"),
    # a model that predicts one class has no count of classes
    ("the model always predicts one class for every input", "num_classes 1"),
    # a workaround's setting is not the run's: the one stated for the failing run is
    ("loss is nan with my learning rate of 0.002. The only way to get it to work is to reduce the learning rate "
     "to 1e-6, but then it won't learn", "learning_rate 1e-06"),
])
def test_the_echo_does_not_read(kb, text, not_shown):
    assert not_shown not in _echo(kb, text)


def test_a_workaround_keeps_the_runs_learning_rate(kb):
    echo = _echo(kb, "loss is nan with my learning rate of 0.002. The only way to get it to work is to reduce "
                     "the learning rate to 1e-6, but then it won't learn")
    assert "learning_rate 0.002" in echo


def test_a_shape_error_by_its_dimensions(kb):
    s = Session(kb)
    s.add_complaint("I get an error when training on my data: RuntimeError: mat1 dim 1 must match mat2 dim 0")
    assert s.value("error_kind") == "shape_error"


@pytest.mark.parametrize("log, lr", [
    # a decaying schedule: the first (largest) value printed is the one set, not the last one reached
    ("{'loss': 2.91, 'learning_rate': 0.0006, 'epoch': 0.1}\n{'loss': 2.88, 'learning_rate': 0.000585, 'epoch': 0.2}",
     0.0006),
    # a warm-up climbs to the one set
    ("step 10 loss 6.1 lr: 1.0e-06\nstep 20 loss 5.9 lr: 3.0e-05\nstep 30 loss 5.8 lr: 3.0e-05", 3e-05),
    # a number before a learning rate's name that labels the next value is not the learning rate
    ("iter 300   time/iter: 0.45  lr: 0.000200 loss: 1.2\niter 400   time/iter: 0.46  lr: 0.000200 loss: 1.1",
     0.0002),
])
def test_a_pasted_logs_learning_rate_is_the_one_set(kb, log, lr):
    from traindx.engine.understand import read_settings
    got = {r.fact: r.value for r in read_settings(log, kb.language)}
    assert got.get("learning_rate") == pytest.approx(lr)
