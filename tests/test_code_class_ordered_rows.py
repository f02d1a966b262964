"""Rows made class after class in nested loops (``for c in range(k): for _ in range(n): ...;
labels.append(c)``) and fed to a DataLoader with ``shuffle=False``: every batch holds one or two
classes. The code alone ranks unshuffled_data first; the same rows shuffled by the loader do not."""
from conftest import diagnose_json

ORDERED = '''
import numpy as np, torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
K, N = 10, 50
means = np.random.randn(K, 3, 8, 8).astype(np.float32)
def build(n):
    xs, ys = [], []
    for cls in range(K):
        for _ in range(n):
            xs.append(means[cls] + np.random.randn(3, 8, 8).astype(np.float32))
            ys.append(cls)
    return torch.tensor(np.array(xs)), torch.tensor(ys)
xtr, ytr = build(N)
train = DataLoader(TensorDataset(xtr, ytr), batch_size=25, shuffle=False)
net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, K))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for epoch in range(6):
    for xb, yb in train:
        opt.zero_grad(); loss = nn.functional.cross_entropy(net(xb), yb); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")
'''


def _code(tmp_path, text):
    p = tmp_path / "train.py"
    p.write_text(text)
    return diagnose_json("--code", str(p))


def test_rows_built_class_by_class_and_never_shuffled(tmp_path):
    rep = _code(tmp_path, ORDERED)
    assert rep["root_causes"][0]["id"] == "unshuffled_data"
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["data_sorted"] is True


def test_the_same_rows_shuffled_by_the_loader(tmp_path):
    rep = _code(tmp_path, ORDERED.replace("shuffle=False", "shuffle=True"))
    assert all(rc["id"] != "unshuffled_data" or rc["confidence"] < 0.1 for rc in rep["root_causes"])
