"""Forms new writers use that the reader missed (session 17, issue 10): a language model named by its family
or its fine-tuner's flag, a corpus or instruction tuning; a Keras progress bar without a rate counts samples;
a loss's first value stated past the start is no initial loss; a swing around one level is a hover, not an
unstable run. The sentences are written for these tests, in the shape of forum posts."""
import pytest

from traindx.engine.understand import understand


def _facts(u):
    return {r.fact: r.value for r in u.facts}


@pytest.mark.parametrize("text", [
    "pretraining an MPT-350m from scratch, the loss spikes after 3k steps",
    "finetuning Pythia-1.4b on my chat logs and the loss is stuck at 2.1",
    "fine-tuning OPT-125m with my own data, the eval loss goes up after epoch 2",
    "command: --stage sft --finetuning_type lora --learning_rate 5e-5, why is the loss flat",
    "we do instruction tuning on 20k samples and the loss suddenly drops at step 900",
    "training a small GPT-style model on WikiText-103, the loss plateaus at 4.2",
    "我们的llm预训练loss一直在3左右",
    "the MLM accuracy stays at 40% while the loss falls",
    "we pretrain a 1.3B model from scratch and the loss spikes every few thousand steps",
    "the model is about 0.5B parameters, lr 3e-4, the loss stops going down",
])
def test_a_language_model_named_by_family_flag_or_corpus(lang, text):
    assert _facts(understand(text, lang)).get("task_type") == "language_modeling"


@pytest.mark.parametrize("text", [
    "my optimizer options are opt-level O1 and the loss is nan",      # apex's opt level is no OPT model
    "I tried to adopt a new loss for my segmentation model",
    "my resnet model has 50 layers and the dataset is 2 GB",
])
def test_words_that_only_look_like_a_language_model(lang, text):
    assert _facts(understand(text, lang)).get("task_type") != "language_modeling"


def test_a_keras_bar_without_a_rate_counts_the_samples(lang):
    text = ("the loss goes up after epoch 3\nEpoch 3/20\n24310/24310 [==============================] - 41s - "
            "loss: 0.6120\nEpoch 4/20\n24310/24310 [==============================] - 40s - loss: 3.9021")
    assert _facts(understand(text, lang)).get("train_size") == 24310


def test_a_keras_bar_with_a_step_rate_may_count_steps(lang):
    # TF2 counts steps there ("1875/1875 ... 3ms/step"): no training size from it
    text = ("the loss goes up after epoch 3\nEpoch 3/20\n1875/1875 [==============================] - 6s 3ms/step - "
            "loss: 0.6120 - accuracy: 0.80")
    assert "train_size" not in _facts(understand(text, lang))


@pytest.mark.parametrize("text", [
    "the model plateaus after 3 epochs. post epoch 3 the loss is about 1.9, and at epoch 12 it is still 1.85",
    "at the end of epoch one the loss is 7.40 and by the end of epoch five it is 7.02, it plateaued",
])
def test_a_first_value_stated_past_the_start_is_no_initial_loss(lang, text):
    u = understand(text, lang)
    assert "initial_loss" not in _facts(u)
    assert u.symptom == "plateau"


def test_a_first_value_from_the_start_is_still_the_initial_loss(lang):
    u = understand("the loss starts at 4.10 and after 30 epochs it is 4.02, it is not learning", lang)
    assert _facts(u).get("initial_loss") == pytest.approx(4.10)
    assert u.symptom == "not_learning"


@pytest.mark.parametrize("text, symptom", [
    ("the loss has been fluctuating around 3.1 since step 500 and has not gone down since", "plateau"),
    ("Accuracy stuck. My val accuracy oscillates up and down around 71% and does not get better whatever I try",
     "plateau"),
    ("binary task: the training accuracy fluctuates around 50% for 80 epochs, it is not improving", "not_learning"),
])
def test_a_swing_around_one_level_is_a_hover_not_instability(lang, text, symptom):
    assert understand(text, lang).symptom == symptom


@pytest.mark.parametrize("text", [
    "the loss fluctuates between 0.3 and 9 from step to step, very unstable",
    "the loss is oscillating around 2-8 with big spikes every few hundred steps",
])
def test_a_swing_over_a_range_stays_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "I left it running overnight and it only reached step 40. Is this normal? Does it really have to be this slow?",
    "on my laptop the preprocessing stage is taking so much time before each epoch, is that expected?",
    "at this pace one run will take more than a week on my machine, is it normal?",
])
def test_slowness_said_without_naming_what_is_slow_is_slow_training(lang, text):
    assert understand(text, lang).symptom == "slow_training"


def test_a_loss_that_falls_very_slowly_is_not_slow_training(lang):
    assert understand("the loss is decreasing very slow after 20 epochs, is this normal?", lang).symptom \
        != "slow_training"
