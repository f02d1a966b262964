"""Facts stated in general forms a user would expect read (issue 10, session 14): two splits sharing
one label, percentages written as words, argv lists and quoted config values, a changed count of
classes; and facts no longer read wrong (binary cross-entropy is no count of classes, --min-lr is no
learning rate). The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, metric, value", [
    ("my training and validation loss both sit at about 0.69 after 3 epochs", "loss", 0.69),
    ("train and test accuracy are stuck around 10%", "accuracy", 0.10),
    ("the train/val accuracy stays at 0.5 whatever I do", "accuracy", 0.5),
])
def test_two_splits_joined_before_one_label_share_its_value(lang, text, metric, value):
    facts = _facts(text, lang)
    assert facts[f"train_{metric}"] == pytest.approx(value)
    assert facts[f"val_{metric}"] == pytest.approx(value)


def test_joined_splits_with_values_respectively_pair_up(lang):
    facts = _facts("train and val loss are 0.21, 0.93 respectively after 40 epochs", lang)
    assert facts["train_loss"] == pytest.approx(0.21) and facts["val_loss"] == pytest.approx(0.93)


@pytest.mark.parametrize("text, value", [
    ("nvidia-smi shows GPU utilization at 35 percent most of the time", 0.35),
    ("GPU util hovers around 7 per cent, training is slow", 0.07),
])
def test_a_percentage_written_as_a_word_is_read(lang, text, value):
    assert _facts(text, lang)["gpu_utilization"] == pytest.approx(value)


def test_an_argv_list_states_its_settings(lang):
    facts = _facts("args = ['--epochs', '50', '--lr', '3e-4', '--num_classes', '7', '--batch_size', '16']", lang)
    assert facts["epochs"] == 50 and facts["learning_rate"] == pytest.approx(3e-4)
    assert facts["num_classes"] == 7 and facts["batch_size"] == 16


def test_a_quoted_config_value_is_read(lang):
    assert _facts("hparams: {'learning_rate': '0.02', 'momentum': 0.9}", lang)["learning_rate"] == pytest.approx(0.02)


def test_a_prefixed_workers_setting_is_read(lang):
    assert _facts("dataloader_num_workers: 12 and still slow", lang)["num_workers"] == 12


def test_a_changed_count_of_classes_is_the_new_one(lang):
    assert _facts("I changed the number of classes from 80 to 4 and the loss is nan", lang)["num_classes"] == 4


def test_binary_cross_entropy_is_no_count_of_classes(lang):
    facts = _facts("It's a 5 classes problem and I use binary cross entropy as the loss", lang)
    assert facts["num_classes"] == 5


def test_a_minimum_learning_rate_flag_is_no_learning_rate(lang):
    facts = _facts("python train.py --lr 2e-4 --min-lr '1e-08' --epochs 10", lang)
    assert facts["learning_rate"] == pytest.approx(2e-4)


@pytest.mark.parametrize("text, key, value", [
    ("opt_level: O2, the loss turns to nan", "uses_amp", True),
    ("I use the 8bitAdamW optimizer and the loss spikes", "optimizer", "adamw"),
    ("the loss is nan when it gets to step 300", "nan_first_step", 300),
    ("Epoch=2/40, loss: 1.3", "epochs", 40),
])
def test_more_general_forms(lang, text, key, value):
    assert _facts(text, lang)[key] == value


def test_a_relative_clause_in_a_question_states_the_runs_setting(lang):
    facts = _facts("or should I lower my learning rate, which is 2e-5 with a batch size of 8?", lang)
    assert facts["learning_rate"] == pytest.approx(2e-5) and facts["batch_size"] == 8
    assert "epochs" not in _facts("should I train for 90 epochs, which is what the paper did?", lang)


@pytest.mark.parametrize("text, absent", [
    ("each batch has 16 images and the loss jumps around", "train_size"),      # a batch's count, not the data's
    ("I use a batch size of 8 images", "train_size"),
    ("the val set of 200 images gives 60% accuracy", "train_size"),           # the validation size only
    ("lr 0.1, decayed by 10x every 30 epochs", "epochs"),                     # a period, not the run's length
])
def test_a_count_of_something_else_is_not_read(lang, text, absent):
    assert absent not in _facts(text, lang)


@pytest.mark.parametrize("text", ["mixed precision is off and it still diverges", "I run with amp disabled",
                                  "bf16 is turned off"])
def test_mixed_precision_said_off_is_off(lang, text):
    assert _facts(text, lang)["uses_amp"] is False


def test_the_parts_of_a_split_named_by_their_counts(lang):
    facts = _facts("5000 images split into 4000 train and 1000 validation", lang)
    assert facts["train_size"] == 4000 and facts["val_size"] == 1000


def test_a_difference_between_two_accuracies_is_neither_ones_value(lang):
    facts = _facts("my val accuracy is about 12% lower than the training accuracy (97%)", lang)
    assert "val_accuracy" not in facts and facts["train_accuracy"] == pytest.approx(0.97)


def test_a_count_per_class_is_no_training_size(lang):
    facts = _facts("a dataset of 6 classes with 400 images each, the loss is stuck", lang)
    assert facts["num_classes"] == 6 and "train_size" not in facts


def test_a_ranked_epoch_is_the_epoch_reached(lang):
    # 第 ranks: the 4th epoch, which the run has reached, as "at epoch 4" (words49: the tune annotations state an
    # ordinal epoch as the run's epochs 24 times in 36); a ranked round (第N轮) stays unread
    assert _facts("第4个epoch开始loss变成nan", lang)["epochs"] == 4
    assert "epochs" not in _facts("第4轮开始loss变成nan", lang)
    assert _facts("一共训练了60轮，loss不降", lang)["epochs"] == 60


@pytest.mark.parametrize("text, key, value", [
    ("検証精度は45%で止まる", "val_accuracy", 0.45),                         # Japanese validation accuracy
    ("Точность на валидации 35%", "val_accuracy", 0.35),
    ("학습률 0.0003 으로 학습했습니다", "learning_rate", 0.0003),
    ("배치 크기 16, 손실이 줄지 않아요", "batch_size", 16),
    ("エポック数は30", "epochs", 30),
    ("训练集和验证集的准确率都是50%", "train_accuracy", 0.5),
])
def test_settings_and_splits_in_other_languages(lang, text, key, value):
    assert _facts(text, lang)[key] == pytest.approx(value)


@pytest.mark.parametrize("text, absent", [
    ("I removed dropout and it still overfits", "regularization"),           # a regularizer taken out
    ("the dropout layers were removed, val loss still rises", "regularization"),
    ("the loss plateaus at ln(10)=2.30", "train_loss"),                      # a function's argument, no value
])
def test_what_was_taken_out_or_is_an_argument_is_not_read(lang, text, absent):
    assert absent not in _facts(text, lang)


@pytest.mark.parametrize("text, key, value", [
    ("python train.py --fp16 False --lr 1e-4", "uses_amp", False),
    ("Trainer(precision=32) and the loss is nan", "uses_amp", False),
    ("I forgot to shuffle the training data", "shuffle", False),
    ("out = DenseLayer(h, num_units=4, nonlinearity=softmax)", "output_activation", "softmax"),
    ("model.compile(loss='binary_crossentropy', metrics=['binary_accuracy'])", "task_type", "binary"),
])
def test_settings_said_by_their_library_forms(lang, text, key, value):
    assert _facts(text, lang)[key] == value


def test_a_binary_loss_on_more_than_two_classes_is_no_binary_task(lang):
    facts = _facts("I have 4 classes and compile with loss='binary_crossentropy'", lang)
    assert facts["num_classes"] == 4 and "task_type" not in facts


@pytest.mark.parametrize("text", [
    "lr 2e-5 with linear decay, the dev f1 hovers around 0.85 for the last 7 epochs",
    "adamw with a linear lr schedule and 500 warmup steps",
])
def test_a_linear_decay_said_in_words_is_the_scheduler(lang, text):
    assert _facts(text, lang)["scheduler"] == "linearlr"


def test_a_linear_warmup_alone_is_no_scheduler(lang):
    assert "scheduler" not in _facts("I use a linear warmup for 1000 steps, then the loss spikes", lang)
