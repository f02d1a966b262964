"""Code mode (``traindx diagnose --code train.py``): a mechanism the code reader finds implies the
symptom the run will show, even while the cause stays below the level at which the report names it.
The symptom is marked predicted and unconfirmed; the status is unchanged, and a clean script gets none."""
from conftest import diagnose_json

NAN_FEATURES = '''
import numpy as np, torch, torch.nn as nn
rng = np.random.default_rng(1)
feats = rng.normal(size=(600, 8)).astype(np.float32)
target = (feats[:, 0] + feats[:, 1] > 0).astype(np.int64)
missing = rng.choice(600, 15, replace=False)
feats[missing] = np.nan          # sensors that reported nothing
x = torch.from_numpy(feats); y = torch.from_numpy(target)
clf = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
optim = torch.optim.SGD(clf.parameters(), lr=0.05)
for ep in range(30):
    optim.zero_grad()
    loss = nn.functional.cross_entropy(clf(x), y)
    loss.backward()
    optim.step()
    print("ep", ep, "loss", float(loss))
'''

ROUNDED_PREDICTION_LOSS = '''
import torch, torch.nn as nn
torch.manual_seed(3)
inp = torch.randn(1024, 10); lab = (inp.sum(1) > 0).float()
net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for step in range(200):
    idx = torch.randint(0, 1024, (64,))
    pred_class = torch.round(torch.sigmoid(net(inp[idx]).squeeze(1)))
    loss = ((pred_class - lab[idx]) ** 2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
'''

CLEAN = '''
import torch, torch.nn as nn
x = torch.randn(512, 6); y = x[:, 0] * 0.5
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
crit = nn.MSELoss()
for epoch in range(12):
    for i in range(0, 512, 64):
        opt.zero_grad(); loss = crit(net(x[i:i + 64]).squeeze(1), y[i:i + 64]); loss.backward(); opt.step()
    print(f"epoch {epoch + 1} | train_loss {loss.item():.4f}")
'''


def _code(tmp_path, text):
    p = tmp_path / "train.py"
    p.write_text(text)
    return diagnose_json("--code", str(p))


def test_nan_rows_left_in_the_features_predict_a_nan_loss(tmp_path):
    rep = _code(tmp_path, NAN_FEATURES)
    assert rep["root_causes"][0]["id"] == "nan_in_inputs"
    assert rep["status"] == "insufficient_evidence"       # not named: the run was not seen
    assert rep["symptom"]["id"] == "explosion"
    assert rep["symptom"]["predicted"] is True
    assert "not yet confirmed" in rep["symptom"]["how"]


def test_a_loss_of_rounded_predictions_predicts_a_flat_loss(tmp_path):
    rep = _code(tmp_path, ROUNDED_PREDICTION_LOSS)
    assert rep["root_causes"][0]["id"] == "broken_gradient_flow"
    assert rep["symptom"]["id"] in ("not_learning", "plateau")
    assert rep["symptom"]["predicted"] is True


def test_a_clean_script_predicts_no_symptom(tmp_path):
    rep = _code(tmp_path, CLEAN)
    assert rep["status"] != "diagnosed"
    assert rep["symptom"] is None


SOFTMAX_INTO_CE = '''
import torch, torch.nn as nn
torch.manual_seed(0)
X = torch.randn(512, 20); y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3), nn.Softmax(dim=1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(20):
    for i in range(0, 512, 32):
        opt.zero_grad()
        loss = loss_fn(model(X[i:i+32]), y[i:i+32])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''


def test_a_softmax_fed_to_cross_entropy_predicts_a_loss_stalled_above_its_floor(tmp_path):
    # the loss can fall a little but never below ln(1 + (C-1)/e): a plateau, not a flat start
    rep = _code(tmp_path, SOFTMAX_INTO_CE)
    assert rep["root_causes"][0]["id"] == "double_softmax"
    assert rep["symptom"]["id"] == "plateau"
