"""Validation that holds classes training never had, read from the run (issue 12, session 32).

What a user would notice: a file list collected class by class (one folder, then the next) and cut
into train = first half, validation = second half without a shuffle trains on one class and
validates on the other. Training fits at once, validation accuracy sits at 0 and its loss climbs.
traindx blamed the tiny batch under BatchNorm (or the labels, with every training label the same)
at high confidence: nothing told it that validation's classes were not training's. probe:labels
now counts the labels the validation loss compares with (split_classes_apart), and two parts
that keep to classes of their own name the split (unshuffled_data). Training labels all overwritten
with one class beside a validation set of every class keep nothing apart: still the labels.
"""

from __future__ import annotations

import pytest

from traindx.engine.api import diagnose
from traindx.probes.live.data import split_classes_apart

GAP = {"symptom": "overfitting", "loss_trend": "decreasing", "val_loss_trend": "increasing", "train_accuracy": 1.0,
       "val_accuracy": 0.0, "val_accuracy_best": 0.0, "num_classes": 3, "batch_size": 2,
       "regularization": ["batchnorm"], "model_mode_in_training": "train", "model_mode_in_validation": "eval",
       "optimizer": "adam", "learning_rate": 1e-3, "shuffle": True}


def test_how_far_the_two_parts_keep_to_classes_of_their_own():
    assert split_classes_apart({0: 90, 1: 80}, {2: 30, 3: 10}, 20) == 1.0
    assert split_classes_apart({0: 90, 1: 80, 2: 70}, {2: 30, 1: 10}, 20) == 0.0
    # one training class beside a validation set of every class: validation holds that class too
    assert split_classes_apart({0: 200}, {0: 10, 1: 10, 2: 10, 3: 10}, 20) == 0.0
    # too few training labels counted to have seen every class: no answer
    assert split_classes_apart({0: 9, 1: 8}, {2: 30}, 20) is None


def test_a_split_holding_other_classes_names_the_split_not_the_batch_size():
    r = diagnose({**GAP, "split_classes_apart": 1.0, "labels_constant": True, "batch_label_purity": 1.0})
    assert r["root_causes"][0]["id"] == "unshuffled_data"
    # validation holding the training's classes: the BatchNorm gap at batch 2 stands
    r = diagnose({**GAP, "val_accuracy": 0.6, "val_accuracy_best": 0.7, "split_classes_apart": 0.0})
    assert r["root_causes"][0]["id"] == "batch_too_small"
    # every training label overwritten with one class, validation holding all of them: the labels
    r = diagnose({**GAP, "batch_size": 32, "regularization": [], "val_accuracy": 0.33, "val_accuracy_best": 0.33,
                  "split_classes_apart": 0.0, "labels_constant": True, "batch_label_purity": 1.0})
    assert r["root_causes"][0]["id"] == "corrupted_labels"


torch = pytest.importorskip("torch")


def _watched(train_classes, val_classes):
    import traindx.probes as tp

    torch.manual_seed(0)
    centres = torch.randn(4, 6) * 3
    def rows(classes, n):
        y = torch.tensor(classes).repeat_interleave(n)
        return centres[y] + torch.randn(len(y), 6), y
    xt, yt = rows(train_classes, 128 // len(train_classes))
    xv, yv = rows(val_classes, 16)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    crit = torch.nn.CrossEntropyLoss()
    with tp.watch(model, opt, criterion=crit, experiments=False) as w:
        for _ in range(6):
            perm = torch.randperm(len(yt))
            for i in range(0, len(yt), 16):
                b = perm[i:i + 16]
                out = model(xt[b])
                loss = crit(out, yt[b])
                w.observe(loss, out, yt[b])
                opt.zero_grad()
                loss.backward()
                opt.step()
            model.eval()
            with torch.no_grad():
                vo = model(xv)
                w.observe(crit(vo, yv), vo, yv)
            model.train()
    return {f.fact: f.value for f in w.findings()}


def test_the_run_shows_parts_that_keep_to_classes_of_their_own():
    assert _watched([0, 1], [2, 3])["split_classes_apart"] == 1.0
    assert _watched([0, 1], [0, 1])["split_classes_apart"] == 0.0
    assert _watched([0], [0, 1, 2, 3])["split_classes_apart"] == 0.0    # one class overwritten onto all
