"""``probe:dataset_size``: the sizes of the declared training and validation datasets."""

from __future__ import annotations

import traindx.probes.live.data as D
from traindx.probes.live.probe import Probe


class DatasetSize(Probe):
    source = "probe:dataset_size"
    facts = ("train_size", "val_size", "num_workers")
    needs = frozenset({"loader"})
    schedule = "once, when findings are gathered"

    def findings(self, m, emit, params):
        for phase, fact in (("train", "train_size"), ("val", "val_size")):
            if phase in m._loaders:
                n = D.dataset_size(m._loaders[phase])
                emit(fact, n, f"len({phase} dataset) = {n}" if n is not None else "")
