"""Two hand-written pieces of a training script the code reader now reads as their library forms.

What a user would notice:
- a per-clip standardisation written out, ``np.sqrt(sq_sum / n - mean * mean)`` as the divisor with no
  epsilon, and a loss that turns NaN a few steps in: traindx named no cause for the NaN from the
  script, as it does for ``x.std()``; a silent clip (a constant band) makes 0/0 in the inputs.
- a slim-style batch norm whose forward takes its mode as an argument (``if train_flag:``, evaluated
  with ``train_flag=False``) and whose moving statistics are only updated in a method nothing calls:
  training accuracy 1.0 with validation stuck at one class's share was left to regularisation; the
  evaluation normalises with the statistics the layer was created with.
"""
from __future__ import annotations

from pathlib import Path

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CASES = Path(__file__).parent / "code_cases"
STD = (CASES / "a_standard_deviation_written_out_without_an_epsilon.py").read_text()
FLAG = (CASES / "running_statistics_behind_a_mode_flag_never_updated.py").read_text()


def _nan_log():
    vals = ["1.3120", "1.2950", "1.2710", "1.2405", "nan", "nan", "nan", "nan", "nan", "nan"]
    return "".join(f"epoch 0 step {2 * (i + 1)} loss {v}\n" for i, v in enumerate(vals))


def _stuck_log():
    lines = []
    for e in range(1, 7):
        lines.append(f"epoch {e}: train loss {0.6 * 0.3 ** e:.4f} train acc {min(1.0, 0.85 + 0.05 * e):.4f} "
                     f"val loss {0.68 - 0.004 * e:.4f} val acc 0.4700\n")
    return "".join(lines)


def test_a_nan_loss_after_a_written_out_standard_deviation_names_nan_inputs(tmp_path):
    rep = diagnose_code_and_log(tmp_path, STD, _nan_log())
    assert facts_by_id(rep)["std_division_unguarded"]["value"] is True
    assert top_cause(rep) == "nan_in_inputs"


def test_evaluation_through_a_mode_flag_over_statistics_never_updated_is_a_mode_mismatch(tmp_path):
    rep = diagnose_code_and_log(tmp_path, FLAG, _stuck_log())
    assert facts_by_id(rep)["eval_stats_never_updated"]["value"] is True
    assert top_cause(rep) == "train_eval_mode_mismatch"
