"""More facts read right from a complaint (issue 10, session 48, helper words48).

- A change whose old or new value is approximate ("from about 1 to about 0.2", "from around 1500 to about 50") is
  still a change: the first number is where the loss started, the second where it is; a swing's bounds so written
  ("ranges from about 2.6 to about 2.9") are still a range.
- The step at which the loss turned NaN, said in Chinese: an ordinal ("第二步 loss Nan") or a count with 万
  ("在3万步左右会出现Loss is nan"); in English "close to 15020 iterations, the loss will go to NaN", "at 12k steps, the
  loss became the nan value".
- The loss at the start, said in Chinese ("loss开始1.79", "第一步loss就是17", "初始loss为5.2"), or in English as a
  start "with a value of 5".
- A power of ten copied from a page that set it as a superscript ("6×10−5") is 6e-5.
- "lrate" is the learning rate; "训练epoch=1" (a name glued to the Chinese before it) states the epochs; a data set's
  size in demonstrations or conversations, or after 数据量 with no verb ("数据量6w左右"), is its training size.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import parse_number, understand


@pytest.mark.parametrize("text, start, now", [
    ("the noise loss can only drop from about 1 to about 0.2, and cannot continue to decrease.", 1, 0.2),
    ("the generator loss slowly goes down from around 1500 to about 50", 1500, 50),
    ("my loss went down very slightly (from roughly 3.84 to approximately 3.8)", 3.84, 3.8),
])
def test_an_approximate_change_states_where_the_loss_started_and_where_it_is(lang, text, start, now):
    facts = stated_facts(understand(text, lang))
    assert facts.get("initial_loss") == pytest.approx(start)
    assert facts.get("train_loss") == pytest.approx(now)


def test_an_approximate_range_is_still_no_change(lang):
    facts = stated_facts(understand("the loss ranges from about 2.6 to about 2.9 for days", lang))
    assert "initial_loss" not in facts
    assert facts.get("train_loss") != pytest.approx(2.9)


@pytest.mark.parametrize("text, step", [
    ("LORA训练到第二步，loss is NAN", 2),
    ("微调的时候第二步 loss Nan 了", 2),
    ("第5步loss为nan", 5),
    ("采用推荐脚本训练，在3万步左右会出现Loss is nan", 30000),
    ("I encounter the same issue when the training is close to 15020 iterations, the loss will go to NaN", 15020),
    ("at approximately 12k steps, the loss became the nan value.", 12000),
])
def test_the_nan_step_said_in_chinese(lang, text, step):
    assert stated_facts(understand(text, lang)).get("nan_first_step") == step


def test_a_second_stage_is_no_nan_step(lang):
    facts = stated_facts(understand(
        "当我正在训练第二步的扩散模型的时候，会出现梯度消失或梯度爆炸的情况，导致损失函数变成nan", lang))
    assert "nan_first_step" not in facts


@pytest.mark.parametrize("text, value", [
    ("训练39%后看到loss没有变化，loss开始1.79 之后还是1.4~2.5之间", 1.79),
    ("加载后第一步loss就是17，grad: nan", 17),
    ("初始loss为5.2，一直不下降", 5.2),
])
def test_the_initial_loss_said_in_chinese(lang, text, value):
    assert stated_facts(understand(text, lang)).get("initial_loss") == pytest.approx(value)


def test_a_start_with_a_value_of(lang):
    facts = stated_facts(understand(
        "the training loss started with a value of 5 and after 5k iterations it was just reduced to 4.6", lang))
    assert facts.get("initial_loss") == pytest.approx(5)


def test_a_loss_that_starts_to_fall_states_no_start(lang):
    assert "initial_loss" not in stated_facts(understand("loss开始下降到0.5就不动了", lang))


@pytest.mark.parametrize("raw, value", [("6×10−5", 6e-5), ("6x10-5", 6e-5), ("6x10^-5", 6e-5), ("2x100", None),
                                        ("512x512", None)])
def test_a_power_of_ten_whose_superscript_was_lost(raw, value):
    got = parse_number(raw)
    assert got == (pytest.approx(value) if value is not None else None)


@pytest.mark.parametrize("text, fact, value", [
    ("- Learning rate: 6×10−5 (same as stated in the supplementary)", "learning_rate", 6e-5),
    ("EPOCH 4 ... lrate 0.0001, TRAIN ACCURACY 69.9686%", "learning_rate", 1e-4),
    ("视觉和映射参数解冻，训练epoch=1,有40万张图片，但是loss没有变化", "epochs", 1),
    ("I'm using my own robot and collected around 200 demonstrations for grasping boxes.", "train_size", 200),
    ("I use a toy dataset with only 30 conversations and the loss does not decrease", "train_size", 30),
    ("进行了全参数微调，数据量6w左右；观察到loss收敛正常", "train_size", 60000),
])
def test_settings_in_more_wordings(lang, text, fact, value):
    assert stated_facts(understand(text, lang)).get(fact) == pytest.approx(value)
