"""Source loading: read and parse a Python file, naming the file and line of anything wrong with it."""

from __future__ import annotations

import ast
import os
import tokenize

from traindx.engine.errors import InputError


def parse_source(path: str | os.PathLike) -> ast.Module:
    """Parse a Python file; InputError (file and line) if missing, undecodable or invalid."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise InputError("no such Python file", path=p)
    if os.path.isdir(p):
        raise InputError("is a directory, expected a Python file", path=p)
    from traindx.engine import bounded
    data = bounded.read_bytes(p, bounded.limits().max_file_bytes, "Python file")
    text = decode_source(p, data)
    try:
        return ast.parse(text, filename=p)
    except (RecursionError, MemoryError):   # CPython's parser gives up on very deep expressions
        raise InputError("expression nested too deeply for Python's parser", path=p) from None
    except SyntaxError as err:
        raise InputError(f"invalid Python: {err.msg}", path=p, line=err.lineno,
                         col=err.offset) from None
    except ValueError as err:  # null bytes
        line = data[: data.find(b"\x00")].count(b"\n") + 1 if b"\x00" in data else None
        raise InputError(f"invalid Python: {err}", path=p, line=line) from None


def decode_source(path: str, data: bytes) -> str:
    """UTF-8 (or the PEP 263 coding the file declares); InputError naming the line otherwise."""
    import io

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise InputError(f"invalid Python: {err}", path=path, line=1) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})",
                         path=path, line=line, hint="save the file as UTF-8") from None
    except LookupError:
        raise InputError(f"unknown source encoding {encoding!r}", path=path, line=1) from None
