"""Healthy runs and stated settings read by mechanism (session 18, issue 10): a validation curve that alone
swings while training improves is a small held-out set's noise; "not decreasing after 40 epochs" says when a
loss stopped (a plateau); a loss that steps back at each new epoch is the epoch average restarting; an
exponent written out ("3 x 10^-4"); a setting proposed in a question ("is this a sign to lower the lr to
3e-5?") or changed to in Chinese and told not to help is not the run's; "从1.3降到了1.0" is a fall from 1.3 to
1.0. The sentences are written for these tests, in the shape of forum posts."""
import pytest

from traindx.engine.understand import understand


def _facts(u):
    return {r.fact: r.value for r in u.facts}


@pytest.mark.parametrize("text", [
    "Validation accuracy jumps around. The training loss goes down smoothly every epoch, but the validation "
    "accuracy fluctuates between epochs. My validation split is only 300 images.",
    "val loss fluctuating. My train loss decreases nicely, while the val_loss oscillates from one epoch to the "
    "next. Can anyone explain this?",
    "Noisy validation curve. train acc keeps improving but the validation accuracy is jittering a lot, I only "
    "have 150 validation samples",
])
def test_a_validation_curve_alone_swinging_is_sampling_noise(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert _facts(u).get("small_fluctuations") is True


@pytest.mark.parametrize("text, symptom", [
    # the validation curve swings and climbs while training improves: the gap grows, overfitting
    ("Strange validation curve. The train loss keeps decreasing while the val loss keeps fluctuating and "
     "increasing after epoch 10.", "overfitting"),
    # the training loss itself swings: unstable training, whatever the validation curve does
    ("Loss spikes. The training loss oscillates wildly and spikes every few hundred steps.", "instability"),
])
def test_swings_that_are_not_validation_noise(lang, text, symptom):
    assert understand(text, lang).symptom == symptom


@pytest.mark.parametrize("text", [
    "Loss not decreasing after 15 epochs. I train a resnet18 on my own images, the loss does not go down after "
    "15 epochs and stays around 0.9.",
    "The reconstruction loss of my autoencoder is not decreasing after several iterations, any idea?",
    "Loss does not change after 40 epochs. I am training a point cloud model on my own scans.",
])
def test_not_decreasing_after_a_while_is_a_plateau(lang, text):
    assert understand(text, lang).symptom == "plateau"


def test_a_loss_at_chance_from_the_start_is_still_not_learning(lang):
    text = ("Loss not decreasing at all. With 10 classes the loss has been 2.30 from the very start and it is "
            "still 2.30 after 20 epochs.")
    assert understand(text, lang).symptom == "not_learning"


def test_a_loss_that_steps_back_at_a_new_epoch_is_the_epoch_average(lang):
    text = ("Loss goes back up. Within an epoch the loss goes down, but after a new epoch the loss goes back to the "
            "value of the last epoch. Why doesn't it continue from where it was?")
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert "new epoch" in (u.symptom_phrase or "")


@pytest.mark.parametrize("text, lr", [
    ("the learning rate is 3 x 10^-4 and the loss is flat after 2k steps", 0.0003),
    ("lr = 5*10^-5, batch size 16, the loss spikes after warmup", 0.00005),
    ("currently the learning rate is 2 x E-4 and the loss stopped going down", 0.0002),
])
def test_an_exponent_written_out(lang, text, lr):
    assert _facts(understand(text, lang)).get("learning_rate") == pytest.approx(lr)


def test_a_product_of_sizes_is_no_exponent(lang):
    facts = _facts(understand("input is 3 x 224 x 224 images, lr 0.01, and the loss is stuck", lang))
    assert facts.get("learning_rate") == pytest.approx(0.01)


@pytest.mark.parametrize("text", [
    "The learning rate is 3e-4 and the loss has become flat. Is this a sign to decrease the learning rate to 3e-5?",
    "lr is 3e-4 now and the loss plateaued at 2.1, would it make sense to drop the lr to 3e-5?",
    "We train with lr 3e-4 and the loss is flat at 2.1. Is it time to lower the learning rate to 3e-5?",
])
def test_a_setting_proposed_in_a_question_is_not_the_runs(lang, text):
    assert _facts(understand(text, lang)).get("learning_rate") == pytest.approx(3e-4)


def test_a_chinese_change_that_did_not_help_is_not_the_runs_setting(lang):
    text = ("训练速度很慢，gpu利用率很低。batch_size设置为32，训练很慢。当我更换batch_size为2时，每一步快了，"
            "但一个epoch仍然很慢")
    assert _facts(understand(text, lang)).get("batch_size") == 32


def test_a_chinese_fall_with_le_is_from_and_to(lang):
    facts = _facts(understand("训练了两天，loss从2.6降到了2.4，之后就不怎么动了", lang))
    assert facts.get("initial_loss") == pytest.approx(2.6)
    assert (facts.get("train_loss") or facts.get("current_loss")) == pytest.approx(2.4)


@pytest.mark.parametrize("text", [
    "loss先升后降。你好，我微调的时候loss是先上升，后下降，但是准确率一直在上升，这是什么原因？",
    "请问为什么训练时loss到了一定程度就不变了，loss还挺高，但是准确率不低",
    "Why is val_acc bigger than train_acc? the validation accuracy is bigger than the training accuracy every epoch",
])
def test_the_metric_that_matters_is_fine(lang, text):
    assert understand(text, lang).symptom == "healthy"
