"""Finished runs printed as a key/value box drawn with ``+`` corners (PrettyTable, tabulate's grid), session 52."""

import pytest
from cli_reports import diagnose_log, report_facts

from traindx.probes.readers.console import read_console_text


def _grid_box_log(epochs: int = 8) -> str:
    """One ``+-----+-----+`` box of ``| key | value |`` rows per epoch, as PrettyTable prints a dict."""
    lines = ["log-key model: 14190 train windows, 3537 val windows, 28 keys"]
    for e in range(1, epochs + 1):
        rows = [("epoch", f"{e}/{epochs}"), ("train_loss", f"{3.2 - 0.15 * e:.4f}"),
                ("val_loss", f"{3.1 - 0.14 * e:.4f}"), ("val_top1_acc", f"{0.1 + 0.04 * e:.4f}"),
                ("lr", "0.01"), ("elapsed_s", f"{9.5 * e:.1f}")]
        lines.append("+---------------+--------+")
        lines += [f"| {k:<13} | {v:>6} |" for k, v in rows]
        lines.append("+---------------+--------+")
    return "\n".join(lines + ["Finished Training"]) + "\n"


def test_a_box_drawn_with_plus_corners_is_read_one_record_per_epoch():
    log = read_console_text(_grid_box_log())
    assert log.series["loss"].rows == 8
    assert log.series["loss"].points[0].mean == pytest.approx(3.05, rel=1e-3)
    assert log.series["loss"].points[-1].mean == pytest.approx(2.0, rel=1e-3)
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.98, rel=1e-3)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.42, rel=1e-3)


def test_a_grid_table_with_a_header_row_is_still_read_as_a_table():
    lines = ["+-------+--------+----------+", "| epoch | loss   | val_loss |", "+=======+========+==========+"]
    for e in range(1, 7):
        lines += [f"| {e:<5} | {1.0 / e:.4f} | {1.1 / e:.4f}   |", "+-------+--------+----------+"]
    log = read_console_text("\n".join(lines) + "\n")
    assert log.series["loss"].rows == 6
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.1 / 6, rel=1e-3)


_CLASS_LIST_SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["hstripes", "vstripes", "diagonal", "checker"]
WIDTHS = [16, 32]


class Net(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        self.body = nn.Linear(12, width)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(F.relu(self.body(x)))


X, Y = torch.randn(256, 12), torch.randint(0, len(CLASSES), (256,))
model = Net(32, len(CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(6):
    out = model(X)
    loss = F.cross_entropy(out, Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def _chance_log(epochs: int = 6) -> str:
    """A classifier whose validation never leaves chance (4 classes: ln 4 = 1.386, accuracy 0.25)."""
    lines = []
    for e in range(1, epochs + 1):
        lines.append(f"Epoch {e}/{epochs}")
        lines.append(f"40/40 - 4s - loss: {1.42 - 0.03 * e:.4f} - accuracy: {0.26 + 0.03 * e:.4f} - "
                     f"val_loss: {1.3862 + 0.004 * (e % 2):.4f} - val_accuracy: {0.25 + 0.01 * (e % 2):.4f}")
    return "\n".join(lines) + "\n"


def test_a_list_of_class_names_gives_the_class_count_and_with_it_chance(tmp_path):
    rep = diagnose_log(tmp_path, _chance_log(), _CLASS_LIST_SCRIPT)
    facts = report_facts(rep)
    assert facts.get("num_classes") == 4
    assert rep["symptom"]["id"] == "not_learning"


def test_a_list_of_numbers_is_no_list_of_class_names(tmp_path):
    script = _CLASS_LIST_SCRIPT.replace('["hstripes", "vstripes", "diagonal", "checker"]', "[3, 1, 4, 1]")
    assert "num_classes" not in report_facts(diagnose_log(tmp_path, _chance_log(), script))


_SORTED_SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES = 4
N_TRAIN, BATCH = 1280, 32
g = torch.Generator().manual_seed(0)
Xtr, Ytr = torch.randn(N_TRAIN, 12, generator=g), torch.randint(0, N_CLASSES, (N_TRAIN,), generator=g)
Xva, Yva = torch.randn(400, 12, generator=g), torch.randint(0, N_CLASSES, (400,), generator=g)
order = torch.argsort(Ytr, stable=True)
Xtr, Ytr = Xtr[order], Ytr[order]
model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(6):
    model.train()
    perm = torch.arange(N_TRAIN)
    for s in range(N_TRAIN // BATCH):
        idx = perm[s * BATCH:(s + 1) * BATCH]
        loss = F.cross_entropy(model(Xtr[idx]), Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        print(loss.item(), F.cross_entropy(vo, Yva).item(), (vo.argmax(1) == Yva).float().mean().item())
'''


def _sorted_blocks_log() -> str:
    """The training loss of label-sorted batches climbs (each block's class is new to the model) while
    validation accuracy stays at chance (4 classes) at every evaluation."""
    train = [0.41, 2.38, 2.19, 2.29, 2.74, 3.48]
    val_acc = [0.235, 0.24, 0.24, 0.238, 0.24, 0.24]
    lines = []
    for e, (tl, va) in enumerate(zip(train, val_acc), 1):
        lines.append(f"Epoch {e}/6")
        lines.append(f"40/40 - 4s - loss: {tl:.4f} - accuracy: {0.3 - 0.02 * e:.4f} - "
                     f"val_loss: {1.72 - 0.04 * e:.4f} - val_accuracy: {va:.4f}")
    return "\n".join(lines) + "\n"


def test_label_sorted_unshuffled_batches_with_validation_at_chance_are_not_learning(tmp_path):
    rep = diagnose_log(tmp_path, _sorted_blocks_log(), _SORTED_SCRIPT)
    facts = report_facts(rep)
    assert facts.get("data_sorted") is True and facts.get("shuffle") is False
    assert rep["symptom"]["id"] == "not_learning"


def test_label_sorted_batches_with_validation_above_chance_stay_unstable(tmp_path):
    log = _sorted_blocks_log().replace("val_accuracy: 0.24", "val_accuracy: 0.64")
    assert diagnose_log(tmp_path, log, _SORTED_SCRIPT)["symptom"]["id"] == "instability"


_PER_BATCH_SCHEDULE_SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES = 4
N_TRAIN, BATCH, EPOCHS = 1280, 32, 6
g = torch.Generator().manual_seed(0)
Xtr, Ytr = torch.randn(N_TRAIN, 12, generator=g), torch.randint(0, N_CLASSES, (N_TRAIN,), generator=g)
model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 5], gamma=0.2)
for epoch in range(EPOCHS):
    perm = torch.randperm(N_TRAIN)
    for s in range(N_TRAIN // BATCH):
        idx = perm[s * BATCH:(s + 1) * BATCH]
        loss = F.cross_entropy(model(Xtr[idx]), Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    print(f"epoch {epoch + 1} loss {loss.item():.4f} lr {opt.param_groups[0]['lr']:.4f}")
'''


def test_an_epoch_scheduler_stepped_every_batch_whose_log_never_shows_the_configured_rate_is_a_collapse(tmp_path):
    """MultiStepLR(milestones=[4, 5]) stepped every batch: the LR is 0.05 x 0.04 from the sixth step on, so
    every epoch line records 0.002 -- held, but held at a twenty-fifth of the rate the code sets."""
    loss = [1.3948, 1.3605, 1.3382, 1.3157, 1.2897, 1.2584]
    acc = [0.25, 0.34, 0.43, 0.46, 0.53, 0.56]
    val_acc = [0.25, 0.25, 0.255, 0.285, 0.285, 0.275]
    log = "".join(f"epoch {e} loss {v:.4f} acc {a:.4f} val_acc {b:.4f} lr 0.0020\n"
                  for e, (v, a, b) in enumerate(zip(loss, acc, val_acc), 1))
    rep = diagnose_log(tmp_path, log, _PER_BATCH_SCHEDULE_SCRIPT)
    assert report_facts(rep).get("scheduler_step_per_batch") is True
    assert rep["root_causes"][0]["id"] == "lr_schedule_collapse"
    assert rep["root_causes"][0]["confidence"] > 0.5
