"""A training input column computed from the training labels, read from the code (session 30, finish30).

What a user would notice: a tabular model whose training loss falls to almost nothing while the validation
loss climbs from the second epoch. The script adds a "past default rate per branch" column to the
training rows, averaged over the training labels themselves (each row's own label included), and gives
the validation rows the overall training rate instead. traindx blamed missing regularisation; the code
reader now reads the column as ``train_features_from_labels`` and the rule names the leak. The same
script computing the column from an input feature on both splits, or from each split's own labels
(the symmetric conditioning of teacher forcing), reports nothing of the kind.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CODE = '''
import torch, torch.nn as nn

g = torch.Generator().manual_seed(3)


def sample(n):
    feats = torch.randn(n, 10, generator=g)
    branch = torch.randint(0, 900, (n,), generator=g)
    default = (feats[:, :4].sum(1) + 0.5 * torch.randn(n, generator=g) > 0.8).float()
    return feats, branch, default


feats_train, branch_train, default_train = sample(4000)
feats_valid, branch_valid, default_valid = sample(1000)
{column}
net = nn.Sequential(nn.Linear(11, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
lossf = nn.BCEWithLogitsLoss()
for ep in range(12):
    for i in range(0, 4000, 100):
        loss = lossf(net(feats_train[i:i + 100]).squeeze(1), default_train[i:i + 100])
        opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        vl = lossf(net(feats_valid).squeeze(1), default_valid).item()
    print(f"ep {ep + 1} train_loss {loss.item():.4f} valid_loss {vl:.4f}")
'''

LEAK = '''defaults = torch.zeros(900).index_add_(0, branch_train, default_train)
counts = torch.zeros(900).index_add_(0, branch_train, torch.ones(4000))
rate = defaults / counts.clamp_min(1)
feats_train = torch.cat([feats_train, rate[branch_train][:, None]], 1)
feats_valid = torch.cat([feats_valid, torch.full((1000, 1), default_train.mean().item())], 1)'''

HONEST = '''feats_train = torch.cat([feats_train, feats_train[:, :1] ** 2], 1)
feats_valid = torch.cat([feats_valid, feats_valid[:, :1] ** 2], 1)'''

SYMMETRIC = '''feats_train = torch.cat([feats_train, default_train[:, None]], 1)
feats_valid = torch.cat([feats_valid, default_valid[:, None]], 1)'''

TRAIN = [0.52, 0.21, 0.11, 0.066, 0.041, 0.027, 0.018, 0.012, 0.0085, 0.0061, 0.0044, 0.0032]
VALID = [0.49, 0.47, 0.48, 0.50, 0.53, 0.56, 0.60, 0.63, 0.67, 0.70, 0.74, 0.77]
LOG = "".join(f"ep {i + 1} train_loss {t:.4f} valid_loss {v:.4f}\n" for i, (t, v) in enumerate(zip(TRAIN, VALID)))


def test_training_column_from_the_training_labels_names_the_leak(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.replace("{column}", LEAK), LOG)
    assert facts_by_id(rep)["train_features_from_labels"]["value"] is True
    assert top_cause(rep) == "data_leakage"


def test_a_column_from_the_inputs_is_not_a_leak(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.replace("{column}", HONEST), LOG)
    assert "train_features_from_labels" not in facts_by_id(rep)
    assert top_cause(rep) != "data_leakage"


def test_both_splits_conditioned_on_their_own_labels_is_not_read_as_this_leak(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.replace("{column}", SYMMETRIC), LOG)
    assert "train_features_from_labels" not in facts_by_id(rep)
