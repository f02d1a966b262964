"""Logs whose bytes the readers cannot open as they are: UTF-16/UTF-32 text and pipes.

Every log reader opens its path as UTF-8 and may open it more than once (a sniff, then the
reader). Two kinds of input do not survive that:

- **UTF-16 or UTF-32 text**: Windows PowerShell 5's ``>`` and ``Tee-Object`` write UTF-16 (with a
  byte-order mark), so does Excel's "Unicode Text" export; ``tail -c`` of such a file loses the
  mark. The run's metrics are there, one NUL byte beside each ASCII character.
- **a pipe** (``--log <(ssh host cat train.log)``, a named pipe): it can be read once, and a named
  pipe nobody writes to blocks ``open`` for ever.

Both are copied, once and streaming (1 MiB at a time; bounded by ``limits.max_log_bytes``), into a
UTF-8 file in a private temporary folder under the log's own name, which the readers then read;
the caller removes the folder (:func:`materialized`). Devices (``/dev/zero``, a terminal) are no
logs and are refused. Torch-free.
"""

from __future__ import annotations

import codecs
import itertools
import os
import shutil
import tempfile
from contextlib import contextmanager

from traindx.engine import bounded
from traindx.engine.errors import InputError

#: how much of a file is looked at to tell UTF-16/UTF-32 from UTF-8 (a bound on work)
_PROBE_BYTES = 4096
#: copy block (a bound on memory)
_CHUNK = 1 << 20
#: UTF-16 without a byte-order mark: at least this share of the sampled code units hold one NUL
#: byte on the same side (ASCII text in UTF-16: every unit does; UTF-8 text holds no NUL at all) —
#: an encoding test, not a diagnostic threshold
_WIDE_SHARE = 0.9

_ENC_NAMES = {"utf-16": "UTF-16", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE", "utf-32": "UTF-32"}
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def wide_encoding(head: bytes) -> str | None:
    """``"utf-16"``, ``"utf-16-le"``, ``"utf-16-be"`` or ``"utf-32"`` when ``head`` (a file's first
    bytes) is text in that encoding, else None."""
    head = head[:_PROBE_BYTES]
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    units = len(head) // 2
    if units < 2 or b"\x00" not in head:
        return None
    # a NUL byte on one side of (nearly) every 2-byte unit, none on the other: ASCII in UTF-16
    even = sum(1 for i in range(0, units * 2, 2) if head[i] == 0)
    odd = sum(1 for i in range(1, units * 2, 2) if head[i] == 0)
    if odd >= _WIDE_SHARE * units and even == 0:
        return "utf-16-le"
    if even >= _WIDE_SHARE * units and odd == 0:
        return "utf-16-be"
    return None


@contextmanager
def materialized(path: str, lim: bounded.Limits, what: str = "log"):
    """Yield ``(readable path, note or None)``: ``path`` itself when the readers can read it as it
    is, else a UTF-8 copy of it (UTF-16/UTF-32 text transcoded, a pipe's bytes) under the same
    name in a temporary folder, removed when the block ends. The note says what was done.
    InputError for a device, a pipe nothing writes to, or one that gives more than
    ``lim.max_log_bytes``."""
    try:
        kind = bounded.file_kind(path)
    except OSError:
        yield path, None    # the reader says what is wrong with it
        return
    if kind == "device":
        raise InputError(f"a device, not a {what} file", path)
    if kind in ("dir", "other"):
        yield path, None
        return
    if kind == "pipe":
        blocks = bounded.read_pipe(path, lim.max_log_bytes, what, lim.pipe_wait_seconds, _CHUNK)
        head = next(blocks, b"")
    else:
        with open(path, "rb") as f:
            head = f.read(_PROBE_BYTES)
        if wide_encoding(head) is None:
            yield path, None
            return
        blocks = _file_blocks(path, len(head))
    enc = wide_encoding(head)
    tmp = tempfile.mkdtemp(prefix="traindx-log-")
    try:
        copy = os.path.join(tmp, os.path.basename(os.path.normpath(path)) or "log")
        _copy(itertools.chain([head], blocks), copy, enc, path, what)
        yield copy, (f"{os.path.basename(path)} is {_ENC_NAMES[enc]} text, read converted to UTF-8"
                     if enc else None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _file_blocks(path: str, skip: int):
    with open(path, "rb") as f:
        f.seek(skip)
        while block := f.read(_CHUNK):
            yield block


def _copy(blocks, dest: str, enc: str | None, path: str, what: str) -> None:
    dec = codecs.getincrementaldecoder(enc)(errors="replace") if enc else None
    try:
        with open(dest, "wb") as out:
            for block in blocks:
                out.write(dec.decode(block).encode("utf-8") if dec else block)
            if dec:
                out.write(dec.decode(b"", final=True).encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot convert the {what} for reading: {exc.strerror}", path) from None


def relocated(err: InputError, copy: str, path: str) -> InputError:
    """``err`` (raised on the copy) naming ``path``, the file the user gave."""
    if err.path and os.fspath(err.path).startswith(os.path.dirname(copy)):
        err.path = path + os.fspath(err.path)[len(copy):]
    err.message = err.message.replace(copy, path)
    if err.args:
        err.args = (err.message, *err.args[1:])
    return err


__all__ = ["materialized", "relocated", "wide_encoding"]
