"""Words read the way a poster means them (session 27, issue 10): the negative samples of a ranking loss are no
negative loss, and a loss said to be NaN is no healthy run whatever else is asked about it; a value of 1e10 or more
has overflowed; printing the loss "at each epoch" is no step at every epoch; a process that gets stuck, stops
without an error or whose notebook kernel breaks has crashed; asking whether a model can do another task is a
question about its use; an error rate at or above 1 (CER, WER) learned nothing, as does a loss that falls while the
metric does not move; a decimal point ends no title; a ceiling phrase counts once; French, "not optimizing", "only
increases in the first epoch" and "trained longer, scores lower" are read; epochs and data sizes written as
settings are read; a paragraph above a pasted log is the poster's words, not a log row. The sentences are written
for these tests."""
import pytest

from conftest import stated_facts as facts
from traindx.engine.understand import understand


def test_negative_samples_are_no_negative_loss(lang):
    u = understand("the contrastive losses for positive and negative pairs explode to hundreds of thousands", lang)
    assert u.symptom == "explosion", u.scores
    assert understand("my loss became negative during training, is that a problem?", lang).symptom == "healthy"


def test_a_nan_loss_is_no_healthy_run(lang):
    u = understand("NaN loss after a few epochs. Is it also fine that my loss is negative at the start?", lang)
    assert u.symptom == "explosion", u.scores


@pytest.mark.parametrize("text", [
    "the regression does not converge, after 200 epochs the printed loss is 3.2e41",
    "the loss keeps falling to -4e15 and the predictions are useless",
])
def test_a_value_past_1e10_has_overflowed(lang, text):
    assert understand(text, lang).symptom == "explosion"


def test_a_count_of_tokens_in_that_notation_is_no_overflow(lang):
    assert understand("we pretrain on 2.5e10 tokens and the loss plateaus at 2.1", lang).symptom == "plateau"


def test_printing_the_loss_each_epoch_is_no_epoch_boundary_step(lang):
    u = understand("logging the loss at each epoch shows that the loss isn't converging", lang)
    assert u.symptom != "healthy", u.scores
    assert understand("the loss drops suddenly after every epoch, why?", lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "the optimizer runs one iteration and then the process seems to get stuck, no cpu is used",
    "fit() stops working after the first iteration without an error",
    "the notebook kernel keeps crashing at the training step",
    "the loss computation step keeps failing when I run the tutorial",
    "is it possible to do classification with this forecasting transformer?",
    "I want to use this model for a text classification task, what do I have to change?",
])
def test_crashes_and_questions_about_a_models_use_are_out_of_scope(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text", [
    "after two days of training the CER on the dev set stays above 1",
    "the WER is 99% after 5 epochs of fine-tuning",
    "my losses keep going down but the mIOU stays the same after 20 epochs",
    "mon réseau n'apprend rien, l'erreur reste constante",
    "the solver is running but not optimizing",
])
def test_a_model_that_learns_nothing_useful_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_a_good_error_rate_is_not_not_learning(lang):
    assert understand("the CER is 0.12 after 30 epochs and does not go down any more", lang).symptom == "plateau"


def test_a_decimal_point_does_not_end_the_title(lang):
    u = understand("AUC stuck at 0.5 on my data. After 100 epochs the accuracy does not go above 0.58 either.", lang)
    assert u.symptom == "not_learning", u.scores


def test_a_ceiling_phrase_counts_once(lang):
    # "does not go above 0.58" is one ceiling, not two: one class predicted for every input outweighs it
    u = understand("the accuracy does not go above 0.58 and it predicts the same class for every input", lang)
    assert u.symptom == "not_learning", u.scores


def test_other_phrasings_of_plateau_and_overfitting(lang):
    assert understand("the train accuracy only increases in the first epoch", lang).symptom == "plateau"
    u = understand("why does the model trained longer get a lower precision on the gallery?", lang)
    assert u.symptom == "overfitting", u.scores


@pytest.mark.parametrize("text, value", [
    ("lr = 0.01, epoch = 300, crop = 64", 300),
    ("python train.py -lr 0.05 -epoch 25 -dim 100", 25),
    ("accelerate launch train.py --max_train_epochs 8", 8),
    ("num_epochs: int=12 batch_size: int=4", 12),
    ("I set epochs to 40 and the val loss goes up", 40),
    ("现在epoch到了150，但是准确率不变", 150),
])
def test_epochs_written_as_a_setting(lang, text, value):
    assert facts(understand(text, lang)).get("epochs") == value


@pytest.mark.parametrize("text, value", [
    ("Train set size: 12000, Validation set size: 800", 12000),
    ("the training set was consist of 420 pdb files", 420),
    ("训练集大概有3万多张图片", 30000),
    ("只有50条的训练集", 50),
])
def test_a_training_set_size_written_plainly(lang, text, value):
    assert facts(understand(text, lang)).get("train_size") == value


def test_a_comparison_is_no_training_set_size(lang):
    assert "train_size" not in facts(understand("the training set has 300 more images than before", lang))


def test_a_paragraph_above_a_pasted_log_is_the_posters_words(kb):
    from traindx.engine.frontends import gather
    text = ("My word2vec model reports a loss of 0 from epoch 1? I train it on 200k sentences with 50k unique words "
            "and 300 dimensions, and the problem is that from the first epoch the loss is 0 and the vectors of the "
            "words I monitor do not change at all, whatever I try with the learning rate!\n"
            "    Model loss: 0.0\n"
            "    Model loss: 0.0\n")
    prose, pasted = gather.split_paste(text, params=kb.params())
    assert "vectors of the words" in prose
    assert pasted is not None and "vectors" not in pasted
    assert understand(prose, kb.language).symptom == "not_learning"
