"""A model fed token ids first and its numeric features second (issue 12, session 25).

What a user would notice: a recommender that embeds user and item ids and adds raw numeric fields (a
timestamp in seconds, an age) predicts nonsense, and traindx blamed the learning rate: it measured the
model's first input only, found integers there, and never saw the numeric fields' scale. The features
are now measured on the first floating input of the same rank and rows when the first holds ids; a
recurrent state passed beside the ids (one rank more) is not taken for features.
"""
from __future__ import annotations

import torch
import torch.nn as nn
from test_probes import blobs, fit, sgd


class IdsAndFields(nn.Module):
    def __init__(self, n_ids=50, d=8, c=4):
        super().__init__()
        self.emb = nn.Embedding(n_ids, 16)
        self.fields = nn.Linear(d, 16)
        self.head = nn.Linear(16, c)

    def forward(self, ids, fields):
        return self.head(self.emb(ids).sum(1) + self.fields(fields))


class IdsAndState(nn.Module):
    def __init__(self, n_ids=50, d=8, c=4):
        super().__init__()
        self.emb = nn.Embedding(n_ids, 16)
        self.fields = nn.Linear(d, 16)
        self.head = nn.Linear(16, c)

    def forward(self, ids, state):
        return self.head(self.emb(ids).sum(1) + state.mean(0))


def _raw_fields():
    ds = blobs(n=256)
    x = ds.tensors[0].clone()
    x[:, 0] = x[:, 0] * 1000.0 + 8.0e5          # a field in raw units
    return torch.utils.data.TensorDataset(x, ds.tensors[1])


def _ids(xb):
    return (xb[:, 1:3].abs() * 7).long().clamp(0, 49)


def test_raw_numeric_fields_beside_token_ids_are_measured():
    torch.manual_seed(0)
    m = IdsAndFields()
    facts, *_ = fit(m, sgd(m, lr=1e-6), _raw_fields(), forward=lambda model, xb: model(_ids(xb), xb))
    assert facts["input_scale"] > 1e5


def test_a_recurrent_state_beside_token_ids_is_not_taken_for_features():
    torch.manual_seed(0)
    m = IdsAndState()
    state = torch.full((2, 16, 16), 3.0e4)       # (layers, batch, hidden): one rank more than the ids
    facts, *_ = fit(m, sgd(m, lr=1e-6), _raw_fields(),
                    forward=lambda model, xb: model(_ids(xb), state[:, :len(xb)]))
    assert "input_scale" not in facts
