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


# - A hand-written network (numpy, or raw torch tensors) that draws every weight matrix itself at a
#   tiny scale (s * randn(fan_in, fan_out), s = 1e-3) and updates them itself: the signal and the
#   gradients vanish through the stack, and its flat loss is the initialisation's, not a small LR's.
HAND_WRITTEN = '''
import numpy as np

rng = np.random.default_rng(0)
x_all = rng.random((5000, 256)); y_all = rng.integers(0, 10, 5000)
init_std = {std}
dims = [256, 200, 100, 10]
Ws = [init_std * rng.standard_normal((i, o)) for i, o in zip(dims[:-1], dims[1:])]
bs = [np.zeros(o) for o in dims[1:]]
lr = 0.01
for it in range(3000):
    pick = rng.integers(0, 5000, 64)
    h = [x_all[pick]]
    for k in range(3):
        z = h[-1] @ Ws[k] + bs[k]
        h.append(np.maximum(z, 0) if k < 2 else z)
    p = np.exp(h[-1] - h[-1].max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    loss = -np.log(p[np.arange(64), y_all[pick]]).mean()
    g = p; g[np.arange(64), y_all[pick]] -= 1; g /= 64
    for k in (2, 1, 0):
        dW = h[k].T @ g; db = g.sum(0)
        if k:
            g = (g @ Ws[k].T) * (h[k] > 0)
        Ws[k] -= lr * dW; bs[k] -= lr * db
    if it % 100 == 0:
        print(f"iter {{it}} loss {{loss:.4f}}")
'''

TORCH_RAW = '''
import torch
x = torch.rand(2048, 64); y = torch.randint(0, 5, (2048,))
W1 = (torch.randn(64, 128) * {std}).requires_grad_()
W2 = (torch.randn(128, 128) * {std}).requires_grad_()
W3 = (torch.randn(128, 5) * {std}).requires_grad_()
opt = torch.optim.SGD([W1, W2, W3], lr=0.05)
for step in range(2000):
    out = torch.relu(torch.relu(x @ W1) @ W2) @ W3
    loss = torch.nn.functional.cross_entropy(out, y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 100 == 0:
        print(f"step {{step}} loss {{loss.item():.4f}}")
'''


def _flat_log(path, start):
    path.write_text("".join(f"iter {i * 100} loss {start + 0.003 * ((-1) ** i):.4f}\n" for i in range(30)))


@pytest.mark.parametrize("script,classes", [(HAND_WRITTEN, 10), (TORCH_RAW, 5)], ids=["numpy", "torch"])
def test_a_flat_run_of_a_stack_drawn_tiny_is_bad_initialization(tmp_path, script, classes):
    import math
    code = tmp_path / "train.py"
    code.write_text(script.format(std="1e-3"))
    log = tmp_path / "train.out"
    _flat_log(log, math.log(classes))
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["root_causes"][0]["id"] == "bad_initialization"


@pytest.mark.parametrize("script", [HAND_WRITTEN, TORCH_RAW], ids=["numpy", "torch"])
def test_a_stack_drawn_at_a_usual_scale_is_no_bad_initialization(tmp_path, script):
    code = tmp_path / "train.py"
    code.write_text(script.format(std="0.05"))
    rep = diagnose_json("--code", str(code))
    facts = {e["fact"] for c in rep["root_causes"] for e in c["evidence"]}
    assert "init_stack_std" not in facts


# - Labels written as one-label lists added end to end (``[0] * n + [1] * m``, a file list collected
#   folder by folder) and cut by a count from the front and a count from the back (``[:k]`` /
#   ``[-k:]``): the same label-order split, the two ends hold different classes. A shift by one
#   (``[:-1]`` / ``[1:]``, next-step targets) is no such cut.
FOLDER_CUT = '''
import numpy as np
import torch, torch.nn as nn

files = ["cats/%03d.png" % i for i in range(60)] + ["dogs/%03d.png" % i for i in range(60)]
labels = np.array([0] * 60 + [1] * 60)
pixels = {{f: np.random.rand(32).astype(np.float32) + l for f, l in zip(files, labels)}}
{cut}
net = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
x_tr = torch.tensor(np.stack([pixels[f] for f in tr_files])); y_tr = torch.tensor(tr_y)
x_va = torch.tensor(np.stack([pixels[f] for f in va_files])); y_va = torch.tensor(va_y)
for epoch in range(20):
    loss = nn.functional.cross_entropy(net(x_tr), y_tr)
    opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        va_loss = nn.functional.cross_entropy(net(x_va), y_va).item()
    print(f"epoch {{epoch}} train_loss {{loss.item():.4f}} val_loss {{va_loss:.4f}}")
'''


def test_a_folder_by_folder_list_cut_at_both_ends_is_read_as_unshuffled_data(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(FOLDER_CUT.format(cut="tr_files, tr_y = files[:80], labels[:80]\n"
                                            "va_files, va_y = files[-40:], labels[-40:]"))
    rep = diagnose_json("--code", str(script))
    assert rep["root_causes"][0]["id"] == "unshuffled_data"
    assert rep["symptom"]["id"] == "overfitting"


def test_a_shift_by_one_is_no_label_order_cut(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(FOLDER_CUT.format(cut="tr_files, tr_y = files[:-1], labels[:-1]\n"
                                            "va_files, va_y = files[1:], labels[1:]"))
    rep = diagnose_json("--code", str(script))
    facts = {e["fact"] for c in rep["root_causes"] for e in c["evidence"]}
    assert "split_in_label_order" not in facts


# - A GradScaler's scaled backward followed by a gradient clip with no scaler.unscale_(optimizer)
#   between them: the clip measures the gradients times the scale (65536 to start), so a usual max_norm
#   cuts every true update to almost nothing. Read from the code alone; with unscale_ first it is the
#   usual recipe.
AMP_CLIP = '''
import torch, torch.nn as nn
x = torch.randn(4096, 20); y = (x[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler({kw})
for epoch in range(5):
    for i in range(0, 4096, 128):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x[i:i + 128]), y[i:i + 128])
        scaler.scale(loss).backward()
{unscale}        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        scaler.step(opt)
        scaler.update()
    print(f"epoch {{epoch}} loss {{loss.item():.4f}}")
'''


@pytest.mark.parametrize("kw", ["", "init_scale=2.0**14"])
def test_clipping_gradients_still_scaled_is_read_as_over_clipping(tmp_path, kw):
    script = tmp_path / "train.py"
    script.write_text(AMP_CLIP.format(kw=kw, unscale=""))
    rep = diagnose_json("--code", str(script))
    assert rep["root_causes"][0]["id"] == "over_clipping"


def test_clipping_after_unscale_is_no_over_clipping(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(AMP_CLIP.format(kw="", unscale="        scaler.unscale_(opt)\n"))
    rep = diagnose_json("--code", str(script))
    facts = {e["fact"] for c in rep["root_causes"] for e in c["evidence"]}
    assert "clip_on_scaled_gradients" not in facts


def test_a_scale_written_as_arithmetic_with_no_finite_answer_is_left_unknown(tmp_path):
    """``init_scale=1e300 ** 2`` overflows: the reader reads the clip and says no scale, never a traceback."""
    from traindx.probes.readers.code import analyze_code
    script = tmp_path / "train.py"
    script.write_text(AMP_CLIP.format(kw="init_scale=1e300 ** 2", unscale=""))
    facts = {f.fact: f.value for f in analyze_code(str(script)).findings}
    assert "grad_scale" not in facts and "clip_max_norm" in facts, facts
    script.write_text(AMP_CLIP.format(kw="init_scale=1 / 2 ** -14", unscale=""))
    facts = {f.fact: f.value for f in analyze_code(str(script)).findings}
    assert facts.get("grad_scale") == 16384.0, facts
