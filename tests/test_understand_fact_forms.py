"""Facts in the forms real posts write them (issue 10), read by mechanism: Chinese magnitudes (万, also
written w/W, 百万) and counts of data with a measure word, a total stated after its parts, a whole
number of epochs written as a float, a config's scheduler name, and language models named beside
Chinese text (no word boundary there). The sentences are written for these tests."""
import pytest

from conftest import language_pack, understood_echo
from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text, size", [
    ("我用了大约20w张图片训练，loss一直不降", 200000),            # 20w = 20 万
    ("1.5W的数据量，训练了10个epoch", 15000),
    ("一共12万张，5类，loss震荡", 120000),                         # the count alone before a comma
    ("训练上3百万数据，loss没有下降", 3000000),
    ("数据集量是900，训练很快就过拟合了", 900),
    ("训练集数据约2400条、验证集300条", 2400),
    ("先用了100W张，后来又加了50W张图片，这样一共150W张，loss卡住了", 1500000),   # the total, not a part
])
def test_a_chinese_count_of_data_is_the_training_size(lang, text, size):
    assert _facts(text, lang).get("train_size") == size


def test_a_count_of_gpus_is_no_count_of_data(lang):
    assert _facts("用4张GPU训练，数据一共3万张，loss不下降", lang).get("train_size") == 30000


def test_w_is_ten_thousand_right_after_digits_and_w_slash_is_with(lang):
    facts = _facts("lr 1e-3 w/ adam on 20w images, loss stuck at 2.3", lang)
    assert facts["learning_rate"] == pytest.approx(0.001) and facts["optimizer"] == "adam"
    assert facts["train_size"] == 200000


def test_a_packs_attached_magnitude_multiplies_only_right_after_the_digits(tmp_path):
    pack = language_pack(tmp_path, "attached_magnitude_words: {z: 7}")
    assert "train_size 14" in understood_echo("trained on 2z images", [pack])
    assert "train_size" not in understood_echo("trained on 2 z images", [pack])


@pytest.mark.parametrize("text, epochs", [
    ("--num_train_epochs 4.0 --learning_rate 2e-5 and the loss spikes", 4),
    ("num_train_epochs: 12.0\nlearning_rate: 1.0e-4", 12),
])
def test_a_whole_number_of_epochs_written_as_a_float(lang, text, epochs):
    assert _facts(text, lang).get("epochs") == epochs


@pytest.mark.parametrize("text, scheduler", [
    ("--lr_scheduler_type cosine --learning_rate 5e-5, loss oscillates", "cosineannealinglr"),
    ("lr_scheduler_type: linear\nwarmup_ratio: 0.1", "linearlr"),
])
def test_a_configs_scheduler_name_is_read(lang, text, scheduler):
    assert _facts(text, lang).get("scheduler") == scheduler


@pytest.mark.parametrize("text", [
    "微调llama2的时候loss变成了nan",                    # no word boundary beside Chinese text
    "用的是ChatGLM3做SFT，loss震荡",
    "I am doing SFT on my own checkpoint and the eval loss goes up",
    "pretraining BERT on my corpus, the loss stagnates at 7",
])
def test_a_language_model_named_is_the_task(lang, text):
    assert _facts(text, lang).get("task_type") == "language_modeling"


def test_pretraining_bert_is_language_modelling_fine_tuning_a_pretrained_one_is_not(lang):
    assert _facts("we are pretraining BERT and the loss is stuck", lang).get("task_type") == "language_modeling"
    assert _facts("I fine-tune the pretrained BERT on a sentiment task", lang).get("task_type") != "language_modeling"


def test_a_count_after_from_to_is_no_later_value_of_the_loss(lang):
    facts = _facts("the loss remains at 0.4 from the 30th iteration to 25,000 iterations, nothing improves", lang)
    assert facts.get("train_loss") == pytest.approx(0.4)


def test_a_value_with_thousands_separators_is_one_number(lang):
    facts = _facts("my loss went from 12,500 to 9,800 and stopped there", lang)
    assert facts.get("train_loss") == 9800 and facts.get("initial_loss") == 12500


def test_a_progress_lines_batch_position_is_no_batch_size(lang):
    text = "args: batch_size=16, lr=3e-4\n[Epoch 2 Batch 30/500] loss=2.1"
    assert _facts(text, lang).get("batch_size") == 16
