"""Finished runs whose log and script together name the mechanism: a gradient norm that overflows
before the loss, a plateau under heavy regularization, and a train/val accuracy gap measured on
batches a script sorts by label and never shuffles (torch-free: the code reader never runs the
script)."""
import textwrap

from conftest import diagnose_json


def test_a_gradient_norm_that_overflows_before_the_loss_is_an_exploding_gradient(tmp_path):
    """grad_norm 2608 -> inf while the loss is still finite, NaN from the next step on: the
    backward overflowed first, so the cause is the gradients, not NaN inputs."""
    rows = ["  [1,    1] loss: 63.3084  grad_norm: 2608.75",
            "  [1,    2] loss: 3805718431622234112.0000  grad_norm: inf"]
    rows += [f"  [1, {i:4d}] loss: nan  grad_norm: nan" for i in range(3, 60)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    rep = diagnose_json("--log", str(log))
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] == "exploding_gradients", [r["id"] for r in rep["root_causes"][:3]]
    fact = next(f for f in rep["facts"] if f["fact"] == "grad_norm_nonfinite_first")
    assert fact["value"] is True


def test_a_nan_loss_and_gradient_at_the_same_step_is_no_gradient_overflow(tmp_path):
    rows = [f"step {i} loss {2.0 - 0.01 * i:.4f} grad_norm {1.5:.3f}" for i in range(1, 30)]
    rows += [f"step {i} loss nan grad_norm nan" for i in range(30, 60)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    rep = diagnose_json("--log", str(log))
    fact = next(f for f in rep["facts"] if f["fact"] == "grad_norm_nonfinite_first")
    assert fact["value"] is False


DROPOUT_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    x, y = torch.randn(2000, 20), torch.randint(0, 5, (2000,))
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.9), nn.Linear(32, 5))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    for epoch in range(30):
        for i in range(0, 2000, 100):
            opt.zero_grad()
            crit(model(x[i:i + 100]), y[i:i + 100]).backward()
            opt.step()
    """)


def test_a_plateau_under_dropout_09_names_excessive_regularization(tmp_path):
    """A loss that fell a little and levelled off under dropout 0.9 and a held LR: the
    regularization sets the plateau."""
    import math
    rows = []
    for e in range(1, 31):
        loss = 0.9 + 0.3 * math.exp(-e / 3) + 0.004 * math.sin(e * 1.3)
        rows.append(f"epoch {e} loss {loss:.4f} lr 1.000e-03")
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    code = tmp_path / "train.py"
    code.write_text(DROPOUT_SCRIPT)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["symptom"]["id"] == "plateau", rep["symptom"]
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "excessive_regularization", [r["id"] for r in rep["root_causes"][:3]]


SORTED_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    x, y = torch.randn(3000, 20), torch.randint(0, 3, (3000,))
    order = torch.argsort(y)
    x, y = x[order], y[order]
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=False)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    for epoch in range(12):
        for xb, yb in loader:
            opt.zero_grad()
            crit(model(xb), yb).backward()
            opt.step()
    """)


def test_a_training_accuracy_on_label_sorted_unshuffled_batches_is_no_overfitting(tmp_path):
    """Training accuracy 0.92 against validation 0.81 when every batch holds one class: the
    training accuracy only says the model predicts the block's class; the cause is the order."""
    rows = []
    for e in range(1, 13):
        rows.append(f"epoch {e}: train_loss={1.9 - 0.075 * e:.4f} train_acc={0.80 + 0.01 * e:.4f} "
                    f"val_loss={1.7 - 0.075 * e:.4f} val_acc={0.49 + 0.027 * e:.4f}")
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    code = tmp_path / "train.py"
    code.write_text(SORTED_SCRIPT)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["symptom"]["id"] != "overfitting", rep["symptom"]
    assert rep["root_causes"][0]["id"] == "unshuffled_data", [r["id"] for r in rep["root_causes"][:3]]
