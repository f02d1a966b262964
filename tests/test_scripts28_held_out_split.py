"""A validation split built with the training split's rows, read from the code (issue 12, session 28).

What a user would notice: a hand-written K-fold (or hold-out) split whose validation accuracy climbs
to memorisation, fold after fold. The script computes the held-out index and then selects the
validation rows with the training index (``val = data[train_idx]`` beside ``val_idx``), the
copy-paste slip of a hand-written split. traindx named a too-low learning rate; the code reader
now reads the slip as ``held_out_from_train_index`` and the rule names the leak. The same script
selecting the validation rows by their own index reports nothing of the kind.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CODE = '''
import numpy as np
import torch, torch.nn as nn

rows = np.random.rand(600, 12).astype(np.float32)
target = (rows[:, :3].sum(1) > 1.5).astype(np.int64)
blocks = np.array_split(np.arange(600), 5)
net = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for k in range(5):
    devIdx = blocks[k]
    trnIdx = np.setdiff1d(np.arange(600), devIdx)
    trnX, trnY = torch.tensor(rows[trnIdx]), torch.tensor(target[trnIdx])
    devX, devY = torch.tensor(rows[{which}]), torch.tensor(target[{which}])
    net.train()
    for it in range(200):
        j = torch.randint(0, len(trnX), (32,))
        loss = nn.functional.cross_entropy(net(trnX[j]), trnY[j])
        opt.zero_grad(); loss.backward(); opt.step()
    net.eval()
    with torch.no_grad():
        print("fold %d  val_acc %.4f" % (k + 1, (net(devX).argmax(1) == devY).float().mean().item()))
'''

LOG = "".join(f"fold {k + 1}  val_acc {0.80 + 0.045 * k:.4f}\n" for k in range(5))


def test_held_out_rows_taken_by_the_training_index_name_the_leak(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.replace("{which}", "trnIdx"), LOG)
    facts = facts_by_id(rep)
    assert facts["held_out_from_train_index"]["value"] is True
    assert top_cause(rep) == "data_leakage"


def test_held_out_rows_taken_by_their_own_index_are_not_a_leak(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE.replace("{which}", "devIdx"), LOG)
    assert "held_out_from_train_index" not in facts_by_id(rep)
    assert top_cause(rep) != "data_leakage"
