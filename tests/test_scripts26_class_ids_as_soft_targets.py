"""A hand-written soft-target cross-entropy fed class indices instead of one-hot rows (issue 12, session 26).

What a user would notice: a Keras-style ``-(y_true * log_softmax(logits)).sum(-1)`` whose labels were never
one-hot encoded (the index, with a trailing axis of 1, broadcasts over the classes) sits at a loss forty
times chance with chance accuracy, and traindx blamed the learning rate. The loss's tape now shows each
example's class index multiplying the log-probabilities of every class, which is the target broadcast
against the outputs (loss_shape_mismatch, wrong_loss_function). The same loss fed one-hot rows is not
reported.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from test_probes import blobs, fit, mlp, sgd


def _index_weighted(out, y):
    return -(y.float().unsqueeze(-1) * F.log_softmax(out, -1)).sum(-1).mean()


def _one_hot(out, y):
    return -(F.one_hot(y, out.shape[-1]).float() * F.log_softmax(out, -1)).sum(-1).mean()


def test_class_indices_weighing_every_class_log_probability_is_a_broadcast_target():
    torch.manual_seed(0)
    m = mlp()
    facts, findings, _ = fit(m, sgd(m), blobs(), loss_fn=_index_weighted, steps=12)
    assert facts["loss_shape_mismatch"] is True
    f = next(f for f in findings if f.fact == "loss_shape_mismatch")
    assert "class indices" in f.detail


def test_the_same_loss_fed_one_hot_rows_is_not():
    torch.manual_seed(0)
    m = mlp()
    facts, *_ = fit(m, sgd(m), blobs(), loss_fn=_one_hot, steps=12)
    assert facts.get("loss_shape_mismatch") is not True
