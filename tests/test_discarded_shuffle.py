"""A shuffle that reorders a copy nobody keeps (``random.shuffle(list(range(n)))``) leaves the data in the
order it was read. A user whose script does this believes the data is mixed; traindx, reading the code,
names the unshuffled data — and says nothing of the kind when the shuffle works on the list it keeps."""

from __future__ import annotations

from conftest import diagnose_json, facts_by_id, top_cause

_SCRIPT = """\
import random
import torch
torch.manual_seed(0)
NUM_CLASSES, PER_CLASS = 10, 100
files = [(c, i) for c in range(NUM_CLASSES) for i in range(PER_CLASS)]      # listed folder by folder
labels = [c for c, _ in files]
index = list(range(len(files)))
random.seed(1)
SHUFFLE_LINE
files = [files[i] for i in index]
labels = torch.tensor([labels[i] for i in index])
x = torch.randn(len(files), 32) + labels[:, None].float()
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, NUM_CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(5):
    for i in range(0, len(files), 50):
        loss = torch.nn.functional.cross_entropy(model(x[i:i + 50]), labels[i:i + 50])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
"""


def _diagnose(tmp_path, shuffle_line):
    p = tmp_path / "train.py"
    p.write_text(_SCRIPT.replace("SHUFFLE_LINE", shuffle_line))
    return diagnose_json("--code", str(p))


def test_a_shuffle_of_a_fresh_copy_leaves_the_data_unshuffled(tmp_path):
    rep = _diagnose(tmp_path, "random.shuffle(list(range(len(index))))")
    assert facts_by_id(rep)["shuffle_discarded"]["value"] is True
    assert top_cause(rep) == "unshuffled_data"


def test_a_shuffle_of_the_kept_index_is_not_flagged(tmp_path):
    rep = _diagnose(tmp_path, "random.shuffle(index)")
    assert "shuffle_discarded" not in facts_by_id(rep)
    assert top_cause(rep) != "unshuffled_data"
