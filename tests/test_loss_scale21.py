"""A mixed-precision loss scale that collapses (issue 13, session 21): a dynamic loss scaler
(torch.amp GradScaler, apex, DeepSpeed, fairseq) halves its scale only on a step whose fp16
gradients overflowed, and skips that step. A scale the log prints (a ``loss_scale`` column, or the
scale an overflow report sets) that keeps halving down to a fraction of 1, or to 0, is a run whose
gradients overflow at nearly every step: explosion, with half-precision overflow named, however
flat the printed loss. A scaler that backs off a few times at the start and then holds far above
1 is its normal warm-up: healthy, no cause. Each log is invented, in the print shape of its tool.
Torch-free.
"""

import json

import pytest
from conftest import diagnose_log_report, report_symptom, run_cli

from traindx.probes.readers.console import read_console_text

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def _top(rep):
    """The cause the report leads with (named first, decided or not)."""
    causes = rep.get("root_causes") or []
    return causes[0]["id"] if causes else None


# ---------------------------------------------------------------- a loss_scale column that collapses
def _fairseq_column(scales) -> str:
    """fairseq ``train_inner`` records (``key=value``), the loss nearly flat, the printed loss
    scale ``scales[i]`` on record ``i``."""
    out = []
    for i, sc in enumerate(scales):
        upd = 200 * (i + 1)
        loss = 7.412 - 0.004 * i + (0.01 if i % 2 else 0.0)
        out.append(f"2021-06-02 10:{10 + i:02d}:31 | INFO | train_inner | epoch 001:    {upd} / 5120 "
                   f"loss={loss:.3f}, nll_loss={loss - 0.6:.3f}, ppl={2 ** (loss - 0.6):.2f}, wps=41220.5, "
                   f"ups=1.12, wpb=36810, bsz=1203.4, num_updates={upd}, lr=0.0005, gnorm=1.87, "
                   f"loss_scale={sc}, train_wall=178, wall={180 * (i + 1)}")
    return "\n".join(out) + "\n"


_COLLAPSING = ["64", "16", "4", "1", "0.25", "0.0625", "0.0156", "0.0039", "0.001", "0.0002", "0.0001", "0"]
_STEADY = ["128", "64", "64", "64", "64", "64", "128", "64", "64", "64", "64", "64"]


def test_a_collapsing_loss_scale_column_is_an_fp16_explosion(tmp_path):
    rep, _ = _diagnose(tmp_path, _fairseq_column(_COLLAPSING))
    facts = _facts(rep)
    assert facts.get("loss_scale_collapsed") is True
    assert _symptom(rep) == "explosion"
    assert _top(rep) == "fp16_overflow"


def test_a_loss_scale_column_that_holds_is_no_collapse(tmp_path):
    rep, _ = _diagnose(tmp_path, _fairseq_column(_STEADY))
    assert "loss_scale_collapsed" not in _facts(rep)
    assert _symptom(rep) != "explosion"


def test_megatrons_constant_loss_scale_of_one_is_no_collapse():
    """Megatron prints ``loss scale: 1.0`` on every record of a bf16 run: no fall."""
    lines = [f" iteration {100 * i:8d}/   20000 | consumed samples: {51200 * i:10d} | elapsed time per "
             f"iteration (ms): 812.4 | learning rate: 3.000E-04 | global batch size:   512 | lm loss: "
             f"{4.1 - 0.05 * i:.6E} | loss scale: 1.0 | grad norm: 0.412 | number of skipped iterations:   0 |"
             for i in range(1, 13)]
    log = read_console_text("\n".join(lines) + "\n")
    assert log.scale_fall is None


def test_a_config_dumps_dynamic_loss_scale_of_zero_is_no_reading():
    """DeepSpeed's ``"loss_scale": 0`` in a printed config means a dynamic scale, not a scale of 0."""
    text = ('[INFO] DeepSpeedEngine configuration: {"fp16": {"enabled": true, "loss_scale": 0, '
            '"initial_scale_power": 16, "loss_scale_window": 1000}}\n' + _fairseq_column(_STEADY))
    assert read_console_text(text).scale_fall is None


# --------------------------------------------- fairseq overflow reports down to the minimum scale
def _fairseq_overflows() -> str:
    out = []
    scale = 128.0
    for i in range(10):
        upd = 100 * (i + 1)
        out.append(f"| epoch 003:   {upd} / 2210 loss=5.913, nll_loss=4.701, ppl=26.01, wps=18233, ups=0.9, "
                   f"wpb=20480, bsz=640, num_updates={3000 + upd}, lr=0.0003, gnorm=2.114, clip=0.000, "
                   f"oom=0.000, loss_scale={scale:.3f}, wall={900 + 60 * i}, train_wall={850 + 60 * i}")
        for _ in range(2):
            scale = max(scale / 2, 0.0001)
            out.append(f"| WARNING: overflow detected, setting loss scale to: {scale:g}")
    return "\n".join(out) + "\n"


def test_fairseq_overflows_down_to_the_minimum_scale_are_an_fp16_explosion(tmp_path):
    rep, _ = _diagnose(tmp_path, _fairseq_overflows())
    assert _facts(rep).get("loss_scale_collapsed") is True
    assert _symptom(rep) == "explosion"
    assert _top(rep) == "fp16_overflow"


# ------------------------------------ a few early back-offs, then a steady scale: the warm-up
def _apex_warmup() -> str:
    out = ["Selected optimization level O1:  Pure FP16 training.",
           "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
           "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 16384.0",
           "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 8192.0"]
    loss = 2.302
    for i in range(1, 16):
        loss *= 0.88
        out.append(f"Epoch: [{i // 5}][{(i % 5) * 100}/500]  Loss {loss:.4f}  Prec@1 {min(99.0, 12 + 5.5 * i):.3f}  "
                   f"lr 0.1000  loss_scale 8192.0")
    return "\n".join(out) + "\n"


def test_a_few_early_back_offs_then_a_steady_scale_is_healthy(tmp_path):
    rep, _ = _diagnose(tmp_path, _apex_warmup())
    facts = _facts(rep)
    assert "loss_scale_collapsed" not in facts
    assert facts.get("grads_have_nan") is not True
    assert _symptom(rep) == "healthy"
    assert not any(c["id"] == "fp16_overflow" and c["contributions"] for c in rep["root_causes"])


# ------------------------- DeepSpeed's fused optimizer: "Reducing dynamic loss scale from A to B"
def _deepspeed_reductions(last: float) -> str:
    out = []
    scale, it = 65536.0, 0
    while scale > last:
        it += 10
        out.append(f"[2022-03-01 09:00:{it % 60:02d},101] [INFO] [timer.py:166:stop] 0/{it}, "
                   f"SamplesPerSec=31.2{it % 7}")
        out.append("[2022-03-01 09:00:00,190] [INFO] [fused_optimizer.py:314:_update_scale] ")
        out.append(f"Grad overflow on iteration {it}")
        out.append(f"[2022-03-01 09:00:00,190] [INFO] [fused_optimizer.py:316:_update_scale] Reducing dynamic "
                   f"loss scale from {scale} to {scale / 2}")
        scale /= 2
    return "\n".join(out) + "\n"


def test_deepspeed_reductions_far_below_one_are_a_collapse():
    assert read_console_text(_deepspeed_reductions(0.25)).scale_fall is not None


def test_deepspeed_reductions_that_stop_far_above_one_are_no_collapse():
    assert read_console_text(_deepspeed_reductions(1024.0)).scale_fall is None


# ------------------------------------------ the same fall in a structured log (CSV, JSON lines, TensorBoard)
def _csv(scales, name="loss_scale") -> str:
    """A CSV a training loop writes: step, a nearly flat loss, the scaler's scale per record."""
    rows = [f"step,loss,{name}"]
    rows += [f"{100 * (i + 1)},{7.41 - 0.003 * i + (0.01 if i % 2 else 0.0):.4f},{sc}" for i, sc in enumerate(scales)]
    return "\n".join(rows) + "\n"


def _read(path):
    """``traindx diagnose --log PATH`` as a user runs it: the JSON report."""
    r = run_cli("diagnose", "--log", str(path), "--non-interactive", "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_csv_loss_scale_column_that_collapses_is_the_same_fp16_explosion(tmp_path):
    """The console reader and the structured readers share one derivation (probes/readers/loss_scale.py):
    a CSV's loss_scale column falling to a fraction of 1 is read as the fairseq column above is."""
    (tmp_path / "m.csv").write_text(_csv(_COLLAPSING))
    rep = _read(tmp_path / "m.csv")
    assert _facts(rep).get("loss_scale_collapsed") is True
    assert _symptom(rep) == "explosion" and _top(rep) == "fp16_overflow"
    (tmp_path / "ok.csv").write_text(_csv(_STEADY))
    rep = _read(tmp_path / "ok.csv")
    assert "loss_scale_collapsed" not in _facts(rep) and _symptom(rep) != "explosion"


def test_a_placeholder_loss_scale_column_of_zeros_is_no_fall(tmp_path):
    (tmp_path / "m.csv").write_text(_csv(["0"] * 12))
    assert "loss_scale_collapsed" not in _facts(_read(tmp_path / "m.csv"))


def test_json_lines_with_deepspeeds_loss_scale_key_collapse(tmp_path):
    lines = [json.dumps({"step": 50 * (i + 1), "train/loss": 2.31 - 0.001 * i, "train/loss_scale": float(sc)})
             for i, sc in enumerate(_COLLAPSING)]
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n")
    rep = _read(tmp_path / "m.jsonl")
    assert _facts(rep).get("loss_scale_collapsed") is True and _top(rep) == "fp16_overflow"


def test_a_tensorboard_loss_scale_tag_that_collapses(tmp_path):
    """DeepSpeed's monitor tags (``Train/Samples/train_loss``, ``Train/Samples/lr``,
    ``Train/Samples/loss_scale``: its documented fields) read as the loss, the lr and the loss scale."""
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    writer = EventFileWriter(str(tmp_path))
    for i, sc in enumerate(_COLLAPSING):
        meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))
        vals = [summary_pb2.Summary.Value(tag="Train/Samples/train_loss", simple_value=2.3 - 0.001 * i, metadata=meta),
                summary_pb2.Summary.Value(tag="Train/Samples/lr", simple_value=1e-4, metadata=meta),
                summary_pb2.Summary.Value(tag="Train/Samples/loss_scale", simple_value=float(sc), metadata=meta)]
        writer.add_event(event_pb2.Event(step=100 * i, wall_time=1.0 + i, summary=summary_pb2.Summary(value=vals)))
    writer.close()
    rep = _read(tmp_path)
    assert _facts(rep).get("loss_scale_collapsed") is True and _top(rep) == "fp16_overflow"
