"""More shapes of complaint read (issue 10, session 43).

- A hang told by the code or the process ("the code got stuck after 5000 iterations") or by the hours it sat at one
  place with no value named ("it has been stuck for over 3 days now", "after 5 hours it still stays there"): out of
  scope; a loss stuck at a value for days is still a level.
- The time growing as the run goes on, its subject the bare "time" ("time grows as the epochs go on") or said in
  Chinese (每个epoch的时间越来越长): slow training.
- "The lower the training loss, the higher the validation loss" (训练loss越小，验证loss越大): overfitting.
- GPU memory running out said in Chinese (显存不够, 爆显存): out of scope, a CUDA out-of-memory error; a batch size said
  in Chinese before its name (16的batch size), with an adverb before the verb (batchsize都改成4) or changed from an old
  value (batch size从64调到8).
- A loss that fell at first, then stopped, said in Chinese (一开始下降了一点，后面...): a plateau; a swing around one
  level (一直在2.3附近震荡) is no unstable run.
- A vector quantizer's codebook perplexity rising (a VQ-VAE): healthy, more codes in use; a language model's
  perplexity rising is not.
- Training and validation accuracy close but a test accuracy far below both: a gap all the same (overfitting), and the
  test value is read as the test set's own.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


def _symptom(text, lang):
    return understand(text, lang).symptom


@pytest.mark.parametrize("text", [
    "The code got stuck after 5000 iterations and nothing happens.",
    "Training on my own data: it has been stuck for over 3 days now.",
    "The progress bar shows epoch 2, but after about 5 hours it still stays there.",
    "After the first epoch the code got stuck, no error.",
])
def test_a_run_that_sits_at_one_place_is_a_hang(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "other_error"


def test_a_loss_stuck_at_a_value_for_days_is_still_a_level(lang):
    assert _symptom("My loss has been stuck at 0.3 for 2 days of training.", lang) != "out_of_scope"


@pytest.mark.parametrize("text", [
    "Time grows as the epochs go on, is that expected?",
    "The time grows with the iterations, why?",
    "训练的时候每个epoch的时间越来越长",
])
def test_the_time_growing_as_the_run_goes_on_is_slow_training(lang, text):
    assert _symptom(text, lang) == "slow_training"


@pytest.mark.parametrize("text", [
    "The lower the training loss gets, the higher the validation loss climbs.",
    "训练集loss越低，测试集loss反而越高",
])
def test_the_training_and_validation_losses_moving_apart_is_overfitting(lang, text):
    assert _symptom(text, lang) == "overfitting"


@pytest.mark.parametrize("text", ["训练的时候显存不够，怎么办", "一跑就爆显存"])
def test_gpu_memory_running_out_said_in_chinese_is_out_of_memory(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "cuda_oom"


@pytest.mark.parametrize("text, size", [
    ("我只用了16的batch size训练", 16),
    ("参数batchsize都改成4，还是不行", 4),
    ("我把batch size从64调到8了", 8),
])
def test_a_batch_size_said_in_chinese(lang, text, size):
    assert stated_facts(understand(text, lang)).get("batch_size") == size


def test_a_loss_that_fell_at_first_then_stopped_in_chinese_is_a_plateau(lang):
    assert _symptom("loss一开始下降了一点，后面一直在3.1震荡，不收敛", lang) == "plateau"


def test_a_fall_then_a_rise_in_chinese_is_not_that_plateau(lang):
    assert _symptom("loss刚开始下降到0.5，后来上升到4左右", lang) != "plateau"


def test_a_swing_around_one_level_in_chinese_is_no_unstable_run(lang):
    # (in a title the swing word weighs more: the level's words below it do not outweigh it there)
    assert _symptom("我用自己的数据训练了20个epoch。loss一直在2.3附近震荡", lang) != "instability"


def test_a_codebook_perplexity_rising_is_healthy(lang):
    assert _symptom("The codebook perplexity of my VQ-VAE keeps increasing during training.", lang) == "healthy"


def test_a_language_models_perplexity_rising_is_not_that(lang):
    assert _symptom("The perplexity of my language model keeps increasing during training.", lang) != "healthy"


def test_a_test_accuracy_far_below_train_and_validation_is_a_gap(lang):
    u = understand("Is it overfitting? The training and validation accuracy are both above 95%, but the test "
                   "accuracy is only 50%.", lang)
    assert u.symptom == "overfitting"
    assert stated_facts(u).get("test_accuracy") == pytest.approx(0.5)


def test_a_test_accuracy_close_to_both_leaves_the_run_healthy(lang):
    u = understand("Is it overfitting? The training accuracy is 92%, the validation accuracy 91% and the test "
                   "accuracy 90%.", lang)
    assert u.symptom == "healthy"
