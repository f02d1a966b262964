"""``probe:output_squash``: the loss function, outputs already squashed before it, the kind of targets."""

from __future__ import annotations

from collections import Counter

import traindx.probes.live.losses as L
from traindx.probes.live.probe import Probe

_ACTIVATION_DETAIL = {
    "softmax": "outputs are non-negative and rows sum to 1: softmax already applied",
    "log_softmax": "outputs are <= 0 with logsumexp 0: log_softmax already applied",
    "sigmoid": "every output lies in [0, 1]: sigmoid already applied",
    "none": "outputs are raw (not squashed)",
}


class OutputSquash(Probe):
    source = "probe:output_squash"
    facts = ("output_activation", "loss_function", "target_kind", "loss_shape_mismatch", "custom_loss", "num_classes",
             "val_double_squash", "outputs_all_zero")
    needs = frozenset({"loss"})
    schedule = ("outputs and targets of the first 10 training losses, then every 500th; every one while armed; "
                "the outputs of the first validation losses that squash by themselves")
    parameters = ("output_squash.min_values", "output_squash.max_class_index", "output_squash.sum_tolerance",
                  "output_squash.val_samples", "output_squash.log_softmax_max", "output_squash.target_row_tolerance")

    def findings(self, m, emit, params):
        o_ = m._outputs
        if o_["loss_names"]:
            name = m._loss_name or o_["loss_names"].most_common(1)[0][0]
            emit("loss_function", name, f"the loss is {name}")
            cl = L.custom_loss(name)
            emit("custom_loss", cl, "a hand-written loss" if cl else "a stock torch loss")
        if o_["activation"]:
            acts = Counter(o_["activation"])
            top, k = acts.most_common(1)[0]
            if top != "none" and k < len(o_["activation"]):
                top = "none"   # a squash must hold at every sampled batch
            emit("output_activation", top, _ACTIVATION_DETAIL[top] + f" ({len(o_['activation'])} sampled batches)")
        if o_["all_zero"]:
            z, n = o_["all_zero"][-1], len(o_["all_zero"])
            emit("outputs_all_zero", z, "every output of the latest sampled training batch is exactly 0"
                 f" ({sum(o_['all_zero'])} of {n} sampled batches)" if z else
                 "the latest sampled training batch has non-zero outputs")
        if o_["val_squash"]:
            emit("val_double_squash", *_val_double_squash(o_["val_squash"]))
        if o_["target_kind"]:
            tk = Counter(o_["target_kind"]).most_common(1)[0][0]
            emit("target_kind", tk, f"targets look like {tk.replace('_', ' ')}")
        if o_["shape_mismatch"]:
            mm = any(o_["shape_mismatch"])
            emit("loss_shape_mismatch", mm,
                 (o_["mismatch_detail"] or f"outputs {m._last_out_shape} and targets differ in shape and broadcast")
                 if mm else "outputs and targets have matching shapes")


def _val_double_squash(seen: list) -> tuple[bool, str]:
    """True when every sampled validation loss that squashes by itself (cross-entropy, BCE with
    logits) received outputs already squashed that way (softmax, sigmoid), with the detail."""
    n = len(seen)
    twice = [(name, act) for name, act in seen if L.SELF_SQUASHING[name] == act]
    if len(twice) == n:
        name, act = twice[0]
        return True, (f"the validation loss ({name}) received {act} outputs at {n}/{n} sampled evaluation "
                      f"batches: it applies {'log_softmax' if act == 'softmax' else 'a sigmoid'} again, so it "
                      "cannot approach 0 however good the predictions")
    return False, f"the validation loss received unsquashed outputs ({n - len(twice)}/{n} sampled evaluation batches)"
