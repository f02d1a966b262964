"""Words read the way a poster means them (session 23, issue 10): a reward model is trained like a classifier,
not by reinforcement learning; "currently" marks the value a run has now, in whatever order the values come;
"lr is nearly 0" is the learning rate's value, no loss; thousands written with a space are one number; an
``amp_dtype`` of fp32 is no mixed precision; Chinese words for early stopping, augmentation and weight decay
name those regularizers. The sentences are written for these tests, in the shape of forum posts and issue
threads."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "Training my reward model on preference pairs, the eval accuracy sits at 0.52 the whole time",
    "reward-model training: loss won't go below 0.69 and accuracy stays near chance",
    "I run examples/my_rlhf/train.py for the reward_model stage and the loss does not decrease",
])
def test_a_reward_model_is_supervised_training_not_rl(lang, text):
    u = understand(text, lang)
    assert u.symptom != "out_of_scope"
    assert facts(u).get("rl_training") is not True


@pytest.mark.parametrize("text", [
    "my PPO agent's reward does not increase after 2M steps",
    "the episode reward collapses as soon as the policy is updated",
])
def test_reward_talk_is_still_rl(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text, current", [
    # the present value stated first, an earlier point after it
    ("The mean loss is currently around 1.25. Two days ago it was 1.3 at 20k steps.", 1.25),
    ("right now the loss is 0.81; last week it sat at 0.9", 0.81),
    # stated last, as usual
    ("the loss began at 6.2 and at the moment it is about 2.4", 2.4),
])
def test_a_now_word_marks_the_current_loss(lang, text, current):
    f = facts(understand(text, lang))
    assert f["train_loss"] == pytest.approx(current)


def test_a_value_stated_after_the_present_one_is_no_initial_loss(lang):
    f = facts(understand("The loss is currently 0.42. It was at 0.47 after the first 5k iterations.", lang))
    assert f["train_loss"] == pytest.approx(0.42)
    assert "initial_loss" not in f


@pytest.mark.parametrize("text, current", [
    # "currently" far from the value says what the poster is doing, not where the loss is
    ("I'm currently fine-tuning only the decoder and quickly got the box loss to 0.7 and the cls loss to 0.2", 0.2),
    # a change going on from the marked value: its end is where the loss is
    ("now the loss slowly moves from 3.1 to 2.8", 2.8),
])
def test_a_now_word_far_off_or_before_a_change_does_not_pick_the_value(lang, text, current):
    assert facts(understand(text, lang))["train_loss"] == pytest.approx(current)


@pytest.mark.parametrize("text", [
    "The loss was 7.5 when training started. But now it is 2.9 and the lr is nearly 0",
    "val loss stuck at 1.8 while lr is almost 0 after the decay",
    "the loss keeps at 0.65 even though lr is roughly 0 by now",
])
def test_a_setting_value_after_an_approximator_is_no_loss(lang, text):
    f = facts(understand(text, lang))
    assert f.get("train_loss") != 0 and f.get("val_loss") != 0


@pytest.mark.parametrize("text, name, value", [
    ("the corpus has about 250 000 sentences and I train with bs 32", "train_size", 250000),
    ("after 60 000 iterations the loss is still 4.1", "train_loss", 4.1),
    ("I have 8 000 images for training and 2 000 for validation", "train_size", 8000),
])
def test_thousands_written_with_a_space_are_one_number(lang, text, name, value):
    f = facts(understand(text, lang))
    assert f[name] == pytest.approx(value)
    assert 0 not in f.values()


def test_two_numbers_side_by_side_stay_two(lang):
    f = facts(understand("batch size 64 200 epochs, adam", lang))
    assert f["batch_size"] == 64
    assert f["epochs"] == 200


@pytest.mark.parametrize("text", [
    "config: amp_dtype: fp32, lr: 3e-4, the val loss climbs after epoch 4",
    "mixed_precision_dtype = float32 and the loss is flat at 2.30",
])
def test_an_fp32_amp_dtype_is_no_mixed_precision(lang, text):
    f = facts(understand(text, lang))
    assert f.get("uses_amp") is not True


def test_an_fp32_amp_dtype_is_read_as_such(lang):
    f = facts(understand("amp_dtype: fp32, batch_size: 16, num_workers: 4", lang))
    assert f["amp_dtype"] == "float32"
    assert f["uses_amp"] is False


@pytest.mark.parametrize("text, item", [
    ("验证集损失从第十轮开始上升，我用了早停和dropout", "early_stopping"),
    ("训练准确率很高但是验证集很差，已经加了数据增强", "augmentation"),
    ("加了权重衰减以后验证集损失还是上升", "weight_decay"),
])
def test_chinese_regularizer_words(lang, text, item):
    assert item in facts(understand(text, lang)).get("regularization", [])


def test_a_regularizer_said_not_used_in_chinese_is_not_read(lang):
    assert "augmentation" not in facts(understand("过拟合很严重，没有用数据增强", lang)).get("regularization", [])


@pytest.mark.parametrize("text", [
    "why does the val loss jump around so much while the training loss curve is slowly converging?",
    "the validation curve is very unstable, although the train loss is slowly decreasing and smooth",
])
def test_slow_convergence_beside_an_unstable_curve_is_no_slow_training(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_slow_steps_are_still_slow_training(lang):
    assert understand("training is so slow, each epoch takes 4 hours on one gpu", lang).symptom == "slow_training"


@pytest.mark.parametrize("text", [
    "改了数据增强以后，跑到第20个epoch左右val_loss的值就开始上升，train_loss一直在下降",
    "训练十几轮后 eval_loss值也开始增加，但是训练loss还在降",
])
def test_a_validation_loss_rising_with_its_value_word_is_overfitting(lang, text):
    assert understand(text, lang).symptom == "overfitting"


def _nan_step(text):
    from traindx.engine.frontends import gather
    prose, pasted = gather.split_paste(text)
    found = {f.fact: f.value for f in gather.read_pasted(pasted).findings}
    return prose, found.get("nan_first_step")


def test_a_title_naming_a_nan_in_words_is_prose_not_a_log_row(lang):
    prose, step = _nan_step("The box loss turns into NaN after about 300 iterations, then the whole loss reports as "
                            "NaN.\niteration: 300 / 5000, loss: 1.27\niteration: 320 / 5000, loss: nan\n")
    assert "turns into NaN" in prose
    assert step == 320


def test_a_question_as_the_title_is_prose_not_a_log_row(lang):
    prose, step = _nan_step("cls_loss: nan?\nSTEP 410  lr: 0.0004  cls_loss: 3.1\n"
                            "STEP 411  lr: 0.0004  cls_loss: nan\n")
    assert prose.startswith("cls_loss: nan?")
    assert step == 411


@pytest.mark.parametrize("text", [
    "I wrote my own triplet loss class and since then training does not converge",
    "we implemented a weighted dice loss following the paper, the val dice stays at 0.1",
    "我自己实现的损失函数，训练时loss一直是nan",
])
def test_a_loss_the_poster_wrote_is_a_custom_loss(lang, text):
    assert facts(understand(text, lang)).get("custom_loss") is True


@pytest.mark.parametrize("text", [
    "I implemented a small CNN and the loss goes down very slowly",
    "after I implemented the augmentation the loss is stuck at 0.7",
])
def test_implementing_something_else_is_no_custom_loss(lang, text):
    assert "custom_loss" not in facts(understand(text, lang))
