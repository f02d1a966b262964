"""More shapes of complaint read (issue 10, session 44).

- A sequence model's attention or alignment that never forms (empty, blank, "not forming", "failed to converge"):
  not learning, even beside a falling loss or a "how long does it take" question.
- Reinforcement learning named by a multi-agent algorithm (MAPPO, MADDPG, QMIX), in Chinese (强化学习, 奖励) or by a
  game agent's Elo: out of scope, ``rl_training``.
- The training itself stalling, or stopping after its first epoch ("stops after 1 epoch without giving any error"):
  out of scope, a hang; a metric stalling at a value, or a run stopped early because of a rule, is not.
- Slowness said as a noun or a ratio ("slowness", "half as fast", "10 times slower") or in Chinese (时间变慢了): slow
  training; a slow convergence (收敛很慢) is not named so.
- A held-out ELBO or likelihood above the training one: healthy (the validation-better-than-training pattern).
- Numbers: "200, 000 images" is 200000; "training data with size 512*512" gives each item's size, not a count.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


def _symptom(text, lang):
    return understand(text, lang).symptom


@pytest.mark.parametrize("text", [
    "My Tacotron attention alignment is not forming even after 60k steps, the loss looks fine.",
    "Attention is empty after 20k steps. How long does it normally take to align?",
    "The alignment training failed with my own dataset.",
    "Loss goes down quickly but the alignment cannot seem to converge.",
])
def test_an_attention_that_never_forms_is_not_learning(lang, text):
    assert _symptom(text, lang) == "not_learning"


def test_an_alignment_learnt_then_lost_is_not_named_not_learning(lang):
    assert _symptom("The alignment was learnt properly, then the loss jumps up suddenly and never recovers.",
                    lang) != "not_learning"


@pytest.mark.parametrize("text", [
    "With MAPPO the win rate is always 0 in every scenario.",
    "I train MADDPG on my robot task but it does not converge after 30k steps.",
    "我用强化学习训练小车，但是训练很久都不收敛",
    "训练过程中奖励曲线一直不上升",
    "Little Elo progress after training on 600 new games, almost no improvement.",
])
def test_reinforcement_learning_named_otherwise_is_out_of_scope(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("rl_training") is True


@pytest.mark.parametrize("text", [
    "The training suddenly stops after 1 epoch. Why?",
    "Why does the training stop after 1 epoch without giving any error?",
    "Training stalls. The training just stalls/stops at some epoch, no errors at all.",
])
def test_the_training_itself_stalling_or_stopping_is_a_hang(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "other_error"


@pytest.mark.parametrize("text", [
    "The perplexity seems to have stalled at ~5 for the past few days.",
    "Training stops improving after the first epoch, the loss stays at 0.6.",
])
def test_a_metric_that_stalls_stays_a_level(lang, text):
    assert _symptom(text, lang) != "out_of_scope"


@pytest.mark.parametrize("text", [
    "Slowness with the new release: my models train half as fast as before.",
    "Training on 8 TPUs is about 10 times slower than on one GPU.",
    "更新代码之后，发现训练模型的时间变慢了",
])
def test_slowness_as_a_noun_a_ratio_or_in_chinese_is_slow_training(lang, text):
    assert _symptom(text, lang) == "slow_training"


def test_a_held_out_elbo_above_the_training_one_is_healthy(lang):
    u = understand("Test ELBO higher than train ELBO, is that normal? I used the default settings.", lang)
    assert u.symptom == "healthy"
    assert stated_facts(u).get("val_better_than_train") is True


def test_thousands_after_a_comma_and_a_space(lang):
    assert stated_facts(understand("I trained it on a data set containing 200, 000 images and it is slow.",
                                   lang)).get("train_size") == 200000


def test_an_items_dimensions_are_no_training_size(lang):
    facts = stated_facts(understand("I have raw training data with size 512*512 and the loss is flat.", lang))
    assert facts.get("train_size") != 512
