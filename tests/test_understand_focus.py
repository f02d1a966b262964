"""Supervised term weighting in the example classifier (kb/parameters/language.yaml
``language.example_focus``, off by default): with it on, the vocabulary every complaint shares
("training", "model", "loss") does not outvote the one word that names the problem; with it off the
classifier is the plain TF-IDF centroid. A pack or a sweep (``crossval.py --set
language.example_focus=0.5``) turns it on without code. The sentences are written for these tests."""
import pytest

from traindx.engine.loader import load_kb
from traindx.engine.understand import _Examples

# a toy knowledge: the flat-loss complaints happen to use the shared words more often
TRAIN = [
    ("instability", "the loss oscillates"),
    ("instability", "it fluctuates wildly"),
    ("instability", "while training the model the loss swings up and down"),
    ("not_learning", "while training the model the loss stays the same"),
    ("not_learning", "training the model, loss is stuck"),
    ("not_learning", "the model loss is not decreasing in training"),
]
# wordy about training in general, one word about what is wrong
WORDY = "while training the model, the loss of the model oscillates in training"


@pytest.fixture(scope="module")
def lang():
    return load_kb(entry_point_packs=False).language


def _model(lang, focus, train=TRAIN):
    return _Examples(train, dict(lang.params, **{"language.example_focus": focus}), lang.stop_words)


def test_off_by_default_the_classifier_is_the_plain_centroid(lang):
    assert float(lang.params["language.example_focus"]) == 0.0
    m = _Examples(TRAIN, lang.params, lang.stop_words)
    assert m.focus == {}
    assert m.classify(WORDY)[0] == "not_learning"        # the shared words win without it


def test_on_the_word_that_names_the_problem_outweighs_the_shared_words(lang):
    guess, p, words = _model(lang, 0.5).classify(WORDY)
    assert guess == "instability" and p > 0.9
    assert "oscillates" in words


def test_shared_words_weigh_less_than_telling_ones(lang):
    m = _model(lang, 0.5)
    assert m.focus["w:oscill"] > m.focus["w:loss"]
    assert m.focus["w:model"] < 0.5 * m.focus["w:oscill"]


def test_one_symptom_alone_has_nothing_to_tell_apart(lang):
    m = _model(lang, 0.5, [("plateau", "stuck at 80 percent"), ("plateau", "no longer improves")])
    assert m.focus == {} and m.classify("it no longer improves")[0] == "plateau"
