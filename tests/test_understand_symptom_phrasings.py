"""Symptom phrasings added in session 11 (issue 10), each a class of wording that the tune half's
leave-one-collection-out run misread. The sentences are written for the tests, not copied from the
corpus; each asserts the echo line a user sees before any question (``I read:  <symptom> (from ...)``)."""

import pytest

from traindx.engine.api import Session, load_kb
from traindx.engine.frontends.cli import understood_lines


@pytest.fixture(scope="module")
def kb():
    return load_kb([])


def _first_line(kb, text: str) -> str:
    s = Session(kb)
    s.add_complaint(text)
    lines = understood_lines(s)
    return lines[0] if lines else ""


@pytest.mark.parametrize("text, symptom", [
    # not learning: the metric never moved, or one output for every input (these read as plateau)
    ("my loss is stuck at the same value from epoch one, lr 1e-3", "not_learning"),
    ("the detector ends up predicting everything to be background after training", "not_learning"),
    ("the output of my autoencoder becomes constant whatever image I feed it", "not_learning"),
    ("训练了很久，loss一直没有明显下降", "not_learning"),
    # plateau: it fell first (Chinese twins of 'went down to X and then stopped', 'after N iterations')
    ("loss下降到1.2就不变化了，是训练完了吗", "plateau"),
    ("迭代五千次之后loss就一直在0.8左右", "plateau"),
    ("the model reaches 0.4 loss and then refuses to go any lower", "plateau"),
    # overfitting: the validation side peaks then falls, or does not move while training improves
    ("validation acc climbs to 80% (close to the paper), then slowly decreases to 74% by epoch 60", "overfitting"),
    ("after epoch 10 just the training loss decreases, the validation loss wanders", "overfitting"),
    ("train accuracy rises fast but validation accuracy does not change at all", "overfitting"),
    ("my val box_loss begins incresing after 3 epochs while the train losses fall", "overfitting"),
    ("训练集和验证集的准确率相差很大", "overfitting"),
    # slow training, in Chinese
    ("训练时GPU利用率只有个位数，训练非常慢", "slow_training"),
    # healthy: a noisy per-step loss whose smoothed curve is fine
    ("the per-step loss is very noisy, but after smoothing with an EMA the curve is going down nicely", "healthy"),
    ("the raw loss jumps around from step to step; after averaging over 100 steps the curve looks fine", "healthy"),
    ("the accuracy of validation is higher than that of training, how should I read this", "healthy"),
    # out of scope: a design question
    ("What is the best network for a tiny tabular dataset?", "out_of_scope"),
    ("how should I structure the layers of my LSTM for forecasting?", "out_of_scope"),
])
def test_the_echo_names_the_symptom_from_the_words(kb, text, symptom):
    line = _first_line(kb, text)
    if symptom == "out_of_scope":
        s = Session(kb)
        s.add_complaint(text)
        assert s.deferral() is not None          # the report defers, it names no training symptom
        return
    assert line.startswith(f"I read:  {symptom} (from ")


@pytest.mark.parametrize("text, not_symptom", [
    # a goal is no design question; the right answer for all inputs is no constant output
    ("I want a better lr schedule, the val loss stops improving after 20 epochs", "out_of_scope"),
    ("the model gives the right answer for all inputs of the training set but the val loss goes up after epoch 5",
     "not_learning"),
])
def test_the_new_phrasings_keep_their_limits(kb, text, not_symptom):
    s = Session(kb)
    s.add_complaint(text)
    got = "out_of_scope" if s.deferral() is not None else s.symptom()
    assert got != not_symptom
