"""How long a run went and how many workers load its data, told in more of the ways people write them (issue 10,
session 39).

The epoch count printed as a whole float in a metrics summary ("epoch = 5.0", Hugging Face's train metrics), after a
dash in a list of settings ("Epochs - 6", "Epochs Run - 10"), as the first argument of fastai's one-cycle fit
(learn.fit_one_cycle(12, max_lr=3e-3)) or the second of ktrain's (learner.fit_onecycle(2e-5, 4)), which also state the
peak learning rate and a one-cycle schedule; in words ("for ten epochs"), with a word after "number of epochs" ("number
of epoch used 180"), after "approx" in a heading ("after approx 100 epochs :"); in Chinese with a count in characters
("十個epoch"), the count after the verb ("epoch了20次"), a change to it ("num_train_epochs改为5") and after Chinese
punctuation ("，50个epoach"). The data-loading worker count as a command line's flag with its value after a space
("--num_workers 16", "--workers 2"), under its other spellings ("num_worker=1", "num_works=8", "cpu_workers is 4") and
with a verb of setting between ("num_workers was set to 1", "num_workers 设置16"). The sentences are written for these
tests."""
import pytest

from traindx.engine.understand import understand


def _facts(text, lang):
    return {r.fact: r.value for r in understand(text, lang).facts}


@pytest.mark.parametrize("text,value", [
    ("fp16 finetune gives nan\n***** train metrics *****\n  epoch                    =        5.0\n"
     "  train_loss               =     0.0063", 5),
    ("Loss is NaN on the phone.\nEpochs Run - 10\nthe accuracy is 0", 10),
    ("Keeps running out of memory. Epochs - 6, Batch size - 2, Grad accumulation steps - 2", 6),
    ("I train a resnet34: learn.fit_one_cycle(12, max_lr=3e-3). The valid loss is lower than the train loss", 12),
    ("%time learn.fit_one_cycle(cyc_len=2, max_lr=5e-4) and the loss jumps to 6", 2),
    ("learner.fit_onecycle(2e-5, 4). However, I only get a validation accuracy at around 25%", 4),
    ("the BLEU score does not move above 0.10 for ten epochs", 10),
    ("number of epoch used 180. loss for train is decreasing but the test WER stays high", 180),
    ("Training the model after approx 100 epochs :\nTrain accuracy : 93 %\nTest accuracy : 54 %", 100),
    ("在訓練過程中，我發現loss在十個epoch中均維持在0.92左右", 10),
    ("为什么一直不收敛，loss一直在39左右徘徊，epoch了20次", 20),
    ("我只做了两处参数修改，将num_train_epochs改为5，结果全是0", 5),
    ("请问，50个epoach之后的val loss 突然增加，这是正常的吗？", 50),
])
def test_the_epoch_count_is_read_in_more_forms(lang, text, value):
    assert _facts(text, lang).get("epochs") == value


@pytest.mark.parametrize("text,rate", [
    ("learn.fit_one_cycle(20, 1e-3)\nbut neither the validation loss nor the training loss is decreasing", 1e-3),
    ("learner.fit_onecycle(2e-5, 4). However, I only get a validation accuracy at around 25%", 2e-5),
])
def test_a_one_cycle_fit_states_its_rate_and_schedule(lang, text, rate):
    facts = _facts(text, lang)
    assert facts.get("learning_rate") == pytest.approx(rate)
    assert facts.get("scheduler") == "onecyclelr"


@pytest.mark.parametrize("text", [
    "Epoch - 3 loss 0.52 acc 0.81\nEpoch - 4 loss 0.50 acc 0.82",      # one epoch of a log, no count of them
    "HF prints {'loss': 3.57, 'learning_rate': 0.009, 'epoch': 0.0} and the loss never falls",
    "if it takes 5 hours for one epoch the training is too slow",
])
def test_no_epoch_count_is_read_where_none_is_stated(lang, text):
    assert "epochs" not in _facts(text, lang)


@pytest.mark.parametrize("text,value", [
    ("python train.py --arch dlav0_34 --lr 2.5e-4 --num_workers 16 --num_epochs 230 and the val loss rises", 16),
    ("python train.py --batch-size 1 --workers 2 --exist-ok --epochs 200, the GPU usage is low", 2),
    ("--weight-decay=1e-5 --loader-workers 16 --batch-size 8 and the loss is flat", 16),
    ("The dataset is AN4, and the augment=True, num_worker=1. The dataloader is slow", 1),
    ("I use default num_works=8 and the worker is killed by signal", 8),
    ("torch2.5.1 cuda11.8 dataloader_num_worker=16, each step waits", 16),
    ("num_workers_dataloader: int=1 | lr: float=1e-4 and the loss is nan", 1),
    ("The batch_size is 128 and cpu_workers is 4. The GPU is idle", 4),
    ("When num_workers was set to 1 and the batch size was 64, loading was slow", 1),
    ("使用GPU训练的时候利用率太低. num_workers 设置16 但是还是单线程在载入数据", 16),
    ("I set the num_workers of the dataloader to 16, the batch size to 64", 16),
    ("Training on Windows is slower with eight workers than with zero workers", 8),
])
def test_the_worker_count_is_read_in_more_forms(lang, text, value):
    assert _facts(text, lang).get("num_workers") == value


@pytest.mark.parametrize("text", [
    "When set the num_works>0, it gets the error of RuntimeError",
    "the num_work value does not matter, it is extremely slow",
])
def test_no_worker_count_is_read_where_none_is_stated(lang, text):
    assert "num_workers" not in _facts(text, lang)
