"""More shapes of complaint read (issue 10, session 45).

- The run itself stuck or hanging at a point of its schedule, no value named: a title "stuck at epoch 0", "got stuck
  after the first epoch", anything that "hangs at the end of an epoch" or "on the first iteration", "the script stuck
  forever": out of scope, a hang; a loss stuck after N iterations stays a plateau.
- "infinite dataloader" / "infinite loop" is no Inf loss.
- fp16's loss scale driven below 1 in e-notation ("reducing loss scale to 1.4e-303"): explosion, not the scaler's
  ordinary halving.
- A loss "very low right from the start" is no run flat at chance (a pretrained model starts low): not "not learning".
- "Faster R-CNN" is a detector, not a wish for speed.
- "is this believable?" asks whether the run is normal.
- A reproduction a point or two below the paper ("2% lower than that in the paper"): healthy.
- An accuracy stuck at 0.49 / 49% (a coin's 0.49-0.51): not learning, as at 0.5.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


def _symptom(text, lang):
    return understand(text, lang).symptom


@pytest.mark.parametrize("text", [
    "stuck at epoch 0, I use two gpus on a single machine",
    "I train my detector with mmdet but it got stuck after the first epoch, nothing is printed any more.",
    "The trainer hangs at the end of a single epoch when I use an IterableDataset.",
    "My workers hang on the first iteration with 4 GPUs.",
    "After printing epoch 12/100, the script stuck forever and the GPU usage fell to 0%.",
])
def test_the_run_itself_stuck_at_a_point_of_its_schedule_is_a_hang(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "other_error"


def test_a_loss_stuck_after_n_iterations_stays_a_plateau(lang):
    assert _symptom("Loss stuck after 600k iteration and not improving, it was falling nicely before.",
                    lang) == "plateau"


def test_an_infinite_dataloader_is_no_infinite_loss(lang):
    assert _symptom("The training hangs at the end of an epoch. Same error happens using an infinite dataloader.",
                    lang) != "explosion"


def test_a_loss_scale_below_one_in_e_notation_is_an_explosion(lang):
    text = ("problems with fp16 on multi-gpu training\n"
            "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1.4582244039112795e-303\n"
            "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 3.645561009778199e-304")
    assert _symptom(text, lang) == "explosion"


def test_the_scalers_ordinary_halving_stays_healthy(lang):
    assert _symptom("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 256.0. Is this normal?",
                    lang) == "healthy"


@pytest.mark.parametrize("text", [
    "The loss is very low right from the start of training. Is it training normally?",
    "loss is a very small number from the beginning of training, about 0.1 at step 1. Is that expected?",
])
def test_a_loss_low_from_the_start_is_not_flat_at_chance(lang, text):
    assert _symptom(text, lang) not in ("not_learning", None)


def test_a_loss_flat_from_the_start_is_still_not_learning(lang):
    assert _symptom("The loss does not change at all from the start of training.", lang) == "not_learning"


def test_faster_rcnn_is_no_wish_for_speed(lang):
    text = ("I trained faster rcnn (vgg16 backbone) on Pascal VOC following the README. The orange curve is the "
            "train loss and the blue one the val loss, do these two loss curves seem normal?")
    assert _symptom(text, lang) != "slow_training"


def test_making_training_faster_is_still_slow_training(lang):
    assert _symptom("How can I make my training faster? One epoch takes 3 hours on a V100.", lang) == "slow_training"


def test_is_this_believable_asks_whether_it_is_normal(lang):
    assert _symptom("I only trained 7 epochs and the mAP is around 0.55 which is a good number. Is this believable?",
                    lang) == "healthy"


def test_a_reproduction_a_point_below_the_paper_is_healthy(lang):
    assert _symptom("My best mIoU is only 84.4%, which is 2% lower than that in the paper. Do you know the reason?",
                    lang) == "healthy"


@pytest.mark.parametrize("text", [
    "I get a constant loss around 0.7 and the accuracy remains the same around 0.49 to 0.51.",
    "my accuracy does not increase even after 100 epochs, accuracy is stuck at 49%.",
])
def test_an_accuracy_stuck_at_a_coins_value_is_not_learning(lang, text):
    assert _symptom(text, lang) == "not_learning"


@pytest.mark.parametrize("line", ["1." + "1" * 3998, "三" * 4000])
def test_a_4k_run_of_digits_is_read_in_linear_time(lang, line):
    """A number run of 4,000 characters (a line cut at console.max_line_chars): no symptom phrasing may try every
    position inside the run (the plateau's 'N 次 之后' and the hang's 'N gpus' did: 0.6 s and 0.2 s of CPU)."""
    import time
    t0 = time.process_time()
    for cue in lang.cues:
        cue.rx.search(line)
    assert time.process_time() - t0 < 0.4      # main: 0.97 s and 0.94 s; this branch: 0.12 s and 0.09 s


def test_nans_found_while_computing_the_loss_are_still_an_explosion(lang):
    assert _symptom("Found nans while computing loss on the first batch of my finetuning.", lang) == "explosion"


def test_a_run_stuck_inside_its_dataloader_is_a_dataloader_error(lang):
    u = understand("After printing epoch 42/200 the script stuck forever.\n"
                   "dataloader_iter = super().__iter__()  # <---- Stuck on here, dataloader of torch.", lang)
    assert u.symptom == "out_of_scope"
    assert stated_facts(u).get("error_kind") == "dataloader_error"
