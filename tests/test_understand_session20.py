"""Stated numbers at chance name Not Learning whatever the class count and whatever reassurance the words ask
for (session 20, issue 10): an accuracy at zero is at chance or below it for any task; an AUC at 0.5 ranks like a
coin; "is this normal?" over such numbers is no healthy run. The guards keep what is not at chance: a loss at ln C
said of the start, an AUC that rose from 0.5, training and validation accuracies that are high and close. The
sentences are written for these tests, in the shape of forum posts and issue threads."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    # "is this normal?" over an accuracy at zero: the numbers say the model learned nothing
    "I've trained for two days and the log keeps printing train_accuracy = 0.0 while the loss moves a little. "
    "Is that normal?",
    "OCR fine-tuning: the loss goes down slowly but word acc is 0.000 on every eval. is it expected at this stage?",
    # an AUC at 0.5, written the ways logs and posts write it
    "my recommender gets auc=0.5 on the test set no matter what I change",
    "The roc_auc is 0.497 and the loss hovers, batch size 256",
    "CTR model: after 5 epochs the val AUC: 0.5012, train AUC 0.503. what could be wrong?",
])
def test_numbers_at_chance_name_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_the_classifier_does_not_overrule_chance_numbers_under_a_reassuring_question(lang):
    u = understand("Is it normal that train_accuracy is 0.0016 after 300k steps? loss went from 6.1 to 5.7", lang)
    assert u.symptom == "not_learning"
    assert u.how == "phrases"


@pytest.mark.parametrize("text, symptom", [
    # a rise from 0.5 is learning; the climbing validation loss decides
    ("AUC improved from 0.5 to 0.83 but the val loss keeps rising after epoch 12", "overfitting"),
    # a loss at ln C said of the start is what a healthy initialisation gives
    ("my loss starts at 2.3 on a 10-class problem, is that normal?", "healthy"),
    # high, close accuracies: the worry is answered by the numbers
    ("train accuracy 0.98 and val accuracy 0.97, is this normal?", "healthy"),
])
def test_numbers_past_chance_keep_their_reading(lang, text, symptom):
    assert understand(text, lang).symptom == symptom


def test_an_auc_of_point_five_something_is_no_chance_level(lang):
    u = understand("val auc is 0.56 and slowly climbing, train loss 0.41", lang)
    assert u.symptom != "not_learning"
