"""Session 46, issue 12 (benchmarks/scenarios s534, s536 as classes of evidence): a mixup run's
training accuracy trails validation by design; a loss summed over the batch is no per-example level
to hold against chance; a validation accuracy that repeats while the validation loss moves is no
constant output; modules validated in train mode that hold no mode-dependent layer are no train/eval
mismatch."""

from __future__ import annotations

from traindx.engine.api import diagnose
from traindx.probes.readers.logs import analyze_log


def _mixup_run_csv(tmp_path):
    """30 epochs of a mixup run: a summed loss falling 11.1 -> ~6 and levelling off, training accuracy
    on the mixed batches at 30-53% while validation climbs to 86% and its accuracy repeats at the end
    (a settled model on 120 examples) while the validation loss still moves."""
    rows = ["epoch,train_loss,train_acc,val_loss,val_acc"]
    for e in range(30):
        tl = 6.0 + 5.1 * max(0.0, 1 - e / 16) + (0.15 if e % 2 else -0.1) + 0.0137 * e
        ta = 0.30 + 0.23 * min(1.0, e / 18)
        vl = 5.3 + 5.4 * max(0.0, 1 - e / 20) + 0.01 * (e % 3)
        va = 0.858333 if e >= 24 else 0.5 + 0.36 * e / 24
        rows.append(f"{e},{tl:.4f},{ta:.4f},{vl:.4f},{va:.6f}")
    p = tmp_path / "metrics.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_a_repeating_validation_accuracy_under_a_moving_validation_loss_is_no_constant_output(tmp_path):
    findings, _ = analyze_log(_mixup_run_csv(tmp_path), num_classes=2)
    facts = {f.fact: f.value for f in findings}
    assert "val_frozen" not in facts


def _facts(tmp_path, **code):
    findings, _ = analyze_log(_mixup_run_csv(tmp_path), num_classes=2)
    facts = {f.fact: f.value for f in findings}
    facts.update({"loss_function": "cross_entropy", "num_classes": 2, "optimizer": "adam",
                  "learning_rate": 1e-4}, **code)
    return facts


def test_a_mixup_run_with_a_summed_loss_is_healthy_not_leakage_or_not_learning(tmp_path):
    r = diagnose(_facts(tmp_path, loss_mixes_targets=True, loss_summed_over_batch=True))
    assert r["symptom"]["id"] == "healthy"
    assert not any(c["id"] in ("data_leakage", "unnormalized_inputs") and c["confidence"] > 0.3
                   for c in r["root_causes"])


def test_without_the_mixup_the_same_gap_is_no_healthy_run(tmp_path):
    assert diagnose(_facts(tmp_path, loss_summed_over_batch=True))["symptom"]["id"] != "healthy"


def test_modules_validated_in_train_mode_without_mode_dependent_layers_are_no_mode_mismatch():
    facts = {"model_mode_in_validation": "train", "model_has_dropout_or_bn": True, "learning_rate": 5e-7,
             "optimizer": "adam"}
    assert diagnose(facts)["root_causes"][0]["id"] == "train_eval_mode_mismatch"
    top = diagnose({**facts, "validation_mode_free": True})["root_causes"][0]["id"]
    assert top == "lr_too_low"


def test_a_no_grad_pass_over_the_training_dataset_is_no_validation_loader():
    """A script that measures a clean training accuracy on the side (a fresh DataLoader over its
    training dataset, run without gradients) declares that loader in the evaluation phase: it must
    not replace the validation loader, or every validation example "appears in the training set"."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset, random_split

    from traindx.probes.live.monitor import Monitor

    ds = TensorDataset(torch.randn(200, 4), torch.randint(0, 2, (200,)))
    train_ds, val_ds = random_split(ds, [160, 40], generator=torch.Generator().manual_seed(0))
    train, val = DataLoader(train_ds, batch_size=16), DataLoader(val_ds, batch_size=16)
    model = torch.nn.Linear(4, 2)
    mon = Monitor(model, torch.optim.SGD(model.parameters(), lr=0.1))
    mon.on_data_loader(train, "train")
    mon.on_data_loader(val, "val")
    mon.on_data_loader(DataLoader(train_ds, batch_size=16), "val")
    assert mon._loaders["val"] is val


def test_a_script_that_validates_on_its_training_dataset_is_still_caught():
    """The loader held aside above is the only evaluation loader here: the script's "validation" runs
    over its training dataset, and the leakage probe must still report every validation example as a
    training example."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from traindx.probes.live.monitor import Monitor

    train_ds = TensorDataset(torch.randn(160, 4), torch.randint(0, 2, (160,)))
    model = torch.nn.Linear(4, 2)
    mon = Monitor(model, torch.optim.SGD(model.parameters(), lr=0.1))
    mon.on_data_loader(DataLoader(train_ds, batch_size=16, shuffle=True), "train")
    mon.on_data_loader(DataLoader(train_ds, batch_size=16), "val")
    found = {f.fact: f.value for f in mon.findings()}
    assert found["val_train_overlap"] == 1.0
