"""How long a run has gone, and words that name a symptom (issue 10, session 34): the epoch a run has reached
("at epoch 33", "epoch = 240", "epoch: 40  step: ...", "180+ epochs"), a configured epoch count said with its
flag's name ("--train_epochs is set to 200"), a run that "fails to converge", a loss that "stopped at" a level,
and spikes said in Chinese (尖峰). The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, epochs", [
    ("why does the loss jump up at epoch 33 and never come back?", 33),
    ("my run is reaching epoch 56 and the loss still sits at 2.1", 56),
    ("when epoch = 240 the accuracy is still very low", 240),
    ("eta: 0:10:00  epoch: 40  step: 91100  loss: nan", 40),
    ("I get a poor score even after training 180+ epochs", 180),
    ("after 1000+epochs the training accuracy is close to 1.0", 1000),
    ("the loss went from 2.5 to 0.1 in epoch 10, the val loss was lowest at epoch 5", 10),
    ("the --train_epochs is set to 200 (1 epoch = 28 steps)", 200),
])
def test_the_epoch_a_run_has_reached_is_its_length(lang, text, epochs):
    assert _facts(text, lang)["epochs"] == epochs


@pytest.mark.parametrize("text", [
    "one epoch = 500 steps and the loss is flat",
    "epoch: 3/10 loss: 0.5",
])
def test_an_epochs_length_in_steps_or_a_progress_share_is_no_run_length(lang, text):
    assert _facts(text, lang).get("epochs") in (None, 10)


@pytest.mark.parametrize("text", [
    "the reconstruction loss fails to converge on my own data",
    "the detector could not converge at all on the custom dataset",
    "my network was unable to converge, whatever I try",
])
def test_a_run_that_fails_to_converge_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_a_loss_that_stopped_at_a_level_is_a_plateau(lang):
    assert understand("the ner loss stopped at 20 and the tagger is terrible", lang).symptom == "plateau"


def test_spikes_said_in_chinese_are_instability(lang):
    assert understand("微调的时候loss经常出现尖峰", lang).symptom == "instability"


@pytest.mark.parametrize("text, size", [
    ("my training set has 2.5 mil images and the loss is stuck", 2500000),
    ("大图和小图已经一共有8000多张了。loss还是不降", 8000),
    ("我们构造了30w条sample来训练", 300000),
])
def test_a_data_size_in_other_forms_is_read(lang, text, size):
    assert _facts(text, lang)["train_size"] == size


@pytest.mark.parametrize("text, lr", [
    ("the lr value is 3e-5 and the loss will not move", 3e-5),
    ("train_config: epochs: int=5 lr: float=2e-4 batch_size: int=8", 2e-4),
    ("学习率从0.01开始下降，loss一直不变", 0.01),
])
def test_a_learning_rate_in_other_forms_is_read(lang, text, lr):
    assert _facts(text, lang)["learning_rate"] == pytest.approx(lr)


def test_a_digit_in_a_dropout_layers_name_is_no_dropout_rate(lang):
    assert "dropout_p" not in _facts("layers: dropout1_p=0.2, dropout2_p=0.5, the loss is flat", lang)


@pytest.mark.parametrize("text", [
    "after more than 2300 steps the loss turns into nan",
    "why does my loss become nan after training for more than 2300 steps?",
])
def test_the_first_nan_step_said_with_more_than_is_read(lang, text):
    assert _facts(text, lang)["nan_first_step"] == 2300


@pytest.mark.parametrize("text, train, val", [
    ("Train set size: 52000, Validation set size: 900. The val loss climbs", 52000, 900),
    ("I train on a dataset of 700 images and I am validating the model on 80 images", 700, 80),
])
def test_a_split_size_with_its_name_before_it_is_read(lang, text, train, val):
    facts = _facts(text, lang)
    assert (facts["train_size"], facts["val_size"]) == (train, val)


@pytest.mark.parametrize("text, val", [
    ("the number of validation images is 45, the training loss keeps dropping", 45),
    ("数据集有500个样本，划分了60个验证集", 60),
])
def test_a_validation_size_in_other_forms_is_read(lang, text, val):
    assert _facts(text, lang)["val_size"] == val
