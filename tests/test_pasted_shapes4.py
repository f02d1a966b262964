"""Pasted console excerpts, session 9 (helper paste4): shapes that came back unread or with no
symptom. Each sample is written for this test (synthetic numbers in the print shapes of common
tools) and asserts what a user sees through the command line.

- a trainer's metrics dict printed with ``json.dumps(metrics, indent=2)``: one record, or several
  one after another;
- a log whose loss was read from a single record (one progress-bar line): Healthy at the lowest
  confidence, said as "one record, no trend", never an empty answer; a single record that is
  itself a fault (at chance, NaN) is not called healthy;
- a loss flat at ln 10 from the first record is Not Learning.
Torch-free.
"""
import json


from conftest import diagnose_log_text, report_fact, report_symptom


_symptom = report_symptom


_run = diagnose_log_text


def _diagnose(tmp_path, text, name="run.out"):
    res = _run(tmp_path, text, name)
    assert res.exit_code == 0, res.output
    out = res.output
    return json.loads(out[out.index("{"):])


def test_one_pretty_printed_metrics_dict_is_read(tmp_path):
    rec = {"eta": "1 day, 2:03:04", "iter": 90000, "loss": 0.4817, "loss_cls": 0.2012,
           "lr": 0.02, "time": 0.61}
    rep = _diagnose(tmp_path, json.dumps(rec, indent=2) + "\n", "metrics.json")
    assert report_fact(rep, "train_loss") == 0.4817
    assert _symptom(rep) == "healthy"
    assert any(n["id"] == "single_record" for n in rep["normal"]["behaviours"]), rep["normal"]


def test_pretty_printed_dicts_one_after_another_are_a_curve(tmp_path):
    losses = [2.31, 1.84, 1.22, 0.87, 0.61, 0.44, 0.35, 0.29, 0.25, 0.22]
    text = "".join(json.dumps({"iter": 100 * (i + 1), "loss": v, "lr": 0.01}, indent=2) + "\n"
                   for i, v in enumerate(losses))
    rep = _diagnose(tmp_path, text, "metrics.json")
    assert report_fact(rep, "run_length_steps") == 901
    assert report_fact(rep, "loss_trend") == "decreasing"
    assert _symptom(rep) == "healthy"


def test_a_dict_without_any_metric_still_fails_in_one_line(tmp_path):
    res = _run(tmp_path, json.dumps({"name": "run-3", "seed": 7}, indent=2) + "\n", "metrics.json")
    assert res.exit_code == 2
    assert "metrics.json" in res.output and "Traceback" not in res.output


def test_one_progress_bar_line_is_healthy_at_the_lowest_confidence(tmp_path):
    text = ("Epoch 3:  41%|####      | 357/870 [00:04<00:05, 98.1it/s, loss=0.382, acc=0.87, v_num=1]\n")
    rep = _diagnose(tmp_path, text)
    assert rep["status"] == "healthy"
    assert report_fact(rep, "single_record") is True
    assert rep["symptom"]["id"] == "healthy"


def test_one_record_at_chance_is_not_called_healthy(tmp_path):
    rep = _diagnose(tmp_path, "Epoch 1/30 - loss: 0.6931 - accuracy: 0.5012\n")
    assert _symptom(rep) != "healthy"


def test_a_flat_excerpt_at_chance_from_the_start_is_not_learning(tmp_path):
    vals = [2.3031, 2.3024, 2.3029, 2.3027, 2.3025, 2.3030, 2.3026, 2.3028, 2.3026, 2.3027]
    text = "\n".join(f"epoch {i} | train_loss {v:.4f} | lr 0.1" for i, v in enumerate(vals, start=1))
    rep = _diagnose(tmp_path, text + "\n")
    assert _symptom(rep) == "not_learning"


def test_a_short_excerpt_that_keeps_falling_from_the_start_is_healthy(tmp_path):
    vals = [1.92, 1.41, 1.08, 0.86, 0.71, 0.60, 0.52]
    accs = [0.41, 0.55, 0.66, 0.73, 0.78, 0.82, 0.85]
    text = "\n".join(f"Epoch {i}/7 - loss: {v:.4f} - accuracy: {a:.4f} - val_loss: {v + 0.03:.4f} - "
                     f"val_accuracy: {a - 0.01:.4f}" for i, (v, a) in enumerate(zip(vals, accs), start=1))
    rep = _diagnose(tmp_path, text + "\n")
    assert _symptom(rep) == "healthy"
