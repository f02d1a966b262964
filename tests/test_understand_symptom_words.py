"""Symptoms in the words people use (issue 10, session 14): how long one epoch takes, stated with a
number, is a speed question even when asked "is this normal?"; training said to be slow in Korean,
Russian or Japanese; a metric that rose to a level and then stopped moving, said in Chinese, is a
plateau (not a run that never learned); validation better than training said in Chinese (with 正确率,
"the training error is large, the validation error smaller instead", "train loss大于val loss") and a
loss "generally decreasing" stay healthy; the training loss rising said in Chinese ("loss越来越大") is
instability, the validation loss rising still overfitting; a loss "higher than expected" is a level
compared, not a rise; a step in the loss at each epoch or a staircase-shaped loss, said in Chinese, is
healthy (as the English "at every epoch boundary"); a Dice/IoU/F1 pinned at zero is not learning;
"val_loss增加" inside Chinese is overfitting; a process killed by the system ("被杀死", "killed by
signal") is out of scope. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "Each epoch is taking about 40 minutes on my two GPUs, is that normal?",
    "It costs around 3 hours on one V100 to train a single epoch. Is this expected?",
    "one iteration takes nearly 12 seconds here, is this the usual speed?",
    "I waited for 6 hours and it is still in the first epoch",
])
def test_how_long_an_epoch_takes_is_a_speed_question(lang, text):
    u = understand(text, lang)
    assert u.symptom == "slow_training" and u.how == "phrases"


@pytest.mark.parametrize("text", [
    "모델 학습이 너무 느려요",
    "학습 속도가 갑자기 떨어졌어요",
    "обучение идёт очень медленно на видеокарте",
])
def test_slow_training_said_in_other_languages(lang, text):
    assert understand(text, lang).symptom == "slow_training"


@pytest.mark.parametrize("text", [
    "准确率很快上升到75%，之后就一直不变了",
    "mAP提升到0.6以后就没有再提高了",
    "训练到loss为1.2左右，就一直不下降了",
])
def test_rose_to_a_level_then_stopped_said_in_chinese_is_a_plateau(lang, text):
    assert understand(text, lang).symptom == "plateau"


def test_never_moving_said_in_chinese_stays_not_learning(lang):
    # no level reached first: still a run that does not learn
    assert understand("训练了很久，准确率一直不变", lang).symptom == "not_learning"


@pytest.mark.parametrize("text", [
    "为什么测试集正确率一直高于训练集？",
    "训练集的loss很大，验证集的loss反而小很多，正常吗",
    "我的train loss大于val loss是怎么回事",
])
def test_validation_better_than_training_said_in_chinese_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy" and u.fact("val_better_than_train") is not None


@pytest.mark.parametrize("text", [
    "there is a clear downward trend in the loss but it bounces between batches",
    "the loss is generally decreasing but it bounces around from batch to batch",
])
def test_a_loss_whose_trend_is_down_while_it_bounces_is_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "我用自己的数据微调，loss越来越大，怎么回事",
    "训练到第三个epoch时突然出现loss变大的情况",
])
def test_the_training_loss_rising_said_in_chinese_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_the_validation_loss_rising_said_in_chinese_stays_overfitting(lang):
    assert understand("训练集loss下降，但验证集loss越来越大", lang).symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "the loss is higher than expected for a 3-class problem",
    "my training loss is always bigger than in the paper",
])
def test_a_loss_higher_than_expected_is_a_level_compared_not_a_rise(lang, text):
    assert understand(text, lang).scores.get("instability", 0) == 0


def test_a_loss_getting_higher_than_before_is_still_a_rise(lang):
    assert understand("my loss gets higher than before after epoch 5", lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "为什么每个epoch开始的时候loss会跳一下",
    "训练时loss呈阶梯状下降，这是什么原因",
])
def test_a_step_at_each_epoch_said_in_chinese_is_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "the loss goes down but the dice score is always 0",
    "my IoU stays at zero after 30 epochs",
])
def test_a_segmentation_metric_pinned_at_zero_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_a_metric_of_zero_point_something_is_no_zero(lang):
    assert understand("the f1 was 0.85 at epoch 3", lang).scores.get("not_learning", 0) == 0


def test_the_validation_loss_rising_named_in_english_inside_chinese_is_overfitting(lang):
    assert understand("为什么train loss减少而val_loss增加", lang).symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "训练到一半进程被杀死了，怎么解决",
    "the run ends with: worker (pid 3063) is killed by signal: Killed",
])
def test_a_process_killed_by_the_system_is_out_of_scope(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text", [
    "training loss spikes to 9 every few thousand steps then recovers, adamw lr 6e-4 no warmup, fp16",
    "the loss jumps around a lot, I train without warmup and batch size 16",
])
def test_a_run_said_to_have_no_warmup_has_no_warmup_bump(lang, text):
    """"no warmup" is not the end of a warmup: spikes in a run without one are not the normal bump."""
    u = understand(text, lang)
    assert u.symptom == "instability"
    assert all(r.fact != "bump_after_restart" for r in u.facts)


def test_the_bump_at_the_end_of_warmup_stays_normal(lang):
    u = understand("the loss jumps right after the warmup ends and then comes back down, is that ok?", lang)
    assert u.symptom == "healthy"
