"""Fact reading by kind (issue 10, session 13): each test is one kind of statement the tune half of the
complaint corpus showed unread or misread — a split named between a number and its metric, Chinese
verbs of setting, Chinese counts of classes, epochs set or misspelled, the step before a NaN, GPU utilisation
in more word orders, optimizer names glued to "optimizer", warmup in a flag's name, the loss at step 0.
The sentences are written for these tests, not copied from the corpus."""
import pytest

from traindx.engine.loader import load_kb
from traindx.engine.understand import understand


@pytest.fixture(scope="module")
def kb():
    return load_kb(entry_point_packs=False)


@pytest.fixture(scope="module")
def lang(kb):
    return kb.language


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


# --- a split between the number and its metric ("60% val accuracy", "4 validation loss")
@pytest.mark.parametrize("text, want", [
    ("we end at 97% train accuracy and 58% val accuracy after a while", {"train_accuracy": 0.97, "val_accuracy": 0.58}),
    ("almost zero training error but 4 validation loss, overfit?", {"val_loss": 4}),
    ("it only reaches 1.7 validation loss at best", {"val_loss": 1.7}),
])
def test_a_split_between_the_number_and_its_metric_is_the_numbers(lang, text, want):
    facts = _facts(text, lang)
    assert {k: facts.get(k) for k in want} == pytest.approx(want)


@pytest.mark.parametrize("text, want", [
    ("train acc 93% val acc 61%", {"train_accuracy": 0.93, "val_accuracy": 0.61}),
    ("Train accuracy reached: about 88% Test accuracy reached: about 70%",
     {"train_accuracy": 0.88, "val_accuracy": 0.70}),
    ("loss 0.4 val loss 1.2", {"train_loss": 0.4, "val_loss": 1.2}),
    # a number with a label of its own before it keeps it, in a run-on sentence too
    ("loss 0.7 train accuracy stays low", {"train_loss": 0.7, "train_accuracy": None}),
    ("the loss sits at 1.9 validation loss climbs", {"train_loss": 1.9, "val_loss": None}),
])
def test_a_split_and_metric_with_a_number_after_them_label_that_number(lang, text, want):
    facts = _facts(text, lang)
    assert {k: facts.get(k) for k in want} == want


def test_what_another_codebase_can_reach_is_not_the_runs(lang):
    assert "train_accuracy" not in _facts("the official repo can reach 93% training accuracy, mine can't", lang)


# --- Chinese verbs of setting a learning rate
@pytest.mark.parametrize("text, lr", [
    ("我把学习率设置了0.0005，loss还是不降", 0.0005),
    ("lr设置成0.002以后震荡", 0.002),
    ("训练到后面把lr衰减到0.0001，loss不动了", 0.0001),
    ("学习率设置为1e-4，将学习率改为0.01或者0.1后loss变成nan", 0.0001),   # the tried values are no run's
])
def test_a_chinese_verb_of_setting_names_the_learning_rate(lang, text, lr):
    assert _facts(text, lang).get("learning_rate") == pytest.approx(lr)


# --- Chinese counts of classes, and a subset of classes that is no count of them
@pytest.mark.parametrize("text, n", [
    ("这是一个分类数为12的问题，准确率一直很低", 12),
    ("做的是500分类，loss下不去", 500),
    ("只训练两类图片，acc一直是50%", 2),
    ("数据一共4类，其中一类很多，另外两类各200张", 4),
    ("一共10类，其中有两类总是分错", 10),                  # two of the classes, not their count
])
def test_a_chinese_count_of_classes(lang, text, n):
    assert _facts(text, lang).get("num_classes") == n


def test_a_count_of_classes_is_no_count_of_data(lang):
    assert "train_size" not in _facts("我的训练数据是5类，loss不降", lang)


# --- epochs set in Chinese, misspelled or in Spanish (which epoch a thing happened in stays no count of them)
@pytest.mark.parametrize("text, epochs", [
    ("loss is flat, trained 12 eopchs", 12),
    ("epoch设置为80，loss一直上升", 80),
    ("el modelo se entrena 30 épocas y la pérdida no baja", 30),
])
def test_epochs_set_misspelled_or_in_spanish(lang, text, epochs):
    assert _facts(text, lang).get("epochs") == epochs


@pytest.mark.parametrize("text", [
    "loss is flat for 12 eopchs",
])
def test_no_loss_from_a_misspelled_epoch_count(lang, text):
    facts = _facts(text, lang)
    assert "train_loss" not in facts and facts.get("epochs") == 12


def test_one_epoch_defined_in_steps_is_no_count_of_epochs(lang):
    assert "epochs" not in _facts("nan after 9,000 steps (1 epoch = 20,000 steps)", lang)


# --- the step before the NaN
@pytest.mark.parametrize("text, step", [
    ("fine at first, then after roughly 7,500 iterations the loss turns into nan", 7500),
    ("at the third step the loss became NaN", 3),
    ("训练到大约3000步的时候，出现loss=nan", 3000),
])
def test_the_step_stated_before_the_nan(lang, text, step):
    assert _facts(text, lang).get("nan_first_step") == step


# --- GPU utilisation in more word orders
@pytest.mark.parametrize("text, util", [
    ("only ~35% GPU utilization and each epoch takes hours", 0.35),
    ("nvidia-smi shows 3% volatile GPU-Util while training is slow", 0.03),
    ("the usage of the GPU stays at 10% the whole time, training is slow", 0.10),
    ("训练很慢，显卡利用率只有5%", 0.05),
])
def test_gpu_utilisation_in_more_word_orders(lang, text, util):
    assert _facts(text, lang).get("gpu_utilization") == pytest.approx(util)


@pytest.mark.parametrize("text", ["the usage of the GPU memory is 95%, training is slow",
                                  "GPU显存利用率为95%，训练很慢"])
def test_gpu_memory_is_no_utilisation(lang, text):
    assert "gpu_utilization" not in _facts(text, lang)


# --- names: optimizers glued to "optimizer", more optimizers, warmup in a flag, a custom loss in Chinese
@pytest.mark.parametrize("text, fact, value", [
    ("opt = fluid.optimizer.AdamOptimizer(learning_rate=0.001) and the loss is flat", "optimizer", "adam"),
    ("换成adamax优化器之后loss震荡", "optimizer", "adamax"),
    ("python train.py --num_warmup_steps=2000 --lr 3e-5, loss jumps around", "warmup", True),
    ("python train.py --num_warmup_steps=0 --lr 3e-5, loss jumps around", "warmup", False),
    ("python train.py --no_warmup --lr 3e-5, loss jumps around", "warmup", False),
    ("config: use_warmup: false, lr: 3e-5; loss jumps around", "warmup", False),
    ("python train.py --disable_warmup=True, loss jumps around", "warmup", None),
    ("用的是自定义的损失函数，loss变成负数", "custom_loss", True),
    ("the scores are produced by F.log_softmax and fed to NLLLoss", "output_activation", "log_softmax"),
    ("输出层是softmax层，loss不降", "output_activation", "softmax"),
    ("cost = layers.square_error_cost(input=y_hat, label=y) stays flat", "loss_function", "mse"),
])
def test_more_names(lang, text, fact, value):
    assert _facts(text, lang).get(fact) == value


# --- the loss at step 0 is the initial loss
def test_the_loss_at_step_zero_is_the_initial_loss(lang):
    facts = _facts("my loss is above 51.0 when Iteration is 0, is that normal?", lang)
    assert facts.get("initial_loss") == pytest.approx(51.0) and "train_loss" not in facts


# --- batch size: a change, a size stated after its number, Korean particles
@pytest.mark.parametrize("text, bs", [
    ("still out of memory although the batch size was lowered to 3", 3),
    ("within each batch the loss dropped to 2 and back", None),      # the loss's change, not the size's
    ("the input is (16, 3, 224, 224) where 16 is the batch size", 16),
    ("배치 크기를 8로 했는데 loss가 줄지 않습니다", 8),           # Korean "batch size" (배치 크기), then a particle
    ("batch를 16으로 했을 때 loss가 그대로입니다", 16),
])
def test_batch_size_forms(lang, text, bs):
    assert _facts(text, lang).get("batch_size") == bs


# --- session 22: a learning rate changed "from X to Y" in Chinese, a hyphen for the separator, a param group's rate
@pytest.mark.parametrize("text, lr", [
    ("学习率我从0.01降到0.001以后，loss开始震荡", 0.001),
    ("lr从3e-4调到1e-4，还是不收敛", 0.0001),
    ("Adam with learningrate-0.0003 and the loss jumps around", 0.0003),
    ("the loss blows up, lr-1e-3, batch 16", 0.001),
    ("iter: [200/5000], loss: 0.52, pg0_lr: 0.000200, scale: 1.0\nthe loss spikes", 0.0002),
])
def test_a_learning_rate_in_more_grammar(lang, text, lr):
    assert _facts(text, lang).get("learning_rate") == pytest.approx(lr)
