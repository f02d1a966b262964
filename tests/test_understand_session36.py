"""Who a number belongs to after a comparison, and healthy runs told by what the asker sees (issue 10, session 36).

A number told in a clause of its own after a comparison ("the validation loss is far lower than the training loss,
only 0.08", "验证集loss相较于训练集过低，仅有0.08") is the comparison's subject's, not the split compared against; a
relative clause ("..., which is 60%") still tells of the noun right before it. The sentences are written for these
tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, fact, value", [
    ("my validation loss is way lower than the training loss, only about 0.08", "val_loss", 0.08),
    ("the val loss is much lower compared to the training loss, it is just 0.3", "val_loss", 0.3),
    ("验证集的loss相比训练集低很多，只有0.05左右", "val_loss", 0.05),
    ("测试集准确率比训练集高，达到了93%", "val_accuracy", 0.93),
])
def test_a_number_after_a_comparison_is_the_subjects(lang, text, fact, value):
    facts = _facts(text, lang)
    assert facts.get(fact) == pytest.approx(value)
    assert "train_loss" not in facts and "train_accuracy" not in facts


@pytest.mark.parametrize("text, expected", [
    ("my val loss is way lower than the training loss, only about 0.08, and the train accuracy is much higher "
     "than the val accuracy, which is 60%", {"val_loss": 0.08, "val_accuracy": 0.6}),
    ("val loss is lower than the train loss of 0.5. the test accuracy is higher than train, at 91%",
     {"train_loss": 0.5, "val_accuracy": 0.91}),
    ("训练集和测试集的loss很接近，都在0.4左右。验证集loss相较于训练集过低，仅有0.08",
     {"train_loss": 0.4, "val_loss": 0.08}),
])
def test_a_relative_clause_or_a_label_keeps_the_comparands_number(lang, text, expected):
    facts = _facts(text, lang)
    for fact, value in expected.items():
        assert facts.get(fact) == pytest.approx(value), fact


@pytest.mark.parametrize("text, value", [
    ("my output classes are 3000 and the accuracy stays at 0", 3000),
    ("in my 4 classification task the training loss does not go down", 4),
    ("我在做二元分类，loss一直是0.69不下降", 2),
    ("I fine-tuned on 12 specific categories of objects and the val loss goes up", 12),
])
def test_a_count_of_classes_in_more_words_is_read(lang, text, value):
    assert _facts(text, lang).get("num_classes") == value


def test_the_classes_listed_by_name_are_no_count(lang):
    text = "the classes are 0 and 1, it is a 2 classification task, and my accuracy is stuck at 50%"
    assert _facts(text, lang).get("num_classes") == 2


@pytest.mark.parametrize("moved, stalled", [
    ("the loss went from 5.1 to 0.9 after 30 epochs, should I train for longer?",
     "the loss does not change after 40 epochs"),
    ("my D loss goes down to 1.39 after about 1k iters, what did yours do?",
     "the loss stopped decreasing after about 20 epochs and sits at 0.8"),
    ("训练了20轮之后loss从3降到了0.5", "训练到第10轮之后loss不再下降"),
])
def test_a_point_in_time_names_no_plateau_alone_only_beside_a_stall(lang, moved, stalled):
    """"after 30 epochs" says when: beside a stall it tells a plateau, alone it names nothing."""
    assert understand(moved, lang).scores.get("plateau", 0.0) == 0.0
    assert understand(stalled, lang).symptom == "plateau"
