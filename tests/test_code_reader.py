"""The code reader (traindx.probes.readers.code): facts read from a training script without running it.

Every script here is a small but complete training program written the way people write them
(module-level loops, helper functions, model classes, aliases, trainer classes). The runnable
ones are also executed with real torch (see test_scripts_really_train) so what is analysed is
valid, working code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.code import CodeReport, analyze_code


def write(tmp_path, source: str, name: str = "train.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return p


def read(tmp_path, source: str, name: str = "train.py") -> CodeReport:
    return analyze_code(write(tmp_path, source, name))


def line(source: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line of ``source`` (as written to disk) containing ``needle``."""
    seen = 0
    for i, text in enumerate(textwrap.dedent(source).lstrip("\n").splitlines(), 1):
        if needle in text:
            seen += 1
            if seen == nth:
                return i
    raise AssertionError(f"{needle!r} not in source")


def fact(rep: CodeReport, name: str):
    f = rep.get(name)
    assert f is not None, f"{name} not found; have {rep.facts()}; unresolved {rep.unresolved}"
    return f


def at(rep: CodeReport, name: str, source: str, needle: str, nth: int = 1):
    """The finding for ``name``, asserting it cites the line holding ``needle``."""
    f = fact(rep, name)
    want = line(source, needle, nth)
    assert f.source == f"code:{os.path.basename(rep.path)}:{want}", \
        f"{name}: {f.source} ({f.detail}) is not line {want}"
    return f


# ---------------------------------------------------------------------------------------------
# Realistic scripts. RUNNABLE ones are also executed with torch in test_scripts_really_train.
# ---------------------------------------------------------------------------------------------

PLAIN_LOOP = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(256, 20)
y = (X[:, :4].sum(dim=1) > 0).long()
train_loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True, num_workers=0)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(64, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)

for epoch in range(2):
    running = 0.0
    for inputs, targets in train_loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: {running / len(train_loader):.4f}")
"""

# a model class whose forward ends in softmax, trained by a helper called from main(),
# with argparse defaults, an evaluate() helper that forgets model.eval()
HELPERS_DOUBLE_SOFTMAX = """
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, n_in=16, n_classes=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 32)
        self.fc2 = nn.Linear(32, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)


def train_one_epoch(model, loader, opt, crit):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()


def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(dim=1) == yb).sum().item()
    return correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args([])
    X = torch.randn(120, 16)
    y = torch.randint(0, 3, (120,))
    train_dl = DataLoader(TensorDataset(X, y), batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(TensorDataset(X, y), batch_size=60)
    model = Classifier()
    crit = nn.CrossEntropyLoss()
    opt = optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(model, train_dl, opt, crit)
        print(epoch, evaluate(model, val_dl))


if __name__ == "__main__":
    main()
"""

LOG_SOFTMAX_NLL = """
import torch
from torch import nn, optim

torch.manual_seed(1)
X = torch.randn(200, 10)
Y = (X[:, 0] > 0).long()

model = nn.Sequential(
    nn.Linear(10, 32),
    nn.BatchNorm1d(32),
    nn.ReLU(),
    nn.Linear(32, 2),
    nn.LogSoftmax(dim=1),
)
criterion = nn.NLLLoss()
optimizer = optim.Adam(model.parameters())
BATCH = 20

for epoch in range(3):
    perm = torch.randperm(len(X))
    model.train()
    for i in range(0, len(X), BATCH):
        idx = perm[i:i + BATCH]
        optimizer.zero_grad()
        loss = criterion(model(X[idx]), Y[idx])
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X), Y).item()
"""

# gradient accumulation, clipping, a per-epoch StepLR stepped per optimizer step, AMP without
# a scaler, and an eval pass that is never undone by model.train()
ACCUMULATION = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

ACCUM_STEPS = 4
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
loader = DataLoader(data, batch_size=4)
val_loader = DataLoader(data, batch_size=32)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Dropout(0.1), nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
sched = StepLR(opt, step_size=10, gamma=0.5)
mse = nn.MSELoss()

for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            loss = mse(model(x), y) / ACCUM_STEPS
        loss.backward()
        if (i + 1) % ACCUM_STEPS == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            opt.zero_grad()
            sched.step()
    model.eval()
    with torch.no_grad():
        val = sum(mse(model(x), y).item() for x, y in val_loader)
"""

# no zero_grad at all; a hand-written BCE with log(p) and no eps; layers kept in a plain list;
# a zero-initialised head
CUSTOM_LOSS_PLAIN_LIST = """
import torch
import torch.nn as nn


class DeepNet(nn.Module):
    def __init__(self, width=8, depth=3):
        super().__init__()
        self.blocks = [nn.Linear(width, width) for _ in range(depth)]
        self.head = nn.Linear(width, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return torch.sigmoid(self.head(x))


def bce(p, y):
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()


model = DeepNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 8)
y = (x.sum(dim=1, keepdim=True) > 0).float()
for step in range(5):
    p = model(x)
    loss = bce(p, y)
    loss.backward()
    optimizer.step()
"""

# a Trainer class; the graph is cut by a numpy round-trip; the optimizer holds another model
TRAINER_GRAPH_CUT = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.RMSprop(self.model.parameters(), lr=lr)
        self.loss_fn = nn.MSELoss()

    def train_step(self, x, y):
        pred = self.model(x)
        pred = torch.tensor(pred.detach().numpy(), requires_grad=True)
        loss = self.loss_fn(pred, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for x, y in batches:
                self.train_step(x, y)


net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
backup = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
trainer = Trainer(backup)
trainer.model = net
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
trainer.fit(batches)
"""

# knowledge distillation: the teacher runs under no_grad (not a graph cut: it is not trained);
# p.grad = None instead of zero_grad(); LambdaLR warmup per step; sampler; early stopping
DISTILLATION = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(), nn.Linear(16, 4))

    def forward(self, x):
        return self.body(x)


teacher, student = Net(), Net()
ds = TensorDataset(torch.randn(96, 8), torch.randint(0, 4, (96,)))
train_loader = DataLoader(ds, batch_size=16, sampler=RandomSampler(ds), num_workers=0)
val_loader = DataLoader(ds, batch_size=48)
opt = torch.optim.Adam(student.parameters(), lr=5e-4)
warmup_steps = 50
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / warmup_steps))
best, patience, bad_epochs = float("inf"), 2, 0
for epoch in range(4):
    student.train()
    for x, y in train_loader:
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        loss = F.kl_div(F.log_softmax(s_logits, dim=1), F.softmax(t_logits, dim=1),
                        reduction="batchmean")
        for p in student.parameters():
            p.grad = None
        loss.backward()
        opt.step()
        sched.step()
    student.eval()
    with torch.no_grad():
        val = sum(F.cross_entropy(student(x), y).item() for x, y in val_loader)
    if val < best:
        best, bad_epochs = val, 0
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            break
"""

# the classic "for phase in ['train', 'val']" loop with set_grad_enabled; the optimizer is
# built before the model is re-created
PHASES = """
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))  # "fresh start"
batch = (torch.randn(4, 4), torch.randint(0, 2, (4,)))
dataloaders = {"train": [batch, batch], "val": [batch]}
criterion = nn.CrossEntropyLoss()
for epoch in range(2):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        for inputs, labels in dataloaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model(inputs)
                loss = criterion(outputs, labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
"""

RUNNABLE = {
    "plain_loop.py": PLAIN_LOOP,
    "helpers_double_softmax.py": HELPERS_DOUBLE_SOFTMAX,
    "log_softmax_nll.py": LOG_SOFTMAX_NLL,
    "accumulation.py": ACCUMULATION,
    "custom_loss_plain_list.py": CUSTOM_LOSS_PLAIN_LIST,
    "trainer_graph_cut.py": TRAINER_GRAPH_CUT,
    "distillation.py": DISTILLATION,
    "phases.py": PHASES,
}


# ---------------------------------------------------------------------------------------------
# optimizer
# ---------------------------------------------------------------------------------------------

def test_plain_loop_reads_optimizer_loss_and_loader_with_lines(tmp_path):
    rep = read(tmp_path, PLAIN_LOOP)
    assert at(rep, "optimizer", PLAIN_LOOP, "torch.optim.SGD").value == "sgd"
    assert at(rep, "learning_rate", PLAIN_LOOP, "torch.optim.SGD").value == 0.05
    assert at(rep, "weight_decay", PLAIN_LOOP, "torch.optim.SGD").value == 5e-4
    assert at(rep, "loss_function", PLAIN_LOOP, "nn.CrossEntropyLoss()").value == "cross_entropy"
    assert fact(rep, "custom_loss").value is False
    assert fact(rep, "output_activation").value == "none"
    assert at(rep, "zero_grad_called", PLAIN_LOOP, "optimizer.zero_grad()").value is True
    assert at(rep, "shuffle", PLAIN_LOOP, "train_loader = DataLoader").value is True
    assert at(rep, "batch_size", PLAIN_LOOP, "train_loader = DataLoader").value == 32
    assert fact(rep, "num_workers").value == 0
    assert at(rep, "dropout_p", PLAIN_LOOP, "nn.Dropout(p=0.2)").value == 0.2
    assert fact(rep, "graph_cut").value is False
    assert fact(rep, "params_not_in_optimizer").value == []
    assert set(fact(rep, "regularization").value) == {"dropout", "weight_decay"}
    assert fact(rep, "uses_amp").value is False
    assert fact(rep, "frozen_params").value == []
    assert fact(rep, "init_constant").value is False
    # the detail quotes what was seen
    assert "lr=0.05" in fact(rep, "learning_rate").detail
    assert rep.unresolved == []


@pytest.mark.parametrize("call, kind, lr, wd", [
    ("optim.Adam(model.parameters())", "adam", 1e-3, 0.0),
    ("optim.AdamW(model.parameters())", "adamw", 1e-3, 0.01),
    ("optim.RMSprop(model.parameters(), 0.002)", "rmsprop", 0.002, 0.0),
    ("optim.SGD(model.parameters(), 0.3, momentum=0.9)", "sgd", 0.3, 0.0),
    ("Adagrad(params=model.parameters(), lr=LR, weight_decay=WD)", "adagrad", 0.04, 1e-5),
])
def test_optimizer_class_lr_positional_keyword_and_defaults(tmp_path, call, kind, lr, wd):
    src = f"""
    import torch.nn as nn
    from torch import optim
    from torch.optim import Adagrad

    LR = 0.04
    WD = 1e-5
    model = nn.Linear(3, 1)
    opt = {call}
    """
    rep = read(tmp_path, src)
    assert fact(rep, "optimizer").value == kind
    assert fact(rep, "learning_rate").value == pytest.approx(lr)
    assert fact(rep, "weight_decay").value == pytest.approx(wd)
    if "lr" not in call and "0." not in call:
        assert "default" in fact(rep, "learning_rate").detail


def test_sgd_without_lr_reports_the_torch_default_and_says_so(tmp_path):
    rep = read(tmp_path, """
    import torch
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), momentum=0.9)
    """)
    f = fact(rep, "learning_rate")
    assert f.value == pytest.approx(1e-3)
    assert "default" in f.detail and "older torch" in f.detail


def test_learning_rate_from_argparse_default(tmp_path):
    rep = read(tmp_path, HELPERS_DOUBLE_SOFTMAX)
    f = at(rep, "learning_rate", HELPERS_DOUBLE_SOFTMAX, "optim.Adam(")
    assert f.value == 0.01
    assert "--lr" in f.detail
    assert at(rep, "batch_size", HELPERS_DOUBLE_SOFTMAX, "train_dl = DataLoader").value == 16


def test_learning_rate_from_a_config_file_next_to_the_script(tmp_path):
    (tmp_path / "config.yaml").write_text("optim:\n  lr: 0.003\n")
    src = """
    import yaml
    import torch

    cfg = yaml.safe_load(open("config.yaml"))
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    """
    rep = read(tmp_path, src)
    assert rep.config_paths == ["config.yaml"]
    f = fact(rep, "learning_rate")
    assert f.value == 0.003 and "config.yaml" in f.detail


def test_learning_rate_from_an_absent_config_is_unresolved_not_guessed(tmp_path):
    rep = read(tmp_path, """
    import json, torch
    with open("settings.json") as fh:
        cfg = json.load(fh)
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    """)
    assert rep.get("learning_rate") is None
    assert rep.config_paths == ["settings.json"]
    assert any("settings.json" in u for u in rep.unresolved)
    assert any("learning rate" in u for u in rep.unresolved)


# ---------------------------------------------------------------------------------------------
# parameters the optimizer never sees
# ---------------------------------------------------------------------------------------------

def test_layers_in_a_plain_list_are_params_not_in_optimizer(tmp_path):
    rep = read(tmp_path, CUSTOM_LOSS_PLAIN_LIST)
    f = at(rep, "params_not_in_optimizer", CUSTOM_LOSS_PLAIN_LIST, "self.blocks = [")
    assert len(f.value) == 1 and "plain list: self.blocks" in f.value[0]


def test_module_list_and_sequential_built_from_a_list_are_fine(tmp_path):
    rep = read(tmp_path, """
    import torch.nn as nn
    import torch


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            layers = [nn.Linear(4, 4), nn.ReLU()]
            self.stem = nn.Sequential(*layers)
            self.sizes = [4, 4, 2]

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.stem(x)


    model = Net()
    opt = torch.optim.Adam(model.parameters())
    x = torch.randn(2, 4)
    for _ in range(2):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    """)
    assert fact(rep, "params_not_in_optimizer").value == []


def test_plain_dict_of_layers_in_an_unused_class_is_still_reported(tmp_path):
    src = """
    import torch.nn as nn


    class Heads(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = {"age": nn.Linear(8, 1), "sex": nn.Linear(8, 2)}

        def forward(self, x):
            return {k: h(x) for k, h in self.heads.items()}
    """
    rep = read(tmp_path, src)
    f = at(rep, "params_not_in_optimizer", src, "self.heads = {")
    assert "plain dict: self.heads" in f.value[0]


def test_optimizer_over_another_instance(tmp_path):
    rep = read(tmp_path, PHASES)
    f = at(rep, "params_not_in_optimizer", PHASES, "optimizer = torch.optim.SGD")
    assert "another instance" in f.value[0]
    rep = read(tmp_path, TRAINER_GRAPH_CUT)
    assert "another instance" in fact(rep, "params_not_in_optimizer").value[0]


def test_optimizer_over_a_subset_while_the_whole_model_trains(tmp_path):
    src = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Linear(6, 6), nn.ReLU())
            self.fc = nn.Linear(6, 2)

        def forward(self, x):
            return self.fc(self.features(x))


    model = Net()
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
    x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "params_not_in_optimizer", src, "optimizer = torch.optim.SGD")
    assert f.value and "model.features" in f.value[0]


def test_subset_with_the_rest_frozen_is_deliberate_fine_tuning(tmp_path):
    src = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(6, 6), nn.ReLU())
            self.fc = nn.Linear(6, 2)

        def forward(self, x):
            return self.fc(self.backbone(x))


    model = Net()
    for name, p in model.named_parameters():
        if not name.startswith("fc"):
            p.requires_grad = False
    model.backbone.requires_grad_(False)
    optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
    x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    """
    rep = read(tmp_path, src)
    assert rep.get("params_not_in_optimizer") is None or \
        rep.get("params_not_in_optimizer").value == []
    f = at(rep, "frozen_params", src, "p.requires_grad = False")
    assert f.value == ["model.named_parameters() (if not name.startswith('fc'))",
                       "model.backbone"]


def test_head_replaced_after_the_optimizer_was_built(tmp_path):
    src = """
    import torch
    from torch import nn

    model = nn.Sequential(nn.Linear(10, 10), nn.ReLU())
    model.head = nn.Linear(10, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.head = nn.Linear(10, 5)
    x, y = torch.randn(4, 10), torch.randint(0, 5, (4,))
    for _ in range(2):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model.head(model(x)), y)
        loss.backward()
        optimizer.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "params_not_in_optimizer", src, "model.head = nn.Linear(10, 5)")
    assert "replaced at line" in f.value[0]


def test_param_groups_cover_the_model_but_an_optimizer_never_stepped_covers_nothing(tmp_path):
    src = """
    import itertools
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.base = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
            self.classifier = nn.Linear(8, 2)

        def forward(self, x):
            return self.classifier(self.base(x))


    model = Net()
    extra = nn.Linear(2, 2)
    opt = torch.optim.SGD([{"params": model.base.parameters()},
                           {"params": model.classifier.parameters(), "lr": 1e-3}],
                          lr=1e-2, momentum=0.9)
    unused = torch.optim.Adam(itertools.chain(model.parameters(), extra.parameters()))
    for _ in range(2):
        opt.zero_grad()
        loss = nn.functional.mse_loss(extra(model(torch.randn(3, 4))), torch.zeros(3, 2))
        loss.backward()
        opt.step()
    """
    rep = read(tmp_path, src)
    assert fact(rep, "learning_rate").value == 1e-2
    assert any("parameter groups" in n for n in rep.notes)
    f = fact(rep, "params_not_in_optimizer")
    assert len(f.value) == 1 and f.value[0].startswith("extra")
    assert "no optimizer that steps" in f.value[0]


# ---------------------------------------------------------------------------------------------
# loss and what feeds it
# ---------------------------------------------------------------------------------------------

def test_softmax_in_forward_before_cross_entropy_is_reported_with_both_lines(tmp_path):
    rep = read(tmp_path, HELPERS_DOUBLE_SOFTMAX)
    f = at(rep, "output_activation", HELPERS_DOUBLE_SOFTMAX, "return F.softmax")
    assert f.value == "softmax"
    assert "F.softmax(self.fc2(x), dim=1)" in f.detail and "nn.CrossEntropyLoss" in f.detail
    assert fact(rep, "loss_function").value == "cross_entropy"


def test_softmax_layer_at_the_end_of_sequential_and_in_the_loop(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    for _ in range(3):
        opt.zero_grad()
        crit(model(x), y).backward()
        opt.step()
    """
    rep = read(tmp_path, src)
    f = fact(rep, "output_activation")
    assert f.value == "softmax" and "nn.Softmax(dim=1)" in f.detail
    assert at(rep, "label_smoothing", src, "crit = nn.CrossEntropyLoss").value == 0.1
    assert "label_smoothing" in fact(rep, "regularization").value

    loop_src = """
    import torch
    import torch.nn.functional as F

    model = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    for _ in range(3):
        probs = F.softmax(model(x), dim=-1)
        loss = F.cross_entropy(probs, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    rep = read(tmp_path, loop_src)
    assert at(rep, "output_activation", loop_src, "probs = F.softmax").value == "softmax"
    assert fact(rep, "label_smoothing").value == 0.0


def test_log_softmax_with_nll_is_reported_as_such_not_as_double_softmax(tmp_path):
    rep = read(tmp_path, LOG_SOFTMAX_NLL)
    assert at(rep, "output_activation", LOG_SOFTMAX_NLL, "nn.LogSoftmax").value == "log_softmax"
    assert at(rep, "loss_function", LOG_SOFTMAX_NLL, "nn.NLLLoss()").value == "nll"
    assert fact(rep, "custom_loss").value is False
    assert fact(rep, "unsafe_math").value == []


def test_sigmoid_before_bce_with_logits(tmp_path):
    src = """
    import torch
    import torch.nn as nn


    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(12, 6)

        def forward(self, x):
            return torch.sigmoid(self.out(x))


    model = Tagger()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(16, 12), (torch.rand(16, 6) > 0.5).float()
    for _ in range(3):
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    """
    rep = read(tmp_path, src)
    assert at(rep, "output_activation", src, "return torch.sigmoid").value == "sigmoid"
    assert fact(rep, "loss_function").value == "bce_with_logits"


def test_hand_written_loss_with_log_and_no_eps(tmp_path):
    rep = read(tmp_path, CUSTOM_LOSS_PLAIN_LIST)
    assert at(rep, "custom_loss", CUSTOM_LOSS_PLAIN_LIST, "loss = bce(p, y)").value is True
    assert fact(rep, "loss_function").value == "custom"
    f = at(rep, "unsafe_math", CUSTOM_LOSS_PLAIN_LIST, "torch.log(p)")
    assert f.value == ["log_without_eps"]
    assert "torch.log(p)" in f.detail
    assert fact(rep, "output_activation").value == "sigmoid"


def test_guarded_log_is_safe(tmp_path):
    rep = read(tmp_path, """
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Sigmoid())
    opt = torch.optim.Adam(model.parameters())
    eps = 1e-7
    x, y = torch.randn(8, 4), torch.rand(8, 1).round()
    for _ in range(3):
        p = model(x).clamp(eps, 1 - eps)
        loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p + eps)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """)
    assert fact(rep, "custom_loss").value is True
    assert fact(rep, "unsafe_math").value == []


def test_unsafe_exp_division_and_sqrt_in_a_loss_module(tmp_path):
    src = """
    import torch
    import torch.nn as nn


    class ContrastiveLoss(nn.Module):
        def forward(self, a, b):
            a = a / a.norm(dim=1, keepdim=True)
            dist = torch.sqrt(((a - b) ** 2).sum(dim=1))
            return torch.exp(dist).mean()


    encoder = nn.Linear(6, 4)
    loss_fn = ContrastiveLoss()
    opt = torch.optim.SGD(encoder.parameters(), lr=0.01)
    x1, x2 = torch.randn(8, 6), torch.randn(8, 6)
    for _ in range(2):
        loss = loss_fn(encoder(x1), encoder(x2))
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    rep = read(tmp_path, src)
    assert set(fact(rep, "unsafe_math").value) == {"division_without_eps", "sqrt_of_zero",
                                                   "exp_overflow"}
    assert fact(rep, "custom_loss").value is True
    assert "ContrastiveLoss" in fact(rep, "loss_function").detail


def test_focal_loss_built_on_cross_entropy_is_custom_but_a_thin_wrapper_is_not(tmp_path):
    focal = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class FocalLoss(nn.Module):
        def __init__(self, gamma=2.0):
            super().__init__()
            self.gamma = gamma

        def forward(self, logits, target):
            ce = F.cross_entropy(logits, target, reduction="none")
            pt = torch.exp(-ce)
            return ((1 - pt) ** self.gamma * ce).mean()


    model = nn.Linear(5, 3)
    criterion = FocalLoss()
    opt = torch.optim.Adam(model.parameters())
    x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
    for _ in range(2):
        opt.zero_grad()
        criterion(model(x), y).backward()
        opt.step()
    """
    rep = read(tmp_path, focal)
    assert fact(rep, "custom_loss").value is True
    assert fact(rep, "loss_function").value == "custom"

    wrapper = """
    import torch
    import torch.nn.functional as F


    def compute_loss(model, x, y):
        return F.cross_entropy(model(x), y)


    model = torch.nn.Linear(5, 3)
    opt = torch.optim.Adam(model.parameters())
    x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
    for _ in range(2):
        opt.zero_grad()
        compute_loss(model, x, y).backward()
        opt.step()
    """
    rep = read(tmp_path, wrapper)
    assert fact(rep, "custom_loss").value is False
    assert at(rep, "loss_function", wrapper, "return F.cross_entropy").value == "cross_entropy"


def test_loss_computed_inside_an_external_model_is_unresolved(tmp_path):
    rep = read(tmp_path, """
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased")
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    for batch in train_loader:
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    """)
    assert rep.get("loss_function") is None
    assert any("inside the model" in u for u in rep.unresolved)
    assert fact(rep, "optimizer").value == "adamw"
    assert fact(rep, "learning_rate").value == 5e-5
    assert fact(rep, "zero_grad_called").value is True
    # regularization inside a pretrained model is not visible: no claim of "none"
    assert fact(rep, "regularization").value == ["weight_decay"]


# ---------------------------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------------------------

def test_missing_zero_grad(tmp_path):
    rep = read(tmp_path, CUSTOM_LOSS_PLAIN_LIST)
    f = at(rep, "zero_grad_called", CUSTOM_LOSS_PLAIN_LIST, "for step in range(5)")
    assert f.value is False
    assert "no zero_grad()" in f.detail


def test_gradient_accumulation_counts_as_zeroing(tmp_path):
    rep = read(tmp_path, ACCUMULATION)
    assert at(rep, "zero_grad_called", ACCUMULATION, "opt.zero_grad()").value is True
    assert rep.get("grads_all_zero") is None
    assert at(rep, "clip_max_norm", ACCUMULATION, "clip_grad_norm_").value == 0.5


def test_zero_grad_once_per_epoch_is_not_zeroing_per_step(tmp_path):
    src = """
    import torch

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
    for epoch in range(3):
        opt.zero_grad()
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "zero_grad_called", src, "for x, y in batches")
    assert f.value is False and "outside the loop" in f.detail


def test_grad_set_to_none_and_zero_grad_between_backward_and_step(tmp_path):
    rep = read(tmp_path, DISTILLATION)
    assert at(rep, "zero_grad_called", DISTILLATION, "p.grad = None").value is True

    src = """
    import torch

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(10):
        x, y = torch.randn(4, 3), torch.randn(4, 1)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.zero_grad()
        opt.step()
    """
    rep = read(tmp_path, src)
    assert fact(rep, "zero_grad_called").value is True
    f = at(rep, "grads_all_zero", src, "opt.step()")
    assert f.value is True and "opt.zero_grad()" in f.detail


def test_clip_grad_value(tmp_path):
    rep = read(tmp_path, """
    import torch
    from torch.nn.utils import clip_grad_value_

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        opt.zero_grad()
        model(torch.randn(2, 3)).sum().backward()
        clip_grad_value_(model.parameters(), clip_value=0.01)
        opt.step()
    """)
    f = fact(rep, "clip_max_norm")
    assert f.value == 0.01 and "value" in f.detail


def test_epoch_scheduler_stepped_every_batch(tmp_path):
    rep = read(tmp_path, ACCUMULATION)
    assert at(rep, "scheduler", ACCUMULATION, "sched = StepLR").value == "steplr"
    assert fact(rep, "scheduler_designed_per_batch").value is False
    assert at(rep, "scheduler_step_per_batch", ACCUMULATION, "sched.step()").value is True


def test_per_epoch_and_per_batch_schedulers_in_their_places(tmp_path):
    src = """
    import torch

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
    batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
    for epoch in range(EPOCHS):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
    """
    rep = read(tmp_path, src.replace("EPOCHS", "20"))
    assert fact(rep, "scheduler").value == "cosineannealinglr"
    assert fact(rep, "scheduler_designed_per_batch").value is False
    assert at(rep, "scheduler_step_per_batch", src, "sched.step()").value is False

    onecycle = src.replace(
        "CosineAnnealingLR(opt, T_max=EPOCHS)",
        "OneCycleLR(opt, max_lr=0.1, total_steps=EPOCHS * len(batches))").replace(
        "        sched.step()\n", "").replace("opt.step()", "opt.step()\n            sched.step()")
    rep = read(tmp_path, onecycle.replace("EPOCHS", "3"))
    assert fact(rep, "scheduler").value == "onecyclelr"
    assert fact(rep, "scheduler_designed_per_batch").value is True
    assert fact(rep, "scheduler_step_per_batch").value is True


def test_lambda_warmup_scheduler_is_per_step(tmp_path):
    rep = read(tmp_path, DISTILLATION)
    assert fact(rep, "scheduler").value == "lambdalr"
    assert fact(rep, "scheduler_designed_per_batch").value is True
    assert fact(rep, "warmup").value is True
    assert fact(rep, "scheduler_step_per_batch").value is True


def test_graph_cut_by_numpy_round_trip(tmp_path):
    rep = read(tmp_path, TRAINER_GRAPH_CUT)
    f = at(rep, "graph_cut", TRAINER_GRAPH_CUT, "pred = torch.tensor(pred.detach()")
    assert f.value is True
    assert fact(rep, "zero_grad_called").value is True
    assert fact(rep, "optimizer").value == "rmsprop"
    assert fact(rep, "learning_rate").value == 0.01


def test_detach_inside_forward_cuts_part_of_the_model(tmp_path):
    src = """
    import torch
    import torch.nn as nn


    class TwoStage(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(16, 16)
            self.head = nn.Linear(16, 3)

        def forward(self, x):
            h = self.encoder(x).detach()
            return self.head(h)


    net = TwoStage()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))
    for _ in range(3):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "graph_cut", src, "h = self.encoder(x).detach()")
    assert f.value is True and ".detach()" in f.detail


def test_item_for_logging_and_a_frozen_teacher_are_not_graph_cuts(tmp_path):
    for src in (PLAIN_LOOP, DISTILLATION):
        rep = read(tmp_path, src)
        assert fact(rep, "graph_cut").value is False, src


def test_no_grad_forward_with_requires_grad_hack_is_a_graph_cut(tmp_path):
    src = """
    import torch

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.Adam(model.parameters())
    for step in range(5):
        x, y = torch.randn(4, 3), torch.randn(4, 1)
        with torch.no_grad():
            pred = model(x)
        loss = torch.nn.functional.mse_loss(pred, y)
        loss.requires_grad_(True)
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    rep = read(tmp_path, src)
    assert at(rep, "graph_cut", src, "with torch.no_grad()").value is True


def test_validation_without_eval_and_eval_never_undone(tmp_path):
    rep = read(tmp_path, HELPERS_DOUBLE_SOFTMAX)
    f = at(rep, "model_mode_in_validation", HELPERS_DOUBLE_SOFTMAX,
           "correct += (model(xb)")
    assert f.value == "train"
    # train_one_epoch calls model.train() each epoch
    assert fact(rep, "model_mode_in_training").value == "train"

    rep = read(tmp_path, ACCUMULATION)
    assert fact(rep, "model_mode_in_validation").value == "eval"
    f = at(rep, "model_mode_in_training", ACCUMULATION, "loss = mse(model(x), y)")
    assert f.value == "eval" and "model.eval()" in f.detail


def test_eval_before_validation_and_train_each_epoch(tmp_path):
    rep = read(tmp_path, DISTILLATION)
    f = at(rep, "model_mode_in_validation", DISTILLATION, "F.cross_entropy(student(x)")
    assert f.value == "eval"
    assert at(rep, "model_mode_in_training", DISTILLATION, "s_logits = student(x)").value \
        == "train"


def test_phase_loop_with_set_grad_enabled(tmp_path):
    rep = read(tmp_path, PHASES)
    assert fact(rep, "model_mode_in_validation").value == "eval"
    assert fact(rep, "model_mode_in_training").value == "train"
    assert fact(rep, "zero_grad_called").value is True
    assert fact(rep, "graph_cut").value is False


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------

def test_shuffle_defaults_to_false_and_the_training_loader_is_the_one_iterated(tmp_path):
    src = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(torch.randn(40, 3), torch.randn(40, 1))
    val_loader = DataLoader(ds, batch_size=40, shuffle=True)
    loader = DataLoader(ds, batch_size=8, num_workers=4)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "shuffle", src, "loader = DataLoader(ds, batch_size=8")
    assert f.value is False and "default" in f.detail
    assert fact(rep, "batch_size").value == 8
    assert fact(rep, "num_workers").value == 4


def test_sampler_decides_shuffling(tmp_path):
    rep = read(tmp_path, DISTILLATION)
    f = at(rep, "shuffle", DISTILLATION, "train_loader = DataLoader")
    assert f.value is True and "RandomSampler" in f.detail


def test_manual_batching_by_slicing(tmp_path):
    rep = read(tmp_path, LOG_SOFTMAX_NLL)
    assert at(rep, "batch_size", LOG_SOFTMAX_NLL, "for i in range(0, len(X), BATCH)").value == 20
    assert fact(rep, "shuffle").value is True  # torch.randperm

    rep = read(tmp_path, LOG_SOFTMAX_NLL.replace("perm = torch.randperm(len(X))",
                                                 "perm = torch.arange(len(X))"))
    assert fact(rep, "shuffle").value is False


def test_augmentation_counts_as_regularization(tmp_path):
    src = """
    import torch
    from torchvision import transforms as T
    from torch.utils.data import DataLoader

    train_tf = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToTensor()])
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    """
    rep = read(tmp_path, src)
    f = fact(rep, "regularization")
    assert f.value == ["augmentation"]
    assert f.source == f"code:train.py:{line(src, 'RandomResizedCrop')}"


# ---------------------------------------------------------------------------------------------
# model
# ---------------------------------------------------------------------------------------------

def test_zero_initialised_weights(tmp_path):
    rep = read(tmp_path, CUSTOM_LOSS_PLAIN_LIST)
    f = at(rep, "init_constant", CUSTOM_LOSS_PLAIN_LIST, "nn.init.zeros_(self.head.weight)")
    assert f.value is True


def test_bias_only_zero_init_and_xavier_are_not_constant(tmp_path):
    rep = read(tmp_path, """
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            nn.init.xavier_uniform_(self.fc.weight)
            nn.init.zeros_(self.fc.bias)

        def forward(self, x):
            return self.fc(x)


    model = Net()
    """)
    assert fact(rep, "init_constant").value is False


def test_constant_init_through_apply_and_fill(tmp_path):
    src = """
    import torch.nn as nn


    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
            m.bias.data.zero_()


    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model.apply(init_weights)
    """
    rep = read(tmp_path, src)
    assert at(rep, "init_constant", src, "nn.init.constant_(m.weight").value is True

    src2 = """
    import torch.nn as nn

    layer = nn.Linear(4, 2)
    layer.weight.data.fill_(0.01)
    """
    rep = read(tmp_path, src2)
    assert at(rep, "init_constant", src2, "fill_(0.01)").value is True


def test_frozen_parameters_are_listed(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    for param in model.parameters():
        param.requires_grad = False
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    """
    rep = read(tmp_path, src)
    f = at(rep, "frozen_params", src, "param.requires_grad = False")
    assert f.value == ["model.parameters()"]


def test_dropout_default_p_and_functional_dropout(tmp_path):
    rep = read(tmp_path, DISTILLATION)
    assert at(rep, "dropout_p", DISTILLATION, "nn.Dropout()").value == 0.5
    rep = read(tmp_path, """
    import torch.nn as nn
    import torch.nn.functional as F


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            return self.fc(F.dropout(self.drop(x), p=0.3, training=self.training))


    net = Net()
    out = net(x)
    """)
    assert fact(rep, "dropout_p").value == 0.3
    assert fact(rep, "model_has_dropout_or_bn").value is True


def test_no_dropout_anywhere(tmp_path):
    rep = read(tmp_path, TRAINER_GRAPH_CUT)
    assert fact(rep, "dropout_p").value == 0.0
    assert fact(rep, "regularization").value == []
    assert fact(rep, "model_has_dropout_or_bn").value is False


def test_batchnorm_and_early_stopping_are_regularization(tmp_path):
    rep = read(tmp_path, LOG_SOFTMAX_NLL)
    assert "batchnorm" in fact(rep, "regularization").value
    rep = read(tmp_path, DISTILLATION)
    assert set(fact(rep, "regularization").value) == {"dropout", "early_stopping"}


def test_amp_with_and_without_grad_scaler(tmp_path):
    rep = read(tmp_path, ACCUMULATION)
    assert at(rep, "uses_amp", ACCUMULATION, "torch.autocast").value is True
    assert fact(rep, "amp_dtype").value == "bfloat16"
    assert fact(rep, "grad_scaler_used").value is False

    src = """
    import torch
    from torch.cuda.amp import GradScaler, autocast

    model = torch.nn.Linear(3, 1).cuda()
    opt = torch.optim.Adam(model.parameters())
    scaler = GradScaler()
    for step in range(10):
        x = torch.randn(4, 3).cuda()
        with autocast():
            loss = model(x).pow(2).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    """
    rep = read(tmp_path, src)
    assert fact(rep, "uses_amp").value is True
    assert fact(rep, "amp_dtype").value == "float16"
    assert at(rep, "grad_scaler_used", src, "scaler = GradScaler()").value is True
    assert fact(rep, "zero_grad_called").value is True
    assert fact(rep, "graph_cut").value is False


def test_half_model_is_mixed_precision(tmp_path):
    rep = read(tmp_path, """
    import torch

    model = torch.nn.Linear(3, 1).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    """)
    assert fact(rep, "uses_amp").value is True
    assert fact(rep, "amp_dtype").value == "float16"
    assert fact(rep, "grad_scaler_used").value is False


# the shape of the official PyTorch MNIST example (train()/test() helpers, kwargs dicts for the
# loaders, argparse defaults, StepLR stepped per epoch); needs torchvision, so read only
MNIST_EXAMPLE = """
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
            if args.dry_run:
                break


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)


def main():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=64, metavar='N')
    parser.add_argument('--test-batch-size', type=int, default=1000, metavar='N')
    parser.add_argument('--epochs', type=int, default=14, metavar='N')
    parser.add_argument('--lr', type=float, default=1.0, metavar='LR')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M')
    parser.add_argument('--no-cuda', action='store_true', default=False)
    parser.add_argument('--dry-run', action='store_true', default=False)
    parser.add_argument('--seed', type=int, default=1, metavar='S')
    parser.add_argument('--log-interval', type=int, default=10, metavar='N')
    parser.add_argument('--save-model', action='store_true', default=False)
    args = parser.parse_args()
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if use_cuda else "cpu")
    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}
    if use_cuda:
        cuda_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': True}
        train_kwargs.update(cuda_kwargs)
        test_kwargs.update(cuda_kwargs)
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    dataset1 = datasets.MNIST('../data', train=True, download=True, transform=transform)
    dataset2 = datasets.MNIST('../data', train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
    if args.save_model:
        torch.save(model.state_dict(), "mnist_cnn.pt")


if __name__ == '__main__':
    main()
"""


def test_mnist_example(tmp_path):
    src = MNIST_EXAMPLE
    rep = read(tmp_path, src, "main.py")
    assert at(rep, "optimizer", src, "optim.Adadelta").value == "adadelta"
    assert fact(rep, "learning_rate").value == 1.0
    assert at(rep, "output_activation", src, "F.log_softmax").value == "log_softmax"
    assert at(rep, "loss_function", src, "loss = F.nll_loss").value == "nll"
    assert fact(rep, "scheduler").value == "steplr"
    assert at(rep, "scheduler_step_per_batch", src, "scheduler.step()").value is False
    assert fact(rep, "scheduler_designed_per_batch").value is False
    assert at(rep, "model_mode_in_validation", src, "output = model(data)", 2).value == "eval"
    assert at(rep, "model_mode_in_training", src, "output = model(data)", 1).value == "train"
    assert at(rep, "batch_size", src, "train_loader = torch.utils.data.DataLoader").value == 64
    assert fact(rep, "dropout_p").value == 0.5
    assert fact(rep, "zero_grad_called").value is True
    # shuffle=True is only added to the loader's kwargs under `if use_cuda:`: not guessed
    assert rep.get("shuffle") is None
    assert any("shuffle=True" in u and "use_cuda" in u for u in rep.unresolved)


def test_softmax_mixing_weights_are_not_an_output_activation(tmp_path):
    rep = read(tmp_path, """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Mixture(nn.Module):
        def __init__(self):
            super().__init__()
            self.members = nn.ModuleList([nn.Linear(4, 3) for _ in range(3)])
            self.mix = nn.Parameter(torch.zeros(3))

        def forward(self, x):
            w = torch.softmax(self.mix, dim=0)
            return (w[:, None, None] * torch.stack([m(x) for m in self.members])).sum(0)


    model = Mixture()
    opt = torch.optim.Adam(model.parameters())
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    for _ in range(2):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    """)
    assert fact(rep, "output_activation").value == "none"
    assert fact(rep, "params_not_in_optimizer").value == []


def test_policy_gradient_loss_is_traced_through_a_list(tmp_path):
    rep = read(tmp_path, """
    import torch
    import torch.nn as nn

    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(3):
        log_probs, rewards = [], []
        for t in range(5):
            dist = torch.distributions.Categorical(logits=policy(torch.randn(4)))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            rewards.append(float(action.item()))
        returns = torch.tensor(rewards)
        loss = -(torch.stack(log_probs) * returns).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    """)
    assert fact(rep, "custom_loss").value is True
    assert fact(rep, "graph_cut").value is False


# ---------------------------------------------------------------------------------------------
# what is not resolved, and bad input
# ---------------------------------------------------------------------------------------------

def test_a_training_function_never_called_is_read_with_unknown_arguments(tmp_path):
    src = """
    import torch.nn as nn
    from mypackage.models import ResNetish


    def train(model, loader, optimizer, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                out = model(x)
                loss = nn.CrossEntropyLoss()(out, y)
                loss.backward()
                optimizer.step()
            model.eval()
    """
    rep = read(tmp_path, src)
    assert any("never called" in u for u in rep.unresolved)
    assert at(rep, "zero_grad_called", src, "for x, y in loader").value is False
    assert fact(rep, "model_mode_in_training").value == "eval"
    assert fact(rep, "loss_function").value == "cross_entropy"
    assert rep.get("optimizer") is None      # only its name is known, not its class
    assert rep.get("dropout_p") is None      # the model is not visible here
    assert any("not visible" in u for u in rep.unresolved)


def test_config_paths_are_listed(tmp_path):
    rep = read(tmp_path, """
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/base.yaml")
    OVERRIDES = "overrides.json"
    other = "notes.txt"
    """)
    assert rep.config_paths == ["configs/base.yaml", "overrides.json"]


def test_the_script_is_never_executed(tmp_path):
    marker = tmp_path / "ran.txt"
    rep = read(tmp_path, f"""
    open({str(marker)!r}, "w").write("executed")
    import torch
    raise SystemExit("must not run")
    """)
    assert isinstance(rep, CodeReport)
    assert not marker.exists()


def test_syntax_error_names_file_and_line(tmp_path):
    p = write(tmp_path, "import torch\n\nfor x in range(3)\n    print(x)\n")
    with pytest.raises(InputError) as err:
        analyze_code(p)
    assert err.value.line == 3
    assert str(err.value).startswith(f"{p}:3")


def test_non_utf8_file_names_file_and_line(tmp_path):
    p = tmp_path / "latin.py"
    p.write_bytes(b"import torch\n# caf\xe9\nx = 1\n")
    with pytest.raises(InputError) as err:
        analyze_code(p)
    assert err.value.line == 2 and str(p) in str(err.value) and "UTF-8" in str(err.value)


def test_declared_source_encoding_is_honoured(tmp_path):
    p = tmp_path / "declared.py"
    p.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\nimport torch\n"
                  b"opt = torch.optim.Adam(torch.nn.Linear(2, 2).parameters(), lr=0.5)\n")
    assert analyze_code(p).get("learning_rate").value == 0.5


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such"):
        analyze_code(tmp_path / "nope.py")
    with pytest.raises(InputError, match="directory"):
        analyze_code(tmp_path)


def test_reading_does_not_import_torch():
    code = ("import sys\n"
            "import traindx.probes.readers.code, traindx.probes.readers.config\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_every_fact_is_in_the_vocabulary(tmp_path):
    import yaml

    kb = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kb",
                      "facts.yaml")
    with open(kb) as fh:
        spec = {f["id"]: f for f in yaml.safe_load(fh)["facts"]}
    seen = set()
    for name, src in RUNNABLE.items():
        rep = read(tmp_path, src, name)
        for f in rep.findings:
            assert f.fact in spec, f.fact
            assert f.kind == "code" and f.source.startswith(f"code:{name}:")
            assert int(f.source.rsplit(":", 1)[1]) >= 1
            assert f.detail and "\n" not in f.detail
            t = spec[f.fact]
            if t["type"] == "enum":
                assert f.value in t["values"], (f.fact, f.value)
            elif t["type"] == "boolean":
                assert isinstance(f.value, bool), (f.fact, f.value)
            elif t["type"] == "list":
                assert isinstance(f.value, list), (f.fact, f.value)
            elif t["type"] in ("number", "integer"):
                assert isinstance(f.value, (int, float)) and not isinstance(f.value, bool)
            seen.add(f.fact)
    # the scripts above exercise every fact the code reader produces
    assert {"optimizer", "learning_rate", "weight_decay", "params_not_in_optimizer",
            "loss_function", "output_activation", "custom_loss", "label_smoothing",
            "unsafe_math", "zero_grad_called", "clip_max_norm", "scheduler",
            "scheduler_step_per_batch", "scheduler_designed_per_batch", "graph_cut",
            "model_mode_in_validation", "model_mode_in_training", "shuffle", "num_workers",
            "batch_size", "regularization", "dropout_p", "init_constant", "frozen_params",
            "uses_amp", "grad_scaler_used"} <= seen


# ---------------------------------------------------------------------------------------------
# the scripts are real: they train under torch
# ---------------------------------------------------------------------------------------------

_DRIVER = """
import os, runpy, sys
for name in sys.argv[1:]:
    runpy.run_path(name, run_name="__main__")
    print("OK", name, flush=True)
"""


@pytest.mark.slow
def test_scripts_really_train(tmp_path):
    """Every script analysed above is valid, working training code: run each with torch."""
    pytest.importorskip("torch")
    names = []
    for name, src in RUNNABLE.items():
        write(tmp_path, src, name)
        names.append(name)
    r = subprocess.run([sys.executable, "-c", _DRIVER, *names], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    for name in names:
        assert f"OK {name}" in r.stdout
    # and the reader agrees with what the running code does (spot checks)
    rep = analyze_code(tmp_path / "helpers_double_softmax.py")
    assert fact(rep, "output_activation").value == "softmax"
    rep = analyze_code(tmp_path / "trainer_graph_cut.py")
    assert fact(rep, "graph_cut").value is True


def test_unfreezing_a_module_by_attribute_is_a_no_op(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
            self.head = nn.Linear(16, 3)

        def forward(self, x):
            return self.head(self.encoder(x))

    model = Net()
    for p in model.encoder.parameters():
        p.requires_grad = False
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(10):
        if epoch == 3:
            model.encoder.requires_grad = True
        x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    """
    rep = read(tmp_path, src)
    f = at(rep, "requires_grad_attr_on_module", src, "model.encoder.requires_grad = True")
    assert f.value is True and "requires_grad_(True)" in f.detail
    fixed = read(tmp_path, src.replace("model.encoder.requires_grad = True", "model.encoder.requires_grad_(True)"),
                 name="fixed.py")
    assert fixed.get("requires_grad_attr_on_module") is None
    # a freeze written the same way is not reported as an unfreeze
    frozen = read(tmp_path, src.replace("model.encoder.requires_grad = True", "model.head.requires_grad = False"),
                  name="freeze.py")
    assert frozen.get("requires_grad_attr_on_module") is None


def test_predictions_scored_as_classes_make_it_a_classification_task(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    x, y = torch.randn(64, 2), torch.randint(0, 7, (64,)).float()
    for step in range(100):
        optimizer.zero_grad()
        pred = model(x).squeeze(1)
        loss = criterion(pred, y)
        loss.backward()
        optimizer.step()
        acc = (pred.round() == y).float().mean()
    """
    rep = read(tmp_path, src)
    f = at(rep, "task_type", src, "(pred.round() == y)")
    assert f.value == "classification"
    # a regression scored by its error is not a classification
    reg = read(tmp_path, src.replace("acc = (pred.round() == y).float().mean()", "mae = (pred - y).abs().mean()"),
               name="reg.py")
    assert reg.get("task_type") is None


TWO_OPTIMIZERS = """
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
head = nn.Linear(16, 3)
enc_opt = torch.optim.AdamW(encoder.parameters(), lr=1e-3)
head_opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)
crit = nn.CrossEntropyLoss()
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for step in range(100):
    enc_opt.zero_grad()
    loss = crit(head(encoder(x)), y)
    loss.backward()
    enc_opt.step()
    head_opt.step()
"""


def test_an_optimizer_whose_zero_grad_is_forgotten_among_two_is_found(tmp_path):
    rep = read(tmp_path, TWO_OPTIMIZERS)
    f = at(rep, "optimizer_not_zeroed", TWO_OPTIMIZERS, "head_opt.step()")
    assert f.value is True and "head_opt" in f.detail and "enc_opt.zero_grad()" in f.detail
    # both zeroed, or the model zeroed as a whole: nothing forgotten
    both = TWO_OPTIMIZERS.replace("    enc_opt.zero_grad()\n", "    enc_opt.zero_grad()\n    head_opt.zero_grad()\n")
    assert fact(read(tmp_path, both, "both.py"), "optimizer_not_zeroed").value is False
    whole = TWO_OPTIMIZERS.replace("    enc_opt.zero_grad()\n", "    encoder.zero_grad()\n    head.zero_grad()\n")
    assert fact(read(tmp_path, whole, "whole.py"), "optimizer_not_zeroed").value is False
