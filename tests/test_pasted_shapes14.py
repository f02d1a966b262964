"""Shapes read from the pasted tuning material in session 17 (issue 13): each sample is written for
this test (invented numbers in the print shapes of common tools) and asserts what a user sees
through ``traindx diagnose --log FILE`` or what the reader keeps. Each has a twin that must not
change. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


# ------------------------------------------------------------- a loss tensor printed with its grad_fn
_BCE_FLAT = [0.6891, 0.6874, 0.6903, 0.6869, 0.6885, 0.6878, 0.6897, 0.6871, 0.6888, 0.6880]


def _printed_tensors(node: str, values=_BCE_FLAT, nodes_per_line: int = 1) -> str:
    """``print("loss", loss)`` inside a tqdm loop: the bar, then the tensor with its autograd node."""
    out = []
    for i, v in enumerate(values):
        step = 260 + 6 * i
        extra = "".join(f", 'aux{k}': tensor(0.1000, grad_fn=<DivBackward0>)" for k in range(nodes_per_line - 1))
        out.append(f" {step * 100 // 900:2d}%|##        | {step}/900 [01:{10 + i:02d}<09:12,  1.31it/s]"
                   f"loss tensor({v:.4f}, device='cuda:0', grad_fn=<{node}>){extra}")
    return "\n".join(out)


def test_a_binary_cross_entropy_node_names_the_loss_and_a_flat_loss_near_ln2_reads_not_learning(tmp_path):
    rep, _ = _diagnose(tmp_path, _printed_tensors("BinaryCrossEntropyBackward0"))
    assert _facts(rep)["loss_function"] == "bce"
    assert _symptom(rep) == "not_learning"


def test_a_regression_node_names_mse_and_the_same_numbers_are_no_guess(tmp_path):
    rep, _ = _diagnose(tmp_path, _printed_tensors("MeanBackward0"))
    assert "loss_function" not in _facts(rep) and _symptom(rep) != "not_learning"
    rep, _ = _diagnose(tmp_path, _printed_tensors("MseLossBackward0"))
    assert _facts(rep)["loss_function"] == "mse"
    assert _symptom(rep) != "not_learning"


def test_several_loss_terms_on_one_line_name_no_loss_function():
    log = read_console_text(_printed_tensors("BinaryCrossEntropyBackward0", nodes_per_line=2))
    assert log.loss_nodes == {}


def test_a_node_of_arithmetic_names_no_loss_function():
    log = read_console_text(_printed_tensors("MeanBackward0"))
    assert log.loss_nodes == {}


# ------------------------------------------------------------- a GAN's two losses named Err_G / Err_D
def _dcgan(names=("Err_G", "Err_D")) -> str:
    """dcgan.torch's per-batch line: epoch and batch counters, timings, then both networks' losses."""
    g = [2.91, 0.74, 3.62, 1.18, 4.05, 0.66, 2.47, 3.88, 0.93, 2.71, 1.05, 3.34]
    d = [0.41, 1.32, 0.29, 0.97, 0.22, 1.45, 0.51, 0.25, 1.12, 0.38, 1.07, 0.31]
    return "\n".join(f"Epoch: [17][{i:8d} / {len(g):7d}]\t Time: 0.41{i}  DataTime: 0.00{i % 3}    "
                     f"{names[0]}: {a:.4f}  {names[1]}: {b:.4f}\t" for i, (a, b) in enumerate(zip(g, d)))


def test_a_gans_err_g_and_err_d_are_read_as_losses(tmp_path):
    rep, out = _diagnose(tmp_path, _dcgan())
    assert out.startswith("Read ") and "loss" in out.splitlines()[0]
    assert _symptom(rep) == "instability"       # the generator's loss swings 0.7 <-> 4 batch to batch


def test_an_error_rate_named_err_alone_is_no_loss():
    import pytest

    from traindx.engine.errors import InputError
    with pytest.raises(InputError):
        read_console_text(_dcgan(names=("Err", "top5_err")))


# ------------------------------------------------------------- a throughput printed as a named value
def _clu(rate_name: str) -> str:
    """absl + CLU metric writer lines: the step in brackets, then ``name=value`` pairs."""
    out = []
    for i, (rate, loss) in enumerate(zip([2.41, 2.38, 1.22, 0.61, 0.60, 0.59], [4.12, 3.87, 3.66, 3.49, 3.35, 3.24])):
        out.append(f"I0511 09:1{i}:02.118200 140131 logging_writer.py:48] [{200 * (i + 1)}] {rate_name}={rate}, "
                   f"train_loss={loss}")
    return "\n".join(out)


def test_a_rate_named_steps_per_second_is_read_as_the_time_per_step():
    st = read_console_text(_clu("steps_per_second")).get("step_time")
    assert st is not None and st.rows == 6
    assert abs(st.last_value - 1 / 0.59) < 1e-6          # seconds per step: the rate's inverse


def test_an_evaluations_rate_is_not_the_training_speed():
    assert read_console_text(_clu("eval_steps_per_second")).get("step_time") is None


def test_a_paste_of_only_samples_per_sec_timer_lines_is_read(tmp_path):
    lines = [f"[2023-03-02 11:0{i}:1{i},402] [INFO] [timer.py:190:stop] 0/{40 + 10 * i}, SamplesPerSec={v}"
             for i, v in enumerate([61.2, 60.8, 61.5, 60.9, 61.1])]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "time per step" in out.splitlines()[0]
    assert _symptom(rep) == "slow_training"            # all a speed-only paste can speak to
