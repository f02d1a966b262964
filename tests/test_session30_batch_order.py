"""Manual batches taken in sorted order, and rows reordered apart from their labels, read from the code
(session 30, finish30).

What a user would notice: a hand-batched classifier whose loss swings and stalls because every batch holds
one class. Two ways the code reader missed it: the epoch's batch order is ``torch.argsort(labels)`` cut
into windows (``idx = order[i * B:(i + 1) * B]``), which it did not read as sorting the rows; and a
``randperm`` used to draw the synthetic data (inside the data generator, or before the rows were sorted)
was taken for a shuffle of the batches. Now the windows of a sort order count as sorted rows, and only a
permutation that reaches the batches (in the epoch loop, or after the sort in the loop's scope, or in a
function the loop calls) counts as shuffling; a fresh ``randperm`` each epoch still does. And a
``randperm`` that reorders the feature arrays of a group unpacked from one call but not its labels
(``num, ids = num[p], ids[p]`` beside ``lab``) is read as ``permuted_alone``, as a sort of some of them was.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CODE = '''
import torch, torch.nn as nn

B = 32


def synth(n):
    pts = torch.randn(n, 12)
    cls = torch.randint(0, 5, (n,))
    pts[:, :5] += 2.0 * nn.functional.one_hot(cls, 5)
    jitter = torch.randperm(12)[:3]
    pts[:, jitter] *= 0.5
    return pts, cls


pts, cls = synth(3200)
{prep}
clf = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 5))
opt = torch.optim.SGD(clf.parameters(), lr=0.05, momentum=0.9)
for epoch in range(12):
    {order}
    for i in range(len(pts) // B):
        idx = order[i * B:(i + 1) * B]
        loss = nn.functional.cross_entropy(clf(pts[idx]), cls[idx])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''

LOG = "".join(f"epoch {e} loss {[1.95, 0.31, 2.42, 0.12, 1.77, 2.9][e % 6] * (1 - 0.02 * e):.4f}\n" for e in range(12))


def _script(prep: str, order: str) -> str:
    return CODE.replace("{prep}", prep).replace("{order}", order)


def test_batches_cut_from_a_label_sort_each_epoch_are_sorted_rows(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _script("", "order = torch.argsort(cls)"), LOG)
    facts = facts_by_id(rep)
    assert facts["data_sorted"]["value"] is True
    assert facts["shuffle"]["value"] is False
    assert top_cause(rep) == "unshuffled_data"


def test_a_random_draw_in_the_data_generator_is_not_a_shuffle(tmp_path):
    prep = "by_cls = torch.argsort(cls)\npts, cls = pts[by_cls], cls[by_cls]"
    rep = diagnose_code_and_log(tmp_path, _script(prep, "order = torch.arange(len(pts))"), LOG)
    facts = facts_by_id(rep)
    assert facts["data_sorted"]["value"] is True
    assert facts["shuffle"]["value"] is False
    assert top_cause(rep) == "unshuffled_data"


def test_a_permutation_made_before_the_sort_does_not_mix_the_batches(tmp_path):
    prep = "mix = torch.randperm(len(pts))\npts, cls = pts[mix], cls[mix]\n" \
           "by_cls = torch.argsort(cls)\npts, cls = pts[by_cls], cls[by_cls]"
    rep = diagnose_code_and_log(tmp_path, _script(prep, "order = torch.arange(len(pts))"), LOG)
    assert facts_by_id(rep)["shuffle"]["value"] is False


def test_a_fresh_permutation_each_epoch_still_shuffles(tmp_path):
    prep = "by_cls = torch.argsort(cls)\npts, cls = pts[by_cls], cls[by_cls]"
    rep = diagnose_code_and_log(tmp_path, _script(prep, "order = torch.randperm(len(pts))"), LOG)
    assert facts_by_id(rep)["shuffle"]["value"] is True
    assert top_cause(rep) != "unshuffled_data"


GROUP = '''
import torch, torch.nn as nn


def make_rows(n):
    num = torch.randn(n, 6)
    ids = torch.randint(0, 50, (n, 2))
    lab = (num[:, 0] + 0.1 * ids[:, 0] > 2.5).float()
    return num, ids, lab


num_all, ids_all, lab_all = make_rows(9000)
shuf = torch.randperm(len(lab_all))
{reorder}
num_tr, ids_tr, lab_tr = num_all[:8000], ids_all[:8000], lab_all[:8000]
emb = nn.Embedding(50, 4)
head = nn.Sequential(nn.Linear(14, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(list(emb.parameters()) + list(head.parameters()), lr=1e-3)
for ep in range(10):
    for i in range(0, 8000, 200):
        z = torch.cat([num_tr[i:i + 200], emb(ids_tr[i:i + 200]).flatten(1)], 1)
        loss = nn.functional.binary_cross_entropy_with_logits(head(z).squeeze(1), lab_tr[i:i + 200])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"ep {ep} loss {loss.item():.4f}")
'''


def test_a_permutation_of_the_features_but_not_the_labels_they_came_with_misaligns_rows(tmp_path):
    code = GROUP.replace("{reorder}", "num_all, ids_all = num_all[shuf], ids_all[shuf]")
    rep = diagnose_code_and_log(tmp_path, code, LOG)
    assert facts_by_id(rep)["permuted_alone"]["value"] is True


def test_the_same_permutation_of_every_array_keeps_rows_together(tmp_path):
    code = GROUP.replace("{reorder}", "num_all, ids_all, lab_all = num_all[shuf], ids_all[shuf], lab_all[shuf]")
    rep = diagnose_code_and_log(tmp_path, code, LOG)
    assert "permuted_alone" not in facts_by_id(rep)
