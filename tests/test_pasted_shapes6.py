"""Console excerpts in the shapes of session 11's tuning material (pasted set fresh6 and the
pasted tuning sets before it): each sample is written for this test — synthetic numbers in the
print shapes of common tools — and asserts what a user sees through ``traindx diagnose --log FILE``.

Shapes and evidence: loss components printed under one-letter names with their total beside them
(YOLACT's ``B: | C: | M: | S: | T:``), read by the sum identity alone; a log that ends on a jump of
the loss by orders of magnitude; a printed gradient norm that spikes a hundredfold while the loss
stays flat. Each has a twin that must not fire (numbers that do not add up, a hard last batch, an
ordinary gradient-norm wobble). Torch-free.
"""

from conftest import diagnose_log_text, report_symptom, diagnose_log_report


_symptom = report_symptom
_diagnose = diagnose_log_report


_run = diagnose_log_text


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def _parts_line(it: int, parts: list, total: float | None = None) -> str:
    names = "BCMS"
    total = sum(parts) if total is None else total
    cells = " | ".join(f"{n}: {v:.3f}" for n, v in zip(names, parts))
    return f"[  1]  {it:6d} || {cells} | T: {total:.3f} || ETA: 2:13:07 || timer: 0.181"


# ------------------------------------------------------------------------ components and their total
def test_unnamed_loss_components_with_their_total_are_read_as_the_loss(tmp_path):
    lines = ["Begin training!", ""]
    for k in range(12):
        parts = [4.0 - 0.2 * k, 3.0 - 0.1 * k, 5.0 - 0.25 * k, 0.5 - 0.02 * k]
        lines.append(_parts_line(10 * k, parts))
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "1 metric (loss)" in out
    f = _facts(rep)
    # the total, not a component: 12.5 at the start
    assert abs(f["initial_loss"] - 12.5) < 0.6 and f["loss_trend"] == "decreasing"


def test_numbers_that_do_not_add_up_stay_unread(tmp_path):
    # the same shape, but no value is the sum of its neighbours: nothing says these are losses
    lines = [_parts_line(10 * k, [4.0, 3.0, 5.0, 0.5], total=9.0 + 0.1 * k) for k in range(12)]
    res = _run(tmp_path, "\n".join(lines))
    assert res.exit_code == 2
    msg = res.output.strip().splitlines()
    assert len(msg) == 1 and "run.out" in msg[0] and "no training metrics found" in msg[0]

def test_components_printed_with_an_exponent_past_float_range_are_no_traceback(tmp_path):
    # found by benchmarks/fuzz.py: a part printed as 1e400 made the rounding tolerance overflow.
    # Such a line is read or refused like any other: exit 0 or one line naming the file, exit 2.
    lines = [f"[  1]  {10 * k:6d} || B: 4.000 | C: 1e400 | M: 2.000 | S: 0.500 | T: 6.500 || ETA: 0:01"
             for k in range(12)]
    res = _run(tmp_path, "\n".join(lines))
    assert res.exit_code in (0, 2), res.output
    assert "Traceback" not in res.output
    if res.exit_code == 2:
        msg = res.output.strip().splitlines()
        assert len(msg) == 1 and "run.out" in msg[0]


def test_a_loss_that_ends_on_a_blowup_of_the_components_is_an_explosion(tmp_path):
    lines = [_parts_line(10 * k, [6.1 + 0.05 * (k % 3), 2.9, 4.6, 0.3]) for k in range(10)]
    lines.append(_parts_line(100, [1.4e23, 4.1e23, 6.972, 2.4e9]))
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "explosion"
    assert "the log ends on a jump" in out


# ------------------------------------------------------------------------ the log's last point
def _steps(losses) -> str:
    return "\n".join(f"step {i * 10} loss {v:.4f} lr 0.0010" for i, v in enumerate(losses))


def test_a_hard_last_batch_is_no_explosion(tmp_path):
    losses = [2.3 - 0.05 * i for i in range(20)] + [5.0]
    rep, _ = _diagnose(tmp_path, _steps(losses))
    assert _symptom(rep) != "explosion"


def test_a_loss_that_jumps_a_thousandfold_on_its_last_record_is_an_explosion(tmp_path):
    losses = [2.3 - 0.05 * i for i in range(20)] + [4.2e6]
    rep, _ = _diagnose(tmp_path, _steps(losses))
    assert _symptom(rep) == "explosion"


# ------------------------------------------------------------------------ gradient-norm spikes
_FLAT = [1.4611, 1.2803, 1.5977, 1.3342, 1.4129, 1.5120, 1.3598, 1.3687, 1.5081, 1.3736]


def _gn(norms) -> str:
    return "\n".join(f"step {i * 50} | loss {v:.4f} | grad_norm {g:.2f}" for i, (v, g) in enumerate(zip(_FLAT, norms)))


def test_a_gradient_norm_spiking_a_hundredfold_on_a_flat_loss_is_instability(tmp_path):
    norms = [9.5, 10.2, 9.1, 8.8, 11140.0, 9.9, 10.4, 9.0, 92.0, 9.6]
    rep, out = _diagnose(tmp_path, _gn(norms))
    assert _symptom(rep) == "instability"
    assert "grad_norm_spike" in out


def test_an_ordinary_gradient_norm_wobble_on_a_flat_loss_stays_not_learning(tmp_path):
    norms = [9.5, 10.2, 9.1, 8.8, 70.0, 9.9, 10.4, 9.0, 12.0, 9.6]
    rep, _ = _diagnose(tmp_path, _gn(norms))
    assert _symptom(rep) != "instability"


def test_the_large_gradients_of_the_first_step_are_no_spike(tmp_path):
    norms = [5000.0, 10.2, 9.1, 8.8, 9.3, 9.9, 10.4, 9.0, 12.0, 9.6]
    rep, _ = _diagnose(tmp_path, _gn(norms))
    assert _symptom(rep) != "instability"


# ------------------------------------------------------------------------ validation loss components
def test_a_detector_tables_validation_loss_components_are_read_as_one_validation_loss(tmp_path):
    head = "      Epoch    GPU_mem   box_loss   obj_loss   cls_loss   val box   val obj   val cls"
    rows = [head]
    for e in range(8):
        tr = [0.060 - 0.003 * e, 0.030 - 0.001 * e, 0.010 - 0.0005 * e]
        va = [0.040 + 0.004 * e, 0.020 + 0.003 * e, 0.008 + 0.001 * e]   # climbing while training falls
        rows.append(f"      {e}/99     9.48G " + " ".join(f"{v:10.5f}" for v in tr + va))
    rep, out = _diagnose(tmp_path, "\n".join(rows))
    assert "2 metrics (loss, val_loss)" in out
    f = _facts(rep)
    # the sum of the three (0.068 + 0.041 + 0.015 at the last epoch), not one component
    assert 0.10 <= f["val_loss"] <= 0.125


# ------------------------------------------------------------------------ the printed speed
def test_the_time_per_step_printed_beside_the_loss_is_read_as_a_step_time_curve(tmp_path):
    lines = [f"INFO:tensorflow:global step {i}: loss = {3.0 - 0.05 * i:.4f} ({2.0 + 0.4 * i:.3f} sec/step)"
             for i in range(1, 25)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "1 metric (loss) over 24 steps, and the time per step" in out
    assert _facts(rep)["step_time_trend"] == "increasing"


def test_a_progress_bars_iterations_per_second_are_its_step_time_inverted(tmp_path):
    lines = [f"Epoch 1:  {i * 4}%|##   | {i}/25 [00:{i:02d}<00:20, {8.0 / (1 + 0.2 * i):.2f}it/s, "
             f"loss={2.0 - 0.03 * i:.3f}]" for i in range(1, 25)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "and the time per step" in out.splitlines()[0]
    assert _facts(rep)["step_time_trend"] == "increasing"   # fewer iterations per second: longer steps


def test_a_time_printed_alone_on_an_evaluation_line_is_no_step(tmp_path):
    lines = []
    for e in range(6):
        lines.append(f"===> Epoch {e} Complete: Avg. Loss: {0.02 - 0.001 * e:.6f} time: {660 + e:.2f}")
        lines.append(f"===> Epoch {e}: testing psnr = {34 + 0.1 * e:.2f}, ssim = 0.93, time: 0.02")
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep).get("step_time_trend", "steady") == "steady"


# ------------------------------------------------------------------------ a drift is not a swing
def _keras(train, val) -> str:
    out = ["Train on 2 samples, validate on 2 samples"]
    for e, (t, v) in enumerate(zip(train, val), 1):
        out += [f"Epoch {e}/30",
                f"2/2 [==============================] - 1s 457ms/sample - loss: {t:.4f} - val_loss: {v:.4f}"]
    return "\n".join(out)


def test_a_validation_loss_climbing_by_large_factors_while_training_falls_is_overfitting(tmp_path):
    train = [0.46, 0.41, 0.30, 0.22, 0.15, 0.10, 0.07, 0.05, 0.035]
    # steps of x1.6 to x2.3 (one step back): a median step of x1.6, but every step a climb
    val = [300.0, 495.0, 1047.0, 738.0, 1345.0, 3147.0, 4935.0, 7740.0, 9938.0]
    rep, _ = _diagnose(tmp_path, _keras(train, val))
    assert _symptom(rep) == "overfitting"


def test_a_validation_loss_thrown_back_and_forth_is_still_instability(tmp_path):
    train = [0.46, 0.41, 0.30, 0.22, 0.15, 0.10, 0.07, 0.05, 0.035]
    val = [0.9, 2.1, 0.8, 2.4, 0.7, 2.2, 0.9, 2.5, 0.8]
    rep, _ = _diagnose(tmp_path, _keras(train, val))
    assert _symptom(rep) == "instability"


# ------------------------------------------------------------------------ frozen from the start, or later
def _epochs(rows) -> str:
    out = []
    for e, (l, a, vl, va) in enumerate(rows, 1):
        out += [f"Epoch {e}/100",
                f"4451/4451 [==============================] - 3s 760us/step - loss: {l:.4f} - accuracy: {a:.4f}"
                f" - val_loss: {vl:.4f} - val_accuracy: {va:.4f}"]
    return "\n".join(out)


def test_a_run_frozen_from_its_first_evaluation_is_not_learning(tmp_path):
    rows = [(0.0291, 0.9980, 0.0265, 0.9983)] + [(0.0266, 0.9983, 0.0265, 0.9983)] * 8
    rep, _ = _diagnose(tmp_path, _epochs(rows))
    assert _symptom(rep) == "not_learning"


def test_a_run_that_learned_and_then_froze_is_not_called_not_learning(tmp_path):
    rows = [(1.20 - 0.2 * e, 0.55 + 0.07 * e, 1.25 - 0.2 * e, 0.52 + 0.07 * e) for e in range(5)]
    rows += [(0.3123, 0.8912, 0.3567, 0.8701)] * 5   # the LR decayed to nothing: nothing moves any more
    rep, _ = _diagnose(tmp_path, _epochs(rows))
    assert _symptom(rep) != "not_learning"


def test_a_bar_redrawn_with_only_its_speed_changed_is_one_record():
    from traindx.probes.readers.console import read_console_text
    lines = []
    for i in range(1, 21):
        rec = f"acc={0.5 + 0.02 * i:.3f}, loss={1.6 - 0.03 * i:.4f}"
        lines.append(f"Epoch 1/3:  {i * 5}%|#   | {i}/20 [00:01<00:02, {110.0 + i:.2f}it/s, {rec}]")
        lines.append(f"Epoch 1/3:  {i * 5}%|#   | {i}/20 [00:01<00:02, {140.0 + i:.2f}it/s, {rec}]")
    log = read_console_text("\n".join(lines))
    assert log["loss"].rows == 20 and log["accuracy"].rows == 20


def test_a_bar_that_starts_printing_its_speed_in_a_redraw_is_still_one_record():
    from traindx.probes.readers.console import read_console_text
    lines = []
    for i in range(1, 21):
        rec = f"acc={0.5 + 0.02 * i:.3f}, loss={1.6 - 0.03 * i:.4f}"
        lines.append(f"Epoch 1/3:   0%|    | 0/20 [00:00<?, ?it/s, {rec}]")
        lines.append(f"Epoch 1/3:   0%|    | 0/20 [00:00<00:02, {140.0 + i:.2f}it/s, {rec}]")
    log = read_console_text("\n".join(lines))
    assert log["loss"].rows == 20
