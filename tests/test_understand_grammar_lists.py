"""The rest of the number attribution's grammar words are knowledge too (issue 11, after
tests/test_understand_grammar_words.py): the words that start a clause, units after a number, the words
that name a split after a number, a change's "from" and "to", a range's joins and opener, the words that
stop a later value, a list's joins and fillers, the split prefixes of a log's column names, numbers
written as words, magnitude words ("2k") and the classifier's stop words. They live in kb/language
(schema kb-language); each test shows the echo a user gets (``I read: ...``) before and after a pack
adds one word."""

import pytest

from traindx.engine.api import load_kb
from conftest import language_pack, understood_echo

_echo = understood_echo
_pack = language_pack


@pytest.mark.parametrize("body, text, before, after", [
    # clause_words: "although" starts a clause, so the paper's report no longer reaches the run's number
    ("clause_words: ['although']", "the paper reports good results although my val accuracy is 0.6",
     None, "val_accuracy 0.6"),
    # unit_words: "3 runs" counts runs, it is no validation loss
    ("unit_words: ['runs?']", "val loss is 3 runs in and train loss 0.2", "val_loss 3", None),
    # split_after: "61% over the validation set" names the split after the number
    ("split_after: {prepositions: ['over']}", "accuracy is 61% over the validation set",
     "train_accuracy 0.61", "val_accuracy 0.61"),
    # from_words: "starting at 2.3 to 1.1" is a change; its new value is the validation loss
    ("from_words: ['\\bstarting at\\b']", "the lr is 0.01 and val loss starting at 2.3 to 1.1",
     None, "val_loss 1.1"),
    # change_to_words: "from 2.3 till 1.1" is a change: the loss is now 1.1, it started at 2.3
    ("change_to_words: ['till']", "train loss went from 2.3 till 1.1", None, "train_loss 1.1"),
    # range_words: "0.3 bis 0.5" is a range, no single validation loss
    ("range_words: ['bis']", "the val loss is 0.3 bis 0.5", "val_loss 0.3", None),
    # between_words: a swing "within 0.31 and 0.32" is narrow, ordinary noise
    ("between_words: ['within']", "the loss fluctuates within 0.31 and 0.32", "instability", "healthy"),
    # continuation_break_words: a number "compared with" another run's is no later value of this loss
    ("continuation_break_words: ['compared with']",
     "train loss is 0.9 compared with my friend's run which was about 0.3", "train_loss 0.3", "train_loss 0.9"),
    # coordination_words: "and" joins a negated list, so the negation reaches weight decay too
    ("coordination_words: ['and']", "no dropout and batch normalization and weight decay",
     "regularization: weight_decay", "regularization: none"),
    # coordination_fillers: "or heavy weight decay" is still an item of the negated list
    ("coordination_fillers: ['heavy']", "I train without dropout or heavy weight decay",
     "regularization: weight_decay", "regularization: none"),
    # metric_prefixes: a log's "dev_loss" column is the validation loss, not a component's
    ("metric_prefixes: ['dev_']", "dev_loss: 0.5 after 10 epochs", None, "val_loss 0.5"),
])
def test_a_pack_adds_a_grammar_word_and_the_echo_changes(tmp_path, body, text, before, after):
    shipped = _echo(text)
    extended = _echo(text, [_pack(tmp_path, body)])
    assert shipped.startswith("I read:") and extended.startswith("I read:")
    if before:
        assert before in shipped and before not in extended
    if after:
        assert after not in shipped and after in extended


def test_a_pack_adds_a_stop_word_and_the_classifier_no_longer_names_it(tmp_path):
    # stop_words: a word the shipped classifier names in its echo tells it nothing once a pack stops it
    # (the word is taken from the shipped echo, since which words the examples weigh moves as the corpus
    # rotates)
    text = "the paper reports good results although my val accuracy is 0.6"
    shipped = _echo(text)
    assert "examples: " in shipped
    word = shipped.split("examples: ", 1)[1].split()[0].strip(")")
    extended = _echo(text, [_pack(tmp_path, f"stop_words: ['{word}']")])
    assert extended.startswith("I read:")
    assert word not in extended.split("examples: ", 1)[-1].split()


def test_a_pack_adds_a_number_word_and_a_pattern_that_captures_it(tmp_path):
    pattern = "facts:\n  - fact: batch_size\n    patterns: ['batch size of a (?P<num>dozen)']\n"
    text = "my batch size of a dozen is too small"
    (tmp_path / "pattern").mkdir()
    (tmp_path / "word").mkdir()
    # the capture alone is no number; with the word's value it is the batch size
    assert "batch_size" not in _echo(text, [_pack(tmp_path / "pattern", pattern)])
    assert "batch_size 12" in _echo(text, [_pack(tmp_path / "word", pattern + "number_words: {dozen: 12}")])


def test_a_pack_adds_a_magnitude_word_and_the_number_grows(tmp_path):
    # "2 lakh images" is 200,000 images once "lakh" is a magnitude word; the shipped KB reads no size
    text = "the dataset has 2 lakh images in total"
    assert "train_size" not in _echo(text)
    assert "train_size 200000" in _echo(text, [_pack(tmp_path, "magnitude_words: {lakh: 100000}")])


def test_the_shipped_lists_still_read_changes_ranges_units_and_number_words():
    assert "val_loss 1.1" in _echo("my val loss went from 2.3 to 1.1")
    assert "val_loss" not in _echo("my val loss is between 0.3 and 0.6")
    assert "train_loss 0.2" in _echo("val loss is 3 epochs in and train loss 0.2")
    assert "batch_size 4" in _echo("I use a batch size of four")
    assert "train_size 1600000" in _echo("ran it for 3k steps, the dataset has 1.6 million images")
    assert "regularization: none" in _echo("I'm not using dropout, augmentation or weight decay")


@pytest.mark.parametrize("body, named", [
    ("metric_prefixes: ['((']", "metric_prefixes"),          # no valid pattern
    ("metric_prefixes: ['va+l_']", "metric_prefixes"),        # not fixed-width: cannot stand in a lookbehind
    ("clause_words: ['[unclosed']", "clause_words"),
    ("split_after: {prepositions: ['(?P<x']}", "split_after.prepositions"),
])
def test_a_packs_bad_grammar_word_is_one_error_naming_the_pack_file_and_the_list(tmp_path, body, named):
    # a word is joined with the shipped ones into one regex; its error must still point at the pack
    # that brought it, not at the core file whose pattern the joined regex happens to compile in
    from traindx.engine.errors import KBError

    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, body)])
    msg = str(exc.value)
    assert "grammar.yaml" in msg and named in msg and "\n" not in msg.strip()
