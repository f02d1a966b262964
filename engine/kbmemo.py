"""An in-process memo of loaded knowledge bases, keyed by the content of every file a load reads.

Loading the core knowledge base parses and schema-checks some fifty YAML files and compiles about a
thousand patterns: seconds of work. A process that loads it more than once (the MCP server per pack
set, a benchmark or a tool embedding traindx that diagnoses case after case, the test suite) pays
that once: a later load of the same folders, whose files hold the same bytes, gets a deep copy of
the first load's result, so a caller that changes its knowledge base changes only its own copy.

The key is a hash of the bytes of every file the loader would read, so an edited pack is loaded
afresh even within one clock tick. A load that fails is not remembered: its error is raised again
on every try. A folder too large to hash cheaply is simply not memoised.
"""
from __future__ import annotations

import copy
import hashlib
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable

#: how many distinct pack sets one process keeps (an MCP server juggles a few; tests a handful)
MAX_ENTRIES = 8
#: a pack whose YAML files total more than this is loaded afresh each time, never hashed
MAX_HASHED_BYTES = 64 << 20
#: the read size while hashing
CHUNK = 1 << 16



class Kept:
    """A bounded map shared by threads that forgets its least recently used entry beyond ``most``: the
    knowledge bases below, and the example classifiers of :mod:`.understand`."""

    def __init__(self, most: int):
        self.most = most
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, k):
        with self._lock:
            v = self._items.get(k)
            if v is not None:
                self._items.move_to_end(k)
        return v

    def put(self, k, v) -> None:
        with self._lock:
            self._items[k] = v
            self._items.move_to_end(k)
            while len(self._items) > self.most:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_memo = Kept(MAX_ENTRIES)


def key(directories: list[str], files_of: Callable, **options) -> str | None:
    """A hash naming this load: the options, each folder's real path, and the names and bytes of
    every file read from it (``files_of(folder)``: its YAML files and its reference sheets, which are
    read when shown and so only named here). None where a folder cannot be listed or is too large
    to hash."""
    h = hashlib.sha256(repr(sorted(options.items())).encode())
    total = 0
    try:
        for d in directories:
            h.update(b"\0dir\0" + os.path.realpath(d).encode("utf-8", "surrogateescape"))
            yaml_files, sheets = files_of(d)
            for path in sheets:
                h.update(b"\0sheet\0" + path.encode("utf-8", "surrogateescape") + b"\0")
            for path in yaml_files:
                h.update(b"\0file\0" + path.encode("utf-8", "surrogateescape") + b"\0")
                size = _hash_file(path, h, MAX_HASHED_BYTES - total)
                if size is None:
                    return None
                total += size
    except (OSError, ValueError):
        return None
    return h.hexdigest()


def _hash_file(path: str, h, budget: int) -> int | None:
    """Add a regular file's bytes to ``h``; its size, or None where it is no regular file (a pipe,
    a device: opened without blocking, never read here, so the loader's own bounded read refuses
    it in one line) or is larger than ``budget``."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > budget:
            return None
        h.update(str(st.st_size).encode() + b"\0")
        left = st.st_size                  # a file that grows while it is hashed is read up to its size
        with os.fdopen(fd, "rb", closefd=False) as f:
            while left > 0:
                chunk = f.read(min(CHUNK, left))
                if not chunk:
                    break
                h.update(chunk)
                left -= len(chunk)
        return st.st_size
    finally:
        os.close(fd)


def get(k: str | None):
    """A deep copy of the knowledge base remembered under ``k``, or None."""
    if k is None:
        return None
    kb = _memo.get(k)
    return copy.deepcopy(kb) if kb is not None else None


def put(k: str | None, kb) -> None:
    """Remember a deep copy of ``kb`` under ``k`` (the caller keeps the original)."""
    if k is None:
        return
    _memo.put(k, copy.deepcopy(kb))


def clear() -> None:
    """Forget every remembered knowledge base."""
    _memo.clear()
