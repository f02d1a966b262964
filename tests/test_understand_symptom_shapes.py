"""Symptoms in shapes unseen collections use (issue 10, session 13): a metric that falls while the loss
falls (overfitting), the validation loss rising said in Chinese, exporting or converting a model for
deployment (out of scope), and asking whether an architecture suits another problem or swapping one
network family for another (architecture advice). The sentences are written for these tests."""
import pytest

from traindx.engine.loader import load_kb
from traindx.engine.understand import understand


@pytest.fixture(scope="module")
def lang():
    return load_kb(entry_point_packs=False).language


@pytest.mark.parametrize("text", [
    "the training loss keeps decreasing but the F1 score decreases too, what is going on",
    "loss went down nicely, but IoU dropped after epoch 30",
    "my loss is decreasing but the bleu as well",
])
def test_a_metric_falling_while_the_loss_falls_is_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting" and u.how == "phrases"      # said, not guessed from the examples


def test_a_metric_stuck_while_the_loss_falls_is_not_read_as_overfitting_by_it(lang):
    u = understand("the loss keeps decreasing but accuracy is stuck at 47%", lang)
    assert u.scores.get("overfitting", 0) == 0


def test_the_validation_loss_rising_said_in_chinese(lang):
    assert understand("训练了十个epoch，测试集的loss越来越大", lang).symptom == "overfitting"


@pytest.mark.parametrize("text", [
    "exporting the checkpoint to ONNX gives me an error about an unsupported operator",
    "after converting my model into tflite the outputs are all different",
    "tensorrt cannot parse the onnx file I made from my model",
])
def test_exporting_a_model_for_deployment_is_out_of_scope(lang, text):
    assert understand(text, lang).symptom == "out_of_scope"


@pytest.mark.parametrize("text", [
    "would this architecture be suitable for audio tagging as well?",
    "did anyone try replacing the GRU with a transformer for this dataset?",
])
def test_asking_whether_an_architecture_suits_is_architecture_advice(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert {r.fact: r.value for r in u.facts}.get("wants_architecture_advice") is True
