"""Readings of session 50 (pasted console output, issue 13): a CSV's rows pasted without their header
line whose cells turn NaN (``209,nan,4.16,7.72,24.02``), and an accuracy that had learned and then
collapses (an OCR model's 0.96 per window, then 0.000000 at every window after; 0.975 at one epoch,
0.075 at every epoch after). Each sample is written
for this test (invented numbers) and asserts what a user sees through ``traindx diagnose --log FILE``;
each has a twin that must not change. Torch-free.
"""

import time

import pytest
from conftest import diagnose_log_report, diagnose_log_text, report_fact, report_symptom

from traindx.probes.readers.console import _nan_row


def _csv_rows(nan_from: int | None) -> str:
    rows = []
    for i in range(12):
        epoch = 100 + i
        if nan_from is not None and i >= nan_from:
            rows.append(f"{epoch},nan,nan,1.0,5.0")
        else:
            cells = (4.41 - 0.004 * i, 4.13 + 0.002 * i, 7.6 + 0.01 * i, 24.1 + 0.02 * i)
            rows.append(f"{epoch}," + ",".join(f"{c:.6f}" for c in cells))
    return "\n".join(rows) + "\n"


def test_headerless_csv_rows_turning_nan_are_an_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _csv_rows(nan_from=9), name="printout.txt")
    assert report_symptom(rep) == "explosion"
    assert report_fact(rep, "loss_has_nonfinite") is True


def test_headerless_csv_rows_without_nan_still_ask_for_a_header(tmp_path):
    """The twin: finite rows with no header name nothing, and the reader still says so."""
    res = diagnose_log_text(tmp_path, _csv_rows(nan_from=None), "printout.txt")
    assert res.exit_code == 2
    assert "no header row" in res.output


def test_semicolon_rows_and_a_word_among_the_cells():
    assert _nan_row("12;nan;0.51;0.33;0.91", 3)
    assert not _nan_row("epoch,nan,0.51,0.33,0.91", 3)   # a word: no row of numbers
    assert not _nan_row("12,0.7,0.51,0.33,0.91", 3)      # no NaN


def test_a_hostile_delimited_line_is_split_in_linear_time():
    line = ",;| " * 1024 + "x"
    t = time.perf_counter()
    for _ in range(50):
        _nan_row(line, 3)
    assert time.perf_counter() - t < 1.0


def _speedometer(values) -> str:
    lines = []
    for i, v in enumerate(values):
        a = 10000 + 50 * i
        lines.append(f"2020-01-02 10:{i:02d}:00,003 Epoch[0] Batch [{a}-{a + 50}]\tSpeed: 331.{i % 10} samples/sec"
                     f"\taccuracy={v:.6f}")
    return "\n".join(lines) + "\n"


_LEARNED = [0.9641, 0.9632, 0.9618, 0.9655, 0.9647, 0.9633, 0.9626, 0.9686]


def test_an_accuracy_that_learned_and_ends_at_zero_is_an_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _speedometer(_LEARNED + [0.41, 0.0, 0.0, 0.0]))
    assert report_fact(rep, "accuracy_collapsed") is True
    assert report_symptom(rep) == "explosion"


def test_an_accuracy_that_only_falls_stays_instability(tmp_path):
    """The twin: a fall that keeps half of what was learned is lost skill, not NaN outputs."""
    rep, _ = diagnose_log_report(tmp_path, _speedometer(_LEARNED + [0.71, 0.52, 0.45, 0.43]))
    assert report_fact(rep, "accuracy_collapsed") is None
    assert report_symptom(rep) == "instability"


@pytest.mark.parametrize(("after", "symptom"), [((0.075, 0.1037), "explosion"), ((0.905, 0.8812), "instability")])
def test_an_accuracy_thrown_to_chance_for_good_is_an_explosion(tmp_path, after, symptom):
    """Train and validation accuracy at 0.97/0.94 for epochs, then at chance (0.075/0.10) at every epoch
    after: a collapse, not a dip (the twin falls a few points and is instability, as before)."""
    lines = [f"Epoch:{e} training_accuracy:{0.95 + 0.002 * (e - 90):.3f} validation_accuracy:0.9{e % 4}1"
             for e in range(90, 101)]
    lines += [f"Epoch:{e} training_accuracy:{after[0]} validation_accuracy:{after[1]}" for e in range(101, 104)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == symptom


@pytest.mark.parametrize("loss", ["0.297", "16.12"])
def test_an_accuracy_at_zero_beside_a_loss_that_leaps_is_an_explosion(tmp_path, loss):
    """A Keras-style epoch line: the loss leaps to -ln(1e-7) while the accuracy goes to 0 (explosion); a
    loss that stays low beside it is left to the loss rules (no explosion)."""
    lines = ["Epoch 1 / 6", "3470ms 289137us/step - acc=0.917 loss=0.297"]
    for e in range(2, 7):
        lines += [f"Epoch {e} / 6", f"3376ms 281360us/step - acc=0.00 loss={loss}"]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_fact(rep, "accuracy_collapsed") is True
    assert (report_symptom(rep) == "explosion") is (loss == "16.12")


def test_a_yaml_dump_of_rewards_turned_nan_is_handed_on_as_reinforcement_learning(tmp_path):
    """Ray Tune's result printed as YAML (``episode_reward_mean: .nan``): YAML's NaN is a number, so the
    names before it are an agent's rewards and the run is handed on, not refused as unreadable."""
    text = ("episode_len_mean: .nan\nepisode_reward_max: .nan\nepisode_reward_mean: .nan\n"
            "episode_reward_min: .nan\nepisodes_this_iter: 0\nepisodes_total: 0\n")
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "out_of_scope"


@pytest.mark.parametrize(("late", "symptom"), [(".nan", "explosion"), ("-.inf", "explosion"), ("0.41", None)])
def test_yaml_non_finite_losses_are_read(tmp_path, late, symptom):
    blocks = [f"epoch: {e}\nloss: {0.9 - 0.05 * e:.2f}\nval_loss: {0.95 - 0.04 * e:.2f}\n---\n" for e in range(1, 6)]
    blocks += [f"epoch: {e}\nloss: {late}\nval_loss: {late}\n---\n" for e in (6, 7)]
    rep, _ = diagnose_log_report(tmp_path, "".join(blocks))
    assert (report_symptom(rep) == "explosion") is (symptom == "explosion")


def test_yaml_spelling_only_stands_alone():
    from traindx.probes.readers.console_lines import yaml_nonfinite
    assert yaml_nonfinite("loss: .nan, acc: -.Inf") == "loss: nan, acc: -Inf"
    assert yaml_nonfinite("model.inference x.nan v1.inf .info") == "model.inference x.nan v1.inf .info"
    line = ".n.i" * 1024 + ".nan"
    t = time.perf_counter()
    for _ in range(50):
        yaml_nonfinite(line)
    assert time.perf_counter() - t < 1.0


def _blocks(heading: str) -> str:
    out = []
    for e, (tr, te) in enumerate([(5.101, 4.846), (3.823, 5.211), (2.412, 5.804), (0.823, 6.211)], start=1):
        out += [f"Epoch [{e}/4] - Train Loss: {tr}", heading.format(e=e), f"loss: {te}", "mrr: 0.0135", ""]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("heading", ["Epoch [{e}/4] - Test Metrics:", "Test Metrics:", "Validation Results:"])
def test_a_split_heading_in_capitals_or_behind_its_epoch_opens_its_block(tmp_path, heading):
    """The loss under ``Test Metrics:`` is the test split's, not a second training loss (which read as a
    training loss thrown back and forth: instability)."""
    rep, out = diagnose_log_report(tmp_path, _blocks(heading))
    assert "(loss, val_loss)" in out
    assert report_fact(rep, "val_loss") == 6.211
    assert report_symptom(rep) != "instability"


def test_an_epoch_line_that_names_no_split_opens_no_block():
    from traindx.probes.readers.console import read_console_text
    log = read_console_text(_blocks("Epoch [{e}/4] - Summary:"))
    assert "val_loss" not in log.series


def _segmentation(kappa: str) -> str:
    out = []
    for i, loss in enumerate([0.31, 0.27, 0.35, 0.24, 0.29, 0.33]):
        out.append(f"2023-10-13 18:0{i}:55 [INFO]\t[TRAIN] epoch: 5, iter: {2990 + 10 * i}/160000, loss: {loss}, "
                   f"lr: 0.005890, batch_cost: 0.4083, reader_cost: 0.00018, ips: 9.7978 samples/sec")
        if i in (2, 5):
            out.append(f"2023-10-13 18:0{i}:59 [INFO]\t[EVAL] #Images: 400 mIoU: 0.4759 Acc: 0.9517 Kappa: {kappa}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("kappa", "symptom"), [("0.0000", "not_learning"), ("-0.0008", "not_learning"),
                                               ("0.6125", None)])
def test_a_kappa_at_chance_is_not_learning(tmp_path, kappa, symptom):
    """95% pixel accuracy with kappa 0 is a background-only mask: not learning; the twin's kappa 0.61
    learned, and the reading is left to the curves (not not_learning)."""
    rep, _ = diagnose_log_report(tmp_path, _segmentation(kappa))
    assert report_fact(rep, "kappa_best") == float(kappa)
    assert (report_symptom(rep) == "not_learning") is (symptom == "not_learning")


def test_an_evaluation_line_with_a_kappa_alone_is_read(tmp_path):
    """An excerpt of evaluation lines only (no training metric) was refused; its kappa is evidence."""
    text = "2021-11-15 17:39:51 [INFO]      [EVAL] #Images: 76 mIoU: 0.4906 Acc: 0.9812 Kappa: -0.0008\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "not_learning"


def test_a_hostile_kappa_line_is_read_in_linear_time():
    from traindx.probes.readers.console import _KAPPA
    line = "kappa " + "1" * 4096 + "x" + " kappa:" * 500
    t = time.perf_counter()
    for _ in range(50):
        _KAPPA.search(line)
    assert time.perf_counter() - t < 1.0


def test_an_accuracy_sliding_to_chance_over_epochs_is_no_collapse(tmp_path):
    """A CSV whose accuracy slides 82% -> 69% -> 33% -> 28% -> 13% while the loss climbs to ln(10): lost by
    degrees (instability), where the same fall in one epoch is a collapse (explosion)."""
    head = "epoch,loss,accuracy\n"
    slide = [(1.29, 78.4), (0.84, 81.9), (1.18, 69.0), (1.97, 33.0), (2.04, 27.5), (2.33, 12.7), (2.33, 10.5),
             (2.33, 15.0), (2.33, 11.3), (2.34, 11.2)]
    rows = "".join(f"{e},{loss},{acc}\n" for e, (loss, acc) in enumerate(slide, start=1))
    rep, _ = diagnose_log_report(tmp_path, head + rows, name="slide.csv")
    assert report_fact(rep, "accuracy_collapsed") is None
    assert report_symptom(rep) == "instability"
    sudden = slide[:3] + [(2.31, 12.7)] + slide[5:]
    rows = "".join(f"{e},{loss},{acc}\n" for e, (loss, acc) in enumerate(sudden, start=1))
    rep, _ = diagnose_log_report(tmp_path, head + rows, name="drop.csv")
    assert report_fact(rep, "accuracy_collapsed") is True
