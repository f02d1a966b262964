"""An excerpt that starts mid-run, its training loss still falling and its validation loss turned
up from its best, is the Overfitting symptom even when the training loss falls by less than a
fifth over the lines shown: that fall is the excerpt's, not the run's (session 28,
``symptom-val-loss-rising``). From the first epoch, the same small fall is still no 'train good'."""

from conftest import diagnose_log_report, report_symptom

TRAIN = [0.4210, 0.4158, 0.4101, 0.4049, 0.3987, 0.3930]
VAL = [0.5120, 0.5064, 0.5098, 0.5231, 0.5407, 0.5662]


def _log(first_epoch: int) -> str:
    return "\n".join(f"[ep {first_epoch + k:03d}] trn_loss={t:.4f}  dev_loss={v:.4f}  time=12.3s"
                     for k, (t, v) in enumerate(zip(TRAIN, VAL))) + "\n"


def test_mid_run_excerpt_with_validation_turning_up_is_overfitting(tmp_path):
    rep = diagnose_log_report(tmp_path, _log(41))[0]
    assert report_symptom(rep) == "overfitting"


def test_the_same_small_fall_from_the_first_epoch_is_not(tmp_path):
    rep = diagnose_log_report(tmp_path, _log(1))[0]
    assert report_symptom(rep) != "overfitting"
