"""More facts read right from a complaint (issue 10, session 49, helper words49).

- The epoch a run has reached, said as an ordinal ("the loss is increasing after 4th epoch", "it's on 10th epoch",
  "in the sixth epoch", "训练到第26个epoch"), states how long the run is at least, as "at epoch 4" does; the first
  epoch (a point every run passes), a row's label in a pasted table ("26th epoch:", "7th Epoch - 34.06") and 第N轮
  state nothing.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text, epochs", [
    ("the validation loss is increasing after 4th epoch, what could be the reason?", 4),
    ("now it's on 10th epoch but the loss does not change from 0.14 to 0.19", 10),
    ("after the 200th epoch the validation accuracy stops improving", 200),
    ("in the sixth epoch i got a CER of 25 and the loss is bad", 6),
    ("the loss still wasn't reduced in second epoch", 2),
    ("the loss decreased very slowly around the 30th epoch", 30),
    ("训练到第26个epoch卡死，10分钟后报超时错误", 26),
    ("到第60个epoch左右损失就会突然上升", 60),
])
def test_an_ordinal_epoch_states_how_long_the_run_is(lang, text, epochs):
    assert stated_facts(understand(text, lang)).get("epochs") == epochs


@pytest.mark.parametrize("text", [
    "after the first epoch the loss is already 0.06",
    "the loss on the 1st epoch was 2.3 and it fell fast",
    "26th epoch:\ntensor(10219.3398)\n27 epoch:\ntensor(10169.0742)",
    "mIOU per epoch: 7th Epoch - 34.06 15th Epoch - 13.81",
    "训练到第500轮的时候loss变成nan",
])
def test_the_first_epoch_a_row_label_or_a_round_states_no_epochs(lang, text):
    assert "epochs" not in stated_facts(understand(text, lang))


def test_an_ordinal_epoch_is_read_in_linear_time_on_a_hostile_line(lang):
    import time
    text = ("9th " * 1000)[:4096]
    t0 = time.perf_counter()
    understand(text, lang)
    assert time.perf_counter() - t0 < 5.0
