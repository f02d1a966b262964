"""Three more shapes of complaint read, and the GPU utilization in more of its wordings (issue 10, session 42).

- A question with the verb before the loss ("why didn't my loss drop?", "why hasn't my loss changed since the
  start?"): the inverted "the loss does not decrease", Not Learning; "why doesn't the loss converge" is left out (a
  plateau and a swing are asked that way as well).
- A hang said beside distributed training ("Hang in DDP", "deepspeed hangs on multiple GPUs", "the code hangs during
  multi GPU training"): processes waiting on one another, out of scope; a data loader "stuck" for seconds in DDP mode
  is no hang.
- The run itself stuck at a point of its schedule, no value named ("training stuck after the first epoch",
  "训练到第8个epoch卡死"): a hang, out of scope; a metric stuck at a value is still a level.
- The GPU utilization said to be nothing ("the GPU-util is always zero"), as a share of the GPU's compute or resources,
  beside the CPU's ("GPU 7% and CPU 70%"), as a share it gets, per GPU, or as 占用率; never a share of its memory.

The sentences are written for these tests."""
import pytest

from conftest import stated_facts
from traindx.engine.understand import understand


def _symptom(text, lang):
    return understand(text, lang).symptom


@pytest.mark.parametrize("text", [
    "Why didn't my loss drop during training?",
    "Why hasn't my loss changed from the first epoch to the last one?",
    "why didn't the cost fall after I swapped the dataset",
])
def test_the_inverted_question_about_a_loss_that_does_not_fall_is_not_learning(lang, text):
    u = understand(text, lang)
    assert (u.symptom, u.how) == ("not_learning", "phrases")


def test_the_inverted_question_leaves_convergence_and_the_validation_loss_alone(lang):
    # "converge" is asked of plateaus and swings too: no phrasing reads it as a loss that does not fall
    assert "converge" not in (understand("Why doesn't the loss converge?", lang).symptom_phrase or "")
    # the validation loss not falling is another complaint
    assert "validation loss" not in (understand("why doesn't the validation loss decrease?", lang).symptom_phrase or "")


@pytest.mark.parametrize("text", [
    "Hang in DDP when I use two machines",
    "The code hangs during multi GPU training, no error at all",
    "transformers + deepspeed hangs when training on 4 GPUs",
    "`DDP(model)` hangs on the second node",
    "FSDP freezes after the first epoch",
])
def test_a_hang_beside_distributed_training_is_out_of_scope(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert any(r.fact == "error_kind" and r.value == "other_error" for r in u.facts)


def test_a_loader_stuck_for_seconds_in_ddp_mode_is_no_hang(lang):
    text = ("At the start of every epoch the dataloader is stuck for around 30 seconds. Even in DDP mode it still "
            "gets stuck 30 seconds, GPU utilization drops to 0 meanwhile.")
    assert _symptom(text, lang) != "out_of_scope"


@pytest.mark.parametrize("text", [
    "The training always gets stuck in the 12 epoch, nothing is printed after that",
    "training stuck after the first epoch, the GPU shows 0% and nothing moves",
    "The repo gets stuck when I start training on my own scenes",
    "训练到第8个epoch卡死，也没有报错",
    "卡在epoch3了，用了两块GPU",
])
def test_the_run_stuck_at_a_point_of_its_schedule_is_a_hang(lang, text):
    u = understand(text, lang)
    assert u.symptom == "out_of_scope"
    assert any(r.fact == "error_kind" and r.value == "other_error" for r in u.facts)


def test_a_metric_stuck_at_a_value_is_still_a_level(lang):
    # the value the metric is stuck at makes it a training dynamic, not a hang
    assert _symptom("The loss is stuck at 0.69 since the first epoch", lang) != "out_of_scope"
    assert _symptom("the accuracy got stuck at 60% after epoch 5", lang) != "out_of_scope"


@pytest.mark.parametrize("text,util", [
    ("nvidia-smi shows that the GPU-Util is 0. Maybe the loader is the problem", 0.0),
    ("the memory usage is high but the GPU-util is always zero, so training is slow", 0.0),
    ("It uses only 695MiB GPU RAM and < 6% GPU Compute during training", 0.06),
    ("training takes forever, it uses only 10 to 15 % of GPU resources", 0.15),
    ("why GPU 7% and CPU 70%? I use yolov5s with batch size 1", 0.07),
    ("tokenizing on the fly is hopeless, my GPUs get 2% utilisation", 0.02),
    ("It seems that the utility of per GPU is low (10%), and the speed is 8s/it", 0.1),
    ("训练的时候CPU占用率基本90%，但是GPU占用率只有2%", 0.02),
])
def test_the_gpu_utilization_in_more_of_the_ways_people_write_it(lang, text, util):
    assert stated_facts(understand(text, lang)).get("gpu_utilization") == pytest.approx(util)


def test_a_share_of_the_gpu_memory_is_no_utilization(lang):
    facts = stated_facts(understand("the GPU 80% memory is used and GPU usage is high", lang))
    assert "gpu_utilization" not in facts
