"""What people write, read (session 32, issue 10): a quantity's later value told as a move after its first value
("the accuracy starts at 70% and goes down to 40%", "was 0.8, then it fell to 0.3") is where it is now, unless the
move is wished or foreseen ("I want it to go to 90%"); an epoch word that labels the number after it ("Iteration 900
Epoch 3/8") leaves the number before it alone; a batch size changed with an arrow ("32 --> 16") is the new one, a
ghost batch norm's "virtual_batch_size" is no batch size and a batch size said of the validation pass is neither the
training batch nor the validation set's size; epochs the poster "can't afford" were not run. Each family keeps its
near miss apart. The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text, fact, value", [
    ("my training accuracy starts at 82% and goes down to 35% after two epochs", "train_accuracy", 0.35),
    ("the val accuracy was 0.74, then it fell to 0.41 overnight", "val_accuracy", 0.41),
    ("validation accuracy was 64% and the next day it dropped to 20%", "val_accuracy", 0.2),
    ("训练准确率开始是66%，后来下降到31%", "train_accuracy", 0.31),
])
def test_a_move_after_a_value_is_where_the_quantity_is_now(lang, text, fact, value):
    facts = stated_facts(understand(text, lang))
    assert facts.get(fact) == pytest.approx(value), facts


def test_a_loss_that_fell_after_its_first_value_keeps_both(lang):
    facts = stated_facts(understand("the loss was 1.9 at first, then it dropped to 0.6", lang))
    assert facts.get("train_loss") == pytest.approx(0.6), facts
    assert facts.get("initial_loss") == pytest.approx(1.9), facts


@pytest.mark.parametrize("text, fact, value", [
    ("my train accuracy is 61% and I would like it to go to 95%", "train_accuracy", 0.61),
    ("the loss is 0.45 now, it should drop to 0.1 with this data", "train_loss", 0.45),
    ("the val accuracy is 0.52 and it will never get to 0.9 this way", "val_accuracy", 0.52),
])
def test_a_wished_or_foreseen_move_is_no_later_value(lang, text, fact, value):
    facts = stated_facts(understand(text, lang))
    assert facts.get(fact) == pytest.approx(value), facts


@pytest.mark.parametrize("text", [
    "the loss turns into NaN: Iteration 900 Epoch 3/8",
    "train images - 4100, val images - 700 Epoch - 150, stopped early",
])
def test_an_epoch_word_labelling_the_number_after_it_is_no_count_of_epochs(lang, text):
    facts = stated_facts(understand(text, lang))
    assert facts.get("epochs") not in (900, 700), facts


def test_a_count_of_epochs_is_still_read(lang):
    assert stated_facts(understand("I trained it for 45 epochs and the loss never moved", lang)).get("epochs") == 45


@pytest.mark.parametrize("text, value", [
    ("after I lowered the batch size 64 --> 8 the loss stopped going down", 8),
    ("batch_size=4096, virtual_batch_size=128, lr=0.02 and the loss jumps around a lot", 4096),
    ("I use a batch size of 48 for train and batch size of 12 for validation, val loss goes up", 48),
])
def test_the_training_batch_size_is_the_one_the_run_uses(lang, text, value):
    assert stated_facts(understand(text, lang)).get("batch_size") == value


def test_a_batch_size_for_the_validation_pass_is_no_validation_set_size(lang):
    facts = stated_facts(understand("batch size of 64 for train and batch size of 16 for val", lang))
    assert facts.get("val_size") != 16, facts


def test_a_split_of_the_data_for_validation_is_still_its_size(lang):
    facts = stated_facts(understand("I have 900 images, 750 for train and 150 for val", lang))
    assert facts.get("val_size") == 150, facts


def test_epochs_that_cannot_be_afforded_were_not_run(lang):
    facts = stated_facts(understand("the accuracy is low; I can't afford running 50000 epochs like the paper", lang))
    assert facts.get("epochs") != 50000, facts


@pytest.mark.parametrize("text, fact, value", [
    ("to fight the overfitting I edited nn.Dropout(0.2) -> nn.Dropout(0.6) and it did not help", "dropout_p", 0.6),
    ("my changes: WEIGHT_DECAY = 0->WEIGHT_DECAY = 5e-4, still the val loss rises", "weight_decay", 0.0005),
    ("dropout 0.1 -> 0.3 and the gap between train and val accuracy is the same", "dropout_p", 0.3),
    ("epochs 20 -> 80 but the loss is flat", "epochs", 80),
])
def test_a_setting_changed_with_an_arrow_is_the_value_after_it(lang, text, fact, value):
    assert stated_facts(understand(text, lang)).get(fact) == pytest.approx(value)


def test_a_setting_without_an_arrow_keeps_its_value(lang):
    facts = stated_facts(understand("nn.Dropout(0.2) and weight decay 5e-4, but the val loss rises", lang))
    assert facts.get("dropout_p") == pytest.approx(0.2) and facts.get("weight_decay") == pytest.approx(0.0005), facts


@pytest.mark.parametrize("text", [
    "I use an early stopping callback with a patience of 15 epochs and the val loss is flat",
    "the log says 'no improvement in 4 epochs, stopping' and the accuracy is stuck at 0.6",
])
def test_an_early_stops_patience_is_no_count_of_epochs(lang, text):
    facts = stated_facts(understand(text, lang))
    assert facts.get("epochs") not in (15, 4), facts


def test_where_a_run_stopped_is_how_many_epochs_it_ran(lang):
    facts = stated_facts(understand("with a patience of 5 epochs early stopping ended the run at epoch 42", lang))
    assert facts.get("epochs") == 42, facts


def test_a_chinese_test_sets_value_beside_the_validation_ones_is_not_the_validation_value(lang):
    facts = stated_facts(understand("测试集的准确率（达到88%）与验证集的准确率（61%）相差很大，是过拟合吗", lang))
    assert facts.get("val_accuracy") == pytest.approx(0.61), facts


def test_the_part_set_aside_for_training_is_the_training_sets_size(lang):
    facts = stated_facts(understand("my data has 3,000 clips, 2400 designated for training and 600 reserved for "
                                    "validation, and the val loss climbs", lang))
    assert facts.get("train_size") == 2400 and facts.get("val_size") == 600, facts


def test_a_retry_whose_failure_is_told_in_the_next_sentence_is_not_the_run(lang):
    facts = stated_facts(understand("fine-tuning with batch size 16 runs out of memory. When I change the batch size "
                                    "to 4. The same error occurs.", lang))
    assert facts.get("batch_size") == 16, facts


def test_a_change_that_worked_is_still_the_runs_setting(lang):
    facts = stated_facts(understand("with batch size 16 the loss was NaN. Then I changed the batch size to 4. Now the "
                                    "loss goes down but very slowly", lang))
    assert facts.get("batch_size") == 4, facts


def test_a_list_of_each_optimizers_default_is_not_the_runs_learning_rate(lang):
    facts = stated_facts(understand("hyp: lr0: 0.002  # initial lr (SGD=1E-2, Adam=1E-3), the mAP oscillates", lang))
    assert facts.get("learning_rate") == pytest.approx(0.002), facts


def test_an_optimizer_with_its_learning_rate_is_still_read(lang):
    facts = stated_facts(understand("I train with Adam 3e-4 and the loss stays flat", lang))
    assert facts.get("learning_rate") == pytest.approx(0.0003), facts


@pytest.mark.parametrize("text", [
    "the curves split after a few epochs; bs=64, adamw at 3e-4",
    "batch 128, sgd with 0.05 and momentum 0.9, the loss jumps around",
])
def test_an_optimizer_with_its_learning_rate_after_another_setting_is_still_read(lang, text):
    # the defaults-list guard looks at a value written bare or with "=" only; "at"/"with" tell the run's own
    facts = stated_facts(understand(text, lang))
    assert facts.get("learning_rate") in (pytest.approx(3e-4), pytest.approx(0.05)), facts
