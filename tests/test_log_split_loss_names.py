"""A loss printed under its function's name in two words (``cross_ent``, TensorFlow's shorthand, or
``cross_entropy``) is the run's loss, read like ``xent``; the pairs live in
kb/parameters/log_words.yaml (``logs.split_loss_names``)."""
import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _log(path, name, csv=False):
    rows = [f"epoch,train_{name},val_{name}"] if csv else []
    for e in range(1, 13):
        tr = 2.0 * 0.7 ** e
        va = 1.2 + 0.08 * max(0, e - 4) if e > 4 else 2.0 * 0.75 ** e + 0.6
        rows.append(f"{e},{tr:.4f},{va:.4f}" if csv else f"epoch {e} | train_{name} {tr:.4f} | val_{name} {va:.4f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _diagnose(*args):
    res = CliRunner().invoke(main, ["diagnose", *args, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("{"):])


def test_cross_ent_columns_of_a_metrics_csv_are_the_training_and_validation_loss(tmp_path):
    # a logger's CSV: its column names are all there is to go on (no values-only guess, as in console text)
    for name in ("cross_ent", "cross_entropy", "crossent"):
        rep = _diagnose("--log", str(_log(tmp_path / f"{name}.csv", name, csv=True)))
        facts = {f["fact"]: f for f in rep["facts"]}
        assert facts["train_loss"]["value"] < 0.05 and facts["val_loss"]["value"] > 1.5, name
        assert rep["symptom"]["id"] == "overfitting", name


def test_cross_ent_in_console_text_is_the_loss(tmp_path):
    rep = _diagnose("--log", str(_log(tmp_path / "run.log", "cross_ent")))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["train_loss"]["value"] < 0.05 and facts["val_loss"]["value"] > 1.5
    assert rep["symptom"]["id"] == "overfitting"

