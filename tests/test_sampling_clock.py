"""The data checks read the same examples on an idle machine and on a busy one.

What a user would notice: the leakage and label checks (exact and near copies between training and
validation, labels that do not follow the inputs, training labels that disagree with validation's)
used to read as many examples as fitted in a second or two, so the same script could get a
different verdict beside a CPU-bound process. Their samples are now set by counts in the knowledge
base; wall time is only a safety cap far above what reading those counts takes.

The clock is simulated: each reading of ``time.perf_counter`` in the data module advances it by a
fixed tick (a microsecond: an idle machine; two milliseconds: a machine a thousand times slower per
item, which read only part of the sample under the old time budgets).
"""

from __future__ import annotations

import types

import pytest

torch = pytest.importorskip("torch")

import traindx.probes.live.data as D  # noqa: E402
from traindx.engine.parameters import shipped  # noqa: E402


def _clock(tick):
    t = [0.0]

    def perf_counter():
        t[0] += tick
        return t[0]
    return types.SimpleNamespace(perf_counter=perf_counter)


def _data():
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(3, 8, generator=g) * 3
    y = torch.randint(0, 3, (3300,), generator=g)
    x = centres[y] + torch.randn(3300, 8, generator=g)
    train = torch.utils.data.TensorDataset(x[:3000], y[:3000])
    xv, yv = x[3000:].clone(), y[3000:].clone()
    xv[:40], yv[:40] = x[:40], y[:40]                   # 40 of 300 validation examples copied from training
    return train, torch.utils.data.TensorDataset(xv, yv)


def _checks(monkeypatch, tick):
    monkeypatch.setattr(D, "time", _clock(tick))
    train, val = _data()
    P = shipped()
    return {"overlap": D.val_train_overlap(train, val, params=P),
            "near": D.near_duplicate_fraction(train, val, params=P),
            "labels": D.label_neighbour_agreement(train, params=P),
            "disagreement": D.train_label_disagreement(train, val, params=P)}


def test_the_same_examples_and_verdicts_on_an_idle_and_a_busy_machine(monkeypatch):
    idle = _checks(monkeypatch, 1e-6)
    busy = _checks(monkeypatch, 2e-3)
    assert busy == idle
    # what the report says: 40 of 300 validation examples in the training set, labels related
    assert idle["overlap"]["overlap"] == pytest.approx(40 / 300, abs=0.03)
    assert idle["overlap"]["train_hashed"] == 3000 and not idle["overlap"]["capped"]
    assert D.labels_related(idle["labels"], shipped()) is True
    assert idle["labels"]["items"] == shipped()["label_neighbours.max_items"]


def test_a_pathologically_slow_dataset_still_ends(monkeypatch):
    """Items that take a second each hit the safety cap: the check stops once its minimum is read
    and says it was capped, instead of reading 20000 items."""
    slow = _checks(monkeypatch, 1.0)
    P = shipped()
    r = slow["overlap"]
    assert r["capped"] is True
    assert r["train_hashed"] < 3000 and r["val_checked"] >= P["leakage.min_val_hashed"]
