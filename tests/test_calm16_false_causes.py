"""Session 20 (calm16): confident false causes of script mode, decided by what the run and its code show.

What a user would notice:
- a classifier whose head is a module of its own, never handed to the optimizer (``opt =
  Adam(backbone.parameters())``, ``loss = crit(head(backbone(x)), y)``), plateaued and was read as
  a missing LR decay: the live probe compared the optimizer with the backbone only and said "every
  trainable parameter is in the optimizer", overruling the code reader. A module the training step
  runs beside the model whose parameters the loss's backward reaches, held by no optimizer, is
  now in ``params_not_in_optimizer``; a GAN's other half (its own optimizer) and a frozen encoder
  run under ``no_grad`` are not.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from traindx.probes.runner.supervise import run_script  # noqa: E402

HEAD_APART = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn as nn
    torch.manual_seed(0)
    x = torch.randn(512, 8); y = (x[:, 0] > 0).long()
    backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    head = nn.Linear(16, 2)
    encoder = nn.Linear(8, 8)             # a frozen feature map, run under no_grad
    disc = nn.Linear(2, 1)                # trained by its own optimizer
    params = backbone.parameters() if sys.argv[1] == "apart" else [*backbone.parameters(), *head.parameters()]
    opt = torch.optim.SGD(params, lr=0.05)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.01)
    for step in range(40):
        i = (step * 32) % 512
        with torch.no_grad():
            feats = encoder(x[i:i + 32]) * 0 + x[i:i + 32]
        out = head(backbone(feats))
        loss = nn.functional.cross_entropy(out, y[i:i + 32])
        opt.zero_grad(); loss.backward(); opt.step()
        opt_d.zero_grad(); disc(out.detach()).pow(2).mean().backward(); opt_d.step()
    print("done", flush=True)
"""


def _script(tmp_path: Path) -> Path:
    p = tmp_path / "head_apart.py"
    p.write_text(textwrap.dedent(HEAD_APART))
    return p


@pytest.mark.parametrize("how", ["apart", "held"])
def test_a_head_outside_the_optimizer_is_named_by_the_live_probe(tmp_path, how):
    r = run_script(_script(tmp_path), [how])
    assert r.exit_code == 0, r.stderr_tail
    f = r.finding("params_not_in_optimizer")
    assert f is not None
    if how == "apart":
        assert f.value == ["Linear.weight", "Linear.bias"]          # the head's two tensors, nothing else
        assert "beside the model" in f.detail
    else:
        assert f.value == []


# A loss below zero is a fault only when the loss cannot go there. A confidence penalty (cross-entropy minus
# a multiple of the predictions' entropy) goes below zero by design while its cross-entropy stays >= 0; an
# NLLLoss fed raw logits goes below zero inside the stock criterion itself.
OWN_TERMS = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn as nn
    torch.manual_seed(0)
    x = torch.randn(512, 8); y = (x[:, 0] > 0).long()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(30):
        i = (step * 32) % 512
        out = model(x[i:i + 32])
        if sys.argv[1] == "bonus":
            ent = -(out.softmax(1) * out.log_softmax(1)).sum(1).mean()
            loss = nn.functional.cross_entropy(out, y[i:i + 32]) - 1.5 * ent
        else:
            loss = nn.functional.nll_loss(out, y[i:i + 32]) + 1e-4 * sum((p ** 2).sum() for p in model.parameters())
        opt.zero_grad(); loss.backward(); opt.step()
    print("done", flush=True)
"""


@pytest.mark.parametrize("how,own", [("bonus", True), ("raw", False)])
def test_a_loss_below_zero_is_told_apart_from_its_stock_criterion(tmp_path, how, own):
    p = tmp_path / "own_terms.py"
    p.write_text(textwrap.dedent(OWN_TERMS))
    r = run_script(p, [how])
    assert r.exit_code == 0, r.stderr_tail
    assert r.finding("loss_negative").value is True
    assert r.finding("loss_negative_own_terms").value is own


def _session(facts: dict):
    from traindx.engine.api import Finding, Session, load_kb

    s = Session(load_kb())
    s.add_findings(Finding(fact=k, value=v, source=src) for k, (v, src) in facts.items())
    return s


# a healthy classifier whose confidence penalty takes the loss below zero (values written for this test)
PENALISED = {
    "loss_trend": ("decreasing", "probe:loss_vs_chance"),
    "loss_negative": (True, "probe:loss_vs_chance"),
    "loss_function": ("cross_entropy", "probe:output_squash"),
    "train_accuracy": (0.84, "probe:loss_vs_chance"),
    "val_accuracy": (0.82, "probe:loss_vs_chance"),
    "num_classes": (5, "probe:loss_vs_chance"),
}


def test_a_loss_below_zero_through_its_own_terms_names_no_cause():
    before = _session(PENALISED)
    assert before.leading(1)[0][0] == "wrong_loss_function"      # a stock CE below zero: fed the wrong thing
    after = _session({**PENALISED, "loss_negative_own_terms": (True, "probe:loss_weights")})
    assert all(c["id"] != "wrong_loss_function" or c["confidence"] < 0.2 for c in after.report()["root_causes"])


# Overlapping windows of one noisy series split at random: each validation window is its neighbours'
# values shifted by a step or two, which a distance between whole rows misses on a noisy series.
def _windows(stride):
    g = torch.Generator().manual_seed(1)
    series = torch.randn(4000, 3, generator=g).cumsum(0) * 0.05 + torch.randn(4000, 3, generator=g)
    x = torch.stack([series[i:i + 48] for i in range(0, 4000 - 48, stride)])
    return torch.utils.data.TensorDataset(x, torch.zeros(len(x)))


def test_overlapping_windows_split_at_random_are_copies_of_training_windows():
    from traindx.probes.live import data as D

    ds = _windows(2)
    train, val = torch.utils.data.random_split(ds, [len(ds) - 300, 300], generator=torch.Generator().manual_seed(0))
    r = D.near_duplicate_fraction(train, val)
    assert r["fraction"] > 0.9 and r["shifted"] > 0.9 * r["val_checked"]
    # the same windows split by time (validation after a gap) share no stretch
    apart = D.near_duplicate_fraction(torch.utils.data.Subset(ds, range(0, 1200)),
                                      torch.utils.data.Subset(ds, range(1300, 1600)))
    assert apart["fraction"] < 0.05 and apart["shifted"] == 0


def test_near_copies_are_found_on_data_with_a_constant_feature():
    # a constant column (an image border, a padding feature) is dropped before the distances; the
    # windows check once left the features standardised twice, and the drop made the second pass fail
    from traindx.probes.live import data as D

    g = torch.Generator().manual_seed(0)
    x = torch.randn(1200, 20, generator=g)
    x[:, 3] = 1.0
    val = torch.cat([x[:150] + 1e-4 * torch.randn(150, 20, generator=g), torch.randn(150, 20, generator=g)])
    val[:, 3] = 1.0
    r = D.near_duplicate_fraction(torch.utils.data.TensorDataset(x, torch.zeros(1200)),
                                  torch.utils.data.TensorDataset(val, torch.zeros(300)))
    assert 0.4 < r["fraction"] < 0.6


def test_binary_rows_do_not_read_as_windows():
    from traindx.probes.live import data as D

    g = torch.Generator().manual_seed(0)
    x = (torch.rand(3000, 80, generator=g) > 0.9).float()
    ds = torch.utils.data.TensorDataset(x, torch.zeros(3000))
    train, val = torch.utils.data.random_split(ds, [2500, 500], generator=torch.Generator().manual_seed(0))
    assert D.near_duplicate_fraction(train, val)["shifted"] == 0


def test_a_gap_measured_on_copied_validation_rows_names_the_split_first():
    facts = {"val_train_overlap": (0.95, "probe:leakage"), "train_accuracy": (1.0, "probe:train_val_gap"),
             "val_accuracy": (0.8, "probe:train_val_gap"), "train_loss": (0.002, "probe:train_val_gap"),
             "val_loss": (0.67, "probe:train_val_gap"), "loss_trend": ("decreasing", "probe:loss_vs_chance"),
             "val_loss_trend": ("flat", "probe:train_val_gap"), "best_val_fraction": (0.24, "probe:train_val_gap"),
             "dropout_p": (0.0, "probe:regularization"), "weight_decay": (0.0, "probe:regularization"),
             "num_classes": (60, "probe:loss_vs_chance"), "regularization": ([], "probe:regularization"),
             "model_has_dropout_or_bn": (False, "probe:regularization"),
             "val_accuracy_best": (0.81, "probe:train_val_gap"),
             "model_mode_in_validation": ("eval", "probe:mode"), "model_mode_in_training": ("train", "probe:mode"),
             "current_loss": (0.002, "probe:loss_vs_chance"), "initial_loss": (3.9, "probe:loss_vs_chance"),
             "loss_decrease_fraction": (0.999, "probe:loss_vs_chance"), "scheduler": ("none", "code:train.py:30"),
             "lr_final_ratio": (1.0, "probe:lr_trace"), "optimizer": ("adam", "probe:optimizer_coverage"),
             "learning_rate": (1e-3, "probe:optimizer_coverage"), "shuffle": (True, "probe:labels")}
    assert _session(facts).leading(1)[0][0] == "data_leakage"
    clean = _session({**facts, "val_train_overlap": (0.0, "probe:leakage")})
    assert clean.leading(1)[0][0] == "insufficient_regularization"


def test_raw_tensor_windows_split_at_random_are_found_where_the_model_is_fed():
    """A script that slices its windows into tensors itself (no DataLoader): the rows the model is fed
    in training and in evaluation forwards are compared for shifted stretches, not only hashed whole."""
    from traindx.engine.parameters import resolve
    from traindx.probes.live import data as D
    from traindx.probes.live.row_hashes import RowHashes

    params = resolve(None)
    x = _windows(2).tensors[0]
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))

    def fed(train_idx, val_idx):
        rows = RowHashes(params)
        rows.add(x[val_idx[:64]], train=False)                 # an evaluation forward first: hashing starts
        for i in range(0, len(train_idx), 64):
            rows.add(x[train_idx[i:i + 64]], train=True)
        rows.add(x[val_idx[64:256]], train=False)
        return rows.window_overlap(D.window_copies, params, params["leakage.train_eval_share"])

    shuffled = fed(perm[300:], perm[:300])
    assert shuffled[0] > 0.9
    by_time = fed(torch.arange(0, 1200), torch.arange(1300, 1600))
    assert by_time[0] < 0.05
