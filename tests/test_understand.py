"""Reading what people write: numbers in every form, negation, train/val attribution, mixed
precision, pasted errors, and a pack that adds a phrasing without code. The phrasings here are
written for these tests (not taken from the complaint corpus)."""
import pytest

from traindx.engine.api import Session
from traindx.engine.loader import load_kb
from traindx.engine.understand import parse_number, understand


@pytest.fixture(scope="module")
def kb():
    return load_kb(entry_point_packs=False)


def read(kb, text):
    u = understand(text, kb.language)
    return u, {r.fact: r.value for r in u.facts}


@pytest.mark.parametrize("text,value", [
    ("1e-3", 0.001), ("0.001", 0.001), ("3e-4", 3e-4), ("5E-5", 5e-5), ("~0.693", 0.693), ("2k", 2000),
    ("1,000", 1000), (".5", 0.5), ("1.6 million", 1_600_000), ("12", 12),
])
def test_numbers_as_written(kb, text, value):
    # magnitude words ("2k", "1.6 million") are the knowledge base's (kb/language magnitude_words)
    assert parse_number(text, kb.language.number_words, kb.language.magnitudes) == pytest.approx(value)


@pytest.mark.parametrize("text,fact,value", [
    ("I picked an lr of 2e-4 for this run", "learning_rate", 2e-4),
    ("learning-rate=0.0005 with cosine decay", "learning_rate", 5e-4),
    ("adam 1e-3, nothing else changed", "learning_rate", 1e-3),
    ("we bumped bs=128 yesterday", "batch_size", 128),
    ("a batch of 16 per gpu", "batch_size", 16),
    ("batchsize: 8", "batch_size", 8),
    ("a 7-class problem on audio", "num_classes", 7),
    ("it is a binary task (spam or not)", "num_classes", 2),
    ("ran it for 3k steps and 40 epochs", "epochs", 40),
    ("the dataset has 12,500 images in total", "train_size", 12500),
    ("weight_decay=0.01", "weight_decay", 0.01),
    ("momentum 0.95 with nesterov", "momentum", 0.95),
])
def test_facts_in_every_form(kb, text, fact, value):
    _, facts = read(kb, text)
    assert facts[fact] == pytest.approx(value)


def test_train_val_attribution(kb):
    _, f = read(kb, "on my sentiment model train acc 97% val 61%, train loss 0.05 and val loss 1.9")
    assert f["train_accuracy"] == pytest.approx(0.97) and f["val_accuracy"] == pytest.approx(0.61)
    assert f["train_loss"] == pytest.approx(0.05) and f["val_loss"] == pytest.approx(1.9)
    _, f = read(kb, "validation accuracy sits at 0.72 whereas training accuracy is 0.99")
    assert f["val_accuracy"] == pytest.approx(0.72) and f["train_accuracy"] == pytest.approx(0.99)


def test_a_pasted_log_keeps_first_and_last(kb):
    log = ("ep 1 - loss: 2.2051 - acc: 0.1502 - val_loss: 2.1990 - val_acc: 0.1611\n"
           "ep 2 - loss: 1.1044 - acc: 0.6120 - val_loss: 1.2005 - val_acc: 0.5833\n")
    _, f = read(kb, "my keras run:\n" + log)
    assert f["initial_loss"] == pytest.approx(2.2051) and f["train_loss"] == pytest.approx(1.1044)
    assert f["val_accuracy"] == pytest.approx(0.5833)


def test_loss_from_to_and_chance_values(kb):
    _, f = read(kb, "the loss only went from 1.1 to 1.05 over ten epochs")
    assert f["initial_loss"] == pytest.approx(1.1) and f["train_loss"] == pytest.approx(1.05)
    _, f = read(kb, "loss hovers at ~0.693 the whole time")
    assert f["train_loss"] == pytest.approx(0.693)


def test_a_range_is_not_a_value(kb):
    _, f = read(kb, "the loss bounces between 0.4 and 0.9")
    assert "train_loss" not in f


@pytest.mark.parametrize("text,amp,dtype", [
    ("switched the trainer to bf16 yesterday", True, "bfloat16"),
    ("precision='16-mixed' in lightning", True, "float16"),
    ("we train with fp16 autocast", True, "float16"),
    ("I am not using AMP at all", False, None),
    ("plain fp32, no mixed precision", False, None),
])
def test_mixed_precision_and_its_negation(kb, text, amp, dtype):
    _, f = read(kb, text)
    assert f["uses_amp"] is amp
    assert f.get("amp_dtype") == dtype


def test_negated_regularization_is_an_empty_list(kb):
    _, f = read(kb, "no dropout and no augmentation, train acc goes to 100%")
    assert f["regularization"] == []
    _, f = read(kb, "I already use dropout and weight decay")
    assert set(f["regularization"]) == {"dropout", "weight_decay"}


@pytest.mark.parametrize("text,symptom", [
    ("my classifier doesnt learn anything, always the same class", "not_learning"),
    ("the loss dropped for 3 epochs and has been stagnating ever since", "plateau"),
    ("loss keeps jumping up and down like crazy", "instability"),
    ("after 800 iterations every loss turns into NaN", "explosion"),
    ("the network memorizes the training set, val accuracy is bad", "overfitting"),
    ("each epoch takes 40 minutes and nvidia-smi shows 5% gpu util", "slow_training"),
    ("is it normal that my validation loss is below the train loss?", "healthy"),
    ("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB", "out_of_scope"),
    ("the episode reward of my PPO agent stays flat", "out_of_scope"),
    ("should I use a CNN or a transformer for this signal data?", "out_of_scope"),
])
def test_symptom_from_words(kb, text, symptom):
    u, _ = read(kb, text)
    assert u.symptom == symptom, u.scores


def test_negation_denies_a_symptom(kb):
    u, _ = read(kb, "no NaN anywhere, but the loss oscillates a lot")
    assert u.symptom == "instability"
    u, _ = read(kb, "the model is not overfitting, val and train curves match; it just plateaued at 0.4")
    assert u.symptom == "plateau"


def test_pasted_errors_get_their_deferral(kb):
    for text, kind in [
        ("Traceback (most recent call last):\n  ...\nRuntimeError: CUDA out of memory.", "cuda_oom"),
        ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x100 and 50x10)", "shape_error"),
        ("RuntimeError: stack expects each tensor to be equal size, but got [3, 32] at entry 0", "dataloader_error"),
    ]:
        s = Session(kb)
        s.add_complaint(text)
        assert s.value("error_kind") == kind
        r = s.report()
        assert r["status"] == "out_of_scope" and r["deferral"]["to"] == "pytorch-engineering"


def test_a_nan_post_that_mentions_memory_stays_in_scope(kb):
    s = Session(kb)
    s.add_complaint("loss becomes NaN at step 300 with fp16; fp32 would run out of memory on my card")
    assert s.deferral() is None and s.symptom() == "explosion"
    assert s.value("nan_first_step") == 300 and s.value("uses_amp") is True


def test_words_never_override_an_answer(kb):
    s = Session(kb)
    s.add("learning_rate", 0.01)
    s.add_complaint("loss is flat, lr 1e-6")
    assert s.value("learning_rate") == 0.01


def test_correction_replaces_what_was_read(kb):
    s = Session(kb)
    s.add_complaint("the loss stopped going down, lr 1e-4")
    assert s.symptom() == "plateau"
    s.correct("actually lr 1e-3 and it never went down at all")
    assert s.value("learning_rate") == pytest.approx(1e-3)
    assert s.symptom() == "not_learning"


def test_healthy_words_and_numbers_say_why(kb):
    s = Session(kb)
    s.add_complaint("my validation loss is lower than the training loss, is this normal? I use heavy augmentation")
    r = s.report()
    assert r["status"] == "healthy"
    assert r["normal"]["behaviours"][0]["id"] == "val_better_than_train" and r["normal"]["behaviours"][0]["abnormal_if"]
    assert not r["root_causes"] or r["root_causes"][0]["confidence"] <= 0.5
    s = Session(kb)
    s.add_answers({"initial_loss": 2.30, "current_loss": 0.18, "num_classes": 10, "train_accuracy": 0.96,
                   "val_accuracy": 0.94, "grads_have_nan": False, "data_time_fraction": 0.04})
    r = s.report()
    assert r["status"] == "healthy" and r["normal"]["behaviours"]


def test_negative_loss_is_healthy_unless_the_loss_forbids_it(kb):
    s = Session(kb)
    s.add_complaint("my loss went negative after a while, is that ok?")
    assert s.report()["status"] == "healthy"
    s.add("loss_function", "cross_entropy")
    assert s.report()["root_causes"][0]["id"] == "wrong_loss_function"


def test_a_pack_adds_a_phrasing_and_a_term_without_code(tmp_path, kb):
    text = "my loss does the sawtooth thing, also using the lernrate 0.02"
    u, f = read(kb, text)
    assert u.symptom != "instability" and "learning_rate" not in f
    (tmp_path / "lang.yaml").write_text(
        "kind: language\n"
        "terms:\n  - {id: lr, variants: ['lernrate']}\n"
        "symptoms:\n"
        "  - symptom: instability\n"
        "    phrases:\n      - {pattern: '\\bsawtooth\\b', weight: 3}\n"
        "    examples: ['the loss does the sawtooth thing']\n")
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    u, f = read(packed, text)
    assert u.symptom == "instability" and u.symptom_phrase == "sawtooth"
    assert f["learning_rate"] == pytest.approx(0.02)


def test_a_bad_pattern_in_a_pack_is_one_line_with_the_file(tmp_path):
    from traindx.engine.errors import KBError
    (tmp_path / "lang.yaml").write_text(
        "kind: language\nsymptoms:\n  - symptom: plateau\n    phrases:\n      - {pattern: '(unclosed', weight: 1}\n")
    with pytest.raises(KBError) as err:
        load_kb([str(tmp_path)], entry_point_packs=False)
    assert "lang.yaml" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text,fact,value", [
    ("optimizer Adam(model.parameters(), lr=1e-3, eps=0.1)", "adam_eps", 0.1),
    ("I train with 3e-4 as learning rate", "learning_rate", 3e-4),
    ("the learning rate is set to 0.02", "learning_rate", 0.02),
    ("we decay it with CosineAnnealingLR over 90 epochs", "scheduler", "cosineannealinglr"),
    ("there is no lr scheduler at all", "scheduler", "none"),
    ("loss=tf.keras.losses.SparseCategoricalCrossentropy()", "loss_function", "cross_entropy"),
    ("criterion is F.binary_cross_entropy_with_logits", "loss_function", "bce_with_logits"),
    ("x = layers.Dense(5, activation='softmax')(x)", "output_activation", "softmax"),
    ("x = layers.Dense(5, activation='softmax')(x)", "num_classes", 5),
    ("then I apply torch.sigmoid(logits) at the end", "output_activation", "sigmoid"),
    ("def weighted_dice_loss(pred, target):", "custom_loss", True),
    ("the training data is shuffled every epoch", "shuffle", True),
    ("the samples were not shuffled", "shuffle", False),
    ("my training set has 4,000 images and the validation set 500", "train_size", 4000),
    ("4000 images for training and 500 for validation", "val_size", 500),
    ("fine-tuning gpt-2 on my chat logs", "task_type", "language_modeling"),
])
def test_more_general_forms(kb, text, fact, value):
    _, facts = read(kb, text)
    assert facts[fact] == pytest.approx(value) if isinstance(value, float) else facts[fact] == value


def test_the_task_follows_from_the_loss_and_the_classes(kb):
    for text, task in [("using BCEWithLogitsLoss and the loss will not go down", "binary"),
                       ("CrossEntropyLoss over 12 classes, the loss is stuck", "classification"),
                       ("it is a multi-label problem with BCEWithLogitsLoss", "multilabel")]:
        s = Session(kb)
        s.add_complaint(text)
        assert s.value("task_type") == task, text


def test_where_the_loss_stands_tells_not_learning_from_plateau(kb):
    # the same generic wording; the stated level decides
    u, _ = read(kb, "accuracy does not change any more, it stays at 88% after some epochs")
    assert u.symptom == "plateau", u.scores
    u, _ = read(kb, "the loss does not decrease, it is 0.693 every epoch on my binary task")
    assert u.symptom == "not_learning", u.scores
    u, _ = read(kb, "my val accuracy does not change, 10 classes and it sits at 10%")
    assert u.symptom == "not_learning", u.scores


def test_overfitting_words_over_numbers_without_a_gap_read_healthy(kb):
    u, _ = read(kb, "am I overfitting? train acc 96% and val acc 94% after 30 epochs")
    assert u.symptom == "healthy", u.scores
    u, _ = read(kb, "am I overfitting? train acc 99% and val acc 62% after 30 epochs")
    assert u.symptom == "overfitting", u.scores


def test_a_small_fluctuation_asked_about_is_healthy(kb):
    u, _ = read(kb, "the training loss fluctuates during training, I wonder whether this is normal")
    assert u.symptom == "healthy", u.scores
    u, _ = read(kb, "the training loss fluctuates wildly and never settles, is this normal?")
    assert u.symptom == "instability", u.scores


def test_overfitting_words_alone_never_name_a_cause_above_one_half(kb):
    s = Session(kb)
    s.add_complaint("is my model overfitting?")
    assert s.symptom() == "overfitting"
    r = s.report()
    assert r["status"] != "diagnosed"
    assert all(c["confidence"] < kb.param("confidence.diagnosed") for c in r["root_causes"])


def test_two_pasted_log_lines_give_values_not_a_trend(kb):
    from traindx.engine.frontends import gather
    text = ("the loss went down for 20 epochs and then plateaued\n"
            "epoch 21 loss: 0.4120 acc: 0.8610\n"
            "epoch 22 loss: 0.4118 acc: 0.8612\n")
    prose, pasted = gather.split_paste(text)
    read_ = gather.read_pasted(pasted, params=kb.params())
    facts = {f.fact: f.value for f in read_.findings}
    assert "loss_trend" not in facts and facts["current_loss"] == pytest.approx(0.4118, rel=1e-3)
    s = Session(kb)
    s.add_complaint(prose)
    gather.absorb(s, read_)
    assert s.symptom() == "plateau"


def test_a_narrow_swing_and_an_epoch_boundary_jump_are_normal(kb):
    u, _ = read(kb, "my val accuracy fluctuates between 91% and 93% from epoch to epoch")
    assert u.symptom == "healthy", u.scores
    u, _ = read(kb, "the loss oscillates between 0.5 and 3.0 all the time")
    assert u.symptom == "instability", u.scores
    u, _ = read(kb, "the loss jumps up at the beginning of each epoch, why?")
    assert u.symptom == "healthy", u.scores


@pytest.mark.parametrize("text,symptom", [
    ("torch.cuda.is_available() returns False on the cluster node", "out_of_scope"),
    ("gpu memory keeps increasing every epoch until the job dies", "out_of_scope"),
    ("Missing key(s) in state_dict when I reload my weights", "out_of_scope"),
    ("training takes too much time, 3 hours an epoch", "slow_training"),
    ("nothing improves, I get the same loss every epoch", "not_learning"),
])
def test_more_ways_of_saying_it(kb, text, symptom):
    u, _ = read(kb, text)
    assert u.symptom == symptom, u.scores


def test_a_small_train_validation_gap_asked_about_is_normal(kb):
    u, _ = read(kb, "my validation loss is slightly higher than the training loss, is that normal?")
    assert u.symptom == "healthy", u.scores
    u, _ = read(kb, "validation loss keeps going up while the training loss goes down")
    assert u.symptom == "overfitting", u.scores


def test_a_metric_that_moved_is_read_where_it_is_now(kb):
    # "went from 60% to 90%": the accuracy now is the later number; the earlier one is not the poster's
    _, f = read(kb, "my training accuracy went from 60% to 90% over the run")
    assert f["train_accuracy"] == pytest.approx(0.9)
    _, f = read(kb, "accuracy fell from 88% to 12% within two epochs")
    assert f["train_accuracy"] == pytest.approx(0.12)


@pytest.mark.parametrize("text,absent", [
    ("top-1 accuracy is 45% and top-5 accuracy 81%", {"train_accuracy": 1.0}),   # a rank, not a value
    ("epoch 10/100 loss 0.3", {"initial_loss": 100}),                            # a progress counter
])
def test_a_count_or_rank_is_never_a_metric_value(kb, text, absent):
    _, f = read(kb, text)
    for fact, wrong in absent.items():
        assert f.get(fact) != pytest.approx(wrong)
    assert f.get("train_accuracy", 0.45) == pytest.approx(0.45)


@pytest.mark.parametrize("text", [
    "I'm not using any dropout or augmentation",
    "trained without dropout, weight decay or augmentation",
])
def test_one_negation_reaches_every_item_of_a_list(kb, text):
    _, f = read(kb, text)
    assert f["regularization"] == []


def test_mixed_precision_denied_reads_no_precision_type(kb):
    _, f = read(kb, "no amp or fp16 here, plain fp32")
    assert f["uses_amp"] is False and "amp_dtype" not in f


def test_command_line_flags_are_read(kb):
    _, f = read(kb, "python train.py --optimizer adam --weight-decay 0.0005 --label-smoothing 0.2 --max-epoch 30")
    assert f["weight_decay"] == pytest.approx(5e-4) and f["label_smoothing"] == pytest.approx(0.2)
    assert f["epochs"] == 30 and {"weight_decay", "label_smoothing"} <= set(f["regularization"])


@pytest.mark.parametrize("text,fact,wrong", [
    ("the first 3 - 6 epochs the validation loss does not move", "epochs", 6),        # a range
    ("config: lr: 2e-4 * 8 (scaled by the number of gpus)", "learning_rate", 2e-4),     # a product
    ("2023-05-02 10:41:17,512 Epoch[3] Batch [200] loss=0.41", "epochs", 17512),         # a time stamp
    ("val_loss: 3.91 - val_dice_coef: 0.0412", "val_loss", 0.0412),                      # another metric's name
    ("[Epoch 2][Batch 150/391] Loss: 1.87 | Acc: 41.0%", "batch_size", 150),             # a batch counter
    ("in the first epoch the loss jumped", "epochs", 1),                                  # the start, not a length
])
def test_a_number_that_is_not_the_fact_is_left_unread(kb, text, fact, wrong):
    _, f = read(kb, text)
    assert f.get(fact) != pytest.approx(wrong)


def test_a_value_reached_is_where_the_metric_is_now(kb):
    _, f = read(kb, "val accuracy reached 74% around epoch 20, then slowly decreased to 66% by epoch 40")
    assert f["val_accuracy"] == pytest.approx(0.66)


def test_a_two_class_task_in_chinese_is_binary(kb):
    _, f = read(kb, "训练一个二分类模型，loss一直不降")
    assert f["task_type"] == "binary" and f["num_classes"] == 2


def test_from_to_in_chinese(kb):
    _, f = read(kb, "loss从2.1降到0.9就不动了")
    assert f["initial_loss"] == pytest.approx(2.1) and f["train_loss"] == pytest.approx(0.9)
