"""The config reader (traindx.probes.readers.config): hyperparameters from YAML/JSON/TOML files and from
argparse defaults, each finding citing the file and the dotted key (or option) it came from."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import yaml

from traindx.engine.errors import InputError
from traindx.probes.readers.config import analyze_config, argparse_defaults, load_config


def facts(findings) -> dict:
    return {f.fact: f.value for f in findings}


def by_fact(findings, name):
    for f in findings:
        if f.fact == name:
            return f
    raise AssertionError(f"{name} not in {facts(findings)}")


# ---------------------------------------------------------------------------------------------
# real files, written the way tools write them
# ---------------------------------------------------------------------------------------------

def test_nested_yaml_with_hydra_target_and_lines(tmp_path):
    cfg = {
        "model": {"name": "resnet18", "dropout": 0.1},
        "optimizer": {"_target_": "torch.optim.AdamW", "lr": "3e-4", "weight_decay": 0.05},
        "training": {"batch_size": 64, "max_epochs": 30, "precision": "bf16-mixed"},
        "lr_scheduler": {"name": "cosine", "warmup_steps": 500},
        "val": {"batch_size": 256},
    }
    p = tmp_path / "config.yaml"
    p.write_text(yaml.safe_dump(cfg, sort_keys=False))
    found = analyze_config(p)
    assert facts(found) == {
        "optimizer": "adamw", "learning_rate": 3e-4, "weight_decay": 0.05, "batch_size": 64,
        "epochs": 30, "scheduler": "cosine", "warmup": True, "uses_amp": True,
        "amp_dtype": "bfloat16", "dropout_p": 0.1,
    }
    lr = by_fact(found, "learning_rate")
    assert lr.source == "config:config.yaml:optimizer.lr"
    assert lr.kind == "config"
    # PyYAML reads 3e-4 (no dot) as text: the reader says it took it as a number
    assert "text" in lr.detail
    text = p.read_text().splitlines()
    assert "lr:" in text[lr.extra["line"] - 1]
    assert by_fact(found, "optimizer").source == "config:config.yaml:optimizer._target_"
    assert "torch.optim.AdamW" in by_fact(found, "optimizer").detail
    # val.batch_size is not the training batch size
    assert by_fact(found, "batch_size").source == "config:config.yaml:training.batch_size"


def test_flat_json_written_by_json_dump(tmp_path):
    p = tmp_path / "hparams.json"
    with open(p, "w") as fh:
        json.dump({"lr": 0.1, "optim": "SGD", "bs": 128, "epochs": 90, "wd": 1e-4,
                   "lr_scheduler": {"type": "MultiStepLR", "milestones": [30, 60]},
                   "amp": False, "label_smoothing": 0.1}, fh, indent=2)
    found = analyze_config(p)
    assert facts(found) == {"optimizer": "sgd", "learning_rate": 0.1, "batch_size": 128,
                            "epochs": 90, "weight_decay": 1e-4, "scheduler": "multisteplr",
                            "uses_amp": False, "label_smoothing": 0.1}
    assert by_fact(found, "scheduler").source == "config:hparams.json:lr_scheduler.type"
    assert by_fact(found, "batch_size").source == "config:hparams.json:bs"


def test_huggingface_training_arguments_json(tmp_path):
    p = tmp_path / "training_args.json"
    p.write_text(json.dumps({
        "output_dir": "out", "learning_rate": 5e-05, "per_device_train_batch_size": 8,
        "per_device_eval_batch_size": 64, "gradient_accumulation_steps": 4,
        "num_train_epochs": 3.0, "weight_decay": 0.0, "warmup_steps": 0,
        "lr_scheduler_type": "linear", "fp16": True, "optim": "adamw_torch",
        "label_smoothing_factor": 0.0,
    }))
    found = analyze_config(p)
    f = facts(found)
    assert f["learning_rate"] == 5e-05
    assert f["optimizer"] == "adamw"
    assert f["epochs"] == 3
    assert f["warmup"] is False
    assert f["scheduler"] == "linear"
    assert f["uses_amp"] is True and f["amp_dtype"] == "float16"
    bs = by_fact(found, "batch_size")
    assert bs.value == 32                      # 8 per device x 4 accumulation steps
    assert bs.extra["per_step_batch_size"] == 8
    assert "accumulation" in bs.detail
    assert bs.source == "config:training_args.json:per_device_train_batch_size"


def test_toml_sections(tmp_path):
    p = tmp_path / "train.toml"
    p.write_text(textwrap.dedent("""
        [trainer]
        max_epochs = 10
        precision = "16-mixed"

        [optimizer]
        name = "Adam"
        lr = 1e-3
        weight_decay = 0.0

        [data]
        batch_size = 32
        """))
    found = analyze_config(p)
    assert facts(found) == {"optimizer": "adam", "learning_rate": 1e-3, "weight_decay": 0.0,
                            "batch_size": 32, "epochs": 10, "uses_amp": True,
                            "amp_dtype": "float16"}
    assert by_fact(found, "optimizer").source == "config:train.toml:optimizer.name"


def test_interpolation_and_merge_keys_in_yaml(tmp_path):
    p = tmp_path / "exp.yaml"
    p.write_text(textwrap.dedent("""
        base: &base
          dropout: 0.3
        model:
          <<: *base
        optim:
          lr: 0.02
        scheduler:
          _target_: torch.optim.lr_scheduler.OneCycleLR
          max_lr: ${optim.lr}
        lr: ${optim.lr}
        """))
    found = analyze_config(p)
    f = facts(found)
    assert f["dropout_p"] == 0.3
    assert f["scheduler"] == "onecyclelr"
    assert f["learning_rate"] == 0.02


@pytest.mark.parametrize("value, amp, dtype", [
    ("16-mixed", True, "float16"), (16, True, "float16"), ("bf16", True, "bfloat16"),
    ("32-true", False, "float32"), (32, False, "float32"),
])
def test_precision_spellings(tmp_path, value, amp, dtype):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({"trainer": {"precision": value}}))
    f = facts(analyze_config(p))
    assert f["uses_amp"] is amp and f["amp_dtype"] == dtype


@pytest.mark.parametrize("written, name", [
    ("torch.optim.SGD", "sgd"), ("AdamW", "adamw"), ("adamw_torch_fused", "adamw"),
    ("paged_adamw_8bit", "adamw"), ("RMSprop", "rmsprop"), ("Adafactor", "adafactor"),
])
def test_optimizer_names_normalised(tmp_path, written, name):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"optimizer": {"type": written, "lr": 0.1}}))
    assert facts(analyze_config(p))["optimizer"] == name


def test_warmup_zero_is_no_warmup_and_keys_under_eval_are_ignored(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({
        "warmup_epochs": 0, "eval": {"batch_size": 512, "epochs": 1},
        "train": {"batch_size": 16}, "test_batch_size": 1000,
    }))
    f = facts(analyze_config(p))
    assert f == {"warmup": False, "batch_size": 16}


def test_a_config_without_hyperparameters_gives_no_findings(tmp_path):
    p = tmp_path / "paths.yaml"
    p.write_text("data_dir: /data\noutput_dir: runs/\n")
    assert analyze_config(p) == []


# ---------------------------------------------------------------------------------------------
# argparse defaults
# ---------------------------------------------------------------------------------------------

ARGPARSE_SCRIPT = """
import argparse

BASE_LR = 0.05


def get_args():
    parser = argparse.ArgumentParser(description="train")
    parser.add_argument("--lr", "--learning-rate", dest="lr", type=float, default=BASE_LR * 2)
    parser.add_argument("-b", "--batch-size", type=int, default="64")
    parser.add_argument("--optimizer", default="adamw", choices=["sgd", "adamw"])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--wd", type=float, default="5e-4")
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--dropout", type=float)
    group = parser.add_argument_group("schedule")
    group.add_argument("--warmup-steps", type=int, default=200)
    parser.set_defaults(label_smoothing=0.1)
    return parser.parse_args()
"""


def test_argparse_defaults(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(ARGPARSE_SCRIPT.lstrip("\n"))
    found = argparse_defaults(p)
    assert facts(found) == {"learning_rate": 0.1, "batch_size": 64, "optimizer": "adamw",
                            "epochs": 12, "weight_decay": 5e-4, "uses_amp": False,
                            "warmup": True, "label_smoothing": 0.1}
    lr = by_fact(found, "learning_rate")
    assert lr.source == "config:train.py:--lr"
    assert lr.extra["line"] == ARGPARSE_SCRIPT.lstrip("\n").splitlines().index(
        next(x for x in ARGPARSE_SCRIPT.lstrip("\n").splitlines() if '"--lr"' in x)) + 1
    assert "argparse default" in lr.detail
    # analyze_config on a .py file reads the same defaults
    assert facts(analyze_config(p)) == facts(found)


def test_argparse_on_a_broken_script_names_file_and_line(tmp_path):
    p = tmp_path / "train.py"
    p.write_text("import argparse\np = argparse.ArgumentParser(\n")
    with pytest.raises(InputError) as err:
        argparse_defaults(p)
    assert str(p) in str(err.value) and err.value.line is not None


# ---------------------------------------------------------------------------------------------
# files that cannot be read
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, content, line", [
    ("bad.yaml", "optimizer:\n  lr: [0.1, 0.2\nbatch_size: 3\n", 3),
    ("tab.yaml", "optimizer:\n\tlr: 0.1\n", 2),
    ("trunc.json", '{"lr": 0.1,\n "batch_size": ', 2),
    ("bad.toml", "[optim]\nlr = \n", 2),
])
def test_malformed_and_truncated_files_name_file_and_line(tmp_path, name, content, line):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(InputError) as err:
        analyze_config(p)
    assert err.value.path == str(p)
    assert err.value.line == line
    assert str(err.value).startswith(f"{p}:{line}")
    assert "malformed" in err.value.message


def test_truncated_yaml_dump(tmp_path):
    full = yaml.safe_dump({"optimizer": {"name": "sgd", "lr": 0.1, "momentum": 0.9},
                           "data": {"batch_size": 32, "workers": [1, 2, 3]}},
                          default_flow_style=True)
    p = tmp_path / "cut.yaml"
    p.write_text(full[: len(full) // 2])
    with pytest.raises(InputError) as err:
        analyze_config(p)
    assert str(p) in str(err.value) and err.value.line is not None


def test_non_utf8_config(tmp_path):
    p = tmp_path / "latin.yaml"
    p.write_bytes(b"lr: 0.1\ncomment: caf\xe9\n")
    with pytest.raises(InputError) as err:
        analyze_config(p)
    assert err.value.line == 2 and "UTF-8" in str(err.value) and str(p) in str(err.value)


@pytest.mark.parametrize("name, content, words", [
    ("empty.yaml", "", "empty"),
    ("blank.json", "   \n\n", "empty"),
    ("comments.yaml", "# lr: 0.1\n# nothing else\n", "no settings"),
    ("words.yaml", "this is not a config at all\n", "mapping"),
    ("list.json", "[0.1, 32]", "mapping"),
    ("garbage.yaml", "\x00\x01\x02 binary", "malformed"),
])
def test_empty_and_garbage_files(tmp_path, name, content, words):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(InputError) as err:
        analyze_config(p)
    assert str(p) in str(err.value)
    assert words in str(err.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such"):
        analyze_config(tmp_path / "nope.yaml")
    with pytest.raises(InputError, match="directory"):
        analyze_config(tmp_path)


def test_load_config_keeps_key_lines(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("a:\n  b:\n    lr: 0.1\n  c: [1, 2]\n")
    cfg = load_config(p)
    assert cfg.data == {"a": {"b": {"lr": 0.1}, "c": [1, 2]}}
    assert cfg.lines[("a", "b", "lr")] == 3
    assert cfg.lines[("a", "c")] == 4


# ---------------------------------------------------------------------------------------------
# end to end: a real script trains from the config, and both readers agree with it
# ---------------------------------------------------------------------------------------------

CONFIG_DRIVEN_SCRIPT = """
import argparse

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="experiment.yaml")
parser.add_argument("--max-steps", type=int, default=5)
args = parser.parse_args()

with open(args.config) as fh:
    cfg = yaml.safe_load(fh)

torch.manual_seed(0)
X = torch.randn(128, 10)
y = (X[:, 0] > 0).long()
loader = DataLoader(TensorDataset(X, y), batch_size=cfg["data"]["batch_size"], shuffle=True)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]),
                      nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["optimizer"]["lr"],
                            weight_decay=cfg["optimizer"]["weight_decay"])
criterion = nn.CrossEntropyLoss()
step = 0
for epoch in range(cfg["training"]["epochs"]):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        step += 1
        if step >= args.max_steps:
            break
    if step >= args.max_steps:
        break
print("trained", step, "steps, lr", optimizer.param_groups[0]["lr"])
"""


@pytest.mark.slow
def test_config_driven_script_trains_and_both_readers_agree(tmp_path):
    pytest.importorskip("torch")
    from traindx.probes.readers.code import analyze_code

    cfg = {"optimizer": {"name": "sgd", "lr": 0.05, "weight_decay": 1e-4},
           "data": {"batch_size": 16}, "model": {"dropout": 0.25}, "training": {"epochs": 2}}
    (tmp_path / "experiment.yaml").write_text(yaml.safe_dump(cfg))
    script = tmp_path / "train.py"
    script.write_text(CONFIG_DRIVEN_SCRIPT)
    r = subprocess.run([sys.executable, str(script), "--max-steps", "4"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "trained 4 steps, lr 0.05" in r.stdout

    from_config = facts(analyze_config(tmp_path / "experiment.yaml"))
    assert from_config == {"optimizer": "sgd", "learning_rate": 0.05, "weight_decay": 1e-4,
                           "batch_size": 16, "epochs": 2, "dropout_p": 0.25}
    # the code reader follows cfg[...] into the same file and cites the script's lines
    rep = analyze_code(script)
    assert rep.config_paths == ["experiment.yaml"]
    for name in ("optimizer", "learning_rate", "weight_decay", "batch_size", "dropout_p"):
        assert rep.get(name).value == from_config[name], name
    assert "experiment.yaml" in rep.get("learning_rate").detail
    # and the script's own argparse defaults are config evidence too
    assert facts(argparse_defaults(script)) == {}


@pytest.mark.parametrize("text, want", [
    ("trainer:\n  gradient_clip_val: 1.0e-4\n", 1e-4),          # Lightning
    ('{"max_grad_norm": 0.001, "learning_rate": 5e-5}', 0.001),  # HF TrainingArguments
    ("optim:\n  lr: 0.1\n  grad_clip: 5.0\n", 5.0),
    ("trainer:\n  gradient_clip_val: 0\n", None),                # 0 / null turn clipping off: nothing to read
    ("trainer:\n  gradient_clip_val: null\n", None),
    ("clip_value: 0.5\n", None),                                 # clipping by value is another thing
])
def test_the_gradient_clipping_norm_is_read(tmp_path, text, want):
    p = tmp_path / ("c.json" if text.startswith("{") else "c.yaml")
    p.write_text(text)
    assert facts(analyze_config(p)).get("clip_max_norm") == (pytest.approx(want) if want else None)
