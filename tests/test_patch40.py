"""--patch for faults written in the forms session 40 added: a value that reaches the fault through a
function's parameter, weight decay written as an L2 penalty, explosions under a hand-written update or a
clipping that never clips, NaN in the inputs that no statement of the script writes, rows stored in label
order and cut unmixed, and weights made as ``nn.Parameter(torch.randn(out, in))``.

What a user would notice: the diff applies with ``patch -p0`` (and ``git apply -p0``), the patched script
runs and the symptom is gone (the loss falls and stays finite, the validation accuracy comes back), and
no patch is offered where the script does not read as expected.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys

import pytest

from traindx.probes.readers.code import analyze_code
from traindx.probes.readers.patch import make_patch

HEAD = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
torch.set_num_threads(1)
"""


def _facts(path):
    rep = analyze_code(str(path))
    return {f.fact: (f.value, f.source) for f in getattr(rep, "findings", rep)}


def _patch(tmp_path, text, cause, facts=None):
    """The patch for ``cause`` of ``text`` written as train.py (None where none is offered)."""
    script = tmp_path / "train.py"
    script.write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        p = make_patch("train.py", {**_facts("train.py"), **(facts or {})}, cause)
    finally:
        os.chdir(cwd)
    assert script.read_text() == text               # traindx never edits the user's file
    return p


def _apply(tmp_path, p, tool="patch"):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    (tmp_path / "fix.diff").write_text(p["diff"])
    cmd = ["patch", "-p0", "-i", "fix.diff"] if tool == "patch" else ["git", "apply", "-p0", "fix.diff"]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _run(tmp_path, key="LOSS"):
    out = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    line = [x for x in out.stdout.splitlines() if x.startswith(key)][-1]
    return [float(v) for v in line.split()[1:]]


# ------------------------------------------------------------------ a value passed through a function
THROUGH_A_PARAMETER = HEAD + """\
HP = {"hidden": 16, "keep_prob": 0.9}


def mlp(hidden, keep_prob):
    return nn.Sequential(nn.Linear(8, hidden), nn.ReLU(), nn.Dropout(keep_prob), nn.Linear(hidden, 2))


def main(cfg):
    model = mlp(HP["hidden"], HP["keep_prob"])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=cfg["decay"])
    print("P", model[2].p, opt.param_groups[0]["weight_decay"])


main({"decay": 0.0})
"""


def test_a_dropout_passed_through_function_parameters_is_lowered_where_it_is_written(tmp_path):
    p = _patch(tmp_path, THROUGH_A_PARAMETER, "excessive_regularization")
    assert p is not None and '+HP = {"hidden": 16, "keep_prob": 0.1}' in p["diff"]
    _apply(tmp_path, p)
    assert _run(tmp_path, "P") == [0.1, 0.0]
    # a parameter its calls give different values is never guessed
    twice = THROUGH_A_PARAMETER.replace('    model = mlp(HP["hidden"], HP["keep_prob"])\n',
                                        '    model = mlp(HP["hidden"], HP["keep_prob"])\n'
                                        '    other = mlp(8, 0.5)\n')
    assert _patch(tmp_path, twice, "excessive_regularization") is None


def test_weight_decay_read_from_a_config_dict_passed_to_main_is_lowered(tmp_path):
    text = THROUGH_A_PARAMETER.replace('"keep_prob": 0.9', '"keep_prob": 0.2').replace(
        'main({"decay": 0.0})', 'CONFIG = {"decay": 0.5}\nmain(CONFIG)')
    p = _patch(tmp_path, text, "excessive_regularization")
    assert p is not None and '+CONFIG = {"decay": 5e-4}' in p["diff"]
    _apply(tmp_path, p)
    assert _run(tmp_path, "P") == [0.2, 5e-4]


L2_PENALTY = HEAD + """\
X = torch.randn(400, 8)
Y = (X[:, 0] > 0).long()
W = (0.01 * torch.randn(8, 2)).requires_grad_()
step, reg = 0.5, 2.0
first = None
for i in range(200):
    loss = nn.functional.cross_entropy(X @ W, Y) + 0.5 * reg * (W * W).sum()
    W.grad = None
    loss.backward()
    with torch.no_grad():
        W -= step * W.grad
    first = first or nn.functional.cross_entropy(X @ W, Y).item()
print("LOSS", first, nn.functional.cross_entropy(X @ W, Y).item())
"""


def test_an_l2_penalty_written_into_the_loss_is_lowered_at_its_coefficient(tmp_path):
    p = _patch(tmp_path, L2_PENALTY, "excessive_regularization")
    assert p is not None and "+step, reg = 0.5, 1e-4\n" in p["diff"]
    before = _run(tmp_path)[1]
    _apply(tmp_path, p)
    after = _run(tmp_path)[1]
    assert after < 0.5 * before, (before, after)


# ------------------------------------------------------------------ gradients that explode
REGRESSION = HEAD + """\
X = 10 * torch.randn(256, 16)
Y = X @ torch.randn(16, 1)
model = nn.Linear(16, 1)
lr = 0.05
"""

MANUAL_UPDATE = REGRESSION + """\


def train(x, y):
    model.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    for p in model.parameters():
        p.data.add_(p.grad.data, alpha=-lr)
    return loss.item()


losses = [train(X[i:i + 32], Y[i:i + 32]) for _ in range(40) for i in range(0, 256, 32)]
print("LOSS", losses[0], losses[-1])
"""


def test_a_hand_written_update_gets_clipping_right_before_it(tmp_path):
    p = _patch(tmp_path, MANUAL_UPDATE, "exploding_gradients")
    assert p is not None
    assert "     loss.backward()\n+    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n" \
           "     for p in model.parameters():" in p["diff"]
    first, last = _run(tmp_path)
    assert not math.isfinite(last) or last > first           # the faulty script blows up
    _apply(tmp_path, p, "git")
    first, last = _run(tmp_path)
    assert math.isfinite(last) and last < first


OPT_LOOP = REGRESSION + """\
opt = torch.optim.SGD(model.parameters(), lr=lr)
{setting}losses = []
for _ in range(40):
    for i in range(0, 256, 32):
        opt.zero_grad()
        loss = ((model(X[i:i + 32]) - Y[i:i + 32]) ** 2).mean()
        loss.backward()
        {clip}
        opt.step()
        losses.append(loss.item())
print("LOSS", losses[0], losses[-1])
"""


@pytest.mark.parametrize("setting,clip,edited", ids=["infinite", "switched_off"], argvalues=[
    ("", 'norm = nn.utils.clip_grad_norm_(model.parameters(), float("inf"))  # read the norm only',
     '+        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # read the norm only'),
    ("clip_c = -1.\n", "if clip_c > 0: nn.utils.clip_grad_norm_(model.parameters(), clip_c)", "+clip_c = 1.0"),
])
def test_a_clipping_that_never_clips_is_given_a_norm(tmp_path, setting, clip, edited):
    text = OPT_LOOP.format(setting=setting, clip=clip)
    p = _patch(tmp_path, text, "exploding_gradients")
    assert p is not None and edited in p["diff"].splitlines(), p and p["diff"]
    first, last = _run(tmp_path)
    assert not math.isfinite(last) or last > first
    _apply(tmp_path, p)
    first, last = _run(tmp_path)
    assert math.isfinite(last) and last < first
    # a clipping at a real norm is left to the user
    text = OPT_LOOP.format(setting="", clip="nn.utils.clip_grad_norm_(model.parameters(), 5.0)")
    assert _patch(tmp_path, text, "exploding_gradients") is None


# ------------------------------------------------------------------ NaN in the inputs
# a few inputs are NaN (the square root of a negative value), and no statement writes them
NAN_DATA = HEAD + """\
Z = torch.randn(512, 10)
X = torch.sqrt(Z + 3.0)
Y = (Z @ torch.randn(10, 3)).argmax(1)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
"""

NAN_LOADER = NAN_DATA.replace("import torch.nn as nn\n", "import torch.nn as nn\n"
                              "from torch.utils.data import DataLoader, TensorDataset\n") + """\
losses = []
for epoch in range(10):
    for xb, yb in DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
print("LOSS", losses[0], sum(losses[-16:]) / 16)
"""

NAN_SLICES = NAN_DATA + """\
losses = []
for epoch in range(10):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        loss = nn.functional.cross_entropy(model(X[idx]), Y[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        val = model(X[:64])
print("LOSS", losses[0], sum(losses[-16:]) / 16)
"""


@pytest.mark.parametrize("text,added", ids=["loader", "slices"], argvalues=[
    (NAN_LOADER, "+        xb = torch.nan_to_num(xb, nan=0.0, posinf=0.0, neginf=0.0)"),
    (NAN_SLICES, "+        loss = nn.functional.cross_entropy(model(torch.nan_to_num(X[idx], nan=0.0, posinf=0.0, "
                 "neginf=0.0)), Y[idx])"),
])
def test_non_finite_inputs_no_statement_writes_are_zeroed_where_the_batch_is_made(tmp_path, text, added):
    """The general fix is a fallback: where the code reader located the statement writing NaN, that is the
    patch and the batches are not cleaned a second time; a script that cleans its inputs itself, or trains on
    forwards of different inputs, gets no such patch."""
    written = text.replace("X = torch.sqrt(Z + 3.0)\n", "X = Z.clone()\nX[::50, 3] = float('nan')\n")
    p = _patch(tmp_path, written, "nan_in_inputs")
    assert p is not None and "nan_to_num(" not in p["diff"] and "X[X != X] = 0.0" in p["diff"]
    cleaned = text.replace("X = torch.sqrt(Z + 3.0)", "X = torch.nan_to_num(torch.sqrt(Z + 3.0))")
    assert _patch(tmp_path, cleaned, "nan_in_inputs") is None
    two = text.replace("nn.functional.cross_entropy(model(xb), yb)", "nn.functional.cross_entropy(model(xb), yb) + "
                       "model(2 * xb).mean()").replace("nn.functional.cross_entropy(model(X[idx]), Y[idx])",
                                                       "nn.functional.cross_entropy(model(X[idx]), Y[idx]) + "
                                                       "model(2 * X[idx]).mean()")
    assert two != text and _patch(tmp_path, two, "nan_in_inputs") is None
    p = _patch(tmp_path, text, "nan_in_inputs")
    assert p is not None and added in p["diff"].splitlines(), p and p["diff"]
    assert not math.isfinite(_run(tmp_path)[1])         # before: the loss turns NaN
    _apply(tmp_path, p)
    first, last = _run(tmp_path)
    assert math.isfinite(last) and last < 0.5 * first


# ------------------------------------------------------------------ rows stored in label order
LABEL_ORDER = HEAD + """\
centres = 3 * torch.randn(4, 16)
X = torch.cat([centres[c] + torch.randn(300, 16) for c in range(4)])
y = torch.arange(4).repeat_interleave(300)
cut = int(0.75 * len(X))
X_train, y_train, X_val, y_val = X[:cut], y[:cut], X[cut:], y[cut:]
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(20):
    perm = torch.randperm(len(X_train))
    for i in range(0, len(perm), 32):
        b = perm[i:i + 32]
        opt.zero_grad()
        nn.functional.cross_entropy(model(X_train[b]), y_train[b]).backward()
        opt.step()
with torch.no_grad():
    print("ACC", (model(X_val).argmax(1) == y_val).float().mean().item())
"""


def test_rows_stored_by_class_are_mixed_before_the_cut_and_validation_accuracy_comes_back(tmp_path):
    p = _patch(tmp_path, LABEL_ORDER, "unshuffled_data")
    assert p is not None and "+order = torch.randperm(len(X)).tolist()\n+X, y = X[order], y[order]\n" in p["diff"]
    assert _run(tmp_path, "ACC")[0] < 0.5                # the held-out class was never seen
    _apply(tmp_path, p)
    assert _run(tmp_path, "ACC")[0] > 0.9


def test_a_list_of_files_is_reordered_with_its_labels(tmp_path):
    files = LABEL_ORDER.replace("X = torch.cat", "files = ['a%d' % i for i in range(600)] + ['b%d' % i for i in "
                                "range(600)]\nX = torch.cat").replace(
        "X_train, y_train, X_val, y_val = X[:cut], y[:cut], X[cut:], y[cut:]",
        "X_train, y_train, X_val, y_val = X[:cut], y[:cut], X[cut:], y[cut:]\ntrain_files = files[:cut]")
    p = _patch(tmp_path, files, "unshuffled_data")
    assert p is not None and "+X, y = X[order], y[order]\n" in p["diff"]
    # a value of unknown kind (here what a function returns) is never indexed by a guess
    unknown = LABEL_ORDER.replace("y = torch.arange(4).repeat_interleave(300)",
                                  "def labels():\n    return torch.arange(4).repeat_interleave(300)\ny = labels()")
    assert _patch(tmp_path, unknown, "unshuffled_data") is None


# ------------------------------------------------------------------ nn.Parameter(torch.randn(out, in))
PARAMETER_DRAWN = HEAD + """\
X = torch.randn(512, 64)
W = torch.randn(64, 4)
Y = (X @ W).argmax(1)


class Dense(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in))
        self.bias = nn.Parameter(torch.randn(n_out))

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)


model = nn.Sequential(Dense(64, 256), nn.ReLU(), Dense(256, 256), nn.ReLU(), Dense(256, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
losses = []
for epoch in range(15):
    for i in range(0, 512, 32):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[i:i + 32]), Y[i:i + 32])
        loss.backward()
        opt.step()
        losses.append(loss.item())
Xv = torch.randn(512, 64)
with torch.no_grad():
    print("LOSS", losses[0], nn.functional.cross_entropy(model(Xv), (Xv @ W).argmax(1)).item())
"""


def test_a_parameter_drawn_from_a_standard_normal_gets_the_default_start(tmp_path):
    """Weights of std 1 blow the logits up to hundreds: the held-out loss ends far above chance (ln 4); with
    PyTorch's default start it ends well under it."""
    p = _patch(tmp_path, PARAMETER_DRAWN, "bad_initialization")
    assert p is not None
    assert "+        self.weight = nn.Parameter(nn.init.kaiming_uniform_(torch.empty(n_out, n_in), a=5 ** 0.5))" \
        in p["diff"].splitlines()
    # a vector keeps its draw
    assert not [row for row in p["diff"].splitlines() if row[:1] in "+-" and "self.bias" in row]
    before = _run(tmp_path)[1]
    _apply(tmp_path, p)
    after = _run(tmp_path)[1]
    assert after < 0.5 * before and after < math.log(4), (before, after)
