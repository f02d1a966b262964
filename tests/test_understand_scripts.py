"""Complaints in other writing systems (issue 10: many real posts are in Chinese, Korean or Russian).

The example classifier compares a Chinese complaint with the Chinese examples (their centroid is not
drowned among the English ones), and it reads Cyrillic and Hangul words at all: before, a Russian or
Korean post had no feature but its English words and numbers. The sentences here are written for
these tests (not taken from the complaint corpus)."""
import pytest

from conftest import language_pack, understood_echo
from traindx.engine.loader import load_kb
from traindx.engine.understand import understand


@pytest.fixture(scope="module")
def core():
    return load_kb(entry_point_packs=False)


# no phrasing in kb/language reads these; the tune half's Chinese utterances say the same
# (the second states no class count, so "stuck at about 10%" is at chance or on a plateau: both are the
# stuck family an engineer would accept; which one the examples pick moves as the corpus rotates)
@pytest.mark.parametrize("text, expected", [
    # trained long, accuracy never improved
    ("训练了很久，模型的准确率一直没有任何提高，请问是哪里出了问题", {"not_learning"}),
    # 50 epochs, accuracy stays ~10%
    ("我的模型训练了50个epoch，准确率一直在10%左右，没有提升", {"not_learning", "plateau"}),
])
def test_a_chinese_complaint_no_phrasing_reads_is_named_from_the_chinese_examples(core, text, expected):
    u = understand(text, core.language)
    assert not u.scores                                   # the phrasings are silent
    assert u.symptom in expected and u.how == "examples"


def test_the_echo_names_a_chinese_complaint_instead_of_asking(core):
    line = understood_echo("训练了很久，模型的准确率一直没有任何提高，请问是哪里出了问题").splitlines()[0]
    assert line.startswith("I read:  not_learning (from your description as a whole")


# the core reads Russian swings (скачет, колеблется) since session 19, so the pack teaches another symptom
RUSSIAN = """symptoms:
  - symptom: explosion
    utterances:
      - лосс улетает в бесконечность через несколько шагов
      - значения потерь улетают в бесконечность, обучение ломается
      - потери взрываются и улетают в бесконечность
"""
# the core reads Korean "slow" (느리-, 학습 속도) since session 14, so the pack teaches another symptom
KOREAN = """symptoms:
  - symptom: instability
    utterances:
      - 손실이 위아래로 요동칩니다
      - 손실 값이 계속 요동치고 학습이 불안정해요
      - 로스가 위아래로 크게 요동쳐요
"""


@pytest.mark.parametrize("body, text, symptom", [
    (RUSSIAN, "у меня потери постоянно улетают в бесконечность", "explosion"),
    (KOREAN, "로스가 계속 요동쳐요", "instability"),
], ids=["russian", "korean"])
def test_a_packs_cyrillic_and_hangul_utterances_teach_the_classifier(tmp_path, core, body, text, symptom):
    assert understand(text, core.language).symptom is None        # the core knows no such words
    packed = load_kb([language_pack(tmp_path, body)], entry_point_packs=False)
    u = understand(text, packed.language)
    assert u.symptom == symptom and u.how == "examples"
    assert u.symptom_words                                         # the echo quotes the telling words
