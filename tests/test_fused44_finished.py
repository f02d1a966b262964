"""Session 44 (fused44): finished runs read from their console log and script together.

A recommender's trainer prints its epoch loss glued to the word (``EPOCH[3/60] loss0.685-|Sample:0.56|``, as
LightGCN-PyTorch's Procedure prints it): the loss is read, where before the log read as holding no metric at
all. Digits a name goes on after (``conv1``, ``layer1.weight``) stay part of the name. Logs written for this
test. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom


def _glued(losses) -> str:
    rows = [">>SEED: 2020", "use NORMAL distribution initilizer", "lgn is already to go(dropout:0)"]
    for e, v in enumerate(losses, start=1):
        rows.append(f"EPOCH[{e}/{len(losses)}] loss{v:.3f}-|Sample:0.{50 + e % 40}|")
    return "\n".join(rows) + "\n"


def test_a_loss_glued_to_its_word_is_read(tmp_path):
    losses = [0.692 * 0.97 ** e for e in range(40)]
    rep, out = diagnose_log_report(tmp_path, _glued(losses))
    assert "1 metric (loss) over 40 epochs" in out
    assert report_fact(rep, "loss_trend") == "decreasing"
    assert report_symptom(rep) == "healthy"


def test_a_glued_loss_that_never_falls_reads_as_not_learning(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _glued([0.693 + 0.0004 * (e % 3) for e in range(40)]))
    assert "1 metric (loss)" in out
    assert report_symptom(rep) in ("not_learning", "plateau")


def test_a_name_that_goes_on_after_its_digits_keeps_them(tmp_path):
    rows = [f"epoch {e} conv1_loss: {1.0 / (e + 1):.4f} layer2.grad_norm 0.5 acc: {0.5 + e / 100:.3f}"
            for e in range(30)]
    rep, out = diagnose_log_report(tmp_path, "\n".join(rows) + "\n")
    assert "accuracy" in out
    assert report_fact(rep, "loss_trend") == "decreasing"


def test_a_word_with_non_ascii_letters_and_a_path_version_are_no_metrics():
    from traindx.probes.readers.console import read_console_text
    from traindx.engine.errors import NoMetricsError

    text = ("ConvNeXt eğitimi başlıyor: 15380 parametre, 1600 eğitim ve 400 doğrulama görüntüsü\n"
            "Traceback (most recent call last):\n"
            '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/nn/modules/module.py", '
            "line 1778, in _wrapped_call_impl\n"
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x32 and 16x4)\n")
    try:
        log = read_console_text(text)
    except NoMetricsError:
        return
    assert not log.roles, log.role_names
