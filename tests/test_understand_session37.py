"""The task told by more of the words people use for it, and split sizes printed as labels (issue 10, session 37).

A language model said through its metric as people type it ("peplexity"), BERT's pre-training objectives (MLM, NSP),
the char-RNN corpus (Tiny Shakespeare), Transformer-XL, continued pre-training, the prompt-tuning family; a regression
said through a function fitted by a network, a uni/multivariate series, the coefficient of determination or a
library's regressor class; an image classification said through its benchmark (CIFAR, MNIST, ImageNet) when no other
word names the task. A split's size printed as a label ("Number of training samples: 4210", "Training Data
Points: 91500", "num_train_samples = 2400") is read. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _task(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}.get("task_type")


@pytest.mark.parametrize("text", [
    "my char model's peplexity climbs again after epoch 12",
    "the perlexity on the dev set goes up while the train loss falls",
    "the MLM loss goes to nan after about 3k steps",
    "我在跑MLM和NSP两个任务，NSP的loss一直不降",
    "training a small model on tiny shakespeare, the loss is stuck at 2.5",
    "our Transformer-XL run has loss spikes around step 40k",
    "做继续预训练的时候loss一直在2.4左右不降",
    "continued pretraining on my own corpus, the loss jumps to 9 and stays there",
    "p-tuning v2 loss does not go down at all",
])
def test_a_language_model_is_read_from_its_words(lang, text):
    assert _task(text, lang) == "language_modeling"


@pytest.mark.parametrize("text", [
    "my net approximating a sine function never converges below 0.1",
    "a function approximator with two hidden layers, the loss plateaus at 0.02",
    "solving a differential equation with a small MLP, the loss stays at 1.3",
    "multivariate LSTM on sensor data, the val loss is higher than the train loss",
    "用单变量做预测，训练误差比验证误差大很多",
    "test r2 is 0.2 while train r2 is 0.9",
    "my R2 is 0.31 after 200 epochs and does not improve",
    "the MLPRegressor loss becomes nan after a few iterations",
    "I want to predict electricity consumption, the val loss goes up after epoch 5",
])
def test_a_regression_is_read_from_its_words(lang, text):
    assert _task(text, lang) == "regression"


@pytest.mark.parametrize("text", [
    "resnet on cifar-10, the accuracy is stuck at 10%",
    "the mnist example's val acc stays at 0.11",
    "training a resnet50 on ImageNet, the loss does not decrease after 5 epochs",
    "用cifar100训练，loss一直不下降",
])
def test_an_image_benchmark_is_a_classification(lang, text):
    assert _task(text, lang) == "classification"


@pytest.mark.parametrize("text, task", [
    ("a VAE on CIFAR10 whose loss does not converge", "other"),
    ("CIFAR-10 image generation with my own flow model, the loss does not converge", None),
    ("ImageNet pre-training of my encoder, the loss spikes every epoch", None),
    ("I trained a GAN on mnist and the discriminator loss goes to 0", "other"),
    ("a binary classifier of MNIST zeros against ones, the accuracy is 50%", "binary"),
    ("uploading checkpoints to my R2 bucket is slow", None),
    ("the complexity of my model grows and the loss is nan", None),
    ("pre-training BEiT: Epoch: [12]  lr: 0.0015  mlm_acc: 0.0333  loss: 6.5993  grad_norm: nan", None),
])
def test_the_benchmark_or_r2_does_not_outvote_a_stronger_word(lang, text, task):
    assert _task(text, lang) == task


@pytest.mark.parametrize("text, expected", [
    ("Number of training samples:  4210\nNumber of validation samples:  350", {"train_size": 4210, "val_size": 350}),
    ("Training Data Points: 91500  Validation Data Points: 10200", {"train_size": 91500, "val_size": 10200}),
    ("python train.py --train-num-samples 120000 --lr 1e-3", {"train_size": 120000}),
    ("num_train_samples = 2400, num_val_samples = 600", {"train_size": 2400, "val_size": 600}),
    ("the number of training examples is 8000 and the val loss goes up", {"train_size": 8000}),
])
def test_a_split_size_printed_as_a_label_is_read(lang, text, expected):
    facts = {r.fact: r.value for r in understand(text, lang).facts}
    for fact, value in expected.items():
        assert facts.get(fact) == value, fact


@pytest.mark.parametrize("text", ["training samples: 80% of the data", "train images: 0.8 of the folder"])
def test_a_share_is_no_size(lang, text):
    assert "train_size" not in {r.fact: r.value for r in understand(text, lang).facts}
