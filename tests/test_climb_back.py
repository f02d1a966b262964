"""A validation loss that rises is overfitting only while the training loss keeps its low: a
training loss that climbs back up with it was knocked off its minimum (Training unstable)."""
from conftest import diagnose_json


def _log(path, train, val):
    rows = [f"Epoch {i + 1:2d}/{len(train)}: train loss {t:.4f} | val loss {v:.4f}"
            for i, (t, v) in enumerate(zip(train, val))]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_training_loss_that_gives_back_its_fall_while_validation_rises_is_unstable(tmp_path):
    """The loss falls to 0.17, climbs back to 0.5 and settles at 0.29 while validation balloons:
    the training loss gave back most of what it learned, which no overfitting model does."""
    train = [0.69, 0.67, 0.65, 0.56, 0.37, 0.25, 0.19, 0.17, 0.22, 0.26, 0.34, 0.40, 0.44, 0.51,
             0.50, 0.49, 0.45, 0.41, 0.30, 0.29]
    val = [0.685, 0.68, 0.70, 0.67, 0.74, 0.91, 1.16, 1.50, 1.89, 2.30, 2.65, 2.96, 3.20, 3.32,
           3.22, 2.93, 2.52, 1.97, 1.29, 0.81]
    rep = diagnose_json("--log", str(_log(tmp_path / "console.log", train, val)))
    assert rep["symptom"]["id"] == "instability", rep["symptom"]
    fact = next(f for f in rep["facts"] if f["fact"] == "loss_climb_back")
    assert fact["value"] >= 0.3


def test_a_training_loss_that_keeps_its_low_while_validation_rises_overfits(tmp_path):
    """The same validation rise over a training loss that falls to the end is overfitting."""
    train = [0.69, 0.60, 0.50, 0.41, 0.33, 0.27, 0.22, 0.18, 0.15, 0.12, 0.10, 0.085, 0.07, 0.06,
             0.05, 0.043, 0.037, 0.031, 0.027, 0.023]
    val = [0.68, 0.62, 0.57, 0.55, 0.56, 0.58, 0.61, 0.65, 0.70, 0.76, 0.82, 0.89, 0.95, 1.02,
           1.08, 1.15, 1.21, 1.27, 1.33, 1.40]
    rep = diagnose_json("--log", str(_log(tmp_path / "console.log", train, val)))
    assert rep["symptom"]["id"] == "overfitting", rep["symptom"]
