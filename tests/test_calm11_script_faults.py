"""Faults that first-run scripts (s226-s239) showed and traindx missed (issue 12, session 15).

What a user would notice:
- a depth-from-view-synthesis net trained with Adam and the TF code's weight decay 0.05 as coupled
  L2: the weights shrank to a twentieth of their size, the disparity map went constant and the
  photometric loss fell only 11% in 2000 steps; traindx called the run healthy. The size of the
  weights over the run is now measured (weight_norm_ratio), and weights pulled toward zero under
  weight decay beside a loss that barely moved is Not Learning from excessive regularization;
- a classifier whose validation labels were numbered in a different folder order than training's:
  train accuracy 100%, validation at chance (1/12) at every evaluation; traindx said insufficient
  regularization at 0.99. The best validation accuracy over the run is now measured
  (val_accuracy_best): validation that never rose above chance while training fits points at the
  labels, and the train/val gap rules stand aside.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import diagnose  # noqa: E402
from traindx.probes.live import updates as U  # noqa: E402


# ------------------------------------------------------------------ weights pulled toward zero

def _watch_regression(weight_decay, steps=320, lr=2e-3):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    x = torch.randn(512, 8)
    y = x[:, :1] * 0.5 + 0.1 * torch.randn(512, 1)
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(steps):
            i = (step * 16) % 512
            out = model(x[i:i + 16])
            loss = ((out - y[i:i + 16]) ** 2).mean()
            w.observe(loss, out, y[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_weights_decayed_by_coupled_l2_are_measured_shrinking():
    found = _watch_regression(weight_decay=3.0)
    assert found["weight_norm_ratio"].value < 0.25


def test_weights_of_an_ordinary_run_keep_their_size():
    found = _watch_regression(weight_decay=0.0)
    assert 0.6 < found["weight_norm_ratio"].value < 2.0


def test_weight_norm_ratio_needs_enough_steps_and_the_same_parameters():
    assert U.weight_norm_ratio([(1, 4, 2.0), (100, 4, 1.0)], min_step=200) is None
    assert U.weight_norm_ratio([(1, 4, 2.0), (300, 4, 0.5)], min_step=200) == (0.25, 300)
    assert U.weight_norm_ratio([(1, 4, 2.0), (300, 5, 0.5)], min_step=200) is None


_S227 = {"optimizer": "adam", "learning_rate": 0.0002, "weight_decay": 0.05, "batch_size": 4,
         "regularization": ["weight_decay"], "dropout_p": 0.0, "loss_trend": "decreasing",
         "initial_loss": 0.0341, "current_loss": 0.0303, "loss_decrease_fraction": 0.11,
         "lr_final_ratio": 1.0, "custom_loss": True, "shuffle": True, "zero_grad_called": True,
         "grad_norm_trend": "steady", "update_ratio": 0.0073, "weight_norm_ratio": 0.04}


def test_weights_pulled_to_zero_and_a_loss_that_barely_moved_is_excessive_regularization():
    rep = diagnose(dict(_S227))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["root_causes"][0]["id"] == "excessive_regularization"


def test_the_same_run_with_weights_of_their_size_is_not_blamed_on_regularization():
    rep = diagnose(dict(_S227, weight_norm_ratio=0.9))
    assert rep["root_causes"][0]["id"] != "excessive_regularization"


def test_a_run_that_learns_while_its_weights_shrink_names_no_cause():
    facts = dict(_S227, weight_norm_ratio=0.1, initial_loss=0.5, current_loss=0.05, loss_decrease_fraction=0.9)
    rep = diagnose(facts)
    assert rep["symptom"]["id"] != "not_learning"
    assert all(c["id"] != "excessive_regularization" or c["confidence"] < 0.5 for c in rep["root_causes"])


# ------------------------------------------------------------------ validation never above chance

def test_the_best_validation_accuracy_is_measured():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(256, 4), torch.randint(0, 3, (256,))
    with tp.watch(model, opt, experiments=False) as w:
        for _epoch in range(3):
            model.train()
            for i in range(0, 256, 32):
                out = model(x[i:i + 32])
                loss = torch.nn.functional.cross_entropy(out, y[i:i + 32])
                w.observe(loss, out, y[i:i + 32])
                opt.zero_grad()
                loss.backward()
                opt.step()
            model.eval()
            with torch.no_grad():
                out = model(x[:64])
                w.observe(torch.nn.functional.cross_entropy(out, y[:64]), out, y[:64], phase="val")
    found = {f.fact: f for f in w.findings()}
    best = found["val_accuracy_best"].value
    assert 0 <= best <= 1
    assert best >= found["val_accuracy"].value


_S235 = {"optimizer": "sgd", "learning_rate": 0.05, "momentum": 0.9, "batch_size": 64, "num_classes": 12,
         "regularization": [], "dropout_p": 0.0, "weight_decay": 0.0, "train_size": 1440,
         "loss_trend": "decreasing", "initial_loss": 2.48, "current_loss": 0.0001, "loss_decrease_fraction": 0.99,
         "train_accuracy": 1.0, "val_accuracy": 0.083, "val_accuracy_best": 0.083, "val_loss": 29.8,
         "train_loss": 0.0001, "val_loss_trend": "increasing", "best_val_fraction": 0.05, "shuffle": True}


def test_validation_at_chance_throughout_while_training_fits_points_at_the_labels():
    rep = diagnose(dict(_S235))
    top = rep["root_causes"][0]
    assert top["id"] == "corrupted_labels"
    reg = next((c for c in rep["root_causes"] if c["id"] == "insufficient_regularization"), None)
    assert reg is None or reg["confidence"] < 0.5


def test_validation_that_rose_before_it_fell_is_still_overfitting():
    rep = diagnose(dict(_S235, val_accuracy=0.35, val_accuracy_best=0.6, val_loss=3.0))
    assert rep["root_causes"][0]["id"] == "insufficient_regularization"
