"""A validation accuracy that rises and turns once is not thrown back and forth (session 51, issue 13):
five evaluations climbing 45% -> 62% and then dropping to 53% are learning and one bad epoch, not the
instability of an accuracy that jumps up and down evaluation after evaluation."""

from cli_reports import diagnose_log, report_facts


def _diagnose(tmp_path, log: str, script: str | None = None) -> dict:
    return diagnose_log(tmp_path, log, script)


def _facts(report: dict) -> dict:
    return report_facts(report)


def _hf_log(losses, evals) -> str:
    """Hugging Face Trainer dicts: a training loss every third of an epoch, an evaluation per epoch."""
    lines = ["***** Running training *****"]
    for k, loss in enumerate(losses, 1):
        lines.append(str({"loss": loss, "learning_rate": 0.002, "epoch": round(k / 3, 2)}))
        if k % 3 == 0:
            vl, va = evals[k // 3 - 1]
            lines.append(str({"eval_loss": vl, "eval_accuracy": va, "epoch": float(k // 3)}))
    return "\n".join(lines) + "\n"


def test_a_validation_accuracy_that_rises_and_turns_once_is_no_swing(tmp_path):
    losses = [1.95, 1.62, 1.45, 1.33, 1.26, 1.21, 1.17, 1.13, 1.10, 1.08, 1.05, 1.03, 1.01, 0.99, 0.98]
    evals = [(1.59, 0.451), (1.35, 0.546), (1.27, 0.598), (1.20, 0.620), (1.43, 0.534)]
    report = _diagnose(tmp_path, _hf_log(losses, evals))
    assert _facts(report)["val_accuracy_swing"] < 0.05
    assert report["symptom"]["id"] != "instability"
    swinging = [(1.59, 0.45), (1.35, 0.60), (1.37, 0.47), (1.30, 0.63), (1.41, 0.49)]
    assert _facts(_diagnose(tmp_path, _hf_log(losses, swinging)))["val_accuracy_swing"] >= 0.05
