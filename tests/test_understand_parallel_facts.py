"""Facts stated in the shapes of unseen collections (issue 10, session 13): a split answered in a clause
parallel to the one before ("... on the training set reaches 99%, but the test set only gets 66%"), a
metric's rate ("accuracy rate"), the task said by its kind of model or data (a language model by its
abbreviation, family name or recipe, in other languages; a forecast over time), and training data
counted by what it is made of. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, facts", [
    ("the accuracy on the training set gets to 97%, but the validation set can only reach 61%",
     {"train_accuracy": 0.97, "val_accuracy": 0.61}),
    ("train loss goes down to 0.12 while on the test set it sits at 0.85",
     {"train_loss": 0.12, "val_loss": 0.85}),
])
def test_a_parallel_clause_names_the_same_metric_for_the_other_split(lang, text, facts):
    got = _facts(text, lang)
    for k, v in facts.items():
        assert got.get(k) == pytest.approx(v)


def test_a_parallel_clause_needs_the_value_before_it_in_its_sentence(lang):
    got = _facts("train accuracy is 97%. The validation set has been checked twice, 61 were wrong", lang)
    assert "val_accuracy" not in got


def test_an_accuracy_rate_is_the_accuracy_not_a_setting(lang):
    got = _facts("my train accuracy rate is 93% and the test accuracy rate is 58%", lang)
    assert got.get("train_accuracy") == pytest.approx(0.93) and got.get("val_accuracy") == pytest.approx(0.58)
    assert _facts("the learning rate is 0.004", lang).get("learning_rate") == pytest.approx(0.004)


@pytest.mark.parametrize("text, task", [
    ("my GRU LM gives nan after a while", "language_modeling"),
    ("обучаю языковую модель, лосс не падает", "language_modeling"),
    ("言語モデルを学習しているが loss が下がらない", "language_modeling"),
    ("언어 모델 학습 중에 loss가 안 떨어져요", "language_modeling"),
    ("an LSTM on a time series of daily sales, the val loss is flat", "regression"),
    ("un modelo de regresión con LSTM, la pérdida no baja", "regression"),
    ("time series classification with an LSTM, acc stuck at 50%", "classification"),
])
def test_the_task_is_read_from_the_kind_of_model_or_data(lang, text, task):
    assert _facts(text, lang).get("task_type") == task


@pytest.mark.parametrize("text, size", [
    ("I fine-tune the detector on 640 crops and the loss jumps", 640),
    ("when I train it with 1200 tiles the val loss goes up", 1200),
    ("only 8,000 training data, and it overfits after 5 epochs", 8000),
    ("total data is 4521, the loss plateaus", 4521),
    ("data_size=777, loss stuck", 777),
])
def test_training_data_counted_by_what_it_is_made_of(lang, text, size):
    assert _facts(text, lang).get("train_size") == size


@pytest.mark.parametrize("text", [
    "I train with 4 GPUs and the loss is nan",
    "trained on 3 nodes with lr 1e-3, loss flat",
    "fine-tuning with 16 heads and 12 layers",
])
def test_hardware_and_model_parts_are_no_training_data(lang, text):
    assert "train_size" not in _facts(text, lang)


@pytest.mark.parametrize("text", [
    "the loss went down to 3.5% of where it started",
    "loss dropped to 12% after the warmup",
    "my loss fell by 40% in the first epoch",
])
def test_a_loss_percentage_that_is_a_share_or_a_change_is_no_loss_value(lang, text):
    got = _facts(text, lang)
    assert "train_loss" not in got and "current_loss" not in got


def test_a_logged_loss_percentage_is_still_the_loss(lang):
    assert _facts("Epoch: 004/010 | Loss: 1.875%", lang).get("train_loss") == pytest.approx(1.875)


def test_validating_names_the_validation_split(lang):
    got = _facts("my training loss is 0.9 and my validating loss is 2.4", lang)
    assert got.get("val_loss") == pytest.approx(2.4) and got.get("train_loss") == pytest.approx(0.9)
