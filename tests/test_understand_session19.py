"""Facts read wrong and recurring out-of-scope shapes, by mechanism (session 19, issue 10): beside a run's whole
batch size, one device's or micro-step's share of it is not the run's setting; a rate after a number ("about 1
point per epoch") and a guess at what more training "may" reach are no loss level; TensorFlow's "must have rank"
is a shape error; "Vali Loss" names the validation split; a question about the backbone, or using a transformer
instead of an LSTM in Chinese, asks for architecture advice; an RL agent or a Q network is reinforcement
learning; Russian complaints name their symptom. The sentences are written for these tests, in the shape of
forum posts and issue threads."""
import pytest

from traindx.engine.understand import understand


def _facts(u):
    return {r.fact: r.value for r in u.facts}


@pytest.mark.parametrize("text, size", [
    ("Loss spikes after 2k steps on 16 GPUs. My config: global_batch_size=1024, per_device_train_batch_size=8, "
     "lr=3e-4", 1024),
    ("Loss goes to 0 after a few steps with LoRA. --learning_rate=2e-4 --batch_size=256 --micro_batch_size=4", 256),
    # the share stated alone is still the run's setting
    ("Training is unstable. --per_device_train_batch_size 2 --gradient_accumulation_steps 16 --bf16", 2),
])
def test_the_whole_batch_size_beside_a_devices_share(lang, text, size):
    assert _facts(understand(text, lang)).get("batch_size") == size


def test_a_rate_after_a_number_is_no_loss_level(lang):
    text = ("Finetuning is very slow to converge. When the train loss reached 120 the val loss started to climb, and "
            "the train loss reduce very slow, about 2 point per epoch.")
    facts = _facts(understand(text, lang))
    assert facts.get("train_loss") == 120


def test_what_more_training_may_reach_is_a_guess_not_the_loss(lang):
    text = ("The loss is about 1.8 after two days of training and decreasing very slowly. Training for another week "
            "might reduce the loss down to ~1.6 (not tried yet), is it worth it?")
    facts = _facts(understand(text, lang))
    assert facts.get("train_loss") == 1.8


def test_tensorflows_rank_error_is_a_shape_error(lang):
    text = "I get an error as soon as fit() starts: ValueError: Shape (32, 20, 3) must have rank 2"
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert _facts(u).get("error_kind") == "shape_error"


def test_vali_loss_is_the_validation_loss(lang):
    text = "Is this overfitting? Epoch: 12 | Train Loss: 0.2150 Vali Loss: 0.4410"
    facts = _facts(understand(text, lang))
    assert facts.get("train_loss") == 0.215
    assert facts.get("val_loss") == 0.441


@pytest.mark.parametrize("text", [
    "Why did you pick a Swin backbone for the detector? Would a ConvNeXt backbone work as well?",
    "How do I swap the backbone for an EfficientNet? I could not find where it is built.",
    "请问哪个backbone在小目标上效果最好？",
    "有没有考虑过用transformer替换LSTM？",
])
def test_a_question_about_the_backbone_is_architecture_advice(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert _facts(u).get("wants_architecture_advice") is True


@pytest.mark.parametrize("text", [
    "DQN not learning. I am using the following double DQN agent and it does not learn at all, it keeps picking "
    "the same action.",
    "The loss does not decrease. I suspect the problem is that I update the target Q network every step.",
])
def test_an_rl_agent_is_out_of_scope_whatever_else_the_post_says(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert _facts(u).get("rl_training") is True


@pytest.mark.parametrize("text, symptom", [
    ("Лосс сильно скачет от батча к батчу, иногда 0.3, иногда 2.5. Что не так?", "instability"),
    ("Точность на валидации падает, а на обучении растёт: похоже на переобучение.", "overfitting"),
    ("Лосс почти не меняется с первой эпохи, точность около 10%.", "not_learning"),
    ("Лосс сначала падал, а после 20 эпох перестал уменьшаться.", "plateau"),
])
def test_russian_complaints_name_their_symptom(lang, text, symptom):
    assert understand(text, lang).symptom == symptom


def test_a_batch_size_alone_is_not_dropped_as_a_share(lang):
    # "local" in another word of the line is no share of the batch size
    text = "Loss is stuck at 0.69. local run, batch_size=32, lr=1e-3"
    assert _facts(understand(text, lang)).get("batch_size") == 32


@pytest.mark.parametrize("text, used", [
    ("Overfitting after epoch 5. model: two conv blocks with dropout=0.5 and weight decay 1e-4",
     ["dropout", "weight_decay"]),
    ("Val loss climbs from epoch 3. I use dropout: 0.3 and augmentation", ["augmentation", "dropout"]),
])
def test_a_dropout_with_a_nonzero_rate_is_dropout_in_use(lang, text, used):
    assert sorted(_facts(understand(text, lang)).get("regularization")) == used


def test_a_dropout_rate_of_none_is_no_dropout(lang):
    text = "It overfits after one epoch. model = DeepFM(embed_size=16, lr=1e-4, batch_size=1, dropout_rate=None)"
    assert "dropout" not in (_facts(understand(text, lang)).get("regularization") or [])


def test_shouldnt_it_be_states_an_expectation_not_the_loss(lang):
    text = ("Training loss is 0.0042 but test accuracy is only 40%. Shouldn't the accuracy be close to 100% "
            "with a loss near 0?")
    assert _facts(understand(text, lang)).get("train_loss") == 0.0042


def test_trouble_importing_a_package_is_an_import_error(lang):
    text = ("I have trouble importing apex after installing it from source, it raises this error: Traceback (most "
            "recent call last): File \"main.py\", line 3, in <module> ...")
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert _facts(u).get("error_kind") == "import_error"
