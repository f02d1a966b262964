"""What people write, read (session 29, issue 10): a model that learns nothing said in Korean, Japanese or
Russian; a volatile loss; a ceiling stated with its number ("does not increase more than 0.15"); a number whose
last digits are left out ("0.12xx", "28.xxx"). Each family keeps its near miss apart (nvidia-smi's "Volatile
GPU-Util", a ratio such as "1.5x slower", digits that are all zero). The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "모델이 학습이 안 돼요. 50 에폭 동안 loss가 줄지 않아요",
    "정확도가 전혀 변하지 않습니다",
    "추론해 보면 모든 출력 값이 똑같이 나옵니다",
    "何エポック回してもlossが一定のままです",
    "モデルが全然学習しない、どうすればいい？",
    "моя сеть всегда выдаёт один и тот же ответ для любого входа",
    "классификатор предсказывает только один класс для всех картинок",
])
def test_learning_nothing_in_other_languages_is_not_learning(lang, text):
    u = understand(text, lang)
    assert u.symptom == "not_learning", u.scores


@pytest.mark.parametrize("text", [
    "the loss is so volatile that I cannot tell if it learns",
    "I get a volatile loss curve as soon as I switch to SGD",
])
def test_a_volatile_loss_is_unstable(lang, text):
    u = understand(text, lang)
    assert u.symptom == "instability", u.scores


def test_the_volatile_gpu_util_column_is_no_unstable_loss(lang):
    u = understand("nvidia-smi shows Volatile GPU-Util at 3% and an epoch takes an hour", lang)
    assert u.symptom == "slow_training", u.scores


@pytest.mark.parametrize("text", [
    "my validation accuracy won't increase more than 62% whatever I try",
    "the f1 doesn't improve more than 0.55 no matter the lr",
])
def test_a_ceiling_stated_with_its_number_is_a_plateau(lang, text):
    u = understand(text, lang)
    assert u.symptom == "plateau", u.scores


@pytest.mark.parametrize("text,fact,value,written", [
    ("the training loss sits around 0.34xx after 12 epochs", "train_loss", 0.34, "0.34xx"),
    ("the loss saturates at 17.xxx and never goes lower", "train_loss", 17.0, "17.xxx"),
    ("val accuracy is about 0.81xx while train accuracy is 0.99", "val_accuracy", 0.81, "0.81xx"),
])
def test_a_number_with_its_last_digits_left_out_is_read_as_written(lang, text, fact, value, written):
    u = understand(text, lang)
    r = u.fact(fact)
    assert r is not None and r.value == pytest.approx(value), [x.as_dict() for x in u.facts]
    assert written in r.phrase          # the echo quotes what the user wrote


@pytest.mark.parametrize("text,fact", [
    ("training is 1.5x slower since I turned on checkpointing", "train_loss"),
    ("the loss starts tiny, like 0.000xx, and stays there", "train_loss"),
])
def test_a_ratio_and_zero_digits_are_no_stated_loss(lang, text, fact):
    u = understand(text, lang)
    r = u.fact(fact)
    assert r is None or r.value != 0, [x.as_dict() for x in u.facts]
    assert u.fact("current_loss") is None or u.fact("current_loss").value != 1.5


@pytest.mark.parametrize("text,count", [
    ("accuracy stays at 4% after 30 epochs, class_num: 25 in my config", 25),
    ("the number of labels is 12 and the model always predicts label 0", 12),
    ("NUMCLASS=6 and the loss does not go down", 6),
    ("Number of class = 40, the val accuracy is stuck", 40),
    ("my detector has only one classes and the mAP is 0", 1),
    ("类别共有120种，准确率一直上不去", 120),
    ("分类15个，loss不下降", 15),
])
def test_the_count_of_classes_under_other_names(lang, text, count):
    u = understand(text, lang)
    r = u.fact("num_classes")
    assert r is not None and r.value == count, [x.as_dict() for x in u.facts]


@pytest.mark.parametrize("text,value", [
    ("my training loss still sits at 0,45, and it has for days", 0.45),
    ("the loss went down to 0,8 quickly but does not move since", 0.8),
])
def test_a_decimal_comma_is_read_by_the_metric_reader(lang, text, value):
    u = understand(text, lang)
    r = u.fact("train_loss") or u.fact("current_loss")
    assert r is not None and r.value == pytest.approx(value), [x.as_dict() for x in u.facts]


def test_a_list_after_a_zero_stays_a_list(lang):
    u = understand("I train on --gpus 0,1,2 and the loss is stuck", lang)
    assert all(x.value != 0.1 for x in u.facts), [x.as_dict() for x in u.facts]


@pytest.mark.parametrize("text", [
    "my loss is still 4.1 after a day; in your logs you had a loss of 0.9 by step 3000",
    "my loss stays around 4.1. other people arrived at a loss of 0.2 on this data",
    "the loss is stuck at 4.1 and everyone else got a loss of 0.3 with the same script",
])
def test_another_persons_value_is_not_the_runs(lang, text):
    u = understand(text, lang)
    r = u.fact("train_loss") or u.fact("current_loss")
    assert r is not None and r.value == pytest.approx(4.1), [x.as_dict() for x in u.facts]


@pytest.mark.parametrize("text,kind", [
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cpu!",
     "cuda_error"),
    ("RuntimeError: shape '[8, -1, 3]' is invalid for input of size 1000 when I run train.py", "shape_error"),
    ("my script crashes after 30 epochs because of insufficient GPU memory, how do I fix this?", "cuda_oom"),
    ("there seems to be a GPU memory leak: usage grows every epoch until the job dies", "cuda_oom"),
])
def test_the_kind_of_a_crash_said_in_other_words(lang, text, kind):
    u = understand(text, lang)
    r = u.fact("error_kind")
    assert u.symptom == "out_of_scope" and r is not None and r.value == kind, \
        (u.symptom, [x.as_dict() for x in u.facts])


@pytest.mark.parametrize("text", [
    "did anyone else get a constant loss while fine-tuning? is that a problem?",
    "I keep getting a constant loss on my own images, is it the data?",
])
def test_a_constant_loss_is_not_learning(lang, text):
    u = understand(text, lang)
    assert u.symptom == "not_learning", u.scores


def test_a_constant_loss_after_progress_is_a_plateau(lang):
    u = understand("constant loss after 2000 steps, before that it went down nicely", lang)
    assert u.symptom == "plateau", u.scores
