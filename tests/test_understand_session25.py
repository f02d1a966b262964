"""Words read the way a poster means them (session 25, issue 10): "it doesn't seem to train anything" and a model
that settles on the majority class do not learn; HuggingFace Accelerate's command line is no wish for speed; a loss
that jumps about in Chinese (上下跳动) swings, and one that falls for a few epochs (几个epoch后) first made progress;
a result asked about for being too good and a jump whenever a new epoch starts are healthy questions; the training
loss falling while the validation metric stays flat is overfitting; naming an RL algorithm, self-play or a custom
environment puts the post out of scope; forecasting, stock prices, MAE and flat-line predictions are regression;
Lightning's ``loss_epoch`` is the loss, and a config flattened onto one line ("MICRO_BATCH_SIZE = 4 BATCH_SIZE = 8
EPOCHS = 3") gives each setting its own value. The sentences are written for these tests."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "my unet doesn't seem to train anything, the masks are empty after 40 epochs",
    "the finetuned checkpoint does not appear to learn anyting at all",
    "the classifier just predicts the majority class for every review",
    "after two epochs it settles on the most frequent label and stays there",
])
def test_learning_nothing_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_accelerate_launch_is_no_speed_question(lang):
    u = understand("the dreambooth run never learns the new token. accelerate launch train.py "
                   "--mixed_precision=fp16 --learning_rate=5e-6", lang)
    assert u.symptom != "slow_training"
    assert understand("how can I accelerate training? one epoch takes 3 hours", lang).symptom == "slow_training"


def test_a_loss_jumping_about_in_chinese_swings(lang):
    assert understand("训练的时候loss一直上下跳动，这正常吗？", lang).symptom == "instability"


def test_a_loss_that_fell_for_a_few_epochs_then_stayed_is_a_plateau(lang):
    assert understand("loss下降了几个epoch后就一直保持在1.3左右不变", lang).symptom == "plateau"


@pytest.mark.parametrize("text", [
    "why is my f1 score so high after only 200 steps?",
    "my validation accuracy looks too good to be true, 99.8% on the first epoch",
    "é possível chegar a 100% de acurácia com esse modelo?",
])
def test_a_result_too_good_is_asked_about_a_healthy_run(lang, text):
    assert understand(text, lang).symptom == "healthy"


def test_a_jump_when_a_new_epoch_starts_is_healthy(lang):
    u = understand("I log the loss every step. why does it jump down whenever a new epoch begins?", lang)
    assert u.symptom == "healthy"


def test_training_loss_falling_while_validation_stays_flat_is_overfitting(lang):
    u = understand("after 3000 iterations the loss keeps decreasing but the accuracy on the validation set "
                   "is stuck at 61%", lang)
    assert u.symptom == "overfitting"
    u = understand("训练集loss一直在减少，但是验证集的loss没什么变化", lang)
    assert u.symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "building a chess bot with alphazero style self-play, the value loss does not go down",
    "my SAC agent on a custom environment does not seem to learn anything",
])
def test_rl_posts_are_out_of_scope(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert facts(u).get("rl_training") is True


@pytest.mark.parametrize("text", [
    "my LSTM for forecasting hourly demand is stuck at loss 0.08",
    "the MAE stays at 3.1 degrees no matter what I change",
    "the network's predictions on the test set are just a flat line",
])
def test_regression_by_its_kind_of_target(lang, text):
    assert facts(understand(text, lang)).get("task_type") == "regression"


def test_mse_alone_says_no_task(lang):
    # an autoencoder or a diffusion model trains with MSE too
    assert facts(understand("my autoencoder's mse loss is stuck at 0.02", lang)).get("task_type") != "regression"


def test_lightning_loss_epoch_is_the_loss(lang):
    u = understand("val_loss_epoch goes down but train_loss_epoch is stuck at 0.41", lang)
    assert facts(u).get("train_loss") == pytest.approx(0.41)


def test_a_config_flattened_onto_one_line(lang):
    f = facts(understand("OOM on a 16GB card. MICRO_BATCH_SIZE = 2 BATCH_SIZE = 32 EPOCHS = 5 "
                         "LEARNING_RATE = 1e-4", lang))
    assert f.get("batch_size") == 32
    assert f.get("epochs") == 5
    assert f.get("learning_rate") == pytest.approx(1e-4)
    # a count said before the setting's name still is the batch size
    assert facts(understand("I use 16 as batch size", lang)).get("batch_size") == 16


def test_accuracy_falling_suddenly_in_chinese_is_instability(lang):
    assert understand("训练到第20轮的时候，验证集准确率突然掉到了10%，之后一直上不去", lang).symptom == "instability"
    # a loss that falls suddenly is still a healthy question
    assert understand("训练了一会儿 loss 突然降了很多，这正常吗", lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "the longer we train, the worse the f1 on the held-out days gets",
    "my bleu scores get worse even though the training loss keeps going down",
])
def test_worse_with_more_training_is_overfitting(lang, text):
    assert understand(text, lang).symptom == "overfitting"
