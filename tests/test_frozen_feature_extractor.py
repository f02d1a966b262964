"""A frozen feature extractor outside the trained model is not "frozen parameters" (issue 12).

What a user would notice: the bottleneck-features recipe (a frozen convolutional base computes the
features once under ``no_grad``; a small head is trained on them) printed a loss stuck at ln K, and
traindx, read from the script and its console, named "frozen parameters" at 0.99. Nothing of the head,
the only model the loss trains, is frozen, and unfreezing the base would change nothing: its features
are data by the time training starts. The run's live probe sees the same (it watches the model the run
binds). A frozen encoder inside the trained path is still read as frozen.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id

CODE = '''
import torch, torch.nn as nn

base = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                     nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
for p in base.parameters():
    p.requires_grad = False
images, labels = torch.randn(800, 3, 16, 16), torch.randint(0, 4, (800,))
with torch.no_grad():
    features = base(images)
top = nn.Sequential(nn.Flatten(), nn.Linear(64 * 4 * 4, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 4))
optimizer = torch.optim.RMSprop(top.parameters(), lr=1e-3)
for epoch in range(1, 21):
    perm = torch.randperm(800)
    for b in range(0, 800, 16):
        idx = perm[b:b + 16]
        loss = nn.functional.cross_entropy(top(features[idx]), labels[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(f"Epoch {epoch}/20 - loss: {loss.item():.4f}")
'''

LOG = "".join(f"Epoch {e}/20 - loss: {1.3902 - 0.0002 * e + 0.0004 * (e % 3):.4f}\\n" for e in range(1, 21))


def test_a_head_trained_on_a_frozen_bases_features_is_not_told_its_parameters_are_frozen(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE, LOG)
    causes = {c["id"]: c["confidence"] for c in rep["root_causes"]}
    assert causes.get("frozen_parameters", 0) < 0.5, causes
    assert facts_by_id(rep)["frozen_params"]["value"] == []


def test_the_same_base_inside_the_trained_path_is_still_frozen(tmp_path):
    code = CODE.replace("with torch.no_grad():\n    features = base(images)\n", "features = images\n")
    code = code.replace("top(features[idx])", "top(base(features[idx]))")
    rep = diagnose_code_and_log(tmp_path, code, LOG)
    assert facts_by_id(rep)["frozen_params"]["value"] == ["base.parameters()"]
    assert rep["root_causes"][0]["id"] == "frozen_parameters"
