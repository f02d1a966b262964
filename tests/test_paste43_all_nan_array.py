"""An array printed with every cell NaN (issue 13, session 43, paste43). A script that prints its
model's outputs between epochs (Julia's ``2x8 Array{Float32,2}:`` block, a matrix as R or MATLAB
print it) shows rows of ``NaN  NaN  NaN ...`` once the run has blown up. Before, such a row had no
finite number beside its NaN cells and read as nothing: an excerpt with no metric line was
unreadable. Each sample is written for this test (invented lines in common print shapes) and asserts
what a user reads off ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _log(row: str) -> str:
    return ("[ Info: Epoch 1\n[ Info: Epoch 2\n[ Info: Epoch 3\n2×8 Array{Float32,2}:\n"
            f" {row}\n {row}\n[ Info: Epoch 4\n")


def test_an_output_array_gone_all_nan_is_an_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log("  ".join(["NaN"] * 8)))
    assert report_symptom(rep) == "explosion"


def test_three_nan_cells_beside_a_falling_loss_are_no_array(tmp_path):
    # three cells are no printed array: a line like "nan nan nan" (a column of metrics not yet
    # computed) says too little to read a blow-up; the loss beside it decides
    lines = [f"epoch {k + 1} loss {2.3 * 0.8 ** k:.4f}" for k in range(10)]
    lines.insert(5, "nan nan nan")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) != "explosion"
