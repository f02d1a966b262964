"""Finished runs read with their script (session 51, issue 13): labels shuffled in place and zipped
back with rows that were not shuffled with them are corrupted labels; a ``.detach()`` after a
reduction's ``.values`` cuts the graph; a column given NaN through ``torch.where(mask, torch.full(...,
nan), x)`` is NaN written to the data."""

from cli_reports import diagnose_log
from traindx.probes.readers.code import analyze_code


def _diagnose(tmp_path, log: str, script: str | None = None) -> dict:
    return diagnose_log(tmp_path, log, script)


_SHUFFLED_LABELS_SCRIPT = '''import random
import torch
import torch.nn as nn

random.seed(0)
data = [([random.random() for _ in range(8)], k % 4) for k in range(2000)]
random.shuffle(data)
val_data, train_data = data[:400], data[400:]
labels = [c for _, c in train_data]
random.shuffle(labels)
train_data = [(x, c) for (x, _), c in zip(train_data, labels)]
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()
for it in range(1, 1001):
    batch = random.sample(train_data, 32)
    x = torch.tensor([b[0] for b in batch])
    y = torch.tensor([b[1] for b in batch])
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    if it % 50 == 0:
        print(f"iter {it} loss {loss.item():.4f}")
'''


def test_labels_shuffled_in_place_and_zipped_back_with_their_rows_name_corrupted_labels(tmp_path):
    log = "".join(f"iter {50 * k} loss {1.386 + 0.004 * ((-1) ** k):.4f}\n" for k in range(1, 21))
    report = _diagnose(tmp_path, log, _SHUFFLED_LABELS_SCRIPT)
    assert report["symptom"]["id"] == "not_learning"
    assert report["root_causes"][0]["id"] == "corrupted_labels"


def _permuted_alone(tmp_path, script: str):
    (tmp_path / "s.py").write_text(script, encoding="utf-8")
    return [f for f in analyze_code(str(tmp_path / "s.py")).findings if f.fact == "permuted_alone"]


def test_two_arrays_shuffled_by_two_draws_are_misaligned_and_a_reset_state_keeps_them_paired(tmp_path):
    head = "import numpy as np\nimport torch\nX = np.random.randn(100, 3)\ny = (X[:, 0] > 0).astype(int)\n"
    pair = "ds = torch.utils.data.TensorDataset(torch.tensor(X), torch.tensor(y))\n"
    two_draws = head + "np.random.shuffle(X)\nnp.random.shuffle(y)\n" + pair
    in_unison = head + "st = np.random.get_state()\nnp.random.shuffle(X)\nnp.random.set_state(st)\n" \
                       "np.random.shuffle(y)\n" + pair
    assert [f.source.rsplit(":", 1)[-1] for f in _permuted_alone(tmp_path, two_draws)] == ["5"]
    assert _permuted_alone(tmp_path, in_unison) == []


def test_a_partner_built_from_the_shuffled_array_or_a_range_beside_it_is_no_misalignment(tmp_path):
    script = ("import random\norder = list(range(50))\nrandom.shuffle(order)\nfor i, j in zip(order, range(50)):\n"
              "    pass\nlabels = [k % 3 for k in range(50)]\nrandom.shuffle(labels)\nfeats = [2 * c for c in labels]\n"
              "pairs = list(zip(feats, labels))\n")
    assert _permuted_alone(tmp_path, script) == []


_DETACHED_VALUES_SCRIPT = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.rnn = nn.GRU(16, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        out, _ = self.rnn(self.emb(x))
        h = out.max(dim=1).values.detach()
        return self.fc(h)


model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
crit = nn.CrossEntropyLoss()
for step in range(1, 301):
    x = torch.randint(0, 100, (32, 12))
    y = torch.randint(0, 4, (32,))
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print({"loss": round(loss.item(), 4), "step": step})
'''


def test_a_detach_after_a_reductions_values_cuts_the_graph(tmp_path):
    (tmp_path / "s.py").write_text(_DETACHED_VALUES_SCRIPT, encoding="utf-8")
    cut = {f.fact: f for f in analyze_code(str(tmp_path / "s.py")).findings}["graph_cut"]
    assert cut.value is True and cut.source.endswith(":14")
    intact = _DETACHED_VALUES_SCRIPT.replace(".values.detach()", ".values")
    (tmp_path / "s.py").write_text(intact, encoding="utf-8")
    assert {f.fact: f.value for f in analyze_code(str(tmp_path / "s.py")).findings}["graph_cut"] is False


def test_nan_put_in_a_column_through_an_array_full_of_nan_is_nan_written_to_the_data(tmp_path):
    script = ("import torch\ng = torch.Generator().manual_seed(0)\nn = 1000\ngain = torch.rand(n, generator=g)\n"
              "gain = torch.where(torch.rand(n, generator=g) < 0.03, torch.full((n,), float('nan')), gain)\n"
              "x = torch.stack([gain, torch.rand(n)], 1)\n")
    (tmp_path / "s.py").write_text(script, encoding="utf-8")
    found = {f.fact: f for f in analyze_code(str(tmp_path / "s.py")).findings}
    assert found["nan_written_to_data"].value is True and found["nan_written_to_data"].source.endswith(":5")
    (tmp_path / "s.py").write_text(script.replace("float('nan')", "0.0"), encoding="utf-8")
    assert "nan_written_to_data" not in {f.fact for f in analyze_code(str(tmp_path / "s.py")).findings}

