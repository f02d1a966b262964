"""A fine-tune from pretrained weights at AdamW 2e-5 is not "learning rate too low".

The Hugging Face default fine-tune (AdamW, lr 2e-5, a few epochs) has an LR below the range for
training from scratch on purpose, and its losses are often still falling when the budget ends. Read
with its script and its console output, the same curve under a model built from scratch names the
learning rate (too low, the run had not converged); under ``from_pretrained`` / ``pretrained=True`` it
stays healthy. Torch-free: the script is read, never run, and loads nothing.
"""

import pytest
from conftest import diagnose_code_and_log, top_cause

_FINE_TUNE = '''
import torch
import torch.nn as nn
from transformers import AutoModelForSequenceClassification

model = {BUILD}
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
x_all = torch.randint(0, 1000, (4000, 64))
y_all = torch.randint(0, 2, (4000,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=32, shuffle=True)

for epoch in range(10):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb).logits, yb)
        loss.backward()
        opt.step()
'''

_PRETRAINED = [
    'AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)',
    'torch.hub.load("pytorch/vision", "resnet18", pretrained=True)',
]


def _still_falling_log(epochs=10):
    return "\n".join(f"epoch {e:2d} | train_loss {0.69 * 0.86 ** e + 0.05:.4f} | val_loss {0.70 * 0.87 ** e + 0.06:.4f}"
                     for e in range(1, epochs + 1))


@pytest.mark.parametrize("build", _PRETRAINED)
def test_a_fine_tune_at_2e5_still_improving_is_not_told_its_lr_is_too_low(tmp_path, build):
    rep = diagnose_code_and_log(tmp_path, _FINE_TUNE.replace("{BUILD}", build), _still_falling_log())
    assert not (rep["status"] == "diagnosed" and top_cause(rep) == "lr_too_low")
    assert rep["status"] == "healthy"


def test_the_same_model_built_from_scratch_is(tmp_path):
    build = "nn.Sequential(nn.Embedding(1000, 64), nn.Flatten(), nn.Linear(64 * 64, 2))"
    rep = diagnose_code_and_log(tmp_path, _FINE_TUNE.replace("{BUILD}", build).replace(".logits", ""),
                                _still_falling_log())
    assert rep["status"] == "diagnosed" and top_cause(rep) == "lr_too_low"
