"""Complaints read right (issue 10, session 52, helper words52).

- A NaN from the very start of the run, told with no step number ("the loss is nan from the beginning", "nan right
  from the start", "the loss immediately becomes nan", "nan during the first epoch", "一开始就出现NAN", "初始迭代，loss
  就为-nan"), is a NaN at step 0; a start of a later epoch is not, and neither is "at first the loss was not NaN".
- An accuracy told as a chain of arrows ("train_acc rises 0.6->0.8->0.9") is where it went, the last value, as a loss's
  chain already was.
- A count on one line is no count of what the next line names ("n_cpu =0\\nimage size = 256": no training set of 0).
- A value wondered about with the question turned round ("is it optimal or should it be very low like 0.007") is no
  value of the run's loss.
- A flag that training is off ("val loss (train=False): -0.06") labels the evaluation's value, no training loss.
- Accuracies in the plural and as commonly misspelled ("train accuracies are reaching 1", "acuracy") are the accuracy;
  a DPO log's "rewards/accuracies" is not.
- A paper's value told without its article ("in paper the accurary is 88.19") is the paper's, not the run's.
- A validation error metric below the training one ("validation MAE is smaller than training MAE",
  "validationMAE的值是小于trainingMAE的") is the healthy validation-better-than-training pattern, as of a loss.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "The loss is NaN from the beginning of training, whatever learning rate I use",
    "my loss becomes nan right from the start",
    "as soon as I launch the script the loss immediately becomes nan",
    "loss is nan during the first epoch",
    "训练CRNN时，LOSS一开始就出现NAN",
    "我训练时初始迭代，loss就为-nan是什么情况呢",
])
def test_a_nan_from_the_very_start_is_at_step_zero(lang, text):
    u = understand(text, lang)
    assert u.symptom == "explosion"
    assert stated_facts(u).get("nan_first_step") == 0


@pytest.mark.parametrize("text", [
    "the loss is fine for 4 epochs and is nan at the start of epoch 5",
    "刚开始的loss值并不是nan，训练到120个epoch时，loss值变成nan值",
])
def test_a_later_start_or_a_denied_nan_is_no_step_zero(lang, text):
    assert stated_facts(understand(text, lang)).get("nan_first_step") != 0


@pytest.mark.parametrize("text, value", [
    ("the train_acc will raise normal like 0.6->0.8->0.9, but val_acc not increase", 0.9),
    ("train acc goes 60% -> 75% -> 90% while val acc stays at 50%", 0.9),
])
def test_an_accuracy_told_by_arrows_is_its_last_value(lang, text, value):
    assert stated_facts(understand(text, lang))["train_accuracy"] == pytest.approx(value)


def test_a_number_ending_a_line_counts_nothing_on_the_next(lang):
    text = "it takes 5 days for 100 epochs.\nbatch size = 5\nn_cpu =0\nimage size = 256 * 256"
    assert "train_size" not in stated_facts(understand(text, lang))


def test_a_loss_wondered_about_in_a_question_is_not_the_runs(lang):
    text = ("The minimum chamfer distance loss value of all epochs is 387.50 (batch_size = 30). Is it optimal value "
            "for loss or should it be very low like 0.007 (just example)?")
    facts = stated_facts(understand(text, lang))
    assert facts.get("train_loss") == pytest.approx(387.5)
    assert facts.get("initial_loss") is None


@pytest.mark.parametrize("text", [
    "for a long time the validation MAE is smaller than training MAE, is the model fine?",
    "test RMSE is lower than training RMSE during the whole run",
    "在训练的过程中很长一段时间内validationMAE的值是小于trainingMAE的，这正常吗",
])
def test_a_validation_error_below_the_training_one_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert stated_facts(u).get("val_better_than_train") is True


def test_a_value_flagged_train_false_is_the_validation_loss(lang):
    text = "As you see the train loss is -0.96 but val loss (train=False): -0.0622 after 519 epochs"
    facts = stated_facts(understand(text, lang))
    assert facts.get("val_loss") == pytest.approx(-0.0622)
    assert facts.get("train_loss") == pytest.approx(-0.96)


@pytest.mark.parametrize("text, train, val", [
    ("my train accuracies are reaching 1 but validation is always 0.5 please help", 1.0, 0.5),
    ("train accuracies are 99% and val accuracies 50%", 0.99, 0.5),
    ("the train acuracy is 97% but the val acuracy is only 60%", 0.97, 0.6),
])
def test_accuracies_in_the_plural_or_misspelled_are_the_accuracy(lang, text, train, val):
    facts = stated_facts(understand(text, lang))
    assert facts.get("train_accuracy") == pytest.approx(train)
    assert facts.get("val_accuracy") == pytest.approx(val)


def test_a_dpo_logs_reward_accuracies_are_no_accuracy(lang):
    facts = stated_facts(understand("'rewards/accuracies': 1.0, 'rewards/margins': 4.07, 'epoch': 0.3", lang))
    assert "train_accuracy" not in facts and "val_accuracy" not in facts


def test_a_papers_accuracy_without_its_article_is_not_the_runs(lang):
    text = "I run conformer.py for 2000 epochs. In paper the accuracy is 88.19, but mine is far lower"
    facts = stated_facts(understand(text, lang))
    assert facts.get("val_accuracy") != pytest.approx(0.8819)
    assert facts.get("train_accuracy") != pytest.approx(0.8819)
