"""Words read the way a poster means them (session 26, issue 10): a Chinese loss that reaches a value and then no
longer moves (到60就不下降了, 在20多的时候就不收敛了), that wanders about a level (徘徊) or has held it for a long time
(保持很久) made progress first; a metric that can only rise up to a value hit a ceiling; a metric pinned at zero
(f1一直为0, f1=r=p=0) learned nothing; a loss or metric that falls or rises slowly (下降缓慢, 提升很慢, "dropping
slowly", "reduce speed") is slow progress, not slow steps, while asking how long an epoch takes is a speed question;
a spiking neural network is a model, not a spike; "3,600 timesteps" of data is no RL run; the validation loss
that will not fall while the training loss does is overfitting; a result better than the paper's is a healthy
question; class counts with a measure word (10个类别, 两个类别) and MNIST beside Chinese words are read; a progress
bar's percent is no accuracy. The sentences are written for these tests."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "训练了几天，loss到1.8就不下降了",
    "验证集准确率在85%左右的时候就不提升了",
    "loss一直在2-3之间徘徊，怎么调都不行",
    "这个72%的准确率已经保持很久了",
    "after 30 epochs the accuracy can only rise up to 64% and never goes higher",
])
def test_a_level_reached_and_kept_is_a_plateau(lang, text):
    assert understand(text, lang).symptom == "plateau"


def test_gpu_usage_that_wanders_is_no_plateau(lang):
    u = understand("训练速度很慢，gpu利用率一直在3%-8%之间徘徊", lang)
    assert u.symptom == "slow_training"


@pytest.mark.parametrize("text", [
    "训练了20个epoch，f1一直为0",
    "fine-tuned the tagger for 5 epochs and got p=r=f1=0 on the dev set",
])
def test_a_metric_pinned_at_zero_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


@pytest.mark.parametrize("text", [
    "从头训练时准确率提升很慢，调学习率也没用",
    "loss下降缓慢，50个epoch后还是1.2",
    "the loss is dropping slowly after the warmup, is something off?",
])
def test_slow_progress_is_not_slow_training(lang, text):
    assert understand(text, lang).symptom != "slow_training"


@pytest.mark.parametrize("text", [
    "how long does one epoch take for you? mine never seems to finish",
    "一直停在Epoch 1，还要多久才能训练完？",
])
def test_asking_how_long_training_takes_is_a_speed_question(lang, text):
    assert understand(text, lang).symptom == "slow_training"


def test_a_spiking_network_is_no_spike(lang):
    u = understand("my spiking neural network learns nothing, the accuracy stays at 10% on mnist", lang)
    assert u.symptom == "not_learning"
    assert understand("the loss has random spikes every few hundred steps", lang).symptom == "instability"


def test_timesteps_of_data_with_a_thousands_separator_are_no_rl(lang):
    u = understand("loading 3,600 timesteps of radar data runs at 40 it/s but the full set is very slow", lang)
    assert u.symptom == "slow_training"
    assert "rl_training" not in facts(u)


def test_validation_loss_that_will_not_fall_while_training_falls_is_overfitting(lang):
    u = understand("the val_loss won't decrease while the train_loss keeps dropping every epoch", lang)
    assert u.symptom == "overfitting"


def test_a_result_better_than_the_paper_is_a_healthy_question(lang):
    u = understand("why is my accuracy much higher than the original paper? I get 91% where they report 75%", lang)
    assert u.symptom == "healthy"


@pytest.mark.parametrize("text, n", [
    ("一共有10个类别，每类几百张图", 10),
    ("分割任务，两个类别，背景和前景", 2),
    ("在MNIST数据集上准确率一直不变", 10),
])
def test_chinese_class_counts_are_read(lang, text, n):
    assert facts(understand(text, lang)).get("num_classes") == n


def test_one_class_predicted_is_no_class_count(lang):
    assert "num_classes" not in facts(understand("模型只预测一个类别", lang))


def test_a_progress_bar_percent_is_no_accuracy(lang):
    u = understand("training: 1%| | 509/100000 [1:55:22<387:23:57, 14.02s/it] training loss: 2.49", lang)
    assert "train_accuracy" not in facts(u)
    u = understand("Epoch: 010/010 | Train: 10.000% | Loss: 2.303", lang)
    assert facts(u).get("train_accuracy") == pytest.approx(0.1)


@pytest.mark.parametrize("text", [
    "the training loss keeps falling but the WER on the dev set increases after epoch 8",
    "微调时loss在降，但是测试集的f1先升后降",
    "the AUC rises first and then falls while the loss keeps going down",
])
def test_a_held_out_error_rising_or_a_metric_peaking_is_overfitting(lang, text):
    assert understand(text, lang).symptom == "overfitting"


def test_a_loss_that_rises_first_and_then_falls_is_no_overfitting(lang):
    assert understand("loss先升后降，但是准确率一直在上升", lang).symptom != "overfitting"


@pytest.mark.parametrize("text", [
    "训练到第30个epoch以后准确率就上不去了",
    "训练从第三个epoch开始loss就不变了",
    "why can my loss only go down to 0.9 on this dataset?",
])
def test_a_ceiling_or_floor_reached_is_a_plateau(lang, text):
    assert understand(text, lang).symptom == "plateau"


def test_time_per_epoch_growing_is_no_error_rate(lang):
    assert understand("the time per epoch keeps increasing after each epoch", lang).symptom == "slow_training"
