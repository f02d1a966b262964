"""``probe:labels``: constant labels, label-sorted batches (no shuffling), labels unrelated to inputs."""

from __future__ import annotations

import traindx.probes.live.data as D
from traindx.probes.live.probe import Probe


class Labels(Probe):
    source = "probe:labels"
    facts = ("labels_constant", "batch_label_purity", "batch_purity_excess", "shuffle", "labels_match_inputs",
             "train_label_disagreement", "split_classes_apart")
    needs = frozenset({"batch", "loader"})
    schedule = ("label counts first 30 batches, every 100; nearest-neighbour checks (reading a set count of "
                "examples, label_neighbours.max_*) only once armed or with the loss at chance")
    parameters = ("curves.chance_tolerance", "monitor.flat_after_steps", "shuffle.min_batches",
                  "shuffle.sorted_purity", "shuffle.sorted_excess", "shuffle.sorted_runs", "shuffle.shuffled_excess",
                  "label_neighbours.related_z", "label_neighbours.unrelated_z", "label_neighbours.lift",
                  "label_neighbours.unrelated_items", "label_neighbours.min_examples", "label_neighbours.max_items",
                  "label_neighbours.max_val", "label_neighbours.max_train", "data_sampling.safety_cap_s",
                  "labels.split_min_per_class")

    def findings(self, m, emit, params):
        if m._label_batches:
            lc = D.labels_constant(dict(m._label_counts), m._label_batches)
            emit("labels_constant", lc, f"every label is {next(iter(m._label_counts))}" if lc else
                 f"{len(m._label_counts)} distinct labels in {m._label_batches} sampled batches")
            pur = D.batch_label_purity(m._purities)
            emit("batch_label_purity", pur, f"the majority label fills {pur * 100:.0f}% of a batch on average"
                 if pur is not None else "")
            excess = D.purity_excess(m._purities, dict(m._label_counts), m._batch_size or 0)
            emit("batch_purity_excess", excess,
                 f"{pur * 100:.0f}% of a batch is its majority label where shuffled batches of these labels "
                 f"would give about {(pur - excess) * 100:.0f}%" if excess is not None else "")
        if m._label_batches and m._val_label_batches:
            unseen = D.split_classes_apart(dict(m._label_counts), dict(m._val_label_counts),
                                               params["labels.split_min_per_class"])
            emit("split_classes_apart", unseen,
                 f"training labels {sorted(c for c, k in m._label_counts.items() if k)[:8]}, validation labels "
                 f"{sorted(c for c, k in m._val_label_counts.items() if k)[:8]} ({sum(m._val_label_counts.values())} "
                 f"counted): {unseen:.0%} of each part is in classes the other lacks" if unseen is not None else "")
        self._shuffle(m, emit, params)
        loaders = m._loaders
        if "train" in loaders and (m.armed or m._label_nn is not None or m._at_chance()):
            # costly (reads up to 1024 examples): only once a symptom armed the probes or the
            # loss sits at chance level
            if m._label_nn is None:
                m._label_nn = D.label_neighbour_agreement(
                    loaders["train"], min_items=int(params["label_neighbours.min_examples"]), params=params) or {}
            r = m._label_nn
            rel = D.labels_related(r, params)
            emit("labels_match_inputs", rel,
                 f"an example's nearest neighbour (standardised inputs, {r.get('items')} training examples) has "
                 f"its label {r.get('agreement', 0) * 100:.0f}% of the time; labels unrelated to the inputs "
                 f"would give {r.get('chance', 0) * 100:.0f}%" if rel is not None else "")
        if "train" in loaders and "val" in loaders and (m.armed or m._label_tv is not None):
            # costly (reads up to 2560 examples): once a symptom (a widening gap, ...) armed the probes
            if m._label_tv is None:
                m._label_tv = D.train_label_disagreement(
                    loaders["train"], loaders["val"], min_items=int(params["label_neighbours.min_examples"]),
                    params=params) or {}
            r = m._label_tv
            emit("train_label_disagreement", r.get("drop"),
                 f"a validation example's nearest training example shares its label {r.get('val_train', 0) * 100:.0f}% "
                 f"of the time, its nearest other validation example {r.get('val_val', 0) * 100:.0f}% "
                 f"({r.get('val_checked')} validation examples)" if r else "")

    @staticmethod
    def _shuffle(m, emit, params):
        shuffle = None
        if "train" in m._loaders:
            shuffle = D.loader_shuffles(m._loaders["train"])
            how = "the train DataLoader's sampler"
        if shuffle is None and m._label_batches:
            shuffle = D.shuffle_inferred(m._purities, dict(m._label_counts), m._batch_size or 0, m._same_major,
                                         params)
            how = "inferred from label composition of consecutive batches"
        if shuffle is not None:
            emit("shuffle", shuffle, f"{'shuffled' if shuffle else 'not shuffled'} ({how})")
