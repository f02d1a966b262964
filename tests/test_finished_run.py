"""A finished run's evidence, fused: code, config and a printed log together; a log pasted into
the interview (on a real terminal) or into MCP ``start_diagnosis``; MLflow and W&B run folders."""
import json
import os
import struct
import sys
import textwrap
import zlib

import pytest
from click.testing import CliRunner

from traindx.engine.frontends import gather
from traindx.engine.frontends.cli import main

TRAIN = textwrap.dedent("""\
    import torch, torch.nn as nn, yaml
    cfg = yaml.safe_load(open("config.yaml"))
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    crit = nn.CrossEntropyLoss()
    for epoch in range(10):
        for x, y in []:
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
    """)


def _flat_log(lr):
    return "\n".join(f"epoch {e:2d} | train_loss {1.0986 + (e % 2) * 1e-4:.4f} | val_loss 1.0990 | "
                     f"val_acc 0.3330 | lr {lr:.1e}" for e in range(1, 13))


def _run(tmp_path, cfg_lr, log_lr, fmt="json"):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "config.yaml").write_text(f"lr: {cfg_lr}\nbatch_size: 64\n")
    (tmp_path / "run.out").write_text("loaded config\n" + _flat_log(log_lr) + "\n")
    res = CliRunner().invoke(main, ["diagnose", "--code", str(tmp_path / "train.py"), "--config",
                                    str(tmp_path / "config.yaml"), "--log", str(tmp_path / "run.out"),
                                    "--non-interactive", "--format", fmt])
    assert res.exit_code == 0, res.output
    return res


def _json(output):
    return json.loads(output[output.index("\n{") + 1:] if not output.startswith("{") else output)


def test_fused_report_names_the_lr_conflict_between_config_and_log(tmp_path):
    res = _run(tmp_path, cfg_lr=0.1, log_lr=1e-6)
    rep = _json(res.output)
    lr = [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]
    assert lr, rep["conflicts"]
    assert {v["source"].split(":", 1)[0] for v in lr[0]["values"]} >= {"log"}
    assert "0.1" in lr[0]["message"] and "1e-06" in lr[0]["message"]
    assert any(s.startswith("Read run.out: 13 lines, 4 metrics (loss, val_loss, val_accuracy, lr) over 12 epochs")
               for s in rep["sources_read"])
    assert rep["symptom"]["id"] == "not_learning"        # the symptom comes from the log
    md = _run(tmp_path, cfg_lr=0.1, log_lr=1e-6, fmt="markdown").output
    assert "**Sources disagree:** learning rate: 0.1" in md


def test_no_conflict_when_the_log_records_the_configured_lr(tmp_path):
    rep = _json(_run(tmp_path, cfg_lr=0.001, log_lr=1e-3).output)
    assert not [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]


def test_split_paste_keeps_the_words_and_reads_the_log():
    text = "my loss is stuck, help\n" + _flat_log(1e-3) + "\nany idea?"
    prose, log = gather.split_paste(text)
    assert prose == "my loss is stuck, help\nany idea?"
    assert log.count("\n") == 11
    assert gather.split_paste("loss flat from epoch 0 at lr 1e-3")[1] is None


def test_pasted_log_in_the_interview(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, NO_COLOR="1", COLUMNS="150")
    c = pexpect.spawn(sys.executable, ["-m", "traindx.engine", "diagnose"], cwd=str(tmp_path), env=env,
                      encoding="utf-8", timeout=300, dimensions=(60, 150))   # a loaded machine
    c.expect("What is going wrong with your training?")
    paste = "my loss does not move:\n" + "\n".join(
        f"Epoch {e}/12 - loss: 2.3026 - accuracy: 0.1000 - val_loss: 2.3026 - val_accuracy: 0.1000"
        for e in range(1, 13))
    c.send(paste + "\n")
    c.expect("Read the pasted log: 12 lines, 4 metrics")
    c.expect(r"I read:  not_learning")                # the words are read back before any question
    c.expect(r"Right\?")
    c.sendline("")
    c.expect(r"Symptom: .*Not Learning")
    c.sendcontrol("c")
    c.expect(pexpect.EOF)
    c.close()


def test_pasted_log_in_mcp_start_diagnosis():
    from traindx.engine.frontends.mcp_server import Engine
    eng = Engine()
    text = "training diverged overnight:\n" + "\n".join(
        f"step {s} loss {2.0 * (1.6 ** (s // 100)):.3e} grad_norm {10.0 * 2 ** (s // 100):.2e}"
        for s in range(0, 1500, 100)) + \
        "\nstep 1500 loss nan grad_norm nan\nstep 1600 loss nan grad_norm nan"
    out = eng.call("start_diagnosis", {"complaint": text})
    assert out["read"].startswith("Read the pasted log: 17 lines, 2 metrics (loss, grad_norm) over 1,600 steps.")
    assert out["symptom"]["id"] == "explosion"
    rep = eng.call("get_report", {"session_id": out["session_id"]})
    assert rep["sources_read"] == [out["read"]]


# ---------------------------------------------------------------------------- run stores
def test_mlflow_run_folder(tmp_path):
    run = tmp_path / "mlruns" / "0" / "abc123"
    (run / "metrics" / "val").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc123\n")
    (run / "metrics" / "train_loss").write_text("".join(f"17000000{s:05d} {2.3 - s / 100:.3f} {s}\n"
                                                        for s in range(50)))
    (run / "metrics" / "val" / "loss").write_text("".join(f"17000000{s:05d} {2.4 - s / 100:.3f} {s}\n"
                                                          for s in range(0, 50, 10)))
    r = gather.read_log(str(tmp_path / "mlruns"))
    log = r.analysis.log
    assert log.format == "mlflow" and log["loss"].rows == 50 and log["val_loss"].rows == 5
    assert r.summary.startswith("Read abc123: 55 rows, 2 metrics (loss, val_loss)")


def _wandb_file(path, rows):
    pb = pytest.importorskip("wandb.proto.wandb_internal_pb2")
    payloads = []
    for step, row in enumerate(rows):
        rec = pb.Record()
        for k, v in row.items():
            item = rec.history.item.add()
            item.key = k
            item.value_json = json.dumps(v)
        rec.history.step.num = step
        payloads.append(rec.SerializeToString())
    out = bytearray(b":W&B" + struct.pack("<HB", 0xBEE1, 0))
    for data in payloads:  # the LevelDB log framing, one FULL fragment a record (none crosses a block here)
        out += struct.pack("<IHB", zlib.crc32(bytes([1]) + data) & 0xFFFFFFFF, len(data), 1) + data
    path.write_bytes(bytes(out))


def test_wandb_offline_run(tmp_path):
    run = tmp_path / "wandb" / "offline-run-20240101_000000-xyz"
    run.mkdir(parents=True)
    _wandb_file(run / "run-xyz.wandb", [{"train/loss": 1.0 / (i + 1), "lr": 0.01} for i in range(30)]
                + [{"train/loss": float("nan") if False else 0.01, "lr": 0.01}])
    r = gather.read_log(str(tmp_path / "wandb"))
    log = r.analysis.log
    assert log.format == "wandb" and log["loss"].rows == 31 and log["lr"].rows == 31
    assert log.x_label == "step"


def test_settings_printed_in_a_pasted_log_are_read_in_mcp():
    # a trainer's log prints the learning rate and a Keras log the planned epochs: neither is asked again
    from traindx.engine.frontends.mcp_server import Engine
    eng = Engine()
    text = "my loss does not go down at all:\n" + "\n".join(
        f"{{'loss': 0.6931, 'learning_rate': 0.0003, 'epoch': {e / 4:.2f}}}" for e in range(1, 9))
    out = eng.call("start_diagnosis", {"complaint": text})
    rep = eng.call("get_report", {"session_id": out["session_id"]})
    lr = [f for f in rep["facts"] if f["fact"] == "learning_rate"]
    assert lr and lr[0]["value"] == pytest.approx(3e-4) and "pasted log" in lr[0]["detail"] + lr[0]["source"]
    assert "learning_rate" not in out["next_question"]["facts"]
    keras = "accuracy stays at chance:\n" + "\n".join(
        f"Epoch {e}/40\n250/250 - 3s - loss: 1.3863 - accuracy: 0.2500" for e in range(1, 5))
    rep = eng.call("get_report", {"session_id": eng.call("start_diagnosis", {"complaint": keras})["session_id"]})
    assert [f["value"] for f in rep["facts"] if f["fact"] == "epochs"] == [40]
