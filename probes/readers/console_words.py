"""Metric labels printed in other languages, read as the English words the console reader knows.

Scripts written by Chinese, Japanese, Korean, Russian and German speakers print their metrics
under their own labels (``训练损失: 0.52``, ``エポック 3/10 損失: 0.41``, ``검증 손실: 0.6``,
``Потери на валидации: 0.61``, ``Val-Verlust: 0.6``). The reader's shapes (a name, a separator, a
number; an axis word and its counter) are the same; only the words differ. Two tables give the
words:

- :data:`LOCAL_WORDS`: words in scripts other than Latin. A line holding a character of those
  scripts (:data:`_LOCAL_CHARS`) has each such word replaced by its English equivalent, spaced, before
  the line is read; full-width punctuation becomes ASCII.
- :data:`LATIN_WORDS`: Latin-script words (German, French, Spanish). They are looked up only
  when a printed name resolves to no role as it is (the role cache keeps this off the hot path).

Only metric, split and axis words are listed: what decides a role, never one log's wording.
"""

from __future__ import annotations

import re

#: (pattern, English): longest first where one word contains another (学习率 before 学习)
LOCAL_WORDS = (
    # Chinese
    (r"第\s*(\d+)\s*(?:轮|个\s*epoch|代|回合)", r" epoch \1 "), (r"第\s*(\d+)\s*(?:步|次迭代)", r" step \1 "),
    ("学习率", "lr"), ("梯度范数", "grad_norm"), ("损失函数", "loss"), ("损失值", "loss"), ("损失", "loss"),
    ("准确率", "acc"), ("准确度", "acc"), ("正确率", "acc"), ("精确度", "acc"), ("精度", "acc"),
    ("训练集", "train"), ("训练", "train"), ("验证集", "val"), ("验证", "val"), ("测试集", "test"), ("测试", "test"),
    ("轮次", "epoch"), ("轮数", "epoch"), ("迭代次数", "iter"), ("迭代", "iter"), ("步数", "step"), ("平均", "avg"),
    # Japanese
    ("学習率", "lr"), ("損失", "loss"), ("正解率", "acc"), ("正答率", "acc"), ("エポック", "epoch"),
    ("検証", "val"), ("学習", "train"), ("訓練", "train"), ("テスト", "test"), ("ステップ", "step"),
    ("イテレーション", "iter"),
    # Korean
    ("학습률", "lr"), ("손실", "loss"), ("정확도", "acc"), ("에폭", "epoch"), ("에포크", "epoch"), ("검증", "val"),
    ("훈련", "train"), ("학습", "train"), ("테스트", "test"), ("스텝", "step"), ("반복", "iter"),
    # Russian
    ("скорость обучения", "lr"), ("функция потерь", "loss"), ("потер[иья]", "loss"), ("лосс", "loss"),
    ("точность", "acc"), ("эпоха", "epoch"), ("на валидации", "val"), ("валидаци[яиюей]", "val"),
    ("на обучении", "train"), ("обучени[еяю]", "train"), ("на тесте", "test"), ("тест[аеу]?", "test"),
    ("шаг", "step"), ("итерация", "iter"),
    # full-width punctuation
    ("：", ":"), ("，", ","), ("（", "("), ("）", ")"), ("％", "%"), ("／", "/"),
)

#: characters of the scripts LOCAL_WORDS covers: CJK ideographs, kana, Hangul, Cyrillic, full-width forms
_LOCAL_CHARS = re.compile("[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")

_SIMPLE = {p: r for p, r in LOCAL_WORDS if re.escape(p) == p}
_SIMPLE_RE = re.compile("|".join(sorted(_SIMPLE, key=len, reverse=True)), re.IGNORECASE)
_COMPLEX = [(re.compile(p, re.IGNORECASE), r) for p, r in LOCAL_WORDS if re.escape(p) != p]

#: Latin-script metric words of other languages, lower case -> English
LATIN_WORDS = {
    "verlust": "loss", "trainingsverlust": "train loss", "validierungsverlust": "val loss",
    "testverlust": "test loss", "genauigkeit": "accuracy", "trainingsgenauigkeit": "train accuracy",
    "validierungsgenauigkeit": "val accuracy", "testgenauigkeit": "test accuracy", "validierung": "val",
    "lernrate": "lr", "perte": "loss", "perdida": "loss", "pérdida": "loss", "précision": "accuracy",
    "exactitud": "accuracy", "entrainement": "train", "entraînement": "train",
}
_LATIN_RE = re.compile(r"(?<![^\W\d_])(" + "|".join(sorted(LATIN_WORDS, key=len, reverse=True)) + r")(?![^\W\d_])",
                       re.IGNORECASE)


def localized(line: str) -> str:
    """``line`` with its non-Latin metric words in English (unchanged when it has none)."""
    if line.isascii() or not _LOCAL_CHARS.search(line):
        return line
    for rx, rep in _COMPLEX:
        line = rx.sub(rep, line)
    return _SIMPLE_RE.sub(lambda m: f" {_SIMPLE[m.group(0).lower()]} ", line)


def latin_words(phrase: str) -> str:
    """``phrase`` with Latin-script metric words of other languages in English (``Val-Verlust``
    -> ``Val-loss``); unchanged when it has none."""
    return _LATIN_RE.sub(lambda m: LATIN_WORDS[m.group(1).lower()], phrase)
