"""Facts stated in general forms (issue 10, session 33): two splits' values written as a pair after one
shared label (percentages joined by a slash, values joined by "and"), a metric named bare and then with a
split prefix before a pair of values, and a top-k accuracy, which is not the accuracy. The sentences are
written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, metric, first, second", [
    ("my train/val acc is 97%/61% after twenty epochs", "accuracy", 0.97, 0.61),
    ("train/test accuracy: 88% / 52%, looks like overfitting", "accuracy", 0.88, 0.52),
    ("the training and validation loss are 0.12 and 0.85 now", "loss", 0.12, 0.85),
    ("train and val accuracy reach 93% and 58%", "accuracy", 0.93, 0.58),
])
def test_two_splits_values_after_one_label_pair_up(lang, text, metric, first, second):
    facts = _facts(text, lang)
    assert facts[f"train_{metric}"] == pytest.approx(first)
    assert facts[f"val_{metric}"] == pytest.approx(second)


@pytest.mark.parametrize("text, first, second", [
    ("loss/val_loss went to 3.1/4.7 and then both jumped", 3.1, 4.7),
    ("at the end the loss and val_loss were 0.40 and 1.30", 0.40, 1.30),
])
def test_a_bare_metric_beside_its_validation_twin_pairs_with_the_values(lang, text, first, second):
    facts = _facts(text, lang)
    assert facts["train_loss"] == pytest.approx(first)
    assert facts["val_loss"] == pytest.approx(second)


def test_a_range_of_one_quantity_is_still_no_pair(lang):
    facts = _facts("the validation loss moves between 0.3 and 0.6 all the time", lang)
    assert "val_loss" not in facts and "train_loss" not in facts


@pytest.mark.parametrize("text, value", [
    ("on the val set top5 accuracy: 0.93 and top1 accuracy: 0.61", 0.61),
    ("val top-5 acc is 90% but val top-1 acc is only 40%", 0.40),
])
def test_a_top_k_accuracy_is_not_the_accuracy(lang, text, value):
    assert _facts(text, lang)["val_accuracy"] == pytest.approx(value)


def test_a_top_k_accuracy_alone_states_no_accuracy(lang):
    assert "val_accuracy" not in _facts("my validation top-5 accuracy stays at 0.93", lang)



def test_an_accuracy_at_a_percentage_keeps_its_label_for_the_next_split(lang):
    facts = _facts("training accuracy @ 99.9%, validation never goes above 91%", lang)
    assert facts["val_accuracy"] == pytest.approx(0.91)
