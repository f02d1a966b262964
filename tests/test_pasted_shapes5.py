"""Console excerpts in the shapes of session 10's tuning material (pasted set fresh5): each sample
is written for this test — synthetic numbers in the print shapes of common tools — and asserts
what a user would see through ``traindx diagnose --log FILE``: the metric read, or the symptom.

Shapes: a mixed-precision loss scaler's overflow cascade with no metric printed (and one cut short
by a traceback), a detector's table rows that end in a progress bar drawn without bar characters,
a step printed at the start of a ``|``-separated line, a split's metric behind a qualifier
(``source_train_acc``), progress-bar redraws run together on one line, and a run whose training
and validation repeat the same numbers epoch after epoch. Torch-free.
"""


import json

from conftest import diagnose_log_text, report_symptom, diagnose_log_report

from traindx.probes.readers.console import read_console_text


_symptom = report_symptom
_diagnose = diagnose_log_report


_run = diagnose_log_text


def _cascade(start: float, n: int, dup: int = 1) -> list:
    lines, scale = [], start
    for _ in range(n):
        scale /= 2
        lines += [f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {scale}"] * dup
    return lines


# ------------------------------------------------------------------------ loss-scale cascades
def test_a_loss_scale_halved_below_one_step_after_step_is_an_explosion(tmp_path):
    rep, out = _diagnose(tmp_path, "\n".join(_cascade(65536.0, 17)))
    assert _symptom(rep) == "explosion"
    assert "halved its scale 17 time(s) in a row" in out


def test_a_cascade_printed_by_every_rank_counts_its_halvings_once(tmp_path):
    rep, out = _diagnose(tmp_path, "\n".join(_cascade(4.0e-300, 5, dup=2)))
    assert _symptom(rep) == "explosion"
    assert "halved its scale 5 time(s)" in out


def test_a_scaler_calibrating_at_the_start_is_no_explosion(tmp_path):
    # the usual start of apex / fp16 training: a few halvings from 2**16, then steps
    lines = _cascade(65536.0, 6)
    lines += [f"step {i} | loss {4.0 - 0.1 * i:.4f} | lr 0.001" for i in range(1, 13)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) != "explosion"


def test_isolated_overflows_between_steps_are_no_explosion(tmp_path):
    # fairseq's routine overflows: one or two halvings between epochs, down to 0.5 at the end
    lines = []
    for e, loss in enumerate((3.882, 3.863, 3.845), start=22):
        lines += [f"| epoch {e:03d} | loss {loss} | ppl 4.5 | num_updates {254 * e} | loss_scale 1.000",
                  "| WARNING: overflow detected, setting loss scale to: 1.0"]
    lines.append("| WARNING: overflow detected, setting loss scale to: 0.5")
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) != "explosion"


def test_a_traceback_cut_short_after_a_collapse_is_the_scaler_giving_up(tmp_path):
    lines = ["| epoch 027 | loss 6.343 | ppl 31.65 | num_updates 10198 | loss_scale 0.500"]
    lines += [f"| WARNING: overflow detected, setting loss scale to: {0.5 / 2 ** k}" for k in range(1, 13)]
    lines += ["Traceback (most recent call last):", '  File "train.py", l']
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "explosion"


def test_no_cascade_and_no_metric_reads_the_scalers_warm_up_not_a_fault(tmp_path):
    # overflows that leave the scale far above 1 and no metric: the scaler settling (session 16, paste11),
    # neither an fp16 overflow cascade nor a cause
    res = _run(tmp_path, "\n".join(_cascade(65536.0, 3)) + "\nall done\n")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output[res.output.index("{"):])
    assert rep["status"] == "healthy"
    assert all(c["confidence"] < 0.5 for c in rep["root_causes"])


def test_nothing_but_prose_still_fails_in_one_line(tmp_path):
    res = _run(tmp_path, "starting training\nall done\n")
    assert res.exit_code == 2
    msg = (res.stderr if hasattr(res, "stderr") else res.output).strip()
    assert len(msg.splitlines()) == 1 and "run.out" in msg and "no training metrics found" in msg


# ------------------------------------------------------------------------ print shapes
def test_table_rows_ending_in_a_bar_without_bar_characters_are_read(tmp_path):
    head = "     Epoch   gpu_mem       box       obj       cls     total   targets  img_size"
    lines = []
    for e, (box, obj, cls) in enumerate([(0.09, 0.05, 0.02), (0.07, 0.04, 0.015), (0.06, 0.035, 0.01),
                                         (0.05, 0.03, 0.008), (0.045, 0.028, 0.006)]):
        lines += [head, f"      {e}/49     8.55G    {box}    {obj}   {cls}   {box + obj + cls:.4f}        12"
                        f"       448: 100% 1626/1626 [22:57<00:00,  1.18it/s]", ""]
    log = read_console_text("\n".join(lines))
    assert log.columns["loss"] == "box + obj + cls"
    assert [round(p.mean, 3) for p in log["loss"].points] == [0.16, 0.125, 0.105, 0.088, 0.079]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "healthy"


def test_a_step_printed_first_on_a_bar_separated_line_is_the_step(tmp_path):
    text = "\n".join(f"{1220 + 10 * i} | loss {3.3 - 0.004 * i:.4f} | lr 2.6e-04 | 13880.16ms" for i in range(20))
    log = read_console_text(text)
    assert log.x_label == "step"
    assert log["loss"].points[0].x == 1220
    rep, _ = _diagnose(tmp_path, text)
    assert any(f["fact"] == "log_starts_mid_run" and f["value"] is True for f in rep["facts"])


def test_a_split_metric_behind_a_qualifier_is_that_split_metric(tmp_path):
    text = "\n".join(f"Epoch: {e}/100, loss: {0.5 / e:.4f}, source_train_acc: {min(99.0, 60 + 4 * e):.2f}%"
                     for e in range(1, 10))
    log = read_console_text(text)
    assert log.columns["accuracy"] == "source_train_acc"
    assert round(log["accuracy"].points[-1].mean, 2) == 0.96
    # a loss component keeps its own name: no split word behind its qualifier
    assert read_console_text("\n".join(f"iter {i} loss {1.0 / i:.3f} loss_rpn_cls {0.1:.3f}"
                                       for i in range(1, 6))).columns["loss"] == "loss"


def test_progress_bar_redraws_run_together_on_one_line_are_each_read(tmp_path):
    redraws = "".join(f"| epoch 014:  {int(100 * i / 35):2d}%|▏| {i}/35 [00:0{i}<00:33,  1.1s/it, "
                      f"loss={11.6 - 0.01 * i:.3f}, num_updates={455 + i}, lr=0.00025, gnorm=0.45, cli"
                      for i in range(1, 9))
    log = read_console_text(redraws + "\n")
    assert log["loss"].rows == 8
    assert [p.x for p in log["loss"].points][:3] == [456.0, 457.0, 458.0]


def test_training_and_validation_repeating_the_same_numbers_is_not_learning(tmp_path):
    lines = ["Epoch 1/100", "4451/4451 [==============================] - 4s 805us/step - loss: 0.0291 - "
             "accuracy: 0.9980 - val_loss: 0.0265 - val_accuracy: 0.9983"]
    for e in range(2, 10):
        lines += [f"Epoch {e}/100", "4451/4451 [==============================] - 3s 764us/step - loss: 0.0266 - "
                  "accuracy: 0.9983 - val_loss: 0.0265 - val_accuracy: 0.9983"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "not_learning"
    assert "nothing in the model changes" in out


def test_a_converged_run_still_moving_in_its_last_digits_is_not_frozen(tmp_path):
    lines = []
    for e in range(1, 10):
        lines += [f"Epoch {e}/100", f"4451/4451 [==============================] - 3s 764us/step - loss: "
                  f"{0.0266 + 0.0001 * (e % 3):.4f} - accuracy: 0.9983 - val_loss: {0.0265 + 0.0001 * (e % 2):.4f} - "
                  "val_accuracy: 0.9983"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert not any(f["fact"] == "run_frozen" for f in rep["facts"])


def test_a_detector_table_without_its_header_is_read_under_the_known_layout(tmp_path):
    rows = []
    for e in range(9):
        box, obj, cls = 0.08 * 0.9 ** e, 0.028 * 0.95 ** e, 0.018 * 0.8 ** e
        # the validation losses (the last three columns, summed into one since session 11) fall too
        rows.append(f"      {e}/89     5.61G  {box:8.4g}  {obj:8.4g}  {cls:8.4g}  {box + obj + cls:8.4g}         7"
                    f"       640    0.7966    0.3577    0.3942    0.1884   {0.04524 * 0.97 ** e:.4g}"
                    f"   {0.01313 * 0.98 ** e:.4g}  {0.004035 * 0.95 ** e:.4g}")
    log = read_console_text("\n".join(rows))
    assert log.columns["loss"] == "box + obj + cls"
    assert log["loss"].rows == 9
    rep, _ = _diagnose(tmp_path, "\n".join(rows))
    assert _symptom(rep) == "healthy"
    # a row of numbers with a cell count no layout has stays unread (one line, exit 2)
    res = _run(tmp_path, "\n".join(" ".join(r.split()[:-2]) for r in rows), name="short.out")
    assert res.exit_code == 2


def test_the_same_per_batch_losses_coming_back_is_not_learning(tmp_path):
    cycle = [3.7451, 3.5551, 3.1906, 3.5086, 3.7002, 3.5073, 3.9202]
    lines = [f"iter {100 + i} step {50 + i // 2}: loss {cycle[(i * 3) % 7]:.4f}, iter time: 108.78ms"
             for i in range(22)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "not_learning"
    assert "the same values come back" in out


def test_bfloat16_losses_repeating_by_coarseness_are_no_recurrence(tmp_path):
    # losses computed in bfloat16 (multiples of 1/64 near 3) come back by rounding alone
    vals = [3.2969, 3.1875, 3.3438, 3.3281, 3.2812, 3.1875, 3.2969, 3.2031, 3.1562, 3.2812, 3.1875, 3.3281]
    text = "\n".join(f"{1220 + 10 * i} | loss {v:.4f} | lr 2.6e-04 | 13880.16ms" for i, v in enumerate(vals))
    rep, _ = _diagnose(tmp_path, text)
    assert not any(f["fact"] == "loss_values_recur" and f["value"] is True for f in rep["facts"])


def test_a_long_converged_tail_of_four_decimal_losses_is_no_recurrence(tmp_path):
    # a whole run printed per step: its tail clusters in a narrow band, so values repeat often,
    # and values one printed unit apart more often still
    import random
    rng = random.Random(3)
    vals = [2.3 * 0.97 ** i + 0.05 + rng.gauss(0, 0.002) for i in range(300)]
    text = "\n".join(f"step {i} loss {v:.4f}" for i, v in enumerate(vals))
    rep, _ = _diagnose(tmp_path, text)
    assert not any(f["fact"] == "loss_values_recur" and f["value"] is True for f in rep["facts"])
