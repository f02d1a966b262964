"""A training loss that creeps down beside a validation accuracy that never changes (issue 13, session
43, paste43). A classifier that answers one class whatever it sees prints the same accuracy at every
evaluation while its loss still falls a little (the output bias calibrates to the class shares):
not one prediction changes, so it is Not Learning, not a slow learner. Before, the creep alone read as
Training Slow. The twin whose accuracy moves is still slow. Each sample is written for this test
(invented numbers in a common ``Epoch: N train_loss= train_acc= val_loss= val_acc=`` print shape) and
asserts what a user reads off ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _log(val_accs, train_acc=0.2410) -> str:
    rows = []
    for k, va in enumerate(val_accs):
        loss = 1.6120 - 0.0085 * k
        rows.append(f"Epoch: {k + 1:04d} train_loss= {loss:.4f} train_acc= {train_acc:.4f} "
                    f"val_loss= {loss + 0.0021:.4f} val_acc= {va:.4f} time= 0.{41 + k % 3}")
    return "\n".join(rows) + "\n"


def test_a_creeping_loss_under_a_frozen_accuracy_is_not_learning(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log([0.2200] * 11))
    assert report_symptom(rep) == "not_learning"


def test_the_same_creep_with_an_accuracy_that_moves_is_slow_training(tmp_path):
    accs = [0.2200, 0.2260, 0.2310, 0.2290, 0.2380, 0.2420, 0.2470, 0.2450, 0.2530, 0.2580, 0.2610]
    rep, _ = diagnose_log_report(tmp_path, _log(accs, train_acc=0.2410))
    assert report_symptom(rep) == "slow_training"
