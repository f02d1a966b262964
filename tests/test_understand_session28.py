"""Healthy runs told in words (session 28, issue 10): one term of a composite objective rising while another term
or the total falls (a VAE's KL term, a GAN's generator against its discriminator, a detector's box against its
class loss) is the trade-off the objective makes; a run that is surprisingly fast is no slow run; a metric that is
low in the first few epochs is where every run starts. Each family has its fault-side twin, which keeps its
symptom. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "the KL term keeps going up during training while the reconstruction gets better, is that a problem?",
    "my kld loss increases every epoch of the beta-VAE run",
    "why does the KL divergence not decrease at all in my VAE?",
    "the generator loss rises while the discriminator loss goes down, did I break something?",
    "the box loss converges but the cls loss does not decrease after 30 epochs",
    "the reconstruction loss decreases and the commitment loss increases slowly",
    "the total loss goes down while the distillation loss increases, should I worry?",
])
def test_one_term_of_a_composite_objective_rising_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


@pytest.mark.parametrize("text,symptom", [
    ("the training loss decreases but the validation loss increases after epoch 8", "overfitting"),
    ("the KL loss becomes nan after 3 epochs", "explosion"),
    ("the loss increases steadily from 0.7 to 5 and the accuracy drops", "instability"),
])
def test_splits_and_a_broken_term_are_no_trade_off(lang, text, symptom):
    u = understand(text, lang)
    assert u.symptom == symptom, u.scores


@pytest.mark.parametrize("text", [
    "each epoch runs surprisingly fast, about 20 seconds on my laptop, is that ok?",
    "why is training so quick? it finishes 50 epochs in two minutes",
])
def test_a_surprisingly_fast_run_is_no_slow_run(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


@pytest.mark.parametrize("text", [
    "the training was not very fast, one epoch takes 3 hours on a V100",
    "why is yours so fast? mine needs two hours per epoch",
])
def test_a_run_said_not_fast_or_slower_than_another_is_slow(lang, text):
    u = understand(text, lang)
    assert u.symptom == "slow_training", u.scores


@pytest.mark.parametrize("text", [
    "the validation mAP is almost 0 in the first few epochs, is this normal?",
    "in the first two epochs the accuracy is very low, about 4%, is that expected?",
])
def test_a_metric_low_in_the_first_epochs_is_where_runs_start(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_a_metric_that_stays_at_zero_is_not_learning(lang):
    u = understand("the mAP stays at 0 in the first 3 epochs and never moves", lang)
    assert u.symptom == "not_learning", u.scores


@pytest.mark.parametrize("text", [
    "the accuracy of the training set is excellent, but the accuracy of the validation set is almost 0",
    "the accuracy on the test set is only 40% while the accuracy on the training set is 99%",
])
def test_training_good_validation_poor_in_the_of_form_is_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting", u.scores


def test_zero_accuracy_on_both_splits_is_not_learning(lang):
    u = understand("the accuracy on the training set is 0 and on the test set it is 0 too", lang)
    assert u.symptom == "not_learning", u.scores


@pytest.mark.parametrize("text", [
    "验证loss到第20轮以后一直往上涨，训练loss还在降",
    "val loss 到后面一直往上走，怎么回事",
])
def test_a_validation_loss_going_upward_in_chinese_is_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting", u.scores


@pytest.mark.parametrize("text", [
    "why is my loss not monotonically decreasing? it goes 2.1, 2.0, 2.05, 1.9",
    "the loss does not go down at every step, is my optimizer broken?",
    "sometimes the loss is higher than the previous one, is that a bug?",
])
def test_a_loss_that_does_not_fall_at_every_step_is_sgd_noise(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_a_loss_not_always_decreasing_is_left_to_the_other_words(lang):
    u = understand("the loss is not always decreasing and then it explodes to 1e6", lang)
    assert u.symptom != "healthy", u.scores


@pytest.mark.parametrize("text", [
    "at the start of training my loss increases for a few hundred steps, is this normal?",
    "一开始loss上升，后来就下降了，正常吗",
])
def test_an_early_bump_told_time_first_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores
