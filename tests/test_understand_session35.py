"""Healthy runs told by what the asker sees, and a count of accelerators (issue 10, session 35): a metric said to be
good while the loss looks bad ("although the accuracy is high, ..."), a loss that falls suddenly ("a sudden
reduction of the loss"), a question whether the run has converged, and "64 H100s", "8 A100 GPUs": a number of
accelerators is no later value of the loss said before it. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text", [
    "although the accuracy is high, the training loss barely moves after epoch 5",
    "even though the F1 looks good, my loss curve is a mess",
    "though the mAP seems fine, the loss increases a little each epoch",
])
def test_a_metric_said_to_be_good_while_the_loss_looks_bad_reads_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "sudden reduction of the loss around epoch 300, what happened?",
    "there is a sudden decline in my training loss after the lr step",
])
def test_a_sudden_fall_of_the_loss_reads_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


@pytest.mark.parametrize("text", [
    "has the model converged? should I train for more epochs",
    "I am not sure whether the model has converged, should I keep training",
    "训练了20个epoch，模型是否已经收敛了？",
])
def test_asking_whether_the_run_has_converged_reads_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


def test_asking_whether_it_converged_beside_a_nan_is_no_healthy_run(lang):
    assert understand("the loss became nan after 3 epochs, has it converged or diverged?", lang).symptom \
        == "explosion"


@pytest.mark.parametrize("text", [
    "the loss stays around 0.5 even after 2k steps on 64 H100 GPUs",
    "the loss stays around 0.5 even though I trained 3k steps using 8 A100s",
    "the loss stays around 0.5 even after 2k steps on 4 RTX 3090 cards",
])
def test_a_count_of_accelerators_is_no_value_of_the_loss(lang, text):
    facts = _facts(text, lang)
    assert facts.get("train_loss") == 0.5
    assert "initial_loss" not in facts


@pytest.mark.parametrize("text", [
    "验证集的loss相比训练集低很多，这正常吗",   # the val loss is much lower compared with the training set
    "测试集准确率相对于训练集偏高",                    # the test accuracy is high relative to the training set
])
def test_validation_better_than_training_said_with_compared_with_reads_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy"
    assert _facts(text, lang).get("val_better_than_train") is True


@pytest.mark.parametrize("text", [
    "the loss curve looks weird, but the model works well according to the evaluation metrics",
    "I tested the model on the test set and it worked fine, yet the loss curve has a sudden jump",
])
def test_a_model_that_does_well_where_it_is_evaluated_reads_healthy(lang, text):
    assert understand(text, lang).symptom == "healthy"


def test_working_fine_in_another_setting_is_no_healthy_run(lang):
    text = "with 12 layers it works fine, but with 24 layers the loss becomes nan after a few steps"
    assert understand(text, lang).symptom == "explosion"
