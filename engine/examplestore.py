"""The complaint classifier, kept on disk between processes.

Building the example classifier (:class:`.understand._Examples`) from the knowledge base's few thousand
utterances costs seconds of CPU, and a command that reads one complaint (``traindx diagnose
--complaint``, one MCP ``start_diagnosis`` in a fresh server, a test that runs the CLI) pays it in full
every time. The first process to build it also writes what it learnt into an SQLite file in the user's
cache folder; a later process with the same examples opens that file and reads only the rows of the
features the complaint in front of it has: some hundreds of rows, not a hundred thousand.

- **Same answers.** The stored model answers ``similarities``, ``resemblance``, ``posteriors``,
  ``telling`` and ``classify`` with the very numbers the built one gives (floats are stored as 8-byte
  reals and JSON, both exact), because both run the same query code over the same rows.
- **Keyed by content.** The file's name is a hash of the examples (symptom, text, origin folder), the
  stop words, the ``language.example_*`` settings and the bytes of the code that builds and reads it:
  an edited utterance, a pack, a new release each get their own file. A file whose recorded key or
  format differs from what its name promises is ignored.
- **Never in the way.** A missing, unreadable, truncated or foreign file is ignored and the model is
  built as before; a folder that cannot be written is not written. Nothing here raises.
- **Bounded.** The newest :data:`KEEP` stores stay; older ones are removed when a new one is written.
- **Where.** ``$TRAINDX_CACHE_DIR``, else ``$XDG_CACHE_HOME/traindx``, else ``~/.cache/traindx``.
  ``TRAINDX_CACHE_DIR=off`` (or empty) keeps nothing on disk.

Data only: SQLite rows and JSON, never pickle; no torch.
"""
from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import sqlite3
import tempfile
import threading

#: how many classifier stores the cache folder keeps (one per distinct set of examples: the core's,
#: and a few packs'); each is some tens of megabytes
KEEP = 3
#: the layout of a store file: bump it when the tables change
FORMAT = "1"
#: rows asked for in one query (SQLite's bound on parameters is far above it)
BATCH = 500
_PREFIX = "examples-"
_SUFFIX = ".sqlite"


def folder() -> str | None:
    """The cache folder, or None when the user switched the cache off."""
    v = os.environ.get("TRAINDX_CACHE_DIR")
    if v is not None:
        return None if v.strip() in ("", "off") else v
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "traindx")


@functools.cache
def _code() -> str:
    """A hash of the code that turns text into features and features into weights (this module and
    :mod:`.understand`): a changed feature or weighting never reads an older store."""
    h = hashlib.sha256()
    from . import understand
    for path in (__file__, understand.__file__):
        with open(path, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


def key(training: list, stop: frozenset, sharpness: float, char_weight: float) -> str:
    """The content key of one classifier: what it learns from, how, and by which code."""
    def origin(ex):
        return os.path.dirname(ex[2]) if len(ex) > 2 else ""
    payload = json.dumps([[[ex[0], ex[1], origin(ex)] for ex in training], sorted(stop),
                          repr(float(sharpness)), repr(float(char_weight)), FORMAT, _code()],
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def _path(where: str, k: str) -> str:
    return os.path.join(where, _PREFIX + k[:32] + _SUFFIX)


def save(model, k: str) -> str | None:
    """Write a built classifier's rows under key ``k``; the path written, or None when the cache is off
    or the folder cannot be written. Written to a temporary file first and moved into place, so a
    reader never sees half a store and two writers do not mix."""
    where = folder()
    if where is None:
        return None
    tmp = None
    try:
        os.makedirs(where, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=_SUFFIX, dir=where)
        os.close(fd)
        _write(tmp, model, k)
        final = _path(where, k)
        os.replace(tmp, final)
        tmp = None
        _prune(where, keep=final)
        return final
    except (OSError, sqlite3.Error):
        return None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _write(path: str, model, k: str) -> None:
    told = {}                                  # word features -> their weight in each pooled centroid
    for sym, c in model.centroids.items():
        for f, x in c.items():
            if f.startswith("w:"):
                told.setdefault(f, {})[sym] = x
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
        con.execute("CREATE TABLE feat (f TEXT PRIMARY KEY, idf REAL NOT NULL, post TEXT NOT NULL, told TEXT)"
                    " WITHOUT ROWID")
        con.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("format", FORMAT), ("key", k), ("group_symptoms", json.dumps(model.group_symptoms)),
            ("columns", str(model.columns)), ("docs", json.dumps(model.docs))])
        post = model._postings
        con.executemany("INSERT INTO feat VALUES (?, ?, ?, ?)", (
            (f, w, json.dumps(post.get(f, [])), json.dumps(told[f]) if f in told else None)
            for f, w in model.idf.items()))
        con.commit()
    finally:
        con.close()


def _prune(where: str, keep: str) -> None:
    stores = sorted(glob.glob(os.path.join(where, _PREFIX + "*" + _SUFFIX)), key=_mtime, reverse=True)
    for old in [p for p in stores if p != keep][KEEP - 1:]:
        try:
            os.unlink(old)
        except OSError:
            pass


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def open_store(k: str, cls: type, params: dict, stop: frozenset, build):
    """The stored classifier under key ``k`` as a ``cls`` (a :class:`Stored` beside the built
    classifier's class, whose query code it shares), or None when there is none usable. ``build`` makes
    the classifier afresh: the stored one falls back on it if a row turns out unreadable."""
    where = folder()
    if where is None:
        return None
    path = _path(where, k)
    if not os.path.isfile(path):
        return None
    try:
        return cls(path, k, params, stop, build)
    except (OSError, *_DAMAGED):
        return None


#: what a damaged store raises while it is read (bytes that are no database, text that is no JSON, JSON
#: of another shape): the reader then builds the classifier instead
_DAMAGED = (sqlite3.Error, ValueError, TypeError, KeyError, AttributeError)


class Stored:
    """The persisted classifier: the built one's query methods over rows read from the store (a class
    that derives from this and from the built classifier's class). Reads are serialised (one connection
    per process, guarded by a lock); a process forked after opening opens its own. A row that cannot be
    read (a store damaged after it was opened) switches this instance to a classifier built afresh."""

    def __init__(self, path: str, k: str, params: dict, stop: frozenset, build):
        self._settings(params, stop)
        self.path = path
        self._lock = threading.Lock()
        self._con = None
        self._pid = None
        self._build = build
        self._built = None
        meta = dict(self._query("SELECT k, v FROM meta", ()))
        if meta.get("format") != FORMAT or meta.get("key") != k:
            raise ValueError("a store of another key or format")
        self.group_symptoms = [str(s) for s in json.loads(meta["group_symptoms"])]
        self.columns = int(meta["columns"])
        self.docs = {str(s): int(n) for s, n in json.loads(meta["docs"]).items()}
        if self.columns < len(self.group_symptoms):
            raise ValueError("fewer columns than file centroids")

    def _query(self, sql: str, args: tuple) -> list:
        with self._lock:
            if self._con is None or self._pid != os.getpid():
                self._con = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True,
                                            check_same_thread=False)
                self._pid = os.getpid()
            return self._con.execute(sql, args).fetchall()

    def _select(self, columns: str, feats: list) -> list:
        out = []
        for i in range(0, len(feats), BATCH):
            part = feats[i:i + BATCH]
            out += self._query(f"SELECT f, {columns} FROM feat WHERE f IN ({','.join('?' * len(part))})",
                               tuple(part))
        return out

    def _rows(self, feats) -> dict:
        return self._read_or_build(self._read_rows, "_rows", feats)

    def _telling_weights(self, symptom: str, feats: list) -> dict:
        return self._read_or_build(self._read_telling, "_telling_weights", symptom, feats)

    def _read_or_build(self, read, method: str, *args):
        """``read(*args)`` from the store; once a read fails, the built classifier's ``method`` instead."""
        if self._built is None:
            try:
                return read(*args)
            except _DAMAGED:
                self._built = self._build()
                self.group_symptoms = self._built.group_symptoms
                self.columns = self._built.columns
        return getattr(self._built, method)(*args)

    def _read_rows(self, feats) -> dict:
        got = {f: (float(w), [(int(i), float(x)) for i, x in json.loads(post)])
               for f, w, post in self._select("idf, post", list(feats))}
        for _f, (_w, post) in got.items():
            if any(not 0 <= i < self.columns for i, _x in post):
                raise ValueError("a column outside the store")
        return {f: got[f] for f in feats if f in got}     # the features' own order, as the built model

    def _read_telling(self, symptom: str, feats: list) -> dict:
        found = {f: float(w) * float(json.loads(told).get(symptom, 0.0)) if told else 0.0
                 for f, w, told in self._select("idf, told", sorted(set(feats)))}
        return {f: found.get(f, 0.0) for f in feats}

    def __deepcopy__(self, memo):
        return self
