"""``probe:leakage``: validation examples that are (near-)copies of training examples."""

from __future__ import annotations

import traindx.probes.live.data as D
from traindx.probes.live.probe import Probe

class Leakage(Probe):
    source = "probe:leakage"
    facts = ("val_train_overlap",)
    needs = frozenset({"loader"})
    schedule = ("once, when findings are first gathered with both loaders declared; without them, the rows "
                "the model is fed, hashed at each forward and compared when findings are gathered: evaluation "
                "forwards until leakage.max_val_hashed rows, training forwards from the first evaluation forward "
                "on until leakage.max_train_hashed rows (the latest ones before it kept by reference within "
                "leakage.pending_train_bytes, hashed then)")
    parameters = ("leakage.near_copy_fraction", "leakage.min_val_hashed", "leakage.min_train_hashed",
                  "leakage.near_copy_neighbours", "leakage.near_copy_gap", "leakage.near_copy_train_per_neighbour",
                  "leakage.max_val_hashed", "leakage.max_train_hashed", "leakage.near_copy_max_val",
                  "leakage.near_copy_max_train", "data_sampling.safety_cap_s", "leakage.row_hash_elements",
                  "leakage.row_hash_min_width", "leakage.train_eval_share", "leakage.pending_train_bytes",
                  "leakage.window_chunk", "leakage.window_min_chunk", "leakage.window_max_elements",
                  "leakage.window_distinct")

    def findings(self, m, emit, params):
        val = m._loaders.get("val") or m._train_twin
        if "train" not in m._loaders or val is None:
            self.fed_rows(m, emit, params)
            return
        if m._overlap is None:
            m._overlap = D.val_train_overlap(m._loaders["train"], val, params=params) or {}
            near = D.near_duplicate_fraction(m._loaders["train"], val, params=params)
            if (near and near["fraction"] >= params["leakage.near_copy_fraction"]
                    and near["fraction"] > m._overlap.get("overlap", 0)):
                m._overlap["near"] = near
        ov = m._overlap.get("overlap") if m._overlap else None
        near = m._overlap.get("near") if m._overlap else None
        if near:
            shifted = (f"; {near['shifted']} share a stretch of consecutive values with a training example at "
                       "another position: overlapping windows split at random") if near.get("shifted") else ""
            emit("val_train_overlap", near["fraction"],
                 f"{near['fraction'] * 100:.0f}% of {near['val_checked']} validation examples are near-copies of "
                 f"training examples (a few training examples far closer than any other; exact copies: "
                 f"{(ov or 0) * 100:.0f}%{shifted}) — copies made before the split")
        else:
            emit("val_train_overlap", ov,
                 f"{ov * 100:.1f}% of {m._overlap['val_checked']} validation examples also appear in the training set"
                 if ov is not None else "")

    @staticmethod
    def fed_rows(m, emit, params):
        """A raw-tensor run: the share of the evaluation rows the model was fed that it was also fed
        in training forwards (hashed by :mod:`~traindx.probes.live.row_hashes`)."""
        rows = getattr(m, "_rows", None)
        if rows is None:
            return
        r = rows.overlap(params["leakage.min_val_hashed"], params["leakage.min_train_hashed"],
                         params["leakage.train_eval_share"])
        if r is None:
            return
        ov, n_val, n_train, aside = r
        note = f"; {aside} evaluation batches of training rows set aside" if aside else ""
        win = rows.window_overlap(D.window_copies, params, params["leakage.train_eval_share"]) \
            if hasattr(rows, "window_overlap") else None
        if win is not None and win[0] >= params["leakage.near_copy_fraction"] and win[0] > ov:
            emit("val_train_overlap", win[0],
                 f"{win[0] * 100:.0f}% of {win[1]} evaluation rows the model was fed share a stretch of consecutive "
                 f"values with a training row at another position (exact copies: {ov * 100:.1f}%{note}): overlapping "
                 "windows split at random")
            return
        emit("val_train_overlap", ov,
             f"{ov * 100:.1f}% of {n_val} evaluation rows the model was fed are byte-identical to rows of its "
             f"training forwards ({n_train} distinct training rows hashed{note})")
