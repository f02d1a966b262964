"""Four kinds of "is this normal?" post read as healthy, and a collapsed loss scale read as an explosion (issue 10,
session 41).

- A question about the value the loss ends at in a good run ("what loss should I expect at the end?", "loss最后能降到
  多少?") compares the run with a reference it lacks: healthy, whatever plateau it then describes, unless a fault is
  described more strongly; "the loss did not fall much" (没降多少) asks nothing.
- The validation loss rising or hovering while the task's own metric (WER, mAP, F1, BLEU) keeps improving: the loss and
  the metric disagree, the metric is what the run is for; healthy, not overfitting.
- fp16's dynamic loss scaler printing "Gradient overflow. Skipping step, reducing loss scale to 512": the scaler
  finding its range, healthy; the scale driven to 1 or below is every step overflowing, an explosion.
- A diffusion, DINO or GAN loss that does not fall: those losses are not meant to fall steadily; healthy.

The sentences are written for these tests."""
import pytest

from traindx.engine.understand import understand


def _symptom(text, lang):
    return understand(text, lang).symptom


@pytest.mark.parametrize("text", [
    "How low should the loss get with this config? After 30 epochs it sits around 1.4.",
    "训练了20个epoch，请问loss最后一般能降到多少？",
    "请问作者训练时loss大概收敛到多少？我的在0.3附近不动了",
])
def test_asking_what_value_the_loss_ends_at_is_healthy(lang, text):
    assert _symptom(text, lang) == "healthy"
    # "the loss did not fall much" asks nothing
    assert _symptom("训练了10个epoch，loss没降多少，一直在2.3左右", lang) != "healthy"


@pytest.mark.parametrize("text", [
    "After epoch 8 the validation loss is going up, but the WER keeps decreasing. Should I worry about this?",
    "The validation loss started to rise after epoch 12, while the PER and WER kept descending.",
    "the val loss is increasing from epoch 5 on but the BLEU keeps improving, is my model overfitting?",
])
def test_validation_loss_up_while_the_task_metric_improves_is_healthy(lang, text):
    assert _symptom(text, lang) == "healthy"


@pytest.mark.parametrize("scaler,collapsed", [
    ("Each epoch prints a few lines of 'Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 512.0'. "
     "Should I be worried?",
     "With fp16 every step says 'Gradient overflow. Skipping step, reducing loss scale to 0.125' and nothing trains"),
    ("I see 'overflow detected, setting loss scale to: 2048.0' now and then with fp16, the loss goes down fine",
     "OVERFLOW! Skipping step. Attempted loss scale: 1, reducing to 1. It keeps printing this forever."),
])
def test_the_dynamic_loss_scaler_skipping_a_step_is_healthy_until_the_scale_collapses(lang, scaler, collapsed):
    assert _symptom(scaler, lang) == "healthy"
    assert _symptom(collapsed, lang) == "explosion"


@pytest.mark.parametrize("text", [
    "My diffusion loss doesn't go down after the first few thousand steps, but the samples look better and better.",
    "The DINO loss is not decreasing during pretraining on my own images.",
    "The GAN loss is not converging after 100k iterations, the faces look sharper every day though.",
])
def test_a_diffusion_dino_or_gan_loss_that_does_not_fall_is_healthy(lang, text):
    assert _symptom(text, lang) == "healthy"
