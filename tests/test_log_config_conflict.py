"""A finished run given as a config plus the CSV its logger wrote (no script): when the config's
learning rate and the LR column the log records disagree, the report names the conflict, and the
diagnosis weighs the LR that ran (the log's) rather than the one the config intended."""
import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _csv(lrs):
    """A 10-class classifier whose loss stays at ln 10 = 2.303, with the LR column a Keras
    CSVLogger or a Lightning LearningRateMonitor writes."""
    rows = ["epoch,loss,accuracy,val_loss,val_accuracy,lr"]
    for e, lr in enumerate(lrs, 1):
        rows.append(f"{e},{2.3026 + (e % 2) * 4e-4:.4f},0.1002,2.3031,0.0998,{lr:g}")
    return "\n".join(rows) + "\n"


def _diagnose(tmp_path, cfg_lr, lrs, fmt="json"):
    (tmp_path / "config.yaml").write_text(f"optimizer:\n  name: adam\n  lr: {cfg_lr}\n"
                                          f"batch_size: 128\nepochs: {len(lrs)}\n")
    (tmp_path / "training.csv").write_text(_csv(lrs))
    res = CliRunner().invoke(main, ["diagnose", "--config", str(tmp_path / "config.yaml"), "--log",
                                    str(tmp_path / "training.csv"), "--non-interactive", "--format", fmt])
    assert res.exit_code == 0, res.output
    if fmt != "json":
        return res.output
    out = res.output
    return json.loads(out[out.index("\n{") + 1:] if not out.startswith("{") else out)


def _fact(rep, name):
    return next(f for f in rep["facts"] if f["fact"] == name)


def test_config_lr_against_the_logged_lr_is_named_and_the_logged_one_is_weighed(tmp_path):
    rep = _diagnose(tmp_path, 0.001, [1e-6] * 15)
    lr = [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]
    assert lr and lr[0]["message"].startswith("learning rate: 0.001 (config: config.yaml:optimizer.lr) "
                                              "but the log records 1e-06 (log: training.csv:lr)"), rep["conflicts"]
    assert rep["symptom"]["id"] == "not_learning"
    # what ran was 1e-6: a flat loss under Adam at 1e-6 is an LR too low, which the config's 1e-3 hides
    lr_fact = _fact(rep, "learning_rate")
    assert lr_fact["value"] == 1e-6 and lr_fact["source"].startswith("log:")
    assert rep["root_causes"][0]["id"] == "lr_too_low"
    md = _diagnose(tmp_path, 0.001, [1e-6] * 15, fmt="markdown")
    assert ("**Sources disagree:** learning rate: 0.001 (config: config.yaml:optimizer.lr) "
            "but the log records 1e-06") in md


def test_a_decay_from_the_configured_lr_is_no_conflict(tmp_path):
    rep = _diagnose(tmp_path, 0.001, [1e-3 * 0.7 ** e for e in range(15)])
    assert not [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]
    assert _fact(rep, "learning_rate")["source"].startswith("config:")
