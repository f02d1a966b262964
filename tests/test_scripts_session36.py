"""Scripts read by traindx diagnose (session 36, issues 12 and 13): the code reader and the report on
shapes of script people write. The scripts are written for these tests.

- Labels built class by class, then only converted (``y = torch.from_numpy(y)``, ``y = y.astype(np.int64)``)
  before a head/tail cut into train and validation: the conversion keeps the rows in label order, so
  the cut still validates on classes training never saw; read from the code alone the fault is
  predicted to show as train good / validation bad, not as the oscillation unshuffled batches give.
"""
import pytest

from conftest import diagnose_json

LABEL_ORDER_CUT = '''
import numpy as np
import torch, torch.nn as nn

counts = [400, 380, 420, 300]
feats = np.concatenate([np.random.randn(n, 16) + k for k, n in enumerate(counts)]).astype(np.float32)
labels = np.concatenate([np.full(n, k) for k, n in enumerate(counts)])
{convert}
cut = int(0.8 * len(labels))
x_tr, y_tr = feats[:cut], labels[:cut]
x_va, y_va = feats[cut:], labels[cut:]

net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(10):
    order = torch.randperm(len(y_tr))
    for i in range(0, len(order), 64):
        b = order[i:i + 64]
        loss = nn.functional.cross_entropy(net(x_tr[b]), y_tr[b])
        opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        acc = (net(x_va).argmax(1) == y_va).float().mean().item()
    print(f"epoch {{epoch}} loss {{loss.item():.4f}} val_acc {{acc:.4f}}")
'''

CONVERSIONS = [
    "feats, labels = torch.from_numpy(feats), torch.from_numpy(labels)",
    "feats = torch.tensor(feats)\nlabels = torch.tensor(labels.astype(np.int64))",
    "feats = torch.as_tensor(feats); labels = torch.as_tensor(labels).long()",
]


@pytest.mark.parametrize("convert", CONVERSIONS)
def test_a_label_order_cut_after_a_conversion_is_read_as_unshuffled_data(tmp_path, convert):
    script = tmp_path / "train.py"
    script.write_text(LABEL_ORDER_CUT.format(convert=convert))
    rep = diagnose_json("--code", str(script))
    assert rep["root_causes"][0]["id"] == "unshuffled_data"
    assert rep["symptom"]["id"] == "overfitting"


def test_a_label_order_array_shuffled_before_the_cut_is_no_label_order_cut(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(LABEL_ORDER_CUT.format(
        convert="perm = np.random.permutation(len(labels))\nfeats, labels = torch.tensor(feats[perm]), "
                "torch.tensor(labels[perm])"))
    rep = diagnose_json("--code", str(script))
    facts = {e["fact"] for c in rep["root_causes"] for e in c["evidence"]}
    assert "split_in_label_order" not in facts


# - A loss that reached -ln(FLT_MIN) (87.3365) on some printed batch and stays near it to the end,
#   batches at the floor and just under it (a few samples still right): the probability of the true
#   class underflowed, the run diverged as surely as a NaN (Explosion), though its last value is not
#   the floor itself. One that reached the floor and came back down is no such run.
def _caffe_style(losses):
    lines = ["I0301 solver.cpp:218] Iteration 0 (0 iter/s), loss = 2.41"]
    for i, v in enumerate(losses, 1):
        lines.append(f"I0301 solver.cpp:218] Iteration {i * 50} (5.1 iter/s), loss = {v}")
        lines.append(f"I0301 sgd_solver.cpp:105] Iteration {i * 50}, lr = 0.05")
    return "\n".join(lines) + "\n"


def test_a_loss_that_reached_the_float_floor_and_stays_near_it_is_an_explosion(tmp_path):
    log = tmp_path / "train.out"
    log.write_text(_caffe_style([9.8, 87.3365, 84.1, 86.2, 81.9, 87.3365, 83.7, 85.4]))
    assert diagnose_json("--log", str(log))["symptom"]["id"] == "explosion"


def test_a_loss_that_touched_the_float_floor_and_recovered_is_no_explosion(tmp_path):
    log = tmp_path / "train.out"
    log.write_text(_caffe_style([9.8, 87.3365, 4.1, 2.2, 1.9, 1.6, 1.3, 1.1]))
    assert diagnose_json("--log", str(log))["symptom"]["id"] != "explosion"
