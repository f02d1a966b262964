"""What a finished run leaves behind, read into evidence: config values a script loads through a
path idiom, initialisation and data facts of the code, the pace of a still-falling loss, a
held-out test printed beside the validation series — and a log the readers cannot read fails in
one line naming the file and line (exit 2)."""
import json
import math
import re
import textwrap

import pytest
from click.testing import CliRunner

from traindx.engine.frontends import gather
from traindx.engine.frontends.cli import main
from traindx.probes.readers.code import analyze_code


def _facts(path):
    return {f.fact: f.value for f in analyze_code(str(path)).findings}


def _diagnose(*args):
    res = CliRunner().invoke(main, ["diagnose", *args, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.stdout if hasattr(res, "stdout") else res.output
    return json.loads(out[out.index("{"):])


SCRIPT = textwrap.dedent("""\
    import json
    from pathlib import Path
    import numpy as np
    import torch, torch.nn as nn

    with open(Path(__file__).with_name("config.json")) as f:
        cfg = json.load(f)
    N_CLASSES = 4
    CLIP = cfg["grad_clip"]
    x = np.random.randn(100, 8)
    {data}
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, N_CLASSES))
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=cfg["init_std"])
            nn.init.constant_(m.bias, cfg["bias"])
    {freeze}
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    crit = nn.CrossEntropyLoss()
    for xb, yb in []:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=CLIP)
        opt.step()
    """)


def _script(tmp_path, data="", freeze="", **cfg):
    conf = {"lr": 3e-5, "grad_clip": 0.05, "init_std": 1.0, "bias": -4.0}
    conf.update(cfg)
    (tmp_path / "config.json").write_text(json.dumps(conf))
    p = tmp_path / "train.py"
    p.write_text(SCRIPT.format(data=data, freeze=freeze))
    return p


def test_a_config_named_by_a_path_idiom_is_read_into_the_code_facts(tmp_path):
    f = _facts(_script(tmp_path))
    assert f["learning_rate"] == pytest.approx(3e-5)
    assert f["clip_max_norm"] == pytest.approx(0.05)
    assert f["init_weight_std"] == pytest.approx(1.0)
    assert f["init_bias_constant"] == pytest.approx(-4.0)
    assert f["num_classes"] == 4


def test_ordinary_init_and_clip_leave_no_init_facts(tmp_path):
    f = _facts(_script(tmp_path, init_std=0.02, bias=0))
    assert f["init_weight_std"] == pytest.approx(0.02)
    assert "init_bias_constant" not in f          # a zero bias is the default, not a finding


def test_nan_written_into_the_data_is_a_fact_unless_the_script_cleans_it(tmp_path):
    f = _facts(_script(tmp_path, data='x[x > 2.5] = float("nan")'))
    assert f["nan_written_to_data"] is True
    f = _facts(_script(tmp_path, data='x[x > 2.5] = np.nan\nx = np.nan_to_num(x)'))
    assert "nan_written_to_data" not in f


def test_requires_grad_false_on_a_loop_variable_freezes_unless_something_unfreezes(tmp_path):
    loop = "for layer in list(model)[:-1]:\n    for p in layer.parameters():\n        p.requires_grad = False"
    assert _facts(_script(tmp_path, freeze=loop))["frozen_params"]
    unfreeze = loop + "\nfor p in model.parameters():\n    p.requires_grad = True"
    assert _facts(_script(tmp_path, freeze=unfreeze)).get("frozen_params") in (None, [])


def _console(path, losses, start=1, extra=""):
    lines = [f"epoch {start + i}: train_loss={v:.4f} val_loss={v + 0.02:.4f} val_acc={0.5 + 0.2 * i / len(losses):.3f}"
             for i, v in enumerate(losses)]
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def _log_facts(path):
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def test_a_loss_that_falls_little_and_keeps_falling_is_slow(tmp_path):
    slow = [1.10 - 0.025 * i for i in range(15)]                  # straight line: 1.10 -> 0.75
    f = _log_facts(_console(tmp_path / "slow.out", slow))
    assert f["loss_pace"] == "slow"
    healthy = [0.3 + 0.8 * math.exp(-i / 2.5) for i in range(15)]  # fast fall, then levels
    assert _log_facts(_console(tmp_path / "ok.out", healthy))["loss_pace"] == "normal"


def test_a_window_from_the_middle_of_a_run_has_no_pace(tmp_path):
    slow = [1.10 - 0.025 * i for i in range(15)]
    assert "loss_pace" not in _log_facts(_console(tmp_path / "mid.out", slow, start=81))


def test_slow_curve_with_frozen_layers_is_training_slow_from_frozen_parameters(tmp_path):
    loop = "for p in model[0].parameters():\n    p.requires_grad = False"
    script = _script(tmp_path, freeze=loop, lr=1e-3, grad_clip=1.0, init_std=0.1, bias=0)
    log = _console(tmp_path / "run.out", [1.10 - 0.025 * i for i in range(15)])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "slow_training"
    assert rep["root_causes"][0]["id"] == "frozen_parameters"


def test_a_held_out_test_far_below_validation_is_overfitting_from_leakage(tmp_path):
    losses = [0.9 * math.exp(-i / 2) + 0.003 for i in range(15)]
    lines = [f"{{'loss': {v:.4f}, 'epoch': {i + 1}.0}}\n{{'eval_loss': {v * 1.04 + 0.01:.4f}, 'eval_accuracy': "
             f"{min(1.0, 0.6 + 0.05 * i):.3f}, 'epoch': {i + 1}.0}}" for i, v in enumerate(losses)]
    log = tmp_path / "run.out"
    log.write_text("\n".join(lines) + "\n{'test_loss': 0.85, 'test_accuracy': 0.8, 'epoch': 15.0}\n")
    f = _log_facts(log)
    assert f["test_accuracy"] == pytest.approx(0.8)
    rep = _diagnose("--log", str(log))
    assert rep["symptom"]["id"] == "overfitting"
    assert rep["root_causes"][0]["id"] == "data_leakage"


def test_without_a_test_line_the_same_run_is_healthy(tmp_path):
    losses = [0.9 * math.exp(-i / 2) + 0.003 for i in range(15)]
    lines = [f"{{'loss': {v:.4f}, 'epoch': {i + 1}.0}}\n{{'eval_loss': {v * 1.04 + 0.01:.4f}, 'eval_accuracy': "
             f"{min(1.0, 0.6 + 0.05 * i):.3f}, 'epoch': {i + 1}.0}}" for i, v in enumerate(losses)]
    log = tmp_path / "run.out"
    log.write_text("\n".join(lines) + "\n")
    rep = _diagnose("--log", str(log))
    assert rep["status"] == "healthy"        # no cause is named


@pytest.mark.parametrize("content", [
    b"\x00\x01\x02garbage\xff\xfe" * 50,
    b"this is prose about my training run\nwith no numbers at all\n",
    b"step,loss\n1,abc\n2,def\n",
    b'{"loss": [1, 2\n',
    b"\n" * 10,
])
def test_an_unreadable_log_fails_in_one_line_naming_the_file_and_line(tmp_path, content):
    p = tmp_path / "garbage.log"
    p.write_bytes(content)
    res = CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive"])
    assert res.exit_code == 2, res.output
    err = (res.stderr if hasattr(res, "stderr") else res.output).strip()
    assert len(err.splitlines()) == 1, err
    assert re.search(r"garbage\.log:\d+|garbage\.log.*\bline", err), err   # file:line, or the lines tried
    assert "Traceback" not in res.output


@pytest.mark.parametrize("text, role, name", [
    ("\n".join(f"epoch {i} [loss]: {4.99 - 0.3 * i:.2f} [acc]: {0.3 + 0.05 * i:.2f}" for i in range(1, 6)),
     "loss", "loss"),
    ("\n".join(f"Epoch {i}, Cost {3.2 - 0.3 * i:.3f}" for i in range(1, 6)), "loss", "Cost"),
    ("\n".join(f"\tBatch {i}\tCost {2.0 - 0.1 * i:.4f}" for i in range(1, 6)), "loss", "Cost"),
    ("\n".join(f"[{i}/100] G_Loss: {{{1.2 + 0.01 * i:.3f}, 1.100}} D_Loss: {{{0.7 - 0.01 * i:.3f}, 0.690}}"
               for i in range(1, 6)), "loss", "G_Loss"),
    ("\n".join(f"step {i} | loss: {2.5 - 0.2 * i:.3f} | grad norm: 1.2 | learning rate: 3E-04" for i in range(1, 6)),
     "lr", "learning rate"),
])
def test_console_shapes_found_in_pasted_logs(text, role, name):
    from traindx.probes.readers.console import read_console_text
    log = read_console_text(text)
    assert log.columns.get(role) == name and log.series[role].rows == 5


def test_a_duration_called_cost_is_not_a_loss():
    from traindx.probes.readers.console import read_console_text
    text = "\n".join(f"Epoch[{i}] Train-accuracy={0.5 + 0.05 * i:.3f}\nEpoch[{i}] Time cost={85 + i:.3f}\n"
                     f"Epoch: {i}, cost 14.0{i} s" for i in range(1, 6))
    log = read_console_text(text)
    assert "loss" not in log.series and log.series["accuracy"].rows == 5


def test_one_keras_epoch_with_a_wide_gap_is_overfitting(tmp_path):
    p = tmp_path / "k.log"
    p.write_text("Epoch 30/30\n1875/1875 [==============================] - 5s 3ms/step - loss: 0.0301 - "
                 "accuracy: 0.9912 - val_loss: 2.1034 - val_accuracy: 0.5934\n")
    assert _diagnose("--log", str(p))["symptom"]["id"] == "overfitting"


def test_a_zero_loss_with_wrong_answers_is_not_learning(tmp_path):
    p = tmp_path / "run.csv"
    p.write_text("epoch,loss,accuracy\n1,0.0037,0.0987\n" + "".join(f"{e},0.0,0.0987\n" for e in range(2, 11)))
    assert _diagnose("--log", str(p))["symptom"]["id"] == "not_learning"
