"""Complaints read right (issue 10, session 51, helper words51).

- A sudden fall is healthy only of a loss: a speed or throughput that suddenly decreases is a run grown slow; an
  accuracy-like metric joined to its split ("a sudden drop in val_acc", "in validation_f1") or a value that suddenly
  drops to a percentage is a run that was learning and collapsed.
- The ETA a progress bar prints beside any complaint names no slow training.
- A divergence the loss measures (the KL, JS or an f-divergence, a "divergence loss") is a loss's name, no loss that
  diverges.
- The model or the training itself that collapses ("after some training the model just collapses") is a run that was
  learning and came apart: instability.
- The metric the run is for getting worse as training goes on ("BLEU decreasing as the number of epochs increases",
  "as training progresses, PSNR decreases", "FID increases with training") is overfitting.
- Episodes someone collected or recorded ("I collected about 50 episodes for a pick and place task") are a robot data
  set's size, no reinforcement learning, as "50 demo episodes".
- A loss that does not stabilize, or a stable loss that cannot be obtained, is instability, as "unstable".
- A learning rate called slow in Chinese, Korean or Japanese is the step size, no speed of the run; Korean "학습이 잘
  되지 않는" (it does not learn well) is not learning.

The sentences are written for these tests."""
import time

import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "The training speed suddenly decreases after the first epoch, from 2000 samples/sec to 200 samples/sec",
    "GPU throughput suddenly drops after 40 iterations and stays low until the end",
])
def test_a_speed_that_suddenly_falls_is_slow_training_not_a_healthy_fall(lang, text):
    assert understand(text, lang).symptom == "slow_training"


@pytest.mark.parametrize("text", [
    "I noticed a sudden drop in val_acc at epoch 3 while training with Adam",
    "during training there is a sudden drop in validation_f1 around epoch 40",
    "accuracy goes up to 81% and stays there, then suddenly drops to 12% and never recovers",
])
def test_a_metric_that_suddenly_falls_is_a_collapse(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_a_sudden_fall_of_the_loss_stays_healthy(lang):
    assert understand("why is there a sudden drop of the training loss at the start of each epoch?",
                      lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "my loss is 0.6063 and I wonder if training works. Epoch 27/128 1/10 [==>.....] - ETA: 17s - loss: 0.6063",
    "the loss suddenly becomes very large. Epoch [1][50/2766] lr: 0.01000, eta: 4:06:41, time: 1.344",
])
def test_a_progress_bars_eta_is_no_slow_training(lang, text):
    assert understand(text, lang).symptom != "slow_training"


def test_a_stated_time_per_iteration_is_still_read_as_speed(lang):
    assert understand("training is very slow, 14.02s/it on one GPU", lang).symptom == "slow_training"


@pytest.mark.parametrize("text", [
    "the distillation losses didn't decrease. I assume that it can be very hard to decrease the KL divergence loss.",
    "my JS divergence loss is not decreasing during training",
])
def test_a_divergence_the_loss_measures_is_no_diverging_loss(lang, text):
    assert understand(text, lang).symptom != "instability"


@pytest.mark.parametrize("text", [
    "the training loss diverges after 10 epochs",
    "a diverging loss when I raise the learning rate",
])
def test_a_diverging_loss_stays_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "학습이 잘 되지 않는 것 같습니다. learning rate를 조금 느리게 주는 것은 어떨지 궁금합니다.",
    "模型学不到东西，是不是学习率太慢了？",
])
def test_a_learning_rate_called_slow_is_no_slow_run(lang, text):
    assert understand(text, lang).symptom == "not_learning"


def test_korean_does_not_learn_well_is_not_learning(lang):
    assert understand("같은 데이터셋인데 학습이 잘 되지 않는 것 같습니다", lang).symptom == "not_learning"


@pytest.mark.parametrize("text", [
    "I do get better results at first, but after some training the model just collapses",
    "sometimes the training collapses when it is almost finished and the accuracy ends at 20%",
])
def test_a_model_that_collapses_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


@pytest.mark.parametrize("text", [
    "I trained the translation model for 10 epochs. BLEU score decreasing as no of epochs increases, why?",
    "Thanks for the code. As training progresses, PSNR decreases, from 20.82 to 20.00. how to solve it?",
    "Why do HR and MRR become smaller after each epoch? the mean loss keeps going down",
    "I just run the training script on a single GPU and the FID increases with training. Any idea?",
])
def test_a_metric_that_worsens_as_training_goes_on_is_overfitting(lang, text):
    assert understand(text, lang).symptom == "overfitting"


def test_a_metric_that_improves_as_training_goes_on_is_no_overfitting(lang):
    assert understand("the loss stagnates at 2.3 after 10 epochs while the accuracy increases with training",
                      lang).symptom == "plateau"


def test_episodes_collected_as_data_are_no_rl(lang):
    u = understand("I collected about 50 episodes for a simple pick and place task and the loss flattens after 2k "
                   "steps", lang)
    assert u.symptom == "plateau"
    assert "rl_training" not in stated_facts(u)


@pytest.mark.parametrize("text", [
    "During the training process, a stable loss cannot be obtained, and images cannot be generated at all times.",
    "I can't get a stable loss at all, the images are garbage",
    "the model cannot reach a stable training, nothing works at all",
    "the generator loss does not stabilize after 30 epochs",
])
def test_a_loss_that_never_stabilizes_is_instability(lang, text):
    assert understand(text, lang).symptom == "instability"


def test_the_new_phrasings_read_a_hostile_line_in_linear_time(lang):
    text = ("sudden drop in val_ sudden drop to 1 KL divergence loss 학습률 the model just PSNR decreasing as "
            "training decreasing FID increases as training not stabilize cannot get a stable " * 80)[:4096]
    understand("the loss does not decrease", lang)      # the example classifier is built once, not timed here
    t0 = time.perf_counter()
    understand(text, lang)
    assert time.perf_counter() - t0 < 5.0
