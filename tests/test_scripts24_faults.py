"""Faults a first-run batch of scripts (s335-s357) showed and traindx missed (issue 12, session 24).

What a user would notice:
- rows stored class by class (as an image folder lists them) cut into a train and a validation part by
  position, without shuffling first: training fits while validation accuracy is 0 and its loss climbs,
  and traindx blamed the labels (the validation never rose above chance). code:data
  split_in_label_order now names the unshuffled data; shuffling the index list before the cut clears it;
- BatchNorm trained on batches of one example: the training loss collapses while the eval-mode test loss
  stays high and climbs, and traindx blamed a lack of regularization. The batch size is the cause; the same
  curves at batch 32 stay overfitting.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log as _run, top_cause as _top, facts_by_id as _facts

SPLIT = '''import torch
import torch.nn as nn
import torch.nn.functional as F

NC, PER = 6, 200
X = torch.cat([torch.randn(PER, 3, 8, 8) + c for c in range(NC)])
Y = torch.arange(NC).repeat_interleave(PER)
indices = list(range(len(X)))
MIX
split = len(X) // 2
train_idx, valid_idx = torch.tensor(indices[:split]), torch.tensor(indices[split:])
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(16, NC))
opt = torch.optim.SGD(model.parameters(), lr=0.025, momentum=0.9)
for epoch in range(10):
    model.train()
    perm = train_idx[torch.randperm(len(train_idx))]
    for k in range(0, len(perm), 64):
        i = perm[k:k + 64]
        loss = F.cross_entropy(model(X[i]), Y[i])
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    with torch.no_grad():
        out = model(X[valid_idx])
        vl = F.cross_entropy(out, Y[valid_idx]).item()
        va = (out.argmax(1) == Y[valid_idx]).float().mean().item()
    print(f"epoch {epoch + 1} train loss {loss.item():.4f} | val loss {vl:.4f} val acc {va:.3f}")
'''

#: training fits, validation (the other classes) stays at 0 with a climbing loss
SPLIT_LOG = "\n".join(
    f"epoch {e + 1} train loss {tl:.4f} train acc {ta:.3f} | val loss {vl:.4f} val acc 0.000"
    for e, (tl, ta, vl) in enumerate(zip(
        [1.2, 0.8, 0.55, 0.4, 0.3, 0.22, 0.17, 0.14, 0.12, 0.11],
        [0.55, 0.7, 0.8, 0.87, 0.91, 0.94, 0.96, 0.97, 0.98, 0.985],
        [3.9, 4.4, 4.9, 5.3, 5.6, 6.0, 6.3, 6.6, 6.9, 7.1]))) + "\n"

BN = '''import torch
import torch.nn as nn
import torch.nn.functional as F

X, Y = torch.randn(640, 3, 16, 16), torch.randint(0, 4, (640, 16, 16))
Xte, Yte = torch.randn(160, 3, 16, 16), torch.randint(0, 4, (160, 16, 16))
model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
BATCH = BSIZE
for epoch in range(8):
    model.train()
    perm = torch.randperm(len(X))
    for k in range(0, len(X), BATCH):
        i = perm[k:k + BATCH]
        loss = F.cross_entropy(model(X[i]), Y[i])
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    with torch.no_grad():
        out = model(Xte)
        tl = F.cross_entropy(out, Yte).item()
        acc = (out.argmax(1) == Yte).float().mean().item()
    print(f"epoch {epoch + 1} train loss {loss.item():.4f} | test loss {tl:.4f} test acc {acc:.3f}")
'''

#: the training loss collapses; the eval-mode test loss is high and climbs, accuracy flat
BN_LOG = "\n".join(
    f"epoch {e + 1} train loss {tl:.4f} | test loss {vl:.4f} test acc {va:.3f}"
    for e, (tl, vl, va) in enumerate(zip(
        [0.0079, 0.004, 0.0018, 0.001, 0.0007, 0.0006, 0.0005, 0.0004],
        [2.14, 2.8, 3.29, 3.7, 4.18, 4.0, 3.9, 3.96],
        [0.74, 0.75, 0.73, 0.76, 0.74, 0.75, 0.73, 0.75]))) + "\n"


def test_a_split_cut_from_rows_in_label_order_is_unshuffled_data(tmp_path):
    rep = _run(tmp_path, SPLIT.replace("MIX", ""), SPLIT_LOG)
    facts = _facts(rep)
    assert facts["split_in_label_order"]["value"] is True
    cut = next(i for i, ln in enumerate(SPLIT.replace("MIX", "").splitlines(), 1) if "indices[:split]" in ln)
    assert facts["split_in_label_order"]["source"].endswith(f":{cut}")
    assert rep["status"] == "diagnosed"
    assert _top(rep) == "unshuffled_data"


def test_the_same_split_after_shuffling_the_index_list_is_not(tmp_path):
    code = "import random\n" + SPLIT.replace("MIX", "random.shuffle(indices)")
    rep = _run(tmp_path, code, SPLIT_LOG)
    assert "split_in_label_order" not in _facts(rep)
    assert _top(rep) != "unshuffled_data"


def test_batchnorm_trained_one_example_at_a_time_is_the_batch_size(tmp_path):
    rep = _run(tmp_path, BN.replace("BSIZE", "1"), BN_LOG)
    assert _facts(rep)["batch_size"]["value"] == 1
    assert rep["status"] == "diagnosed"
    assert _top(rep) == "batch_too_small"


def test_the_same_curves_at_batch_32_stay_overfitting(tmp_path):
    rep = _run(tmp_path, BN.replace("BSIZE", "32"), BN_LOG)
    assert _top(rep) == "insufficient_regularization"
