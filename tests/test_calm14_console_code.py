"""Evidence a finished run's console or its script already holds, carried to the cause (console mode:
``--code train.py --log console.log``):

- PyTorch's target-size warning, when the two sizes broadcast to more elements than either holds, is
  a loss comparing every output with every target (wrong_loss_function), not a schedule problem;
- a validation accuracy printed at chance in every epoch while training fits is the labels', not a
  lack of regularization (the log reader now gives the best validation accuracy);
- a model output rebuilt with ``torch.tensor(...)`` from ``.detach().numpy()`` cuts the graph in the
  code, also when the pieces go through a list and ``np.array``;
- layers kept outside the optimizer together with a plateau lead the diagnosis."""
from conftest import diagnose_json, diagnose_code_and_log as _run, top_cause as _top

REGRESSOR = '''
import torch, torch.nn as nn
x = torch.randn(512, 6); y = x[:, 0] * 0.5
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
crit = nn.MSELoss()
for epoch in range(12):
    for i in range(0, 512, 64):
        opt.zero_grad(); loss = crit(net(x[i:i + 64]), y[i:i + 64]); loss.backward(); opt.step()
    print(f"epoch {epoch + 1} | train_loss {loss.item():.4f}")
'''

WARN = ("/usr/lib/python3/site-packages/torch/nn/modules/loss.py:535: UserWarning: Using a target size "
        "(torch.Size([{n}])) that is different to the input size (torch.Size([{m}])). This will likely "
        "lead to incorrect results due to broadcasting. Please ensure they have the same size.\n"
        "  return F.mse_loss(input, target, reduction=self.reduction)\n")

PLATEAU = [0.4104, 0.3636, 0.3608, 0.3627, 0.3582, 0.3580, 0.3571, 0.3590, 0.3566, 0.3575, 0.3569, 0.3572]


def _console(tmp_path, head: str, name="run.log"):
    lines = [f"epoch {i + 1} | train_loss {v:.4f}" for i, v in enumerate(PLATEAU)]
    p = tmp_path / name
    p.write_text(head + "\n".join(lines) + "\n")
    return p


def test_a_target_size_warning_that_broadcasts_is_the_loss(tmp_path):
    head = WARN.format(n=64, m="64, 1") + WARN.format(n=16, m="16, 1")
    c = tmp_path / "train.py"
    c.write_text(REGRESSOR)
    rep = diagnose_json("--code", str(c), "--log", str(_console(tmp_path, head)))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["loss_shape_mismatch"]["value"] is True
    assert facts["loss_shape_mismatch"]["source"].startswith("log:run.log:line 1")
    assert _top(rep) == "wrong_loss_function"


def test_a_harmless_size_warning_is_not_a_mismatch(tmp_path):
    # a (1,) output against a () target broadcasts to one element: the same numbers
    head = WARN.format(n="", m="1")
    c = tmp_path / "train.py"
    c.write_text(REGRESSOR)
    rep = diagnose_json("--code", str(c), "--log", str(_console(tmp_path, head)))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert "loss_broadcast_expands" not in facts
    assert _top(rep) != "wrong_loss_function"


CLASSIFIER = '''
import torch, torch.nn as nn
x = torch.randn(600, 50); y = torch.randint(0, 2, (600,))
net = nn.Sequential(nn.Linear(50, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(20):
    net.train()
    opt.zero_grad(); loss = nn.functional.cross_entropy(net(x[:480]), y[:480]); loss.backward(); opt.step()
    net.eval()
    with torch.no_grad():
        acc = (net(x[480:]).argmax(1) == y[480:]).float().mean()
    print(f"Epoch {epoch + 1}/20 - loss: {loss.item():.4f} - val_accuracy: {acc:.4f}")
'''


def _keras_lines(val_accs, val_losses):
    out = []
    for i, (va, vl) in enumerate(zip(val_accs, val_losses)):
        tr_acc = min(1.0, 0.5 + 0.1 * i)
        tr_loss = max(0.0003, 0.69 * 0.5 ** i)
        out.append(f"Epoch {i + 1}/20 - loss: {tr_loss:.4f} - accuracy: {tr_acc:.4f} - "
                   f"val_loss: {vl:.4f} - val_accuracy: {va:.4f}")
    return "\n".join(out) + "\n"


def test_validation_at_chance_from_the_start_points_at_the_labels(tmp_path):
    vals = [0.47, 0.45, 0.48, 0.46, 0.44, 0.47, 0.46, 0.45, 0.48, 0.46, 0.47, 0.45, 0.46, 0.44, 0.47,
            0.46, 0.45, 0.47, 0.46, 0.45]
    vloss = [0.70 + 0.1 * i for i in range(20)]
    rep = _run(tmp_path, CLASSIFIER, _keras_lines(vals, vloss))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["val_accuracy_best"] <= 0.5
    assert _top(rep) == "corrupted_labels"


def test_validation_that_rose_first_is_still_overfitting(tmp_path):
    vals = [0.60, 0.70, 0.78, 0.82, 0.80, 0.78, 0.76, 0.75, 0.74, 0.73, 0.72, 0.72, 0.71, 0.71, 0.70,
            0.70, 0.69, 0.69, 0.69, 0.68]
    vloss = [0.60, 0.50, 0.45, 0.44] + [0.46 + 0.08 * i for i in range(16)]
    rep = _run(tmp_path, CLASSIFIER, _keras_lines(vals, vloss))
    assert _top(rep) == "insufficient_regularization"


CUT_IN_FORWARD = '''
import numpy as np
import torch, torch.nn as nn

class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlps = nn.ModuleList([nn.Linear(8, 4) for _ in range(3)])
    def forward(self, x):
        outs = [m(x).cpu().detach().numpy() for m in self.mlps]
        return torch.tensor(np.array(outs)).mean(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 8); self.br = Branches(); self.head = nn.Linear(4, 1)
    def forward(self, x):
        return self.head(self.br(self.enc(x)))

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(64, 8), torch.randn(64, 1)
for epoch in range(5):
    opt.zero_grad(); loss = nn.functional.l1_loss(model(x), y); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
'''


def test_a_model_output_rebuilt_from_numpy_cuts_the_graph(tmp_path):
    p = tmp_path / "sr.py"
    p.write_text(CUT_IN_FORWARD)
    rep = diagnose_json("--code", str(p))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["graph_cut"]["value"] is True
    assert facts["graph_cut"]["source"].endswith(":10")
    assert _top(rep) == "broken_gradient_flow"


def test_a_tensor_made_from_data_is_no_cut(tmp_path):
    p = tmp_path / "ok.py"
    p.write_text(CUT_IN_FORWARD.replace(
        "outs = [m(x).cpu().detach().numpy() for m in self.mlps]\n"
        "        return torch.tensor(np.array(outs)).mean(0)",
        "w = torch.tensor(np.array([1.0, 2.0, 3.0]))\n"
        "        return torch.stack([m(x) for m in self.mlps]).mean(0) * w.mean()"))
    rep = diagnose_json("--code", str(p))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["graph_cut"]["value"] is False


DICT_LAYERS = '''
import torch, torch.nn as nn

class Conv(nn.Module):
    def __init__(self, d, layers=2):
        super().__init__()
        self.w = {}
        for i in range(layers):
            self.w[i] = nn.Linear(d, d)
    def forward(self, h):
        for i in self.w:
            h = torch.relu(self.w[i](h))
        return h

class Rec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(300, 32); self.conv = Conv(32); self.out = nn.Linear(32, 300)
    def forward(self, s):
        return self.out(self.conv(self.emb(s).mean(1)))

model = Rec()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
s = torch.randint(0, 300, (400, 5)); t = torch.randint(0, 300, (400,))
for epoch in range(10):
    tot = 0.0
    for i in range(0, 400, 100):
        opt.zero_grad(); loss = nn.functional.cross_entropy(model(s[i:i + 100]), t[i:i + 100])
        loss.backward(); opt.step(); tot += loss.item()
    print(f"epoch: {epoch}\\tLoss:\\t{tot:.3f}")
'''


def test_layers_outside_the_optimizer_lead_a_plateau(tmp_path):
    losses = [271.5, 257.9, 252.9, 249.8, 247.6, 246.0, 244.6, 243.5, 242.5, 241.6]
    log = "".join(f"epoch: {i}\tLoss:\t{v:.3f}\n" for i, v in enumerate(losses))
    rep = _run(tmp_path, DICT_LAYERS, log)
    assert rep["symptom"]["id"] == "plateau"
    assert _top(rep) == "params_not_in_optimizer"


RELU_HEAD = '''
import torch, torch.nn as nn

class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 32, batch_first=True); self.dense = nn.Linear(32, 1)
    def forward(self, x):
        h, _ = self.rnn(x)
        return torch.relu(self.dense(h))

model = Seq()
opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.99)
x = torch.randn(256, 20, 8); y = torch.relu(x[..., :1] + 1.0)
crit = nn.MSELoss()
for epoch in range(8):
    for i in range(0, 224, 32):
        opt.zero_grad(); loss = crit(model(x[i:i + 32]), y[i:i + 32]); loss.backward(); opt.step()
        print(f"Epoch {epoch + 1}/8 : Batch {i // 32 + 1}/7 | loss = {loss.item():.6f}")
    with torch.no_grad():
        mse = crit(model(x[224:]), y[224:]).item()
    print(f"Epoch {epoch + 1} test: mse = {mse:.6f}")
'''

RELU_LOSSES = [1.45, 0.41, 2.83, 1.39, 1.49, 1.43, 1.41, 1.44, 1.39, 1.56, 1.32, 1.63, 1.48, 1.54, 1.37,
               1.35, 1.44, 1.47, 1.26, 1.31, 1.31, 1.51, 1.43, 1.45, 1.37, 1.36, 1.38, 1.38, 1.47, 1.40,
               1.32, 1.39, 1.41, 1.35, 1.44, 1.38, 1.42, 1.36, 1.40, 1.39]


def _relu_console():
    out = []
    for e in range(8):
        for b in range(5):
            out.append(f"Epoch {e + 1}/8 : Batch {b + 1}/5 | loss = {RELU_LOSSES[e * 5 + b]:.6f}")
        out.append(f"Epoch {e + 1} test: mse = 1.472803")
    return "\n".join(out) + "\n"


def test_a_relu_output_that_answers_one_value_is_a_dead_unit(tmp_path):
    rep = _run(tmp_path, RELU_HEAD, _relu_console())
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["output_relu"]["value"] is True
    assert facts["output_relu"]["source"].endswith(":10")
    assert _top(rep) == "dead_relu"


def test_a_hidden_relu_is_no_output_relu(tmp_path):
    code = RELU_HEAD.replace("return torch.relu(self.dense(h))", "return self.dense(torch.relu(h))")
    p = tmp_path / "hidden.py"
    p.write_text(code)
    rep = diagnose_json("--code", str(p))
    assert "output_relu" not in {f["fact"] for f in rep["facts"]}


SEG = '''
import torch, torch.nn as nn
x = torch.randn(640, 4, 8, 8); y = (x[:, :1] > 1.5).long().squeeze(1)
net = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(10):
    opt.zero_grad(); loss = nn.functional.cross_entropy(net(x[:500]), y[:500]); loss.backward(); opt.step()
    with torch.no_grad():
        v = nn.functional.cross_entropy(net(x[500:625]), y[500:625]).item()
        t = nn.functional.cross_entropy(net(x[625:]), y[625:]).item()
    print(f"Epoch {epoch} - trn Loss: {loss.item():.4f} - val Loss: {v:.4f} - tst Loss: {t:.4f}")
'''


def _seg_log(trn, val, tst):
    return "".join(f"Epoch {i} - trn Loss: {a:.4f} - val Loss: {b:.4f} val iou: 0.0000 - tst Loss: {c:.4f}\n"
                   for i, (a, b, c) in enumerate(zip(trn, val, tst)))


TRN = [0.353, 0.232, 0.221, 0.213, 0.206, 0.197, 0.189, 0.179, 0.171, 0.163]
VAL = [0.219, 0.205, 0.201, 0.192, 0.185, 0.176, 0.168, 0.162, 0.152, 0.144]


def test_trn_and_tst_columns_are_the_training_and_test_splits(tmp_path):
    rep = _run(tmp_path, SEG, _seg_log(TRN, VAL, [0.273, 0.251, 0.245, 0.242, 0.238, 0.238, 0.239, 0.240,
                                                  0.251, 0.239]))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["initial_loss"] == 0.353
    assert facts["test_loss"] == 0.239
    # validation at or below training and still falling, the separate test set far above it
    assert rep["symptom"]["id"] == "overfitting"
    assert "data_leakage" in [c["id"] for c in rep["root_causes"][:2]]


def test_a_test_split_that_agrees_with_validation_is_healthy(tmp_path):
    rep = _run(tmp_path, SEG, _seg_log(TRN, VAL, [v * 1.05 for v in VAL]))
    assert rep["status"] == "healthy"
