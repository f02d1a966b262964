"""Validation that holds classes training never had, read from the run (issue 12, session 32).

What a user would notice: a file list collected class by class (one folder, then the next) and cut
into train = first half, validation = second half without a shuffle trains on one class and
validates on the other. Training fits at once, validation accuracy sits at 0 and its loss climbs.
traindx blamed the tiny batch under BatchNorm (or the labels, with every training label the same)
at high confidence: nothing told it that validation's classes were not training's. probe:labels
now counts the labels the validation loss compares with (val_labels_unseen_share), and a
validation set of classes training never had names the split (unshuffled_data).
"""

from __future__ import annotations

import pytest

from traindx.engine.api import diagnose
from traindx.probes.live.data import val_labels_unseen_share

GAP = {"symptom": "overfitting", "loss_trend": "decreasing", "val_loss_trend": "increasing", "train_accuracy": 1.0,
       "val_accuracy": 0.0, "val_accuracy_best": 0.0, "num_classes": 3, "batch_size": 2,
       "regularization": ["batchnorm"], "model_mode_in_training": "train", "model_mode_in_validation": "eval",
       "optimizer": "adam", "learning_rate": 1e-3, "shuffle": True}


def test_the_share_of_validation_labels_training_never_had():
    assert val_labels_unseen_share({0: 90, 1: 80}, {2: 30, 1: 10}, 20) == 0.75
    assert val_labels_unseen_share({0: 90, 1: 80, 2: 70}, {2: 30, 1: 10}, 20) == 0.0
    # too few training labels counted to have seen every class: no answer
    assert val_labels_unseen_share({0: 9, 1: 8}, {2: 30}, 20) is None


def test_a_split_holding_other_classes_names_the_split_not_the_batch_size():
    r = diagnose({**GAP, "val_labels_unseen_share": 1.0, "labels_constant": True, "batch_label_purity": 1.0})
    assert r["root_causes"][0]["id"] == "unshuffled_data"
    # validation holding the training's classes: the BatchNorm gap at batch 2 stands
    r = diagnose({**GAP, "val_accuracy": 0.6, "val_accuracy_best": 0.7, "val_labels_unseen_share": 0.0})
    assert r["root_causes"][0]["id"] == "batch_too_small"


torch = pytest.importorskip("torch")


def _watched(val_classes):
    import traindx.probes as tp

    torch.manual_seed(0)
    centres = torch.randn(4, 6) * 3
    def rows(classes, n):
        y = torch.tensor(classes).repeat_interleave(n)
        return centres[y] + torch.randn(len(y), 6), y
    xt, yt = rows([0, 1], 64)
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


def test_the_run_shows_validation_classes_training_never_had():
    assert _watched([2, 3])["val_labels_unseen_share"] == 1.0
    assert _watched([0, 1])["val_labels_unseen_share"] == 0.0
