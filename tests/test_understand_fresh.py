"""What fresh writers type, read through `traindx diagnose --complaint` as a user runs it (session 10,
issue 10): the mechanisms a never-tuned collection (web_g) exposed. The phrasings below were written
for the tests, not copied from the corpus; each asserts what the user would see in the report."""

import pytest
from conftest import diagnose_json


def _read(text: str) -> tuple[dict, dict]:
    report = diagnose_json("--complaint", text)
    return report, {f["fact"]: f["value"] for f in report["facts"]}


@pytest.mark.parametrize("text, fact, value", [
    # a contraction negates: "didn't turn on amp" was read as AMP on, and the report blamed fp16
    ("I didn't turn on amp, the loss becomes nan after 2k steps", "uses_amp", False),
    ("we haven't added any dropout and val loss goes up after epoch 5", "regularization", []),
    # "with and without" negates nothing
    ("the gap between train and val accuracy is the same with and without dropout", "regularization", ["dropout"]),
])
def test_negation_by_contraction_and_its_limits(text, fact, value):
    _, facts = _read(text)
    assert facts[fact] == value


def test_not_understanding_why_negates_nothing_reported():
    report, facts = _read("I don't understand why my training accuracy is lower than my validation accuracy")
    assert report["understood"]["symptom"] == "healthy"
    assert facts["val_better_than_train"] is True


def test_a_setting_between_two_numbers_ends_the_losss_chain():
    # the lr values were read as later values of the loss: current loss 0.0003, initial loss 1.8
    _, facts = _read("the loss stopped decreasing at about 1.8. my lr is 0.003 and I also tried 0.0003, no difference")
    assert facts["current_loss"] == 1.8
    assert "initial_loss" not in facts
    assert facts["learning_rate"] == 0.003


@pytest.mark.parametrize("text, fact, value", [
    ("I changed lr 0.05 -> 0.0005 but the loss still jumps around", "learning_rate", 0.0005),
    ("loss goes nan after a few hundred steps. --lr 3e-4 --warmup_steps 0 --bf16", "warmup", False),
    ("batch_size调整为8以后loss一直震荡", "batch_size", 8),
    ("the training loss cannot get lower than 0.45 no matter what I do", "current_loss", 0.45),
    ("my loss went from 2.35 down to 2.30 in the first epochs and then stays there", "current_loss", 2.30),
    # "verification" names the validation split; "a little more than 70%" bounds the value (no small gap)
    ("my verification accuracy is only a little more than 70% after 30 epochs", "val_accuracy", 0.70),
])
def test_fact_forms_fresh_writers_use(text, fact, value):
    _, facts = _read(text)
    assert facts[fact] == pytest.approx(value) if isinstance(value, float) else facts[fact] == value


def test_the_train_set_named_with_its_size_outranks_a_count_of_the_val_subset():
    _, facts = _read("overfitting: the train set is 20000 and the val set is a subset of 4000 samples")
    assert facts["train_size"] == 20000
    assert facts["val_size"] == 4000


def test_a_cuda_build_error_is_deferred_as_a_cuda_error():
    report, facts = _read("AssertionError: Torch not compiled with CUDA enabled when I start train.py")
    assert report["deferral"] is not None
    assert facts["error_kind"] == "cuda_error"


def test_a_value_someone_else_reports_is_not_the_runs():
    # "the readme claims 0.9 accuracy" was read as the run's training accuracy
    _, facts = _read("the readme claims 0.9 accuracy after 10 epochs but mine stays at 0.5 on this binary task")
    assert facts.get("train_accuracy") != 0.9


@pytest.mark.parametrize("text", [
    "at first the loss went down a bit, then it stagnated; the loss is 2.31 now, 10 classes",
    "accuracy stalls at 51% after a few epochs on my binary classifier",
])
def test_a_level_at_chance_is_not_learning_whatever_the_words_say(text):
    report, _ = _read(text)
    assert report["understood"]["symptom"] == "not_learning"


def test_a_loss_that_stalls_while_the_metric_improves_is_healthy():
    report, _ = _read("the loss stays flat after a few epochs but the accuracy still keeps improving, why?")
    assert report["understood"]["symptom"] == "healthy"
    assert not any(c["confidence"] > 0.5 for c in report["root_causes"])


def test_a_loss_that_barely_fell_from_where_it_started_is_not_learning():
    # language.barely_moved_fraction: "from 0.9 to 0.8" is a fall of 11%, not progress that stalled
    report, facts = _read("after 20 epochs my loss has only gone from 0.9 to 0.8")
    assert (facts["initial_loss"], facts["current_loss"]) == (0.9, 0.8)
    assert report["understood"]["symptom"] == "not_learning"


def test_chinese_text_around_a_dataset_name_and_a_setting():
    # CIFAR-10 beside Chinese gives the class count (ln 10 = 2.30: chance); "学习率设置了0.001" is the lr,
    # not a later value of the loss
    report, facts = _read("训练cifar-10，loss一直在2.3左右，学习率设置了0.001")
    assert facts["num_classes"] == 10 and facts["current_loss"] == 2.3
    assert report["understood"]["symptom"] == "not_learning"


def test_a_pack_names_a_setting_and_its_value_stops_being_read_as_the_loss(tmp_path):
    # kb/language setting_words: a number right after a setting's name is that setting's value
    text = "the loss stopped decreasing at about 1.8. my gamma is 0.0001 and nothing changes"
    _, facts = _read(text)
    assert facts["current_loss"] == 0.0001          # the shipped KB does not know "gamma" as a setting
    (tmp_path / "settings.yaml").write_text("kind: language\nsetting_words: ['\\bgamma']\n", encoding="utf-8")
    report = diagnose_json("--kb", str(tmp_path), "--complaint", text)
    facts = {f["fact"]: f["value"] for f in report["facts"]}
    assert facts["current_loss"] == 1.8 and "initial_loss" not in facts


@pytest.mark.parametrize("text, loss", [
    ("the loss stopped decreasing at about 1.8. my eps is 0.0001 and nothing changes", 1.8),
    ("the loss stopped decreasing at about 1.8. the warmup ratio is 0.06 and I also tried 0.1", 1.8),
])
def test_optimizer_and_schedule_settings_are_not_later_loss_values(text, loss):
    _, facts = _read(text)
    assert facts["current_loss"] == loss and "initial_loss" not in facts
