"""What the stated numbers say outweighs the words (issue 10, session 16): a generalisation gap read
from a stated training and validation accuracy (or loss) is overfitting whatever the words call it; a
loss that fell by a good share of its stated start has learned (plateau, not not-learning); and the
shapes of overfitting people use without the word (the held-out metric peaked at an epoch and fell
after it, the validation loss jumped up or turned). The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "my train accuracy reaches 97% but the val accuracy is stuck at 60% for the last 20 epochs",
    "training accuracy 0.99, validation accuracy 0.55, the val accuracy stagnates",
    "training loss 0.05, validation loss 1.9, is this normal?",
])
def test_a_stated_generalisation_gap_is_overfitting_whatever_the_words_say(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting"
    assert u.how == "phrases"                       # the numbers decided, not the example classifier


def test_a_gap_below_a_low_training_accuracy_is_no_overfitting_evidence(lang):
    # 0.6 vs 0.3: a run that has not learned much yet, not one that memorised its training set
    u = understand("train accuracy 0.6 and val accuracy 0.3, the loss is stuck", lang)
    assert u.scores.get("overfitting", 0) == 0


def test_a_small_gap_is_no_overfitting(lang):
    assert understand("train accuracy 0.91, val accuracy 0.88, stuck there", lang).symptom != "overfitting"


def test_a_loss_that_fell_by_a_good_share_then_stuck_is_a_plateau(lang):
    u = understand("the loss went from 15 to 9 and does not go down", lang)
    assert u.symptom == "plateau"


def test_a_loss_that_barely_fell_is_still_not_learning(lang):
    assert understand("the loss went from 2.31 to 2.29 and does not decrease", lang).symptom == "not_learning"


@pytest.mark.parametrize("text", [
    "the validation F1 reached its highest value at epoch 5 and declined after that",
    "the mAP was at its maximum after 3 epochs and then dropped while the loss kept going down",
    "the eval loss jumped up at the start of the second epoch while the train loss dropped",
    "the val loss decreased and then increased, what can I do",
    "验证集的eval_loss到最后不降反升",
])
def test_overfitting_said_by_its_shape(lang, text):
    assert understand(text, lang).symptom == "overfitting"

