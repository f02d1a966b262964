"""Log readers and curve analysis, on files made by the real producers and on real published logs.

Each reader is fed what its producer really writes: a ``torch.utils.tensorboard.SummaryWriter``
event folder, a CSV written with ``csv.writer`` during a short real torch training run, JSON lines
written with ``json.dumps`` per step. The 16 real logs in /work/shared/real-logs must all parse,
and the clear-cut ones must read the way a practitioner would read them.
"""

from __future__ import annotations

import csv
import json
import math
import os
import random
import re
import subprocess
import sys

import pytest
import yaml

from traindx.engine.errors import InputError
from traindx.probes.readers.logs import (HEAD_ROWS, MAX_NONFINITE_STEPS, MAX_POINTS, analyze_log,
                                 parse_column_map, read_log)
from traindx.probes.readers.words import log_words

match_role = log_words().match_role   # the shipped knowledge base's vocabulary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = "/work/shared/real-logs"
SOURCE_RE = re.compile(r"^log:[^:]+:steps -?[0-9.e+]+--?[0-9.e+]+$")


def _facts_vocabulary() -> dict:
    with open(os.path.join(ROOT, "kb", "facts.yaml"), encoding="utf-8") as f:
        return {d["id"]: d for d in yaml.safe_load(f)["facts"]}


FACTS = _facts_vocabulary()


def check_findings(findings) -> dict:
    """Every finding names a known fact, holds a JSON-able value of the declared type/enum, a
    'log:<file>:steps A-B' source and a one-sentence detail. Returns {fact: value}."""
    out = {}
    for f in findings:
        spec = FACTS.get(f.fact)
        assert spec is not None, f"unknown fact {f.fact}"
        json.dumps(f.to_dict())
        assert SOURCE_RE.match(f.source), f.source
        assert f.detail and "\n" not in f.detail
        if spec["type"] == "enum":
            assert f.value in spec["values"], (f.fact, f.value)
        elif spec["type"] == "number":
            assert isinstance(f.value, float) and math.isfinite(f.value), (f.fact, f.value)
            if "min" in spec:
                assert f.value >= spec["min"], (f.fact, f.value)
            if "max" in spec:
                assert f.value <= spec["max"], (f.fact, f.value)
        elif spec["type"] == "integer":
            assert isinstance(f.value, int) and not isinstance(f.value, bool), (f.fact, f.value)
        elif spec["type"] == "boolean":
            assert isinstance(f.value, bool), (f.fact, f.value)
        assert f.fact not in out, f"{f.fact} reported twice"
        out[f.fact] = f.value
    return out


# --------------------------------------------------------------------------------------------
# Files made by the real producers
# --------------------------------------------------------------------------------------------

def _train_tiny(steps: int, lr: float, writer_row, seed: int = 0) -> None:
    """A real torch run: a small MLP on a learnable 4-class problem, plain SGD."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: threads only add contention
    try:
        _train_loop(torch, steps, lr, writer_row, seed)
    finally:
        torch.set_num_threads(threads)


def _train_loop(torch, steps, lr, writer_row, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(512, 8, generator=g)
    y = (x[:, 0] > 0).long() * 2 + (x[:, 1] > 0).long()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=steps // 2, gamma=0.5)
    for step in range(steps):
        idx = torch.randint(0, 512, (64,), generator=g)
        out = model(x[idx])
        loss = torch.nn.functional.cross_entropy(out, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc = (out.argmax(1) == y[idx]).float().mean().item()
        writer_row(step, loss.item(), acc, opt.param_groups[0]["lr"])


def test_csv_from_a_real_torch_run(tmp_path):
    path = tmp_path / "train_log.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "train_loss", "train_acc", "lr"])
        _train_tiny(300, 0.5, lambda s, l, a, lr: w.writerow([s, l, a, lr]))
    findings, an = analyze_log(path, num_classes=4)
    facts = check_findings(findings)
    assert an.log.columns == {"loss": "train_loss", "accuracy": "train_acc", "lr": "lr"}
    assert facts["loss_trend"] in ("decreasing", "plateaued")
    assert abs(facts["initial_loss"] - math.log(4)) < 0.25  # starts at chance
    assert facts["current_loss"] < 0.5 and facts["loss_decrease_fraction"] > 0.6
    assert facts["train_accuracy"] > 0.85
    assert facts["loss_at_chance"] is False
    assert facts["lr_final_ratio"] == pytest.approx(0.25)  # StepLR halves twice in 300 steps
    assert facts["run_length_steps"] == 300
    assert an.finding("loss_trend").source == "log:train_log.csv:steps 0-299"


def test_csv_from_a_real_run_that_blows_up(tmp_path):
    path = tmp_path / "lr_too_high.csv"
    first_nan = []
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["iteration", "loss", "accuracy", "learning_rate"])

        def row(s, loss, a, lr):
            if not math.isfinite(loss) and not first_nan:
                first_nan.append(s)
            w.writerow([s, loss, a, lr])
        _train_tiny(120, 1e4, row)
    assert first_nan, "the run was meant to diverge"
    facts = check_findings(analyze_log(path)[0])
    assert facts["loss_trend"] == "nonfinite"
    assert facts["loss_has_nonfinite"] is True
    assert facts["nan_first_step"] == first_nan[0]


def test_tensorboard_folder_written_by_summarywriter(tmp_path):
    pytest.importorskip("tensorboard")
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    logdir = tmp_path / "runs" / "exp1"
    w = torch_tb.SummaryWriter(str(logdir))
    for i in range(200):
        loss = 2.3 * math.exp(-i / 40) + 0.1 if i < 160 else float("nan")
        w.add_scalar("Loss/train", loss, i)
        w.add_scalar("lr", 0.1, i)
        if i % 20 == 0:
            w.add_scalars("Accuracy", {"train": 50 + i / 5, "val": 40 + i / 10}, i)
            w.add_scalar("Loss/val", 1.0 + i / 200, i)
    w.close()
    for target in (tmp_path / "runs", logdir,
                   next(p for p in logdir.iterdir() if "tfevents" in p.name)):
        findings, an = analyze_log(target)
        facts = check_findings(findings)
        assert an.log.format == "tensorboard"
        assert facts["loss_trend"] == "nonfinite"
        assert facts["nan_first_step"] == 160
        assert facts["initial_loss"] == pytest.approx(2.3 + 0.1, rel=0.05)
        assert "lr_final_ratio" in facts
        assert facts["val_loss_trend"] == "increasing"
        assert facts["step_time_trend"] in ("increasing", "steady", "decreasing")
        if target.is_dir():
            # add_scalars wrote Accuracy_train/ and Accuracy_val/ sub-folders, in percent;
            # latest = median of the last 3 values (steps 140-180)
            assert facts["train_accuracy"] == pytest.approx(0.82)
            assert facts["val_accuracy"] == pytest.approx(0.56)
        else:  # the top-level event file alone has no accuracy
            assert "train_accuracy" not in facts


def test_json_lines_written_per_step(tmp_path):
    """Hugging Face Trainer-style records: train lines, eval lines, a summary line."""
    path = tmp_path / "metrics.jsonl"
    rnd = random.Random(0)
    with open(path, "w") as f:
        for step in range(10, 2010, 10):
            f.write(json.dumps({"loss": 2.0 * math.exp(-step / 300) + 0.05 + rnd.gauss(0, 0.01),
                                "grad_norm": 5.0 * math.exp(-step / 500) + 0.5,
                                "learning_rate": 1e-3 * (1 - step / 2000), "epoch": step / 400,
                                "step": step}) + "\n")
            if step % 200 == 0:  # overfits: eval loss bottoms out at step 800
                f.write(json.dumps({"eval_loss": 0.6 + ((step - 800) / 1000) ** 2,
                                    "eval_accuracy": 0.8, "epoch": step / 400,
                                    "step": step}) + "\n")
        f.write(json.dumps({"train_runtime": 12.5, "train_loss": 0.4, "step": 2000}) + "\n")
    findings, an = analyze_log(path)
    facts = check_findings(findings)
    assert an.log.x_label == "step"
    assert an.log.columns["loss"] == "loss"  # not the end-of-run summary 'train_loss'
    assert an.log.columns["val_loss"] == "eval_loss"
    assert facts["loss_trend"] in ("decreasing", "plateaued")
    assert facts["val_loss_trend"] == "increasing"
    assert facts["best_val_fraction"] == pytest.approx((800 - 10) / (2000 - 10), abs=0.01)
    assert facts["val_accuracy"] == pytest.approx(0.8)
    assert facts["grad_norm_trend"] == "shrinking"
    assert facts["grad_norm_max"] == pytest.approx(5.0 * math.exp(-10 / 500) + 0.5, rel=1e-4)
    assert facts["lr_final_ratio"] == pytest.approx(0.0, abs=1e-6)
    assert facts["lr_collapse_fraction"] > 0.95


# --------------------------------------------------------------------------------------------
# The 16 real logs
# --------------------------------------------------------------------------------------------

REAL_FILES = [f"log{i:02d}.csv" for i in range(1, 17)]
needs_real = pytest.mark.skipif(not os.path.isdir(REAL), reason="real logs not present")


@needs_real
@pytest.mark.parametrize("name", REAL_FILES)
def test_every_real_log_parses_into_valid_findings(name):
    findings, an = analyze_log(os.path.join(REAL, name), num_classes=10)
    facts = check_findings(findings)
    assert facts["loss_trend"] in FACTS["loss_trend"]["values"]
    assert an.log.x_label == "epoch"
    assert facts["run_length_steps"] == an.log.rows
    for f in findings:  # every range lies inside the log
        a, b = (float(v) for v in f.source.rsplit("steps ", 1)[1].split("-"))
        assert 1 <= a <= b <= an.log.rows


def _real(name, **kw):
    return check_findings(analyze_log(os.path.join(REAL, name), **kw)[0])


@needs_real
def test_real_nan_run_is_nonfinite_from_the_first_epoch():
    facts = _real("log05.csv")
    assert facts["loss_trend"] == "nonfinite"
    assert facts["loss_has_nonfinite"] is True
    assert facts["nan_first_step"] == 1


@needs_real
def test_real_negative_loss_is_flagged():
    facts = _real("log07.csv")
    assert facts["loss_negative"] is True
    assert facts["loss_trend"] == "diverging"  # runs off to -8e7


@needs_real
def test_real_huge_spikes_are_counted_and_ignored_for_the_level():
    findings, an = analyze_log(os.path.join(REAL, "log13.csv"))
    facts = check_findings(findings)
    assert facts["loss_spikes"] == 2  # epochs 2-3 and epoch 6
    assert [(e.start, e.end) for e in an.events if e.kind == "spike"] == [(2, 3), (6, 6)]
    assert 1.9 < facts["current_loss"] < 2.6  # the level, not the 63018 spike
    assert facts["loss_trend"] == "oscillating"


@needs_real
@pytest.mark.parametrize("name", ["log06.csv", "log09.csv", "log14.csv"])
def test_real_healthy_runs_are_decreasing(name):
    facts = _real(name)
    assert facts["loss_trend"] == "decreasing"
    assert facts["loss_spikes"] == 0  # a fast first epoch is not a spike
    assert facts["loss_decrease_fraction"] > 0.5


@needs_real
@pytest.mark.parametrize("name,classes", [("log02.csv", 100), ("log03.csv", 2)])
def test_real_runs_stuck_at_chance_are_flat(name, classes):
    facts = _real(name, num_classes=classes)
    assert facts["loss_trend"] == "flat"
    assert facts["current_loss"] == pytest.approx(math.log(classes), rel=0.01)
    assert facts["loss_at_chance"] is True
    assert _real(name, num_classes=10)["loss_at_chance"] is False


@needs_real
def test_real_percent_accuracies_become_fractions():
    facts = _real("log01.csv")  # accuracy 78.36 ... 11.2
    assert facts["train_accuracy"] == pytest.approx(0.113, abs=0.01)
    assert _real("log02.csv")["val_accuracy"] == pytest.approx(0.0105, abs=0.001)  # 1.02 %


@needs_real
def test_real_overfitting_run_shows_val_loss_rising_after_an_early_best():
    facts = _real("log12.csv")
    assert facts["val_loss_trend"] == "increasing"
    assert facts["best_val_fraction"] < 0.3
    assert facts["train_accuracy"] > facts["val_accuracy"]


@needs_real
def test_real_run_that_collapses_to_chance_is_diverging():
    findings, an = analyze_log(os.path.join(REAL, "log01.csv"), num_classes=10)
    facts = check_findings(findings)
    assert facts["loss_trend"] == "diverging"  # 0.84 at epoch 2, 2.33 = ln(10) by epoch 10
    assert (an.region.start, an.region.end) == (2, 10)  # shaded from the low point on
    assert "0.839 at epoch 2" in an.finding("loss_trend").detail


# --------------------------------------------------------------------------------------------
# Bad input: one line, naming the file (and the line where it applies), never a traceback
# --------------------------------------------------------------------------------------------

BAD = {
    "empty.csv": (b"", None),
    "blank.csv": (b"\n\n  \n", None),
    "header_only.csv": (b"step,loss\n", 1),
    "cut.csv": (b"step,loss,acc\n1,0.5,0.1\n2,0.4,0.2\n3,0.3", 4),
    "ragged.csv": (b"step,loss\n1,0.5\n2,0.4,9,9\n3,0.3\n", 3),
    "words.csv": (b"step,loss\n1,0.5\n2,oops\n", 3),
    "latin1.csv": ("epoch,loss\n1,0.5\n2,0.4 caf\u00e9\n".encode("latin-1"), 3),
    "garbage.csv": (bytes(random.Random(7).randrange(256) for _ in range(4000)), None),
    "nul.csv": (b"step,loss\n1,0.5\x00\x00\x00\n", None),
    "numbers_only.csv": (b"1,0.5\n2,0.4\n", 1),
    "unknown_cols.csv": (b"a,b,c\n1,2,3\n", 1),
    "broken.jsonl": (b'{"loss": 1.0}\n{"loss": 0.9,,}\n', 2),
    "cut.jsonl": (b'{"loss": 1.0}\n{"loss": 0.9}\n{"lo', 3),
    "not_objects.jsonl": (b'{"loss": 1.0}\n[1, 2]\n', 2),
    "doc.json": (b'{"nothing": "here"}', None),
    "events.out.tfevents.1.host": (bytes(range(256)) * 4, None),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_line_naming_the_file(tmp_path, name):
    data, line = BAD[name]
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        read_log(path)
    msg = str(exc.value)
    assert name in msg and "\n" not in msg
    if line is not None:
        assert f"{name}:{line}:" in msg, msg


def test_bad_input_from_the_command_line_form_of_the_errors(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("step,loss\n0,1.0\n")
    with pytest.raises(InputError, match="not in the log"):
        read_log(path, column_map="loss=my_loss")
    with pytest.raises(InputError, match="unknown role"):
        read_log(path, column_map={"lossy": "loss"})
    with pytest.raises(InputError, match="ROLE=COLUMN"):
        parse_column_map("loss")
    with pytest.raises(InputError, match="no such file"):
        read_log(tmp_path / "missing.csv")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(InputError, match="no TensorBoard event files"):
        read_log(tmp_path / "empty_dir")


def test_missing_tensorboard_package_says_how_to_install(tmp_path, monkeypatch):
    (tmp_path / "events.out.tfevents.1.host").write_bytes(b"\x00" * 16)
    for mod in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")] \
            + ["tensorboard"]:
        monkeypatch.setitem(sys.modules, mod, None)  # as if it were not installed
    with pytest.raises(InputError) as exc:
        read_log(tmp_path)
    assert "pip install traindx[tensorboard]" in str(exc.value)


# --------------------------------------------------------------------------------------------
# Column names, maps, messy-but-valid logs
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,role", [
    ("loss", "loss"), ("train_loss", "loss"), ("training_loss", "loss"), ("train/loss", "loss"),
    ("Loss/train", "loss"), ("train_loss_step", "loss"), ("val_loss", "val_loss"),
    ("valid_loss", "val_loss"), ("eval_loss", "val_loss"), ("validation/loss", "val_loss"),
    ("Loss/val", "val_loss"), ("avg_val_loss", "val_loss"), ("accuracy", "accuracy"),
    ("acc", "accuracy"), ("train_acc", "accuracy"), ("val_acc", "val_accuracy"),
    ("val_accuracy", "val_accuracy"), ("eval_accuracy", "val_accuracy"), ("lr", "lr"),
    ("learning_rate", "lr"), ("lr-Adam", "lr"), ("grad_norm", "grad_norm"), ("step", "step"),
    ("global_step", "step"), ("iteration", "step"), ("epoch", "epoch"),
    ("step_time", "step_time"), ("time", "time"),
    # a regression's or LM's log names the objective by its function
    ("train_mse", "loss"), ("val_mse", "val_loss"), ("test_rmse", "val_loss"), ("mae", "loss"),
    ("train/nll", "loss"), ("val_cross_entropy", "val_loss"),
])
def test_common_column_names_are_recognised(name, role):
    assert match_role(name)[0] == role


@pytest.mark.parametrize("name", ["loss_scale", "kd_loss", "aux_loss", "weight_norm", "batch_size",
                                  "mse_weight", "val_mae_std"])
def test_lookalike_columns_are_not_taken_for_the_loss(name):
    m = match_role(name)
    assert m is None or m[0] not in ("loss", "val_loss")


def test_a_loss_column_outranks_one_named_by_its_function(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("epoch,train_mse,train_loss,val_mse\n" + "".join(
        f"{e},{1.0 / (e + 1):.4f},{2.0 / (e + 1):.4f},{1.1 / (e + 1):.4f}\n" for e in range(10)))
    log = read_log(str(p))
    assert log.columns["loss"] == "train_loss" and log.columns["val_loss"] == "val_mse"


def test_column_map_dict_and_string_forms(tmp_path):
    path = tmp_path / "custom.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["it", "my_quantity", "holdout_qty"])
        for i in range(50):
            w.writerow([i, 2.0 - i * 0.03, 2.1 - i * 0.02])
    with pytest.raises(InputError, match="no loss"):
        read_log(path)
    a = read_log(path, column_map={"loss": "my_quantity", "val_loss": "holdout_qty", "step": "it"})
    b = read_log(path, column_map="loss=my_quantity, val_loss=holdout_qty, step=it")
    for log in (a, b):
        assert log.columns == {"loss": "my_quantity", "val_loss": "holdout_qty"}
        assert log.x_label == "step" and log.x_column == "it"


def test_lightning_style_sparse_rows_restarts_and_repeated_header(tmp_path):
    """Train rows and validation rows interleave with empty cells; the job was resumed from
    step 300 (steps go back) and appended its header again; logging got sparser later."""
    path = tmp_path / "metrics.csv"
    rows = []
    steps = list(range(0, 400, 1)) + list(range(300, 1000, 5))  # restart at 300, then every 5
    for i, s in enumerate(steps):
        if i == 400:
            rows.append("epoch,step,train_loss,val_loss,val_acc")
        rows.append(f"{s // 100},{s},{2.0 * math.exp(-s / 200) + 0.1:.5f},,")
        if s % 100 == 0:
            rows.append(f"{s // 100},{s},,{1.0 + s / 2000:.4f},{75 + s / 100:.1f}")
    path.write_text("epoch,step,train_loss,val_loss,val_acc\n" + "\n".join(rows) + "\n")
    findings, an = analyze_log(path)
    facts = check_findings(findings)
    assert an.log.x_label == "step"
    assert an.log.restarts == [(399, 300)]
    assert any("restart" in n for n in an.log.notes)
    assert [e.start for e in an.events if e.kind == "restart"] == [300]
    assert facts["run_length_steps"] == 996  # steps 0-995, the restart not counted twice
    assert facts["loss_trend"] in ("decreasing", "plateaued")
    assert facts["val_accuracy"] == pytest.approx(0.83)  # percent -> fraction; steps 700-900
    assert facts["val_loss_trend"] == "increasing"


def test_missing_values_nan_strings_and_tensor_reprs(tmp_path):
    path = tmp_path / "messy.tsv"
    lines = ["step\tloss\tacc"]
    for i in range(60):
        loss = "" if i % 7 == 3 else "NA" if i % 11 == 5 else f"tensor({3.0 - i * 0.04:.4f})"
        lines.append(f"{i}\t{loss}\t{0.1 + i / 100:.2f}")
    lines.append("# a comment line")
    lines += [f"{i}\tnan\t0.7" for i in range(60, 64)]
    path.write_text("\n".join(lines) + "\n")
    facts = check_findings(analyze_log(path)[0])
    assert facts["loss_trend"] == "nonfinite"
    assert facts["nan_first_step"] == 60
    assert facts["current_loss"] == pytest.approx(3.0 - 58 * 0.04, abs=0.15)


# --------------------------------------------------------------------------------------------
# Long logs: bounded summaries, exact NaN position, spikes found in buckets
# (time and peak memory on 10^5..10^7 rows: benchmarks/bench_log_ingest.py)
# --------------------------------------------------------------------------------------------

def test_long_log_is_reduced_to_bounded_points_with_exact_events(tmp_path):
    n = 100_000  # > MAX_POINTS rows: 64 rows per bucket
    path = tmp_path / "long.csv"
    with open(path, "w") as f:
        f.write("step,loss,lr\n")
        buf = []
        for i in range(n):
            noise = ((i * 7919) % 1000 - 500) / 25_000  # +-0.02, deterministic
            loss = 0.5 + 1.5 * math.exp(-i / 10_000) + noise
            if i == 61_729:
                loss = 40.0  # one huge spike
            if i >= 95_001:
                loss = float("nan")
            buf.append(f"{i},{loss:.5f},{1e-3 * 0.5 ** (i // 25_000):.3e}\n")
        f.write("".join(buf))
    findings, an = analyze_log(path)
    facts = check_findings(findings)
    for s in an.log.series.values():  # what is kept does not grow with the log
        assert len(s.points) <= MAX_POINTS and len(s.head) <= HEAD_ROWS
        assert len(s.nonfinite_steps) <= MAX_NONFINITE_STEPS
    s = an.log["loss"]
    assert s.rows == n and s.nonfinite == n - 95_001 and s.rows_per_point > 1
    assert facts["nan_first_step"] == 95_001
    assert facts["loss_trend"] == "nonfinite"
    spikes = [e for e in an.events if e.kind == "spike"]
    assert len(spikes) == 1 and spikes[0].start <= 61_729 <= spikes[0].end
    assert facts["initial_loss"] == pytest.approx(2.0, abs=0.05)  # from the first raw rows
    assert facts["lr_final_ratio"] == pytest.approx(0.125)


# --------------------------------------------------------------------------------------------
# Plot and import hygiene
# --------------------------------------------------------------------------------------------

@needs_real
def test_plot_writes_a_png_with_the_findings(tmp_path):
    pytest.importorskip("matplotlib")
    from traindx.probes.readers.plot import plot_curves

    _, an = analyze_log(os.path.join(REAL, "log13.csv"))
    out = plot_curves(an, tmp_path / "log13.png")
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    out2 = plot_curves(read_log(os.path.join(REAL, "log05.csv")), tmp_path / "log05.png")
    assert os.path.getsize(out2) > 10_000


def test_reading_and_analysing_logs_never_imports_torch(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("step,loss\n" + "".join(f"{i},{1.0 / (i + 1)}\n" for i in range(20)))
    code = ("import sys; from traindx.probes.readers.logs import analyze_log; "
            "import traindx.probes.readers.plot, traindx.probes.readers.curves; "
            f"analyze_log({str(path)!r}); "
            "assert 'torch' not in sys.modules, 'torch imported'; "
            "assert 'tensorboard' not in sys.modules; assert 'matplotlib' not in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


def test_json_documents_trainer_state_and_keras_history(tmp_path):
    state = {"global_step": 30, "log_history": [
        {"loss": 2.0 - 0.05 * i, "learning_rate": 1e-4, "epoch": i / 10, "step": i}
        for i in range(1, 31)] + [{"eval_loss": 1.5, "epoch": 3.0, "step": 30}]}
    (tmp_path / "trainer_state.json").write_text(json.dumps(state, indent=2))
    facts = check_findings(analyze_log(tmp_path / "trainer_state.json")[0])
    assert facts["loss_trend"] == "decreasing" and facts["val_loss"] == 1.5
    history = {"loss": [1.0 / (e + 1) for e in range(12)], "accuracy": [0.5 + e / 30 for e in range(12)],
               "val_loss": [1.2 / (e + 1) + 0.01 * e for e in range(12)]}
    (tmp_path / "history.json").write_text(json.dumps(history))
    findings, an = analyze_log(tmp_path / "history.json")
    facts = check_findings(findings)
    assert an.log.x_label == "epoch" and facts["run_length_steps"] == 12
    assert facts["train_accuracy"] == pytest.approx(0.5 + 10 / 30, abs=0.01)


def test_tiny_logs_and_date_time_stamps(tmp_path):
    (tmp_path / "one.csv").write_text("step,loss\n0,2.3\n")
    facts = check_findings(analyze_log(tmp_path / "one.csv")[0])
    assert facts["loss_trend"] == "flat" and facts["run_length_steps"] == 1
    (tmp_path / "two.csv").write_text("step,loss\n0,2.3\n1,1.1\n")
    assert check_findings(analyze_log(tmp_path / "two.csv")[0])["loss_trend"] == "decreasing"
    lines = ["timestamp,epoch,loss"]
    for e in range(20):  # each epoch takes longer: 60 s, 70 s, ...
        t = 1_700_000_000 + sum(60 + 10 * k for k in range(e + 1))
        stamp = __import__("datetime").datetime.fromtimestamp(t).isoformat(sep=" ")
        lines.append(f"{stamp},{e},{1.0 / (e + 1):.4f}")
    (tmp_path / "dated.csv").write_text("\n".join(lines) + "\n")
    facts = check_findings(analyze_log(tmp_path / "dated.csv")[0])
    assert facts["step_time_trend"] == "increasing"


@pytest.mark.parametrize("schedule,answered", [("cosine", True), ("constant", False), ("collapsed_first", False)])
def test_a_plateau_that_outlasts_the_schedules_decay_answers_lr_decay_helps(tmp_path, schedule, answered):
    # the loss levels off at epoch 5; the LR is then annealed to ~0 (cosine), held (constant), or
    # had already collapsed before the plateau began (a schedule that ends training early)
    rows = []
    for e in range(40):
        loss = 0.7 + 0.9 * math.exp(-e / 1.5) + 0.004 * ((-1) ** e)
        lr = {"cosine": 0.05 * 0.5 * (1 + math.cos(math.pi * e / 40)),
              "constant": 0.05,
              "collapsed_first": 0.05 * 0.3 ** e}[schedule]
        rows.append(f"{e},{loss:.5f},{lr:.6g}\n")
    p = tmp_path / f"{schedule}.csv"
    p.write_text("epoch,train_loss,lr\n" + "".join(rows))
    facts = {f.fact: f for f in analyze_log(str(p))[0]}
    assert facts["loss_trend"].value == "plateaued"
    if answered:
        assert facts["lr_decay_helps"].value is False and "schedule cut" in facts["lr_decay_helps"].detail
    else:
        assert "lr_decay_helps" not in facts


def _table_rows(n: int) -> list:
    rows = ["epoch,step,train_loss,train_acc,val_loss,val_acc"]
    for e in range(1, n + 1):
        acc, val_acc = 0.7 + 0.29 * e / n, min(1.0, 0.8 + 0.2 * e / n)
        rows.append(f"{e},{10 * e},{0.6 / e:.5f},{acc:.5f},{0.5 / e:.5f},{val_acc:.5f}")
    return rows


def test_a_test_line_printed_after_a_csv_shaped_table_is_read(tmp_path):
    """A script that prints its epochs as CSV rows and a held-out test result after them
    (``# test_loss=... test_acc=...``): the test accuracy is evidence (validation at 100% against a
    test at 88% is the leakage signature), so the file is read as console output, table included."""
    p = tmp_path / "console.log"
    p.write_text("\n".join(_table_rows(20) + ["# test_loss=0.27230 test_acc=0.88500"]) + "\n")
    findings, _ = analyze_log(str(p))
    got = {f.fact: f.value for f in findings}
    assert got["test_accuracy"] == pytest.approx(0.885)
    assert got["val_accuracy"] >= 0.98
    assert got["train_loss"] == pytest.approx(0.6 / 20, rel=0.2)


def test_a_plain_csv_stays_a_csv(tmp_path):
    """Rows only (and a prose comment): the CSV reader, as before."""
    p = tmp_path / "metrics.csv"
    p.write_text("# written by my logger\n" + "\n".join(_table_rows(20)) + "\n")
    log = read_log(str(p))
    assert log.format == "csv"
    assert not hasattr(log, "held_out")
