""""Is this normal?" and the healthy cues in the languages real posts use (issue 10): the English
cues had Chinese, Russian and Korean gaps, so a healthy post written in them got no symptom or a
fault. The sentences are written for these tests (not taken from the complaint corpus)."""
import pytest

from conftest import understood_echo
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "我的训练曲线是这样的，这是正常的吗？",                 # is this normal?
    "训练曲线是这样，正常情况吗",
    "Кривая обучения выглядит так, это нормально?",
    "이 학습 곡선이 정상인가요?",
])
def test_asking_whether_it_is_normal_with_no_fault_described_reads_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


def test_a_negative_loss_said_in_chinese_is_the_healthy_negative_loss(lang):
    u = understand("训练后期loss为负，但是精度还在提升", lang)      # later the loss is negative, accuracy still rises
    assert u.symptom == "healthy"
    assert {r.fact: r.value for r in u.facts}.get("loss_negative") is True


def test_fell_to_a_value_then_no_further_fall_is_a_plateau_phrasing():
    echo = understood_echo("loss在第5个epoch就降到了1.5左右，之后基本没有任何下降")
    assert echo.startswith("I read:  plateau (from \u201c")     # a phrasing, quoted, not the classifier's guess


@pytest.mark.parametrize("text", [
    "loss在第5个epoch就降到了1.5左右，之后基本没有任何下降",     # 第5个epoch: the fifth epoch
    "训练loss在第20000次迭代时突然变大",                          # at the 20000th iteration
    "loss训练到50000步的时候变成nan",                              # at 50000 steps
    "我的loss在10万次之后上升",                                     # after 100,000 iterations
])
def test_a_chinese_count_or_ordinal_is_no_loss_value(lang, text):
    assert "train_loss" not in {r.fact for r in understand(text, lang).facts}
