"""What people write, read (session 31, issue 10): a swing verb's "from X to Y" is a range, not a fall from X to Y
(and a narrow one is ordinary noise); a small swing asked about in Chinese is healthy, a big one is not; a GAN's
adversarial losses that oscillate are healthy when asked about, unless the swing is big or the discriminator's loss
collapses to zero; "is this how the loss is supposed to look?" asks whether the run is normal. Each family keeps
its near miss apart. The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "for the last ten epochs my loss ranges from 3.41 to 3.58",
    "the training loss varies from 1.72 to 1.95 between checkpoints",
])
def test_a_swing_verbs_from_to_is_a_range_not_a_fall(lang, text):
    facts = stated_facts(understand(text, lang))
    assert "initial_loss" not in facts, facts
    assert "train_loss" not in facts, facts


def test_a_narrow_range_opened_by_a_swing_verb_is_ordinary_noise(lang):
    u = understand("my training loss fluctuates from 0.52 to 0.55 for the whole epoch", lang)
    assert u.symptom == "healthy", u.scores


def test_a_change_from_to_is_still_a_fall(lang):
    facts = stated_facts(understand("the loss dropped from 3.4 to 0.9 in the first epoch", lang))
    assert facts.get("initial_loss") == 3.4 and facts.get("train_loss") == 0.9, facts


def test_a_rise_from_to_is_still_a_change(lang):
    facts = stated_facts(understand("after 3k steps the loss increased from 0.4 to 2.7", lang))
    assert facts.get("train_loss") == 2.7, facts


@pytest.mark.parametrize("text", [
    "微调的时候loss有轻微的抖动，请问这是正常的吗",
    "验证集的loss小幅震荡，这个正常吗？",
])
def test_a_small_swing_asked_about_in_chinese_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_a_small_swing_beside_a_loss_that_does_not_fall_is_no_healthy_run(lang):
    u = understand("loss只有轻微波动，但是训练了很久一直不下降", lang)
    assert u.symptom != "healthy", u.scores


def test_a_big_swing_asked_about_in_chinese_is_instability(lang):
    u = understand("训练的时候loss震荡得很厉害，这样正常吗", lang)
    assert u.symptom == "instability", u.scores


@pytest.mark.parametrize("text", [
    "During GAN training the generator loss and the discriminator loss keep oscillating. Is that expected?",
    "My d_loss oscillates between 0.6 and 0.8 and g_loss between 1 and 3 for the whole run, is this normal?",
    "训练GAN时判别器的loss一直在震荡，这样是正常的吗",
])
def test_a_gans_adversarial_losses_oscillating_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_a_discriminator_loss_collapsing_to_zero_is_no_healthy_swing(lang):
    u = understand("the discriminator loss goes to 0 after a few epochs while the generator loss keeps "
                   "oscillating, is this normal?", lang)
    assert u.symptom != "healthy", u.scores


def test_a_gan_loss_swinging_wildly_is_no_healthy_swing(lang):
    u = understand("the generator loss oscillates wildly and jumps to 40 every few steps, is that normal?", lang)
    assert u.symptom != "healthy", u.scores


@pytest.mark.parametrize("text", [
    "Is this how the training loss is supposed to look?",
    "the curve goes down in steps, should it look like this?",
])
def test_asking_whether_the_curve_should_look_like_this_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_a_value_said_to_be_the_maintainers_is_not_the_runs_later_value(lang):
    facts = stated_facts(understand("I kept your settings: the training accuracy is about 90%, but the validation "
                                    "accuracy is only 63%. The result is far from yours (77.1%)", lang))
    assert facts.get("val_accuracy") == 0.63, facts


def test_a_bare_later_value_of_the_run_still_continues_its_quantity(lang):
    facts = stated_facts(understand("the training loss starts at 6.2 but plateaus at 2.9", lang))
    assert facts.get("train_loss") == 2.9, facts


@pytest.mark.parametrize("text, val", [
    ("Epoch: 7 | Train Loss: 0.2817 Vali Loss: 0.3362 Test Loss: 0.2954 -- why is test lower than vali?", 0.3362),
    ("after training the validation loss is 0.48 and the test loss 0.41", 0.48),
])
def test_a_held_out_metric_stated_for_validation_and_test_is_the_validation_one(lang, text, val):
    facts = stated_facts(understand(text, lang))
    assert facts.get("val_loss") == val, facts


def test_a_test_value_alone_is_still_the_held_out_value(lang):
    facts = stated_facts(understand("train loss 0.21 and test loss 0.93 after 40 epochs", lang))
    assert facts.get("val_loss") == 0.93, facts


@pytest.mark.parametrize("text", [
    "the loss stays at 2.30 the whole time, epoch(4/25) loss=2.30",
    "the loss stays at 2.30 the whole time: Ep 4/25 loss=2.30",
    "the loss stays at 2.30 the whole time: Epoch[ 4 of 25] loss 2.30",
    "the loss has not moved and we are in epoch 4 out of 25",
])
def test_a_progress_marks_total_is_the_runs_epoch_count(lang, text):
    facts = stated_facts(understand(text, lang))
    assert facts.get("epochs") == 25, facts


@pytest.mark.parametrize("text, fact, value", [
    ("after ten epochs the model reaches 93% of accuracy and the predictions all look alike", "train_accuracy", 0.93),
    ("my classifier only gets 58% of accuracy on the validation set", "val_accuracy", 0.58),
])
def test_a_share_of_a_metric_is_that_metrics_value(lang, text, fact, value):
    facts = stated_facts(understand(text, lang))
    assert facts.get(fact) == value, facts


def test_a_share_of_the_data_is_no_metric(lang):
    facts = stated_facts(understand("I hold out 20% of the data for validation and the loss is stuck", lang))
    assert "val_accuracy" not in facts and "train_accuracy" not in facts, facts
