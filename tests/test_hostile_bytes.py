"""Logs whose bytes are not clean UTF-8, and paths that are symbolic links to nowhere.

A console log is a byte stream: cut with ``tail -c``, copied while the run was still writing, or
printed through a legacy code page, it holds a byte or two that are not UTF-8. The run's metrics
are still there and are read (the console reader replaces such bytes); a table or JSON log with
such a byte is still refused with its line. A UTF-16 file (Windows PowerShell's ``>``) is named
as UTF-16, not "binary data". A symlink loop is named as one, not as a missing file.
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


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_log_is_named_utf16_not_binary(tmp_path, encoding):
    path = tmp_path / "train.log"
    data = "step,loss\n1,2.5\n2,2.4\n".encode(encoding)
    path.write_bytes(data if data[:2] in (b"\xff\xfe", b"\xfe\xff") else b"\xfe\xff" + data)
    with pytest.raises(InputError) as err:
        read_log(path)
    msg = str(err.value)
    assert "UTF-16" in msg and "binary" not in msg and f"{path}:1:" in msg and "\n" not in msg


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
