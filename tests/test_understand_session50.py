"""Complaints read right (issue 10, session 50, helper words50).

- A detection score (mAP, AP/AR), a policy's success rate, precision or recall pinned at zero is a model that has
  learned nothing, as a dice at zero; a validation split is no exception (detection is scored on it). A score of
  0.5 or a class numbered 0 is no such statement.
- DPO's implicit rewards ("rewards/chosen", "chosen rewards and rejected rewards") are preference tuning of a language
  model, no reinforcement learning: the post stays in scope. Both falling or negative is expected: healthy.
- Episodes counted as recorded robot data ("50 demo episodes", "number of train episodes: 367", "Dataset used = 200
  episodes") are a data set's size, no RL run; an RL run's episodes ("the episode reward", "after 3000 episodes")
  stay RL.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "When i used detr on my dataset without pretrained weights, the MAP is 0, anyone know what the matter?",
    "training my own 4 classes dataset, getting validation mAP=0 even after 200 epochs",
    "Zero AP/AR scores during every evaluation when training on a custom COCO dataset",
    "Sucess Rate: 0 % for every task after training the policy",
    "precision, recall and mAP are 0 on my single class dataset",
])
def test_a_detection_score_or_success_rate_at_zero_is_not_learning(lang, text):
    assert understand(text, lang).symptom == "not_learning"


@pytest.mark.parametrize("text", [
    "the mAP for class 0 is 0.35 and the loss goes down slowly",
    "my mAP is 0.5 after 10 epochs, the validation loss keeps rising while training loss falls",
])
def test_a_nonzero_score_or_a_class_number_is_no_zero_score(lang, text):
    assert understand(text, lang).symptom != "not_learning"


@pytest.mark.parametrize("text", [
    "DPO {'loss': 0.2374, 'rewards/chosen': -0.278, 'rewards/rejected': -7.67, 'rewards/margins': 7.39} "
    "rewards/chosen is always negative, is that ok?",
    "question about chosen rewards and rejected rewards? both are negative values in my dpo run, "
    "does the model degenerate?",
    "DPO训练，chosen_reward和rejected_reward都是负数，而且随着训练越来越小。",
    "the log probability of both chosen & rejected answers keeps decreasing during DPO, which is strange",
])
def test_dpo_implicit_rewards_falling_are_healthy_and_no_rl(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert "rl_training" not in stated_facts(u)


@pytest.mark.parametrize("text, symptom", [
    ("I used your 50 demo episodes to train ACT and it worked, but diffusion policy does not learn anything",
     "not_learning"),
    ("number of train episodes: 367, number of validation episodes: 41. The model fits very well on the training "
     "set, but performs poorly on the validation set", "overfitting"),
])
def test_episodes_counted_as_recorded_data_are_no_rl(lang, text, symptom):
    u = understand(text, lang)
    assert u.symptom == symptom
    assert "rl_training" not in stated_facts(u)


@pytest.mark.parametrize("text", [
    "my agent's episode reward does not improve after 3000 episodes",
    "the mean 100 episode reward has not improved after 8 million steps",
    "after 5000 episodes the agent still does not learn",
])
def test_an_rl_runs_episodes_stay_out_of_scope(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("rl_training") is True


def test_a_zero_score_is_read_in_linear_time_on_a_hostile_line(lang):
    import time
    text = ("mAP mAP is always still " * 200)[:4096]
    t0 = time.perf_counter()
    understand(text, lang)
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize("text, batch_size", [
    ("config = HifiganConfig(batch_size=64, eval_batch_size=16, num_loader_workers=4) the avg loss is not decreasing",
     64),
    ("Namespace(lr=0.1, batch_size=128, nepochs=160, test_batch_size=1000) and each epoch is very slow", 128),
    ("train_batch_size: 32\nval_batch_size: 8\nthe validation loss goes up after epoch 3", 32),
])
def test_an_evaluation_splits_batch_size_is_no_training_batch(lang, text, batch_size):
    assert stated_facts(understand(text, lang)).get("batch_size") == batch_size


@pytest.mark.parametrize("text, batch_size", [
    ("I use 4 A800 gpus. The batch size of each gpu is 10. Each step takes close to 10 minutes", 10),
    ("the batch size on each device is 8 and training is very slow", 8),
])
def test_a_batch_size_of_each_gpu_is_read(lang, text, batch_size):
    assert stated_facts(understand(text, lang)).get("batch_size") == batch_size


@pytest.mark.parametrize("text, size", [
    ("how many epochs for 2500 audios is a good amount? the loss doesnt go below 22", 2500),
    ("My dataset is small at 66 midis and the generated music copies the training songs", 66),
    ("the data set is small though, about 100 wavs with length at most 8 seconds", 100),
    ("I trained the uncropping model on a subset that has 9000 pics and the loss is going up", 9000),
    ("my training dataset consists of only 80 patient cases and the dice stays low", 80),
    ("a GRU on 249456 SMILES sequences, the validation loss goes up after the fifth epoch", 249456),
    ("I have 8100 time series data with a batch size of 64 and the loss is strange", 8100),
])
def test_a_data_set_counted_in_audio_pictures_cases_or_molecules_states_its_size(lang, text, size):
    assert stated_facts(understand(text, lang)).get("train_size") == size


def test_a_count_per_item_is_no_data_set_size(lang):
    text = "We have a dataset of at least 1000 audios/speaker and the loss is strange"
    assert "train_size" not in stated_facts(understand(text, lang))


@pytest.mark.parametrize("text", [
    "Finetuning the vocoder will stuck at random step, the last line is self.manual_backward(loss_d)",
    "the training hangs at a certain iteration every time, nothing is printed",
    "A hang occurs after the script finishes its first epoch's training",
])
def test_a_run_stuck_at_a_random_step_or_a_hang_is_out_of_scope(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "other_error"


def test_a_loss_stuck_at_a_certain_value_stays_a_level(lang):
    assert understand("the loss gets stuck at a certain value of 0.69 after some epochs", lang).symptom == "plateau"


@pytest.mark.parametrize("text", [
    "运行了源码，没有修改过参数，但是loss和reward的结果很震荡，为什么？",
    "使用脚本进行训练，acuracy_reward震荡，是什么原因",
    "My reward_mean is not going up at all during training",
])
def test_a_reward_beside_chinese_or_an_underscore_is_rl(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("rl_training") is True


def test_dpo_rewards_before_chinese_are_no_rl(lang):
    text = "dpo训练的时候，我的loss和rewards/chosen一直是0，这正常吗？ {'loss': 0.6931, 'rewards/chosen': 0.0}"
    u = understand(text, lang)
    assert u.symptom != "out_of_scope"
    assert "rl_training" not in stated_facts(u)


def test_a_loss_higher_than_in_the_first_epoch_is_no_early_bump(lang):
    text = ("the loss was very low in the first epoch, but increased sharply in the second epoch, and subsequently, "
            "the loss remained higher than in the first epoch")
    u = understand(text, lang)
    assert u.symptom == "instability"
    assert "bump_after_restart" not in stated_facts(u)


def test_a_loss_rising_during_the_first_epoch_is_still_an_early_bump(lang):
    u = understand("the loss increased slightly during the first epoch, is it normal?", lang)
    assert u.symptom == "healthy"
    assert stated_facts(u).get("bump_after_restart") is True


def test_a_detection_score_at_zero_in_the_first_epochs_is_where_runs_start(lang):
    u = understand("the mAP is 0 in the first few epochs, is this normal?", lang)
    assert u.symptom == "healthy", u.scores
