"""The grammar words of the number attribution are knowledge (issue 11 in issue 10's reader): which
words make a number a count ("epoch 3"), which function words may stand between a setting and its
value ("the lr is 0.004"), which comparatives bound a value ("more than 70%") and which words compare
two quantities ("than", "vs"). They live in kb/language (schema kb-language), so a pack extends them;
each test shows the echo a user gets (``I read: ... val_accuracy 0.6``) before and after a pack adds one word."""

import pytest

from conftest import language_pack, understood_echo

_echo = understood_echo
_pack = language_pack


@pytest.mark.parametrize("body, text, before, after", [
    # a count: "round 3" numbers a round, so 3 is no accuracy (the shipped KB reads "train accuracy 3%")
    ("counted_words: ['round']", "train accuracy at round 3 reaches 90%",
     "train_accuracy 0.03", None),
    # a function word between a setting and its value: "the lr was kept at 0.0004" is the lr's value,
    # not the loss falling from 1.8 to 0.0004
    ("setting_gap_words: [kept]", "the loss stopped decreasing at about 1.8. the lr was kept at 0.0004",
     "train_loss 0.0004", "train_loss 1.8"),
    # a comparison: "compared to 0.9 in the paper" is not the run's validation accuracy (the symptom is
    # named in so many words, so the echo still has a line once the number is gone)
    ("comparison_words: ['compared to']", "the model overfits: the val accuracy compared to 0.9 in the paper is bad",
     "val_accuracy 0.9", None),
    # a bound: "no better than 60%" still states where the validation accuracy is
    ("bound_words: ['(?:no )?better th[ae]n']", "my val accuracy is no better than 60% while train acc is 99%",
     None, "val_accuracy 0.6"),
])
def test_a_pack_adds_a_grammar_word_and_the_echo_changes(tmp_path, body, text, before, after):
    shipped = _echo(text)
    extended = _echo(text, [_pack(tmp_path, body)])
    assert shipped.startswith("I read:") and extended.startswith("I read:")
    if before:
        assert before in shipped and before not in extended
    if after:
        assert after not in shipped and after in extended


def test_the_shipped_grammar_words_still_read_counts_settings_and_bounds():
    echo = _echo("val accuracy is more than 70% after epoch 3, the lr is 0.004 and train acc is 99%")
    assert "val_accuracy 0.7" in echo and "train_accuracy 0.99" in echo
    assert "learning_rate 0.004" in echo
    assert "0.03" not in echo
