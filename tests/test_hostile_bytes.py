"""Logs whose bytes are not clean UTF-8, and paths that are symbolic links to nowhere.

A console log is a byte stream: cut with ``tail -c``, copied while the run was still writing, or
printed through a legacy code page, it holds a byte or two that are not UTF-8. The run's metrics
are still there and are read (the console reader replaces such bytes); a table or JSON log with
such a byte is still refused with its line. A UTF-16 file (Windows PowerShell's ``>``) is read,
converted; a pipe is read once, and one nothing writes to is refused after a bounded wait; a device
is refused. A symlink loop is named as one, not as a missing file. A W&B run folder holding only
``wandb-history.jsonl`` is read as the W&B run it is.
"""

import os

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.logs import read_log


def _tqdm_log() -> bytes:
    lines = []
    for epoch in range(3):
        for pct in range(0, 101, 10):
            bar = "█" * (pct // 10) + " " * (10 - pct // 10)
            loss = 2.0 - epoch * 0.3 - pct / 1000
            lines.append(f"Epoch {epoch}: {pct}%|{bar}| {pct}/100 [00:0{epoch}<00:00, loss={loss:.3f}]")
        lines.append(f"epoch {epoch} val_loss {2.1 - epoch * 0.3:.3f}")
    return ("\n".join(lines) + "\n").encode("utf-8")


@pytest.mark.parametrize("cut", ["head", "tail"])
def test_a_console_log_cut_inside_a_character_is_read_not_refused(tmp_path, cut):
    data = _tqdm_log()
    block = "█".encode()
    # `tail -c`: starts inside a character; a copy taken mid-write: ends inside one
    data = data[data.index(block) + 1:] if cut == "tail" else data[: data.rindex(block) + 2]
    path = tmp_path / "train.log"
    path.write_bytes(data)
    log = read_log(path)
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].rows >= 20


def test_a_console_log_in_a_legacy_code_page_is_read(tmp_path):
    path = tmp_path / "nohup.out"
    path.write_bytes("".join(f"step {i} loss {2.0 - i / 100:.3f} (modèle résumé)\n"
                             for i in range(50)).encode("latin-1"))
    log = read_log(path)
    assert log.series["loss"].rows == 50


def test_a_table_with_a_byte_that_is_not_utf8_is_still_refused_with_its_line(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_bytes(b"step,loss\n1,2.5\n2,2.4\n3,2.3\xe9\n")
    with pytest.raises(InputError, match="not UTF-8") as err:
        read_log(path)
    assert f"{path}:4:" in str(err.value)


def _epochs(n: int = 30) -> str:
    return "".join(f"epoch {i} loss {2.0 - i * 0.05:.3f} val_loss {2.1 - i * 0.04:.3f}\n" for i in range(n))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_console_log_is_read_converted(tmp_path, encoding):
    # Windows PowerShell's `>` writes UTF-16 with a byte-order mark; `tail -c` of it has none
    path = tmp_path / "train.log"
    path.write_bytes(_epochs().encode(encoding))
    log = read_log(path)
    assert log.series["loss"].rows == 30 and log.series["val_loss"].rows == 30
    assert log.path == str(path)
    assert any("UTF-" in n and "converted" in n for n in log.notes)


def test_an_excel_unicode_text_export_is_read_as_a_table(tmp_path):
    # Excel's "Unicode Text": UTF-16 with a byte-order mark, tab-separated, CRLF
    rows = "step\tloss\tval_loss\r\n" + "".join(f"{i}\t{2 - i * 0.05:.3f}\t{2.1 - i * 0.04:.3f}\r\n"
                                                  for i in range(30))
    path = tmp_path / "metrics.txt"
    path.write_bytes(rows.encode("utf-16"))
    log = read_log(path)
    assert log.format == "csv" and log.series["loss"].rows == 30


def test_a_utf16_table_with_a_bad_cell_names_the_users_file_and_line(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_bytes("step,loss\n1,2.5\n2,2.4\n3,abc\n4,2.2\n".encode("utf-16"))
    with pytest.raises(InputError, match="not a number") as err:
        read_log(path)
    assert str(err.value).startswith(f"{path}:4:"), str(err.value)   # the user's file, not the copy


def test_a_log_that_is_a_device_is_refused_in_one_line():
    with pytest.raises(InputError, match="a device, not a log file") as err:
        read_log("/dev/zero")
    assert str(err.value).startswith("/dev/zero:")


def _params(**limits):
    from traindx.engine.parameters import shipped
    return {**shipped(), **{f"limits.{k}": v for k, v in limits.items()}}


def test_a_named_pipe_nothing_writes_to_is_refused_not_waited_on_for_ever(tmp_path):
    import time
    fifo = tmp_path / "train.log"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(InputError, match="pipe nothing was written to") as err:
        read_log(fifo, params=_params(pipe_wait_seconds=1))
    assert time.monotonic() - start < 5
    assert str(err.value).startswith(f"{fifo}:")


def test_a_pipe_is_read_once_whole_and_one_left_open_is_read_up_to_its_pause(tmp_path):
    import subprocess
    import sys
    fifo = tmp_path / "train.log"
    os.mkfifo(fifo)
    text = _epochs(20)
    # a writer that closes the pipe (process substitution), then one that keeps it open (tail -f)
    for hold in (0, 30):
        code = (f"import sys, time; f = open({str(fifo)!r}, 'w'); f.write({text!r}); f.flush(); "
                f"time.sleep({hold}); f.close()")
        writer = subprocess.Popen([sys.executable, "-c", code])
        try:
            log = read_log(fifo, params=_params(pipe_wait_seconds=2))
            assert log.series["loss"].rows == 20 and log.path == str(fifo)
        finally:
            writer.kill()
            writer.wait()


@pytest.mark.parametrize("what", ["code", "config"])
def test_a_code_or_config_file_that_is_a_pipe_or_device_is_refused_in_one_line(tmp_path, monkeypatch, what):
    from traindx.engine import bounded
    from traindx.engine.frontends import gather
    monkeypatch.setattr(bounded, "limits", lambda params=None: bounded.Limits(pipe_wait_seconds=1))
    fifo = tmp_path / ("train.py" if what == "code" else "config.yaml")
    os.mkfifo(fifo)
    read = gather.read_code if what == "code" else gather.read_config
    with pytest.raises(InputError, match="pipe nothing was written to") as err:
        read(str(fifo))
    assert str(err.value).startswith(f"{fifo}:")
    with pytest.raises(InputError, match="a device") as err:
        read("/dev/zero")
    assert "\n" not in str(err.value)


def test_a_wandb_run_folder_holding_only_its_history_is_read(tmp_path):
    import json
    from traindx.engine.frontends import gather
    files = tmp_path / "wandb" / "run-20240101_120000-ab12cd34" / "files"
    files.mkdir(parents=True)
    with open(files / "wandb-history.jsonl", "w") as f:
        for i in range(30):
            f.write(json.dumps({"_step": i, "_runtime": 1.5 * i, "train/loss": 2 - i * 0.05,
                                "val/loss": 2.1 - i * 0.02 + 0.03 * max(0, i - 15)}) + "\n")
    for where in (tmp_path / "wandb", files.parent):
        read = gather.read_log(str(where))
        assert "loss" in read.analysis.log.series and "val_loss" in read.analysis.log.series, read.summary


def test_a_symlink_loop_is_named_as_one_everywhere(tmp_path):
    from traindx.engine.frontends import gather
    from traindx.engine.frontends.mcp_server import Engine, ToolFailure
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    os.symlink(b, a)
    os.symlink(a, b)
    with pytest.raises(InputError, match="symbolic link that loops"):
        read_log(a)
    with pytest.raises(InputError, match="symbolic link that loops"):
        gather._need(str(a), "log")
    eng = Engine()
    sid = eng.call("start_diagnosis", {"complaint": "loss is nan"})["session_id"]
    with pytest.raises(ToolFailure, match="symbolic link that loops") as err:
        eng.call("read_log", {"session_id": sid, "path": str(a)})
    assert str(a) in str(err.value)


def test_a_dangling_symlink_names_its_target(tmp_path):
    from traindx.engine.frontends import gather
    link = tmp_path / "train.py"
    os.symlink(tmp_path / "gone" / "train.py", link)
    with pytest.raises(InputError, match="symbolic link to .*gone.*which does not exist") as err:
        gather._need(str(link), "code file")
    assert str(err.value).startswith(f"{link}:")


def test_a_script_that_is_a_named_pipe_is_refused_before_anything_runs(tmp_path):
    from traindx.probes.runner.supervise import check_script
    fifo = tmp_path / "train.py"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="named pipe, not a Python script") as err:
        check_script(fifo)   # before: read_bytes() blocked for ever waiting for a writer
    assert str(err.value).startswith(f"{fifo}:")


@pytest.mark.parametrize("kwargs, message", [
    ({"facts": [("learning_rate", 0.1)]}, "answers are a mapping of fact names"),
    ({"facts": {"batch_size": 10 ** 5000}}, "batch_size: the number given is too large to use"),
    ({"complaint": b"loss is nan"}, "the complaint is text, got bytes"),
    ({"complaint": 42}, "the complaint is text, got int"),
    ({"findings": [1, "loss nan"]}, "a finding is a traindx Finding"),
])
def test_the_python_api_says_what_is_wrong_with_what_it_was_given(kwargs, message):
    # before: AttributeError / TypeError / a ValueError about int-to-string conversion, from inside
    from traindx.engine.api import diagnose
    with pytest.raises(InputError, match=message):
        diagnose(**kwargs)


def test_an_mlflow_store_with_broken_metric_files_reads_the_good_ones(tmp_path):
    from traindx.engine.frontends import gather
    metrics = tmp_path / "mlruns" / "0" / "abc123" / "metrics"
    metrics.mkdir(parents=True)
    (metrics / "loss").write_text("".join(f"{1700000000000 + i} {2 - i * 0.01} {i}\n" for i in range(50)))
    os.symlink(tmp_path / "gone", metrics / "val_loss")        # before: FileNotFoundError traceback
    os.symlink("train_acc", metrics / "train_acc")             # a loop: before, OSError ELOOP traceback
    os.mkfifo(metrics / "val_accuracy")                        # before: blocked for ever
    read = gather.read_log(str(tmp_path / "mlruns"))
    assert read.analysis.log.series["loss"].rows == 50
    assert sum("not a regular file" in n for n in read.notes) == 3


def test_an_mlflow_metric_file_without_newlines_is_one_line_not_its_size_in_memory(tmp_path):
    from traindx.probes.readers.runs import read_mlflow
    metrics = tmp_path / "run" / "metrics"
    metrics.mkdir(parents=True)
    (metrics / "loss").write_text("1" * (2 << 20))
    with pytest.raises(InputError, match="line longer than") as err:
        read_mlflow(str(tmp_path / "run"))
    assert str(err.value).startswith(f"{metrics / 'loss'}:1:")


def test_a_named_pipe_among_tensorboard_event_files_is_passed_over(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    writer = EventFileWriter(str(tmp_path))
    for i in range(20):
        value = summary_pb2.Summary.Value(tag="loss", simple_value=2 - i * 0.05)
        writer.add_event(event_pb2.Event(step=i, wall_time=1.0 + i, summary=summary_pb2.Summary(value=[value])))
    writer.close()
    os.mkfifo(tmp_path / "events.out.tfevents.2.host")    # before: the loader blocked on it for ever
    log = read_log(tmp_path)
    assert log.series["loss"].rows == 20


def test_a_knowledge_pack_given_as_a_file_or_a_symlink_loop_says_so(tmp_path):
    from traindx.engine.errors import KBError
    from traindx.engine.loader import load_kb
    f = tmp_path / "rules.yaml"
    f.write_text("kind: rules\nrules: []\n")
    with pytest.raises(KBError, match="a folder of YAML files, not a file"):   # before: "not found"
        load_kb([str(f)])
    loop = tmp_path / "pack"
    os.symlink(loop, loop)
    with pytest.raises(KBError, match="symbolic link that loops"):
        load_kb([str(loop)])


@pytest.mark.parametrize("noise", ["\x1b[2K", "\x1b[0m\x1b[?25h", "\x1b[1m\x1b[0m   "])
def test_a_line_of_terminal_codes_only_is_skipped_not_a_crash(tmp_path, noise):
    p = tmp_path / "run.out"      # before: IndexError in the console reader
    p.write_text("".join(f"epoch {e} loss {2.3 - 0.2 * e:.2f}\n{noise}\n" for e in range(6)))
    loss = read_log(str(p)).series["loss"]
    assert loss.rows == 6 and (loss.min, loss.max, loss.last_value) == pytest.approx((1.3, 2.3, 1.3))
