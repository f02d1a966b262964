"""A process that loads the knowledge base again gets the first load's result, never a stale or shared one."""
import os

import pytest

from traindx.engine import kbmemo
from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb, pack_files


def _pack(tmp_path, value) -> str:
    pack = tmp_path / "pack"
    pack.mkdir(exist_ok=True)
    (pack / "p.yaml").write_text(f"kind: parameters\noverrides:\n  code.default_lr.sgd: {value}\n")
    return str(pack)


def test_a_second_load_is_a_copy_the_caller_may_change(tmp_path):
    pack = _pack(tmp_path, 0.5)
    first = load_kb([pack], entry_point_packs=False)
    first.rules.clear()
    first.parameters["code.default_lr.sgd"]["value"] = 9.0
    second = load_kb([pack], entry_point_packs=False)
    assert second is not first
    assert second.rules, "a change to one caller's knowledge base leaked into the next load"
    assert second.param("code.default_lr.sgd") == 0.5


def test_an_edited_pack_is_read_afresh_even_with_the_same_size_and_time(tmp_path):
    pack = _pack(tmp_path, 0.5)
    path = os.path.join(pack, "p.yaml")
    assert load_kb([pack], entry_point_packs=False).param("code.default_lr.sgd") == 0.5
    st = os.stat(path)
    _pack(tmp_path, 0.7)                       # the same number of bytes
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size
    assert load_kb([pack], entry_point_packs=False).param("code.default_lr.sgd") == 0.7


def test_a_broken_pack_fails_on_every_load(tmp_path):
    pack = tmp_path / "bad"
    pack.mkdir()
    (pack / "p.yaml").write_text("kind: parameters\noverrides:\n  no.such.parameter: 1\n")
    for _ in range(2):
        with pytest.raises(KBError):
            load_kb([str(pack)], entry_point_packs=False)


def test_the_key_names_every_file_a_load_reads(tmp_path):
    pack = _pack(tmp_path, 0.5)
    before = kbmemo.key([pack], pack_files, core=True)
    os.mkdir(os.path.join(pack, "rules"))
    assert kbmemo.key([pack], pack_files, core=True) == before          # an empty folder reads nothing
    with open(os.path.join(pack, "rules", "r.yaml"), "w") as f:
        f.write("kind: rules\nrules: []\n")
    assert kbmemo.key([pack], pack_files, core=True) != before
    assert kbmemo.key([pack], pack_files, core=False) != kbmemo.key([pack], pack_files, core=True)


def test_a_pipe_in_a_pack_is_refused_by_the_loader_not_waited_on_by_the_memo(tmp_path, monkeypatch):
    import time

    from traindx.engine import bounded
    monkeypatch.setattr(bounded, "limits", lambda params=None: bounded.Limits(pipe_wait_seconds=1))
    pack = tmp_path / "pack"
    (pack / "rules").mkdir(parents=True)
    os.mkfifo(pack / "rules" / "r.yaml")
    assert kbmemo.key([str(pack)], pack_files, core=True) is None          # not hashed: a pipe is never opened to read
    start = time.monotonic()
    with pytest.raises(KBError, match="pipe") as err:
        load_kb([str(pack)], entry_point_packs=False)
    assert time.monotonic() - start < 30
    assert str(pack / "rules" / "r.yaml") in str(err.value)
