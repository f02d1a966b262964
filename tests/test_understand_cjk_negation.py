"""Negation in a script written without spaces (issue 10): "没有用混合精度" (did not use mixed precision),
"没开 fp16", "未使用 AMP", "去掉了 dropout" negate the setting after them although no word boundary
separates them from it; words that start with the same characters but negate nothing ("不断下降" keeps
falling, "无穷大" infinite) do not. A pack adds a negator of its own language without code. The sentences
are written for these tests, in the shape of Chinese forum posts."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.loader import load_kb
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "我没有用混合精度，训练到第5000步loss变成nan",
    "没开fp16，loss还是一直是nan",
    "已经未使用AMP了，训练2000步后出现nan",
    "这次不用半精度训练，第800个iter就nan了",
])
def test_a_setting_negated_without_spaces_is_read_as_not_used(lang, text):
    u = understand(text, lang)
    assert facts(u).get("uses_amp") is False
    assert u.symptom == "explosion"


@pytest.mark.parametrize("text", [
    "用了混合精度以后，训练到第5000步loss变成nan",
    "开了fp16，loss一直是nan",
])
def test_the_same_setting_stated_plainly_is_read_as_used(lang, text):
    assert facts(understand(text, lang)).get("uses_amp") is True


def test_removing_dropout_is_not_using_it(lang):
    removed = facts(understand("去掉了dropout之后，验证集准确率60%，训练集99%", lang))
    added = facts(understand("加了dropout之后，验证集准确率60%，训练集99%", lang))
    assert "dropout" not in (removed.get("regularization") or [])
    assert "dropout" in added.get("regularization", [])


def test_an_infinite_loss_is_an_explosion_and_its_first_character_negates_nothing(lang):
    u = understand("训练了几个epoch之后loss变成无穷大", lang)
    assert u.symptom == "explosion"


def test_a_pack_adds_a_negator_of_its_own_script(tmp_path):
    # Cantonese 冇 ("have not"): not in the core list, added by a pack
    (tmp_path / "words.yaml").write_text("kind: language\nattached_negators: ['冇']\n", encoding="utf-8")
    text = "我冇用混合精度，第300步loss就nan咗"
    plain = load_kb(entry_point_packs=False).language
    packed = load_kb(extra_dirs=[str(tmp_path)], entry_point_packs=False).language
    assert facts(understand(text, plain)).get("uses_amp") is True
    assert facts(understand(text, packed)).get("uses_amp") is False


def test_the_a_not_a_question_negates_nothing(lang):
    # 有没有 asks "is there / could it be": the mixed precision after it is still the run's
    u = understand("训练3000步后grad_norm突然变成nan，有没有可能和混合精度有关？", lang)
    assert facts(u).get("uses_amp") is not False


def test_a_negator_does_not_reach_a_setting_on_the_next_line(lang):
    text = "试了调小学习率，但是并没有能够避免这个问题\nbaseline_fp16_lr0.1 在 6k iteration 之后 loss 变为 nan"
    assert facts(understand(text, lang)).get("uses_amp") is not False
