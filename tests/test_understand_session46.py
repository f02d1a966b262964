"""More facts read right from a complaint (issue 10, session 46, helper words46).

- A name that carries a year ("Pascal VOC 2007", "COCO2017", "VisDA2017数据集") is a data set's edition: no loss,
  size or count is read from its digits; a setting's own number next to such a year still is.
- A reproduction ("I re-train your code and get 46.40% accuracy ... your 48.7% in paper"): a bare accuracy is the
  held-out score a paper reports, so it is the validation accuracy; a split word still decides where one is written.
- "the accuracy you mentioned of 95%" is the maintainer's value, not the run's.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text, fact", [
    ("the orange one is the train loss and the blue one is the val loss (on VOC 2007 test set), does this seem normal?",
     "val_loss"),
    ("I trained on the COCO2017 dataset and the loss looks weird, is it normal?", "train_loss"),
    ("我在VisDA2017数据集上复现时发现准确率在5个epoch左右就达到峰值", "train_size"),
    ("I used the iwlst2015 data for translation, the BLEU stays at 0", "train_size"),
])
def test_a_year_in_a_data_sets_name_is_no_value(lang, text, fact):
    facts = stated_facts(understand(text, lang))
    assert not any(str(v).endswith(("2007", "2017", "2015")) for v in facts.values()), facts
    assert fact not in facts


@pytest.mark.parametrize("text, fact, value", [
    ("I train on VOC2007 with batch size 16 and the loss is stuck at 2.3", "batch_size", 16),
    ("training with bs 2048 for 10 epochs, the loss stays at 2.3", "batch_size", 2048),
    ("the loss is 0.35 after 2000 epochs", "epochs", 2000),
])
def test_a_settings_own_number_beside_a_name_is_still_read(lang, text, fact, value):
    assert stated_facts(understand(text, lang)).get(fact) == value


@pytest.mark.parametrize("text, value", [
    ("I re-train your source code without any modification and get 46.40% accuracy. Although it's very close to "
     "your 48.7% in paper, I would be glad to hear some advice.", 0.464),
    ("I ran the script many times and the graph classification accuracy only reach 81.2% (the corresponding result "
     "reported in the paper is 82.43%).", 0.812),
    ("The accuracy rate trained by myself is 46.36%, which is 1.74% worse than the data in the paper.", 0.4636),
])
def test_a_bare_accuracy_in_a_reproduction_is_the_held_out_one(lang, text, value):
    facts = stated_facts(understand(text, lang))
    assert facts.get("val_accuracy") == pytest.approx(value)
    assert "train_accuracy" not in facts


def test_a_split_word_still_decides_in_a_reproduction(lang):
    facts = stated_facts(understand(
        "I tried to reproduce the paper: the train accuracy is 98% but the val accuracy only 70%.", lang))
    assert facts.get("train_accuracy") == pytest.approx(0.98)
    assert facts.get("val_accuracy") == pytest.approx(0.7)


def test_a_bare_accuracy_outside_a_reproduction_stays_the_training_one(lang):
    facts = stated_facts(understand("my accuracy is stuck at 45% after 10 epochs", lang))
    assert facts.get("train_accuracy") == pytest.approx(0.45)


def test_the_accuracy_the_maintainer_mentioned_is_not_the_runs(lang):
    facts = stated_facts(understand(
        "I'm trying to reproduce the network with 15 epochs but I don't get the accuracy you mentioned of 95%.", lang))
    assert 0.95 not in facts.values()


def _pasted(text):
    from traindx.engine.frontends import gather
    return {f.fact: f.value for f in gather.read_pasted(text).findings}


def test_a_nan_report_that_names_its_iteration_gives_the_nan_step():
    facts = _pasted("It seems that the box loss became NaN at some point.\n"
                    "FloatingPointError: Loss became infinite or NaN at iteration=756!\n"
                    "loss_dict = {'loss_cls': tensor(nan, device='cuda:0'), 'loss_box_reg': tensor(nan, "
                    "device='cuda:0'), 'loss_rpn_loc': tensor(inf, device='cuda:0')}\n")
    assert facts.get("nan_first_step") == 756


def test_records_with_steps_of_their_own_keep_their_nan_step():
    facts = _pasted("step 10 loss 2.31\nstep 20 loss 2.12\nstep 30 loss nan\nNaN loss at step 30, stopping\n")
    assert facts.get("nan_first_step") == 30


def test_a_value_a_pronoun_quotes_from_the_paper_is_not_the_runs(lang):
    facts = stated_facts(understand(
        "I am trying to reproduce the accuracy as mentioned in the paper. It says an accuracy of 86.5 % but even "
        "after running the model for 2000 epochs the test accuracy is around 43%.", lang))
    assert 0.865 not in facts.values()
