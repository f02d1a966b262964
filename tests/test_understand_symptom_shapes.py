"""Symptoms in shapes unseen collections use (issue 10, session 13): a metric that falls while the loss
falls (overfitting), the validation loss rising said in Chinese, exporting or converting a model for
deployment (out of scope), and asking whether an architecture suits another problem or swapping one
network family for another (architecture advice). The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "the training loss keeps decreasing but the F1 score decreases too, what is going on",
    "loss went down nicely, but IoU dropped after epoch 30",
    "my loss is decreasing but the bleu as well",
])
def test_a_metric_falling_while_the_loss_falls_is_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting" and u.how == "phrases"      # said, not guessed from the examples


def test_a_metric_stuck_while_the_loss_falls_is_not_read_as_overfitting_by_it(lang):
    u = understand("the loss keeps decreasing but accuracy is stuck at 47%", lang)
    assert u.scores.get("overfitting", 0) == 0


def test_the_validation_loss_rising_said_in_chinese(lang):
    assert understand("训练了十个epoch，测试集的loss越来越大", lang).symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "exporting the checkpoint to ONNX gives me an error about an unsupported operator",
    "after converting my model into tflite the outputs are all different",
    "tensorrt cannot parse the onnx file I made from my model",
])
def test_exporting_a_model_for_deployment_is_out_of_scope(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text", [
    "would this architecture be suitable for audio tagging as well?",
    "did anyone try replacing the GRU with a transformer for this dataset?",
])
def test_asking_whether_an_architecture_suits_is_architecture_advice(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert {r.fact: r.value for r in u.facts}.get("wants_architecture_advice") is True


@pytest.mark.parametrize("text", [
    "请问为什么验证集的损失一直小于训练集损失",
    "训练集loss总是大于测试集loss，这正常吗",
    "验证集准确率比训练集还高，是哪里错了",
    "why do I get higher scores on the validation set every epoch?",
])
def test_validation_better_than_training_is_healthy_in_more_shapes(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy" and u.how == "phrases"
    assert {r.fact: r.value for r in u.facts}.get("val_better_than_train") is True


@pytest.mark.parametrize("text", [
    "the loss sits at 0.8 from the 200th iteration on",
    "the accuracy is the same value from epoch 25 to epoch 60",
])
def test_a_level_held_since_a_point_past_the_start_is_a_plateau(lang, text):
    u = understand(text, lang)
    assert u.scores.get("plateau", 0) > 0


def test_since_the_first_epoch_is_no_progress(lang):
    u = understand("the loss is the same value from epoch 1, nothing changes", lang)
    assert u.symptom == "not_learning"


def test_stagnant_is_a_plateau_word_like_stagnates(lang):
    u = understand("my perplexity is stagnant", lang)
    assert u.symptom == "plateau" and u.scores.get("plateau", 0) >= 3


@pytest.mark.parametrize("text", [
    "我的loss振荡得很厉害",                         # oscillates (the physics spelling)
    "请问训练过程中loss变化比较剧烈是什么原因",        # the loss changes violently
    "after 20 epochs the training loss is still shocking and never converges",   # 震荡 translated as 'shock'
])
def test_a_swinging_loss_in_the_words_chinese_writers_use_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_a_segmentation_metric_at_zero_at_the_end_of_a_sentence_is_not_learning(lang):
    u = understand("after 100 epochs the mean foreground Dice was 0. I use momentum 0.99", lang)
    assert u.symptom == "not_learning" and u.how == "phrases"


@pytest.mark.parametrize("text", [
    "while training, both of the loss and validation loss are increasing",
    "I found the train and test accuracy keeps dropping after 600 epochs",
])
def test_both_sides_getting_worse_together_is_instability_not_overfitting(lang, text):
    # the example classifier leans to overfitting on val/train words; the negated phrasing keeps it from naming it
    assert understand(text, lang).symptom == "instability"
