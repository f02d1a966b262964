"""Finished runs read from their console log and script together (session 50, issue 13): a blown-up
first epoch that collapses to the chance loss is the LR's, not an oversized initialisation's; a label
tensor sorted together with a Python list of documents keeps its rows paired; and sorted rows fed in
order whose training accuracy reads high while validation never leaves chance are named unshuffled."""

import json
import math

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _diagnose(tmp_path, log: str, script: str) -> dict:
    (tmp_path / "console.log").write_text(log, encoding="utf-8")
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    args = ["diagnose", "--code", str(tmp_path / "train.py"), "--log", str(tmp_path / "console.log"),
            "--non-interactive", "--format", "json"]
    out = CliRunner().invoke(main, args).output
    return json.loads(out[out.index("{"):])


_ADAM_SCRIPT = '''import torch
import torch.nn as nn

N_CLASSES = 5
LR = 0.05
x = torch.randn(1500, 3, 32, 32)
y = torch.randint(0, N_CLASSES, (1500,))
x = (x - x.mean()) / x.std()
model = nn.Sequential(nn.Conv2d(3, 24, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(24 * 16 * 16, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, N_CLASSES))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=50, shuffle=True)
for epoch in range(10):
    model.train()
    run_loss, correct, seen = 0.0, 0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        seen += len(yb)
    print(f"Epoch [{epoch}] train loss {run_loss / seen:.4f} Acc@1 {100 * correct / seen:.3f}")
'''


def _blown_up_log(first: float, rest: list) -> str:
    lines = ["=> creating model (284.8K params), 1500 train images, 5 classes"]
    for e, loss in enumerate([first] + rest):
        lines.append(f"Epoch [{e}] train loss {loss:.4f} Acc@1 {19.0 + (e % 3) * 0.7:.3f}")
    return "\n".join(lines) + "\n"


def test_a_blown_up_first_epoch_that_collapses_to_chance_names_the_adam_lr(tmp_path):
    chance = math.log(5)
    rest = [1.840, 1.637, 1.618, 1.615, 1.613, 1.611, 1.612, 1.614, 1.613]
    assert abs(rest[-1] - chance) < 0.01
    report = _diagnose(tmp_path, _blown_up_log(1509.03, rest), _ADAM_SCRIPT)
    assert report["status"] == "diagnosed"
    assert report["root_causes"][0]["id"] == "lr_too_high"
    assert all(c["id"] != "bad_initialization" or c["confidence"] < 0.1 for c in report["root_causes"])


_SORTED_SCRIPT = '''import torch
import torch.nn as nn

N_CLASSES = 4
LR = 5.0


def make_split(n, gen):
    labels = torch.randint(0, N_CLASSES, (n,), generator=gen)
    docs = [torch.randint(0, 500, (12,), generator=gen) + 100 * int(c) for c in labels]
    return docs, labels


train_docs, train_labels = make_split(6000, torch.Generator().manual_seed(1))
valid_docs, valid_labels = make_split(1000, torch.Generator().manual_seed(2))
order = torch.argsort(train_labels, stable=True)
train_docs, train_labels = [train_docs[i] for i in order], train_labels[order]
model = nn.EmbeddingBag(900, N_CLASSES)
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()
for epoch in range(8):
    for start in range(0, len(train_docs), 64):
        docs = train_docs[start:start + 64]
        offsets = torch.arange(0, 12 * len(docs), 12)
        optimizer.zero_grad()
        out = model(torch.cat(docs), offsets)
        loss = criterion(out, train_labels[start:start + 64])
        loss.backward()
        optimizer.step()
        if (start // 64 + 1) % 25 == 0:
            acc = (out.argmax(1) == train_labels[start:start + 64]).float().mean().item()
            print(f"epoch {epoch + 1} batch {start // 64 + 1} loss {loss.item():.4f} accuracy {acc:.4f}")
    with torch.no_grad():
        offsets = torch.arange(0, 12 * len(valid_docs), 12)
        vout = model(torch.cat(valid_docs), offsets)
        vloss = criterion(vout, valid_labels).item()
        vacc = (vout.argmax(1) == valid_labels).float().mean().item()
    print(f"epoch {epoch + 1} valid_loss {vloss:.4f} valid_accuracy {vacc:.4f}")
'''


def _sorted_log() -> str:
    lines = []
    for e in range(1, 9):
        for b, (loss, acc) in enumerate([(0.29, 0.93), (0.50, 0.88), (0.35, 0.91)], start=1):
            lines.append(f"epoch {e} batch {25 * b} loss {loss + 0.06 * e:.4f} accuracy {acc - 0.02 * e:.4f}")
        lines.append(f"epoch {e} valid_loss {4.76 - 0.13 * e:.4f} valid_accuracy 0.2420")
    return "\n".join(lines) + "\n"


def test_sorted_documents_fed_in_order_with_validation_at_chance_name_the_order(tmp_path):
    report = _diagnose(tmp_path, _sorted_log(), _SORTED_SCRIPT)
    facts = {f["fact"]: f["value"] for f in report["facts"]}
    assert facts.get("data_sorted") is True
    assert "permuted_alone" not in facts          # the list of documents moved with its labels
    assert report["status"] == "diagnosed"
    assert report["root_causes"][0]["id"] == "unshuffled_data"
