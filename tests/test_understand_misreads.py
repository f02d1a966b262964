"""Facts a user would see echoed wrong ("I read: epochs 200" when they trained 30): a number that
belongs to another quantity, a spike's height, a setting asked about rather than used, a config
line that says mixed precision is off, a loss function switched from one to another. Better not
read than read wrong. The phrasings are written for these tests (not taken from the complaint corpus)."""
import pytest

from traindx.engine.api import Session
from traindx.engine.loader import load_kb
from traindx.engine.understand import understand


@pytest.fixture(scope="module")
def kb():
    return load_kb(entry_point_packs=False)


def read(kb, text):
    return {r.fact: r.value for r in understand(text, kb.language).facts}


@pytest.mark.parametrize("text,fact,right", [
    # a segmentation / retrieval score after the loss is not the loss
    ("my unet loss came down to roughly 0.42 yet the iou is stuck at 0", "train_loss", 0.42),
    ("the training loss reached 1.3, however the f1 score stays at 0.05", "train_loss", 1.3),
    # the level, not how high the spikes go
    ("loss settles near 0.8 and then every few hundred steps it spikes up to 4", "train_loss", 0.8),
])
def test_a_number_of_another_quantity_is_not_the_loss(kb, text, fact, right):
    assert read(kb, text).get(fact) == pytest.approx(right)


@pytest.mark.parametrize("text,fact", [
    ("the bleu is 0.31 after a day", "train_loss"),
    ("mean dice 0.12 on my scans, nothing improves", "train_loss"),
    ("the reward is around 15 and never moves", "train_loss"),
    ("in the loss curve there are sudden spikes that reach 9", "train_loss"),
    ("val loss jumps to 3.2 every epoch", "val_loss"),
])
def test_a_value_that_is_no_level_of_the_loss_is_left_unread(kb, text, fact):
    assert fact not in read(kb, text)


@pytest.mark.parametrize("text,fact,wrong", [
    ("trained 30 epochs so far, should I keep going to 200 epochs?", "epochs", 200),
    ("my run uses lr 3e-4. would it help if I use lr 1e-5 instead?", "learning_rate", 1e-5),
    ("loss is flat with cosine decay. what if I use a StepLR scheduler?", "scheduler", "steplr"),
    ("batch size is 32 right now. do you think a batch size of 256 is better?", "batch_size", 256),
])
def test_a_setting_asked_about_is_not_the_runs(kb, text, fact, wrong):
    assert read(kb, text).get(fact) != wrong


def test_the_setting_stated_beside_the_question_is_still_read(kb):
    f = read(kb, "trained 30 epochs so far, should I keep going to 200 epochs?")
    assert f.get("epochs") == 30
    f = read(kb, "my run uses lr 3e-4. would it help if I use lr 1e-5 instead?")
    assert f.get("learning_rate") == pytest.approx(3e-4)


@pytest.mark.parametrize("text,n", [
    ("val loss got worse and I watched it until the 60th epoch", 60),
    ("nothing changed from epoch 3 till about epoch 25", 25),
])
def test_the_last_epoch_watched_is_the_epoch_count(kb, text, n):
    assert read(kb, text).get("epochs") == n


@pytest.mark.parametrize("line", ["Mixed precision: False", "AMP: off", "fp16: no", "use_amp = false"])
def test_a_config_line_that_turns_mixed_precision_off_reads_false(kb, line):
    f = read(kb, "my settings:\n    Learning rate: 0.001\n    " + line + "\n")
    assert f.get("uses_amp") is False
    assert "amp_dtype" not in f


def test_a_loss_switched_from_one_to_another_reads_the_new_one(kb):
    f = read(kb, "I went from MSELoss to CrossEntropyLoss and now it crashes")
    assert f.get("loss_function") == "cross_entropy"
    f = read(kb, "switched the criterion from nn.CrossEntropyLoss to nn.BCEWithLogitsLoss")
    assert f.get("loss_function") == "bce_with_logits"


def test_a_target_and_input_size_error_is_a_shape_error():
    from traindx.probes.readers import console
    log = console.read_console_text(
        "Traceback (most recent call last):\n  File \"fit.py\", line 7, in <module>\n"
        "ValueError: Target size (torch.Size([8, 3])) must be the same as input size (torch.Size([8, 5]))\n")
    assert log.errors and log.errors[-1]["kind"] == "shape_error"


# ------------------------------------------------------------------ which symptom the words say
def symptom(kb, text):
    u = understand(text, kb.language)
    return u.symptom, u.scores


@pytest.mark.parametrize("text", [
    # a healthy run: the end result is right, whatever the curve did on the way
    "the val loss sat flat for ten epochs, then fell, and my final test scores look fine. is that ok?",
    "my numbers are close to the published results but the training curve had a long flat stretch",
    # a loss step at each epoch boundary is the epoch average restarting, not a fault
    "fine-tuning a chat model for 4 epochs, the train loss drops like a stair right after a new epoch starts",
    "the training loss goes down in a step at each new epoch boundary, weird?",
    # a sudden improvement
    "for a while nothing happened and then the loss dropped sharply and kept going",
])
def test_a_run_that_ends_well_is_read_healthy(kb, text):
    got, scores = symptom(kb, text)
    assert got == "healthy", scores


def test_a_healthy_post_names_no_cause_above_one_half(kb):
    s = Session(kb)
    s.add_complaint("my final eval scores look normal, it's just that the loss had a flat phase "
                    "before it suddenly started to drop quickly. is this expected?")
    assert s.symptom() == "healthy"
    assert all(c["confidence"] <= 0.5 for c in s.report()["root_causes"])


@pytest.mark.parametrize("text,want", [
    # "stop training" as the user's own action says nothing about the curve
    ("my accuracy is 10% on 10 classes from the first batch, I will stop training soon", "not_learning"),
    # the validation loss stalling while training goes on is where overfitting starts
    ("train loss keeps falling nicely. the validation loss stopped decreasing at epoch 12 and "
     "then it creeps up", "overfitting"),
])
def test_not_learning_plateau_and_overfitting_told_apart(kb, text, want):
    got, scores = symptom(kb, text)
    assert got == want, scores


@pytest.mark.parametrize("text,want", [
    ("each epoch takes longer than the one before: 5 minutes first, 40 minutes by epoch 6", "slow_training"),
    ("the step time keeps increasing the longer the job runs", "slow_training"),
    ("there's a 30 second pause between epochs before the next epoch starts", "slow_training"),
    ("the job just sits there doing nothing right before the training starts", "out_of_scope"),
    ("my agents in the multi-agent env have learned nothing after 2 million timesteps", "out_of_scope"),
    ("I have a GPU memory problem with my 4GB card, can I still train this?", "out_of_scope"),
])
def test_speed_and_out_of_scope_posts(kb, text, want):
    got, scores = symptom(kb, text)
    assert got == want, scores


def test_a_small_batch_for_lack_of_memory_is_still_about_the_nan(kb):
    got, scores = symptom(kb, "with fp16 the loss turns to nan after 20 epochs; batch is only 2 as there "
                              "is not enough memory")
    assert got == "explosion", scores


def test_a_workaround_named_is_not_the_precision_in_use(kb):
    f = read(kb, "loss is nan after a few hundred steps. a possible fix is to use bf16 instead of fp16, but "
                 "my card is not able to use bf16")
    assert "amp_dtype" not in f and f.get("uses_amp") is not False


def test_a_rounded_value_in_the_words_yields_to_the_pasted_logs_exact_one(kb):
    from traindx.engine.frontends import gather
    words = "my loss has been stuck around 0.7 for hours"
    log = "\n".join(f"step {i * 100} - loss: {v}" for i, v in enumerate([0.7312, 0.7125, 0.7104, 0.7098]))
    s = Session(kb)
    s.add_complaint(words)
    gather.absorb(s, gather.read_pasted(log))
    assert s.facts["train_loss"].value == pytest.approx(0.7098)
    # a value the log does not round to is the user's, and the user's words win
    s = Session(kb)
    s.add_complaint("my loss has been stuck around 0.5 for hours")
    gather.absorb(s, gather.read_pasted(log))
    assert s.facts["train_loss"].value == pytest.approx(0.5)


@pytest.mark.parametrize("facts,want", [
    ({"train_accuracy": 0.104, "num_classes": 10}, "not_learning"),
    ({"train_accuracy": 0.49, "num_classes": 2}, "not_learning"),
    ({"train_accuracy": 0.64, "num_classes": 10}, None),
    ({"train_accuracy": 0.1, "val_accuracy": 0.8, "num_classes": 10}, None),
])
def test_an_accuracy_at_chance_alone_says_not_learning(kb, facts, want):
    # structured answers, no words and no curve: the accuracy of a uniform guess is Not Learning
    s = Session(kb)
    for name, value in facts.items():
        s.add(name, value)
    assert s.symptom() == want


@pytest.mark.parametrize("text,want", [
    ("after 5k good steps the training loss started to diverge, no nan though", "instability"),
    ("my classifier hit 92% and then the accuracy fell to 15% two epochs later", "instability"),
    ("training loss keeps going down but the validation loss diverges from it after epoch 8", "overfitting"),
])
def test_a_run_that_comes_apart_is_instability_unless_only_validation_moves(kb, text, want):
    got, scores = symptom(kb, text)
    assert got == want, scores


@pytest.mark.parametrize("text,want", [
    # a split named with "set" / "data" is still the split
    ("the training set loss went down while the validation set loss went up", "overfitting"),
    ("has anyone else seen increasing validation losses with this recipe?", "overfitting"),
    # a dataset with one class is not a model predicting one class
    ("my detector has only one class and the loss goes up and down a lot", "instability"),
    # outputs that get better while the loss looks flat: the model learns
    ("the diffusion loss looks flat but I can see improved quality of the samples every epoch", "healthy"),
    ("loss barely moves, though the model clearly learns something, the outputs look like my data", "healthy"),
    ("is this the expected loss curve for a LoRA finetune? it is noisy around the same value", "healthy"),
])
def test_more_general_forms_of_the_symptoms(kb, text, want):
    got, scores = symptom(kb, text)
    assert got == want, scores


@pytest.mark.parametrize("text,fact,value", [
    ("cfg: optim.base_learning_rate=3e-5, nothing else touched", "learning_rate", 3e-5),
    ("net.learnRate = 0.05 in my matlab-style config", "learning_rate", 0.05),
    ("the learnning rate is 0.002 and it still does not move", "learning_rate", 0.002),
    ("|    learning_rate     | 0.0007    |", "learning_rate", 0.0007),
    ("I have a training set of size 1200 and it overfits", "train_size", 1200),
    ("roughly 9k training and 1k validation samples", "train_size", 9000),
    ("roughly 9k training and 1k validation samples", "val_size", 1000),
    ("fine-tuning whisper on 340 wav files of my own voice", "train_size", 340),
    ("  Num examples = 5120\n  Num Epochs = 3", "train_size", 5120),
    ("  Instantaneous batch size per device = 6\n", "batch_size", 6),
    ("I cut the batch size in my yaml config from 16 to 2 and it still crashes", "batch_size", 2),
    ("training with 128-batch on two gpus", "batch_size", 128),
    ("only a batch size of eight fits on my card", "batch_size", 8),
    ("Epoch 11: train loss 0.41 val loss 0.52\nEpoch 12: train loss 0.40 val loss 0.55\n", "epochs", 12),
])
def test_settings_in_more_forms(kb, text, fact, value):
    assert read(kb, text).get(fact) == pytest.approx(value)


@pytest.mark.parametrize("text", ["2.3", "0.5, 10", "1.39 / 0.25", "  4  "])
def test_bare_numbers_name_no_symptom(kb, text):
    # a reply of numbers alone (to "Right?", or a pasted value) resembles the examples by its characters
    # only: no symptom comes of it, and no plateau is put in the user's mouth
    assert understand(text, kb.language).symptom is None


def test_a_number_with_words_still_votes(kb):
    assert understand("my loss has been stuck at 2.3 for days", kb.language).symptom is not None
