"""A metric's level told after it was named, and a single class told as what the data is (issue 10, session 40).

A relative "which" with a verb only a metric's level takes ("the loss has been very large since the first day, which
is maintained at about 3000") and a participle of such a verb opening its clause ("the loss will not fall, hovering
around 1.2") stand for the metric named before them, as "It is around 8.1" already did; "which is" alone still stands
for the noun right before it (a setting: "my learning rate, which is 5e-5"). A single class is read as the count of
classes where it is what the data is of or what a run is trained on ("a dataset that consists of a single class", "I
fine-tune it on one class", "my data, single class"), never where it is what a model predicts. The sentences are
written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text,value", [
    ("The total loss has been very large since the first day, which is maintained at about 3000 now.", 3000),
    ("As for the training loss I get, it looks quite odd to me, which fluctuates around 0.69 all the time.", 0.69),
    ("the loss has stayed big for a week, which remains at roughly 450", 450),
    ("The loss will not go down any further, hovering around 1.2 since epoch 5.", 1.2),
    ("the loss dropped fast and then reached a plateau, stabilising at roughly 0.05", 0.05),
    ("My loss does not seem to improve, oscillating around -2.5 the whole time.", -2.5),
])
def test_a_level_told_after_its_metric_is_that_metrics(lang, text, value):
    assert _facts(text, lang).get("train_loss") == pytest.approx(value)


@pytest.mark.parametrize("text", [
    "the mAP stays low for a custom dataset that consists of a single class",
    "I fine-tune the detector on one class (cars) and the loss is stuck",
    "I train the yolo model on my data, single class, and the mAP stays at zero",
])
def test_a_single_class_dataset_states_one_class(lang, text):
    assert _facts(text, lang).get("num_classes") == 1


@pytest.mark.parametrize("text", [
    "my learning rate, which is 5e-5, and the loss is flat",          # "which is" names the setting before it
    "I set the lr to 0.1, staying at 0.1 for ten epochs",             # a setting's value, no loss named
])
def test_which_is_and_a_setting_do_not_give_a_loss(lang, text):
    assert "train_loss" not in _facts(text, lang)


@pytest.mark.parametrize("text", [
    "the classifier always predicts one class after the first epoch",
    "it settles on one class for every input",
])
def test_a_predicted_class_is_no_count_of_classes(lang, text):
    assert _facts(text, lang).get("num_classes") != 1
