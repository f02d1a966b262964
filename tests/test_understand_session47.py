"""The complaint reader stays linear on hostile lines (issue 10, session 47, helper words47).

A language pattern's ``\\w*`` after a stem ("acc\\w*", "{train}\\w*", the term ``валидаци\\w*`` followed by a pattern's
own ``\\w*``) backtracked through the rest of a line of word characters at every start: a 4 KB line of one word
repeated without spaces took 2-7 s ("VOC", "acc", "validation"), and a term's run beside a pattern's own run made it
cubic (1,000 characters of "валидаци" took about 15 s, 1,500 about 50 s). Every run of word characters a language
pattern reads is now bounded (``understand._WORD_RUN``), so each start costs a bounded amount of work.

The sentences are written for these tests."""
import re
import time

import pytest

from conftest import stated_facts
from traindx.engine import understand as reader
from traindx.engine.understand import understand


def _patterns(lang):
    for cue in lang.cues:
        yield cue.rx
    for ex in lang.extractors:
        yield ex.rx
    yield from lang.split_rx.values()
    yield from lang.metric_rx.values()


def test_every_language_pattern_bounds_its_runs_of_word_characters(lang):
    unbounded = [rx.pattern[:120] for rx in _patterns(lang) if reader.bounded_runs(rx.pattern) != rx.pattern]
    assert not unbounded, unbounded[:5]


@pytest.mark.parametrize("pattern, bounded", [
    (r"acc\w*x", r"acc\w{0,%d}x"),
    (r"(?:\w+\s+){0,3}", r"(?:\w{1,%d}\s+){0,3}"),
    (r"\S+?y", r"\S{1,%d}?y"),
    (r"[\w.]*z", r"[\w.]{0,%d}z"),
])
def test_a_run_of_word_characters_is_bounded(pattern, bounded):
    assert reader.bounded_runs(pattern) == bounded % (reader._WORD_RUN,)


@pytest.mark.parametrize("pattern", [r"[^\w]*", r"\\w*", r"\w*+", r"\d+", r"\s*", r"[^.?!\n]*", r"\u4e00+", r"(?:ab)+"])
def test_what_is_no_run_of_word_characters_is_left_as_written(pattern):
    # a negated class, an escaped backslash, a possessive run, digits, blanks, a code point, a group
    assert reader.bounded_runs(pattern) == pattern


def test_a_line_of_one_word_repeated_reads_in_bounded_time(lang):
    # about 50 s before the bound (the run inside the term and the pattern's own run, one after the other), well
    # under a second after it; the budget leaves room for a loaded machine
    text = ("валидаци" * 400)[:1500]
    understand("warm up the example classifier", lang)      # built on first use: not the line's time
    started = time.process_time()
    u = understand(text, lang)
    assert time.process_time() - started < 10
    assert u is not None


@pytest.mark.parametrize("word", ["VOC", "acc", "validation", "fluctu", "训练"])
def test_hostile_lines_still_read_nothing(lang, word):
    u = understand((word * 2000)[:4096], lang)
    assert not stated_facts(u)


@pytest.mark.parametrize("text, symptom", [
    ("my validationloss keeps increasing while the training loss goes down nicely", "overfitting"),
    ("train accuracy reaches 99% but validation accuracy stays at 55%", "overfitting"),
    ("训练的loss一直下降，验证集的loss一直上升", "overfitting"),
    ("loss一直在0.1左右徘徊，不下降", "plateau"),
])
def test_phrases_that_step_over_a_run_of_word_characters_still_speak(lang, text, symptom):
    assert understand(text, lang).symptom == symptom


def test_the_bound_is_longer_than_any_word_the_phrasings_step_over():
    # a setting's name from a config ("per_device_train_batch_size", 27 characters) is one run
    assert reader._WORD_RUN > len("per_device_train_batch_size")
    assert re.fullmatch(reader.bounded_runs(r"\w+"), "per_device_train_batch_size")


@pytest.mark.parametrize("slot", ["num", "pct"])
def test_a_number_slot_reads_a_run_of_digits_in_linear_time(lang, slot):
    # "\d+\.?\d*" retried the decimals at every split of a run of digits that no unit follows (about 12 s on 20,000
    # digits before); "\d+(?:\.\d*)?" reads the same strings once
    rx = re.compile(lang.terms[slot] + r"\s+(?:gpu|epochs)\b", re.IGNORECASE)
    started = time.process_time()
    assert rx.search("1" * 20_000) is None
    assert time.process_time() - started < 3


@pytest.mark.parametrize("text, fact, value", [
    ("GPU utilization is only 12.5% and the loss barely moves", "gpu_utilization", 0.125),
    ("the lr is 3.e-4 and the loss is stuck at 2.3", "learning_rate", 3e-4),
    ("train acc 99.% val 55%", "val_accuracy", 0.55),
])
def test_numbers_with_and_without_decimals_still_read(lang, text, fact, value):
    assert stated_facts(understand(text, lang)).get(fact) == pytest.approx(value)
