"""Words read the way a poster means them (session 24, issue 10): asking what loss a good run reaches is a
healthy run compared with a reference, a comparison written with a symbol ("train loss > val loss") is the
worded one, outputs that keep getting better while the loss looks flat mean the model learns; asking how to
size a network's nodes or which of two networks to use is architecture advice; a run that exits without an
error or a thread-safety bug is out of scope; a slowdown of the run is slow training; "a sudden drop in
accuracy" is a run coming apart; 混合精度 / 半精度 are mixed precision and a value in Markdown backticks is
read. The sentences are written for these tests, in the shape of forum posts and issue threads."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "What is the expected loss after 200k steps on this dataset? I'm at about 0.31 and it barely moves",
    "what's a reasonable value for the reconstruction loss? mine stays around 0.05",
    "What value does the loss usually decrease to? Mine drops quickly to 2.1 and stays there",
    "训练了三天，perplexity 多少算正常？现在是 12 左右",
])
def test_asking_what_loss_a_good_run_reaches_is_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "Training Loss > Validation Loss for the whole run, I use dropout and mixup",
    "val_loss < train_loss every epoch, how can the unseen data be easier?",
    "val acc > train acc after epoch 3, is something leaking?",
])
def test_a_comparison_written_with_a_symbol_is_val_better_than_train(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert facts(u).get("val_better_than_train") is True


@pytest.mark.parametrize("text", [
    "the loss sits around 0.3 for days but the synthesized audio still gets better",
    "the training loss only wobbles around 0.02 while the PSNR keeps increasing",
])
def test_outputs_improving_under_a_flat_loss_is_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


def test_a_validation_loss_rising_is_still_overfitting(lang):
    # the new healthy phrasings do not touch the classic picture
    u = understand("train loss keeps falling but the validation loss goes up after epoch 5", lang)
    assert u.symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "How do I determine the number of hidden nodes for a regression network?",
    "how to choose the number of layers and nodes of an MLP",
    "Should I use the ResNet network or the VGG network for these x-rays?",
])
def test_sizing_or_choosing_a_network_is_architecture_advice(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert facts(u).get("wants_architecture_advice") is True


@pytest.mark.parametrize("text", [
    "Training stops without any error at iteration 22000, the process just exits",
    "the h5py dataset is probably not thread-safe when num_workers > 1",
])
def test_a_silent_exit_or_a_thread_safety_bug_is_out_of_scope(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text", [
    "random slowdown while training: it runs at 5 it/s, then drops to 1.7 s/iter",
    "the fit keeps slowing down after a few epochs",
])
def test_a_run_slowing_down_is_slow_training(lang, text):
    assert understand(text, lang).symptom == "slow_training"


def test_the_loss_slowing_down_is_not_slow_training(lang):
    u = understand("the loss falls fast at first and slows down gradually, is that expected?", lang)
    assert u.symptom != "slow_training"


@pytest.mark.parametrize("text", [
    "Sudden drop in accuracy while training: it went up to 39% and then fell to 9%",
    "why is there a sudden drop in evaluation accuracy after epoch 40?",
])
def test_a_sudden_drop_in_accuracy_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "开启混合精度训练后 loss 变成 nan",
    "启用半精度以后梯度出现 NaN",
])
def test_chinese_mixed_and_half_precision_are_amp(lang, text):
    assert facts(understand(text, lang)).get("uses_amp") is True


def test_a_value_in_backticks_is_read(lang):
    f = facts(understand("the loss is hard to decrease (lr is `3e-5`, batch size is `16`)", lang))
    assert f.get("learning_rate") == pytest.approx(3e-5)
    assert f.get("batch_size") == 16


@pytest.mark.parametrize("text", [
    "Sudden PSNR drop after 300k iterations, it was stable at 41 dB before",
    "the dice suddenly drops to 0.1 at epoch 19",
    "the validation PSNR plummets from 30 to 5 after 12k steps",
])
def test_a_quality_metric_collapsing_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_a_rise_told_with_the_adverb_after_the_verb_is_instability(lang):
    assert understand("the training loss is increasing all of a sudden at epoch 15", lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "with augmentation I end up having a lower test loss than train one",
    "I get a much higher validation accuracy than training accuracy, is that a leak?",
])
def test_the_adjective_first_comparison_is_val_better_than_train(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert facts(u).get("val_better_than_train") is True


@pytest.mark.parametrize("text", [
    "the training PSNR is good but the test PSNR is poor, about 20 dB",
    "train dice is high (0.9) but the validation dice stays low around 0.4",
])
def test_a_train_test_gap_in_a_quality_metric_is_overfitting(lang, text):
    assert understand(text, lang).symptom == "overfitting"


def test_a_misspelt_overfitting_is_read(lang):
    assert understand("why is my model overfting so fast on 300 images?", lang).symptom == "overfitting"
