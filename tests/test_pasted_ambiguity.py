"""A log excerpt pasted into a complaint that prints one metric under two names that disagree
states no single value of it: traindx reads none (and says why) rather than pick one and read it
wrong (kb/parameters/console.yaml console.pasted_max_names_per_metric)."""

import json

from conftest import diagnose_json


def _facts(report: dict) -> dict:
    return {f["fact"]: f for f in report["facts"]}


def test_a_batch_loss_beside_an_epoch_loss_is_not_read_as_the_loss():
    text = ("my finetune barely improves after 20 epochs\n"
            "Epoch 0, Batch 0, Loss: 9.8123\n"
            "Epoch: 0, Training Loss: 7.5021\n"
            "Epoch: 1, Training Loss: 7.1302\n")
    report = diagnose_json("--complaint", text)
    facts = _facts(report)
    for name in ("initial_loss", "current_loss", "train_loss"):
        assert name not in facts, facts.get(name)
    # the user's words are still read, and the report says why the loss was left open
    assert facts["epochs"]["value"] == 20
    assert "names" in json.dumps(report) and "Training Loss" in json.dumps(report)


def test_loss_components_beside_their_total_are_not_read_as_the_validation_loss():
    text = ("is this normal? my detector's validation loss\n"
            "Val. Epoch: 261/400. Classification loss: 0.28101. Regression loss: 0.02911. Total loss: 0.31012\n"
            "Val. Epoch: 262/400. Classification loss: 0.27737. Regression loss: 0.02864. Total loss: 0.30601\n")
    facts = _facts(diagnose_json("--complaint", text))
    assert "val_loss" not in facts or facts["val_loss"]["value"] == 0.30601


def test_one_name_per_metric_is_still_read():
    text = ("my loss is stuck\n"
            "Epoch: 0, Training Loss: 7.5021\n"
            "Epoch: 1, Training Loss: 7.1302\n"
            "Epoch: 2, Training Loss: 7.1299\n")
    facts = _facts(diagnose_json("--complaint", text))
    assert facts["current_loss"]["value"] == 7.1299
    assert facts["initial_loss"]["value"] == 7.5021


def test_a_title_with_one_value_is_the_users_words_not_the_logs_first_row():
    # read as a log row, the title put the first NaN at step 0, before the run's finite loss
    text = ("after preparing my dataset and starting training, loss = nan\n"
            "Iteration 0, loss = 60.7816\n"
            "Iteration 100, loss = 41.2034\n"
            "Iteration 200, loss = nan\n")
    report = diagnose_json("--complaint", text)
    facts = _facts(report)
    assert report["understood"]["symptom"] == "explosion"
    assert facts["nan_first_step"]["value"] == 200
    assert facts["initial_loss"]["value"] == 60.7816


def test_the_loss_the_words_state_is_not_contradicted_by_an_early_sample():
    text = ("the loss has been fluctuating around 4.0 since step 2, after 10000 iterations it has not "
            "decreased much\n"
            "global step 2: loss = 4.8855 (0.211 sec/step)\n"
            "global step 4: loss = 4.4874 (0.205 sec/step)\n")
    report = diagnose_json("--complaint", text)
    facts = _facts(report)
    assert facts["train_loss"]["value"] == 4.0
    assert "current_loss" not in facts or facts["current_loss"]["value"] == 4.0
    # the report says what it set aside
    assert any(c["fact"] == "current_loss" and "4.487" in c["message"] and "kept 4" in c["message"]
               for c in report["conflicts"])
