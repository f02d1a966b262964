"""What people write, read (session 30, issue 10): healthy runs asked about in words (a staircase-shaped curve, "is
it normal for the loss to ...", the test set ahead of the training set in words or in numbers alone), and faults in
words the phrasings missed (overtraining, overfitting in Japanese and Korean, a loss that runs away or overflows in
Chinese, fp16's loss scale at its minimum, a time that "explodes", two network families compared in Chinese). Each
family keeps its near miss apart. The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


@pytest.mark.parametrize("text", [
    "the loss keeps a staircase shape and does not decrease inside an epoch",
    "为什么我的loss每500步就阶梯式断崖下降",
])
def test_a_staircase_shaped_loss_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


@pytest.mark.parametrize("text", [
    "Is it normal for the loss to converge to 2.1 at the end of training?",
    "Is it normal that the training loss does not decrease during the first 2000 steps?",
])
def test_asking_whether_the_loss_behaviour_is_normal_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores


def test_asking_about_a_loss_that_is_nan_is_no_healthy_run(lang):
    u = understand("is it normal for the loss to become nan after 300 steps?", lang)
    assert u.symptom == "explosion", u.scores


@pytest.mark.parametrize("text", [
    "The accuracy on my test set is higher than on the training set, how come?",
    "the loss in the validation split is lower than in the train split for every epoch",
])
def test_validation_ahead_of_training_in_the_in_on_form_is_healthy(lang, text):
    u = understand(text, lang)
    assert u.symptom == "healthy", u.scores
    assert u.fact("val_better_than_train") is not None


def test_validation_accuracy_above_training_accuracy_in_numbers_alone_is_healthy(lang):
    u = understand("With my own dataset the training accuracy is 0.71 and the validation accuracy is 0.83.", lang)
    assert u.symptom == "healthy", u.scores


def test_validation_accuracy_just_below_training_accuracy_says_nothing_healthy(lang):
    u = understand("With my own dataset the training accuracy is 0.83 and the validation accuracy is 0.82.", lang)
    assert u.symptom != "healthy", u.scores


def test_overfitting_words_over_validation_ahead_in_numbers_are_healthy(lang):
    u = understand("is my model overfitting? train accuracy 84%, validation accuracy 90%", lang)
    assert u.symptom == "healthy", u.scores


@pytest.mark.parametrize("text", [
    "I think my detector is overtrained, the val mAP peaked at epoch 40",
    "how do I tell if the model is over trained from tensorboard?",
    "検証データの精度が下がってきたので過学習だと思います",
    "검증 손실이 올라가서 과적합인 것 같아요",
])
def test_overtraining_and_overfitting_in_other_languages_are_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting", u.scores


def test_over_training_as_during_training_is_no_overfitting(lang):
    u = understand("did you lower the learning rate over training? my loss is reducing very slowly", lang)
    assert u.symptom != "overfitting", u.scores


@pytest.mark.parametrize("text", [
    "训练到第三个epoch的时候loss就跑飞了",
    "训练一段时间后出现溢出，loss不收敛",
    "fairseq stops with: FloatingPointError: Minimum loss scale reached (0.0001)",
])
def test_a_loss_that_runs_away_or_overflows_is_an_explosion(lang, text):
    u = understand(text, lang)
    assert u.symptom == "explosion", u.scores


def test_a_gpu_memory_overflow_is_no_explosion(lang):
    u = understand("batch size 64 时显存溢出，换成32就可以训练", lang)
    assert u.symptom != "explosion", u.scores


def test_a_loss_scale_is_no_loss_value(lang):
    u = understand("Gradient overflow. Skipping step, reducing loss scale to 512.0", lang)
    assert u.fact("train_loss") is None and u.fact("current_loss") is None, [r.as_dict() for r in u.facts]


def test_a_loss_scale_printed_after_the_loss_does_not_continue_it(lang):
    text = "my fp16 run dies\n| epoch 012 | loss 5.113 | nll_loss 4.1 | ppl 34.6 | ... | loss_scale 0.000"
    u = understand(text, lang)
    r = u.fact("train_loss")
    assert r is not None and r.value == pytest.approx(5.113), [x.as_dict() for x in u.facts]


def test_a_token_error_rate_is_no_loss(lang):
    u = understand("epoch 3 | loss: 12.5 | dev-TER: 87.40", lang)
    assert u.fact("train_loss").value == pytest.approx(12.5), [x.as_dict() for x in u.facts]
    assert u.fact("val_loss") is None, [x.as_dict() for x in u.facts]


@pytest.mark.parametrize("text", [
    "Epoch time explodes after the first epoch: 4 minutes, then 50 minutes",
    "my step duration skyrockets once the evaluation callback runs",
])
def test_a_time_that_explodes_is_slow_training(lang, text):
    u = understand(text, lang)
    assert u.symptom == "slow_training", u.scores


def test_two_network_families_compared_in_chinese_is_architecture_advice(lang):
    u = understand("做时间序列预测，lstm和transformer哪个更好？", lang)
    assert u.symptom == "out_of_scope", u.scores
    assert u.fact("wants_architecture_advice") is not None


def test_a_nan_counter_at_zero_is_no_nan(lang):
    text = ("the lm loss climbs after loading the weights\n"
            "iteration 10/ 9000 | lm_loss: 3.1E+00 | number of nan iterations: 0\n"
            "iteration 20/ 9000 | lm_loss: 8.7E+00 | number of nan iterations: 0")
    u = understand(text, lang)
    assert u.symptom != "explosion", u.scores
    assert u.fact("nan_first_step") is None, [r.as_dict() for r in u.facts]


def test_a_nan_loss_beside_its_counter_is_still_an_explosion(lang):
    u = understand("my loss goes nan\niteration 300 | lm loss: nan | number of nan iterations: 3", lang)
    assert u.symptom == "explosion", u.scores
    assert u.fact("nan_first_step") is not None and u.fact("nan_first_step").value == 300


@pytest.mark.parametrize("text", [
    "微调到第二轮以后loss剧增，之前一直在降",
    "换了数据集之后loss猛增到20",
])
def test_a_loss_that_surges_in_chinese_is_unstable(lang, text):
    u = understand(text, lang)
    assert u.symptom == "instability", u.scores


def test_an_accuracy_that_surges_in_chinese_is_no_instability(lang):
    u = understand("训练到第5个epoch时准确率猛增", lang)
    assert u.symptom != "instability", u.scores


@pytest.mark.parametrize("text", [
    "my network learns the train samples well but does terribly on the test images",
    "it fits the training set very well but performs badly on new data",
])
def test_fitting_the_training_set_but_failing_on_new_data_is_overfitting(lang, text):
    u = understand(text, lang)
    assert u.symptom == "overfitting", u.scores
