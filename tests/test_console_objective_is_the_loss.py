"""A loss printed under the name of the objective (session 35): ``train_objective: 0.79`` /
``valid_objective: 0.30`` (Theano-era monitors, SageMaker's ``mse_objective``) names the function the
run minimises, so ``objective`` is one of ``logs.loss_function_words``: the loss of its split when no
name says loss. The log is made up here."""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text

EPOCHS = 10
TRAIN = [0.9 * 0.7 ** e + 0.05 for e in range(EPOCHS)]
VAL = [0.8 * 0.75 ** e + 0.08 for e in range(EPOCHS)]


def _log() -> str:
    lines = ["Setting up the monitor..."]
    for e in range(EPOCHS):
        lines += ["Monitor report:", f"    epochs done: {e + 1}", "    learning_rate: 0.01",
                  f"    train_objective: {TRAIN[e]:.5f}", f"    valid_objective: {VAL[e]:.5f}"]
    return "\n".join(lines) + "\n"


def test_the_objective_of_each_split_is_its_loss():
    log = read_console_text(_log())
    assert log.series["loss"].rows == EPOCHS
    assert log.series["loss"].last_value == pytest.approx(TRAIN[-1], abs=1e-5)
    assert log.series["val_loss"].last_value == pytest.approx(VAL[-1], abs=1e-5)


def test_a_run_whose_objectives_fall_together_is_healthy(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log())
    assert report_symptom(rep) == "healthy"
