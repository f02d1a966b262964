"""Settings told in more of the ways people write them (issue 10, session 38).

The batch size with a word between its name and its value ("the batch size used is 32", "the batch size for training
is 64", "set the batch_size to be 15"), under its short names (bsz, bsize), with the Chinese verbs of choosing one
("batch取48", "batch换成12", "batch设置的是9"), and as a command line's short flag ("python main.py -a resnet18 -b 5");
the learning rate under a prefixed name a config or log prints ("update_learning_rate=0.01", "G_optimizer_lr: 1e-4",
"Now_lr 0.0005"), with a dash ("Learning rate - 2e-6") or for an epoch ("Learning rate for epoch 1 is 0.0001"); the
class count as "the class number" with a verb of setting ("changed the class number to 7"). The sentences are written
for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text,value", [
    ("the batch size used is 32 and the loss is stuck", 32),
    ("The batch size for training is 64, one epoch takes an hour", 64),
    ("the batch size in my model is 8 because of memory", 8),
    ("I set the batch_size to be 15 and the loss went nan", 15),
    ("| epoch 003 | train loss 4.10 | bsz 48 | lr 0.25 |", 48),
    ("bsize = 256 and the accuracy never moves", 256),
    ("batch取48，训练35个epoch，loss不下降", 48),
    ("batch换成12以后loss震荡", 12),
    ("batch设置的是9，学习率1e-4", 9),
    ("python main.py -a resnet18 -b 5 --data ./imagenet and the accuracy drops", 5),
    ("python train.py /data -b 128 --model resnet50 --epochs 90, the lr never changes", 128),
])
def test_the_batch_size_is_read_in_more_forms(lang, text, value):
    assert _facts(text, lang).get("batch_size") == value


@pytest.mark.parametrize("text", [
    "we pass -b to the converter, the model is 5 layers deep",      # no command line: -b is no batch size here
    "the batch size of 20 for val is fine, the training loss is stuck",
])
def test_no_batch_size_is_read_where_none_is_the_run_s(lang, text):
    assert "batch_size" not in _facts(text, lang)


@pytest.mark.parametrize("text,value", [
    ("update_learning_rate=0.01, update_momentum=0.9, the loss never falls", 0.01),
    ("G_optimizer_lr: 0.0001 and the training is very slow", 0.0001),
    ("Epoch 4 | Now_lr 0.0005/0.0005 | Train Loss 0.19 | Valid Loss 2.2", 0.0005),
    ("Learning rate - 2e-6 (tried 3e-5 too), the loss is flat", 2e-6),
    ("Learning rate for epoch 1 is 0.0001. The loss goes up after epoch 3", 0.0001),
])
def test_the_learning_rate_is_read_in_more_forms(lang, text, value):
    assert _facts(text, lang).get("learning_rate") == pytest.approx(value)


@pytest.mark.parametrize("text,value", [
    ("I changed the class number to 7 and the loss is nan", 7),
    ("class num = 20, the accuracy stays at 5%", 20),
    ("the class number is now 12 and the model predicts one class", 12),
])
def test_the_class_number_is_read(lang, text, value):
    assert _facts(text, lang).get("num_classes") == value


def test_a_class_named_by_its_number_is_no_class_count(lang):
    assert "num_classes" not in _facts("class number 3 is always predicted, whatever the input", lang)
