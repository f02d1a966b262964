"""Session 41 (fused41): a finished run whose script pairs inputs with another example's labels, read
from the script and its console output together. The code reader finds the misalignment in more of
the shapes people write it (each script written for this test, synthetic; the code is read, not run):

- a list reordered by a comprehension over a permutation (``bags = [bags[i] for i in perm]``) while its
  labels, which came with it, keep their order;
- a pair assigned together, one reordered at random and the other a plain slice in its original
  order (``texts_tr, labels_tr = [texts[i] for i in perm[:n]], labels[:n]``;
  ``inputs, targets = s[:, :-1], s[randperm(n)][:, 1:]``).

Under a loss stuck at chance the report names corrupted labels. Aligned versions name nothing of
the kind. Torch-free.
"""

import math

from conftest import diagnose_code_and_log, facts_by_id, top_cause

_HEAD = '''
import random
import torch
import torch.nn as nn

rng = random.Random(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def make_data(n):
    x = torch.randn(n, 16)
    y = torch.randint(0, 4, (n,))
    return x, y

'''

_LOOP = '''
loader = torch.utils.data.DataLoader(list(zip(train_x, train_y)), batch_size=32, shuffle=True)
for epoch in range(12):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(torch.stack(list(xb))), yb)
        loss.backward()
        opt.step()
'''


def _chance_log(epochs=12):
    c = math.log(4)
    return "\n".join(f"epoch {e} loss {c - 0.002 * e:.4f} val_loss {c + 0.003 * ((-1) ** e):.4f} "
                     f"val_acc {0.24 + 0.01 * (e % 3):.4f}" for e in range(1, epochs + 1))


_COMPREHENSION = _HEAD + '''
train_x, train_y = make_data(2000)
perm = torch.randperm(2000)
train_x = [train_x[i] for i in perm]
''' + _LOOP

_COMPREHENSION_ALIGNED = _HEAD + '''
train_x, train_y = make_data(2000)
perm = torch.randperm(2000)
train_x = [train_x[i] for i in perm]
train_y = [train_y[i] for i in perm]
''' + _LOOP

_PAIR_WITH_A_SLICE = _HEAD + '''
xs, ys = make_data(2400)
order = list(range(2400))
rng.shuffle(order)
train_x, train_y = [xs[i] for i in order[:2000]], ys[:2000]
''' + _LOOP

_PAIR_ALIGNED = _HEAD + '''
xs, ys = make_data(2400)
order = list(range(2400))
rng.shuffle(order)
train_x, train_y = [xs[i] for i in order[:2000]], [ys[i] for i in order[:2000]]
''' + _LOOP

_VIEWS_OF_ONE_ARRAY = _HEAD + '''
seqs = torch.randint(0, 4, (2000, 17))
train_x, train_y = seqs[:, :-1], seqs[torch.randperm(2000)][:, -1]
''' + _LOOP


def test_a_list_reordered_by_a_comprehension_without_its_labels_names_corrupted_labels(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _COMPREHENSION, _chance_log())
    assert facts_by_id(rep)["permuted_alone"]["value"] is True
    assert rep["status"] == "diagnosed" and top_cause(rep) == "corrupted_labels"


def test_a_pair_reordered_by_one_comprehension_each_is_aligned(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _COMPREHENSION_ALIGNED, _chance_log())
    assert "permuted_alone" not in facts_by_id(rep)


def test_a_pair_of_a_shuffled_list_and_a_plain_slice_names_corrupted_labels(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _PAIR_WITH_A_SLICE, _chance_log())
    assert facts_by_id(rep)["permuted_alone"]["value"] is True
    assert rep["status"] == "diagnosed" and top_cause(rep) == "corrupted_labels"


def test_a_pair_taken_by_one_shuffled_order_is_aligned(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _PAIR_ALIGNED, _chance_log())
    assert "permuted_alone" not in facts_by_id(rep)


def test_two_views_of_one_array_one_of_them_reordered_name_corrupted_labels(tmp_path):
    rep = diagnose_code_and_log(tmp_path, _VIEWS_OF_ONE_ARRAY, _chance_log())
    assert facts_by_id(rep)["permuted_alone"]["value"] is True
    assert top_cause(rep) == "corrupted_labels"
