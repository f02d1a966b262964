"""Where users keep runs: MLflow's local run store (``mlruns/``) and W&B offline run folders
(``wandb/offline-run-*``), read into the same bounded :class:`~traindx.probes.readers.logs.LogData`
as a CSV. Torch-free.

MLflow
------
Read from MLflow's documented file-store layout, not with the ``mlflow`` package (it pulls a
web server, SQL and pandas stack into an install that only needs to read text files):
``mlruns/<experiment>/<run>/metrics/<key>`` holds one line per logged value,
``<timestamp_ms> <value> <step>`` (keys with ``/`` are sub-folders). Pass a run folder, or an
experiment or ``mlruns`` folder holding one run (the newest run when there are several, with a
note naming the others).

W&B
---
An offline run (``wandb/offline-run-<time>-<id>/run-<id>.wandb``) is W&B's own record log (the
LevelDB log framing: 32 KiB blocks of checksummed, typed fragments) of protobuf ``Record`` s;
``history`` records hold one ``wandb.log`` call each. The framing is read here, the records are
decoded with the ``wandb`` package's protobuf classes (``pip install traindx[wandb]``; imported
only for this format). Pass the run folder, its ``.wandb`` file, or a ``wandb/`` folder (its
latest run).
"""

from __future__ import annotations

import json
import os
import struct
import zlib

from traindx.engine import bounded
from traindx.engine.errors import InputError

from .logs import FLUSH_ROWS, LogData, Series, _RecordSink
from .words import log_words

_WANDB_IDENT = b":W&B"
_BLOCK = 32768
_HEADER = 7
_HISTORY = "wandb-history.jsonl"


# ------------------------------------------------------------------------------ detection
def _mlflow_runs(path: str) -> list[str]:
    """Run folders (holding ``metrics/``) at or under ``path`` (two levels at most)."""
    if os.path.isdir(os.path.join(path, "metrics")):
        return [path]
    runs = []
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return []
    for e in entries:
        sub = os.path.join(path, e)
        if os.path.isdir(os.path.join(sub, "metrics")):
            runs.append(sub)
        elif os.path.isdir(sub) and e not in (".trash", "models"):
            try:
                for e2 in sorted(os.listdir(sub)):
                    if os.path.isdir(os.path.join(sub, e2, "metrics")):
                        runs.append(os.path.join(sub, e2))
            except OSError:
                continue
    return runs


def _wandb_file(path: str) -> str | None:
    if os.path.isfile(path) and path.endswith(".wandb"):
        return path
    if not os.path.isdir(path):
        return None
    files = [f for f in sorted(os.listdir(path)) if f.endswith(".wandb") and os.path.isfile(os.path.join(path, f))]
    if files:
        return os.path.join(path, files[-1])
    runs = sorted(d for d in os.listdir(path) if d.startswith(("offline-run-", "run-"))
                  and os.path.isdir(os.path.join(path, d)))
    for d in reversed(runs):
        f = _wandb_file(os.path.join(path, d))
        if f:
            return f
    return None


def _wandb_history(path: str) -> str | None:
    """A W&B run's ``wandb-history.jsonl`` (one ``wandb.log`` call a line: what W&B before 0.10 kept,
    and what a run folder copied without its ``.wandb`` file still holds) in ``path``, its
    ``files/`` or, for a ``wandb/`` folder, its latest run folder."""
    for where in (path, os.path.join(path, "files")):
        f = os.path.join(where, _HISTORY)
        if os.path.isfile(f):
            return f
    try:
        runs = sorted(d for d in os.listdir(path) if d.startswith(("offline-run-", "run-"))
                      and os.path.isdir(os.path.join(path, d)))
    except OSError:
        return None
    for d in reversed(runs):
        for where in (os.path.join(path, d), os.path.join(path, d, "files")):
            f = os.path.join(where, _HISTORY)
            if os.path.isfile(f):
                return f
    return None


def is_run_store(path: str) -> bool:
    """True for an MLflow run/experiment/mlruns folder or a W&B run (a ``.wandb`` file, a folder
    holding one, or one holding ``wandb-history.jsonl``)."""
    path = os.fspath(path)
    if os.path.isfile(path):
        return path.endswith(".wandb")
    if not os.path.isdir(path):
        return False
    return bool(_wandb_file(path)) or bool(_wandb_history(path)) or bool(_mlflow_runs(path))


def read_run_store(path, column_map=None, params=None) -> LogData:
    """An MLflow or W&B run's metrics. ``params``: the knowledge base's parameters (its vocabulary
    names the metrics; None: the shipped ones)."""
    path = os.fspath(path)
    wb = _wandb_file(path)
    if wb:
        return read_wandb(wb, column_map, params)
    history = _wandb_history(path)
    if history:
        from .logs import read_log
        log = read_log(history, column_map, params)
        log.format = "wandb"
        return log
    return read_mlflow(path, column_map, params)


# ------------------------------------------------------------------------------ MLflow
def _numbered_lines(f, path: str, lim):
    """``(line number, line)`` of a metric file, each line bounded (a line without end is one error,
    not a file held in memory whole)."""
    for first, lines in bounded.iter_line_blocks(f, path, lim):
        yield from enumerate(lines, first)


def read_mlflow(path: str, column_map=None, params=None) -> LogData:
    from .logs import parse_column_map
    cmap = parse_column_map(column_map)
    lim = bounded.limits(params)
    runs = _mlflow_runs(path)
    if not runs:
        raise InputError("no MLflow run here (a run folder holds metrics/)", path)
    run = max(runs, key=lambda r: os.path.getmtime(os.path.join(r, "metrics")))
    log = LogData(path=run, format="mlflow", x_label="step", x_column="step")
    if len(runs) > 1:
        log.notes.append(f"{len(runs)} MLflow runs under {path}; read the newest, "
                         f"{os.path.basename(run)} (pass a run folder to choose)")
    mdir = os.path.join(run, "metrics")
    keys = []
    for root, _dirs, files in os.walk(mdir):
        for fn in files:
            key = os.path.relpath(os.path.join(root, fn), mdir).replace(os.sep, "/")
            if os.path.isfile(os.path.join(root, fn)):
                keys.append(key)
            else:   # a dangling or looping symlink, a named pipe: said, not read (a pipe would block)
                log.notes.append(f"skipped MLflow metric {key!r}: not a regular file")
    mapped = {c: r for r, c in cmap.items()}
    words = log_words(params)
    best: dict = {}
    for k in sorted(keys):
        if k in mapped:
            role, rank = mapped[k], -1
        else:
            m = words.match_role(k)
            if m is None or m[0] in ("step", "epoch"):
                continue
            role, rank = m
        if role not in best or rank < best[role][0]:
            best[role] = (rank, k)
    if not any(r in best for r in ("loss", "val_loss", "accuracy", "val_accuracy")):
        raise InputError("no loss, accuracy or other known metric among the run's metrics ("
                         + ", ".join(sorted(keys)[:20]) + ")", mdir,
                         hint="name yours with a column map, e.g. loss=my_loss")
    rows = 0
    for role, (_, key) in best.items():
        fpath = os.path.join(mdir, key)
        s = log.series[role] = Series(role, key, want_sq=role in ("loss", "val_loss"))
        log.columns[role] = key
        xs, ys = [], []
        with open(fpath, encoding="utf-8", errors="replace") as f:
            for i, line in _numbered_lines(f, fpath, lim):
                parts = line.split()
                if not parts:
                    continue
                try:
                    v = float(parts[1])
                    x = float(parts[2]) if len(parts) > 2 else float(i - 1)
                except (IndexError, ValueError):
                    raise InputError("not an MLflow metric line (timestamp value step)", fpath,
                                     i) from None
                xs.append(x)
                ys.append(v)
                rows += 1
                if len(ys) >= FLUSH_ROWS:
                    s.extend(xs, ys)
                    xs, ys = [], []
        s.extend(xs, ys)
    log.rows = rows
    log.ignored_columns = sorted(set(keys) - set(log.columns.values()))
    log._finish()
    return log


# ------------------------------------------------------------------------------ W&B
def _wandb_records(path: str):
    """Payloads of a W&B record log (LevelDB log framing), in order."""
    with open(path, "rb") as f:
        head = f.read(_HEADER)
        if len(head) < _HEADER or head[:4] != _WANDB_IDENT:
            raise InputError("not a W&B run file (no :W&B header)", path)
        pos = _HEADER
        pending = b""
        while True:
            room = _BLOCK - (pos % _BLOCK)
            if room < _HEADER:
                f.read(room)
                pos += room
                continue
            hdr = f.read(_HEADER)
            if len(hdr) < _HEADER:
                return
            crc, length, kind = struct.unpack("<IHB", hdr)
            data = f.read(length)
            pos += _HEADER + length
            if len(data) < length:
                return  # cut off: the run was still writing
            if kind == 0 and length == 0:
                continue
            if zlib.crc32(bytes([kind]) + data) & 0xFFFFFFFF != crc:
                raise InputError(f"corrupt W&B record at byte {pos - length - _HEADER}", path)
            if kind == 1:
                yield data
            elif kind == 2:
                pending = data
            elif kind == 3:
                pending += data
            elif kind == 4:
                yield pending + data
                pending = b""


def read_wandb(path: str, column_map=None, params=None) -> LogData:
    from .logs import parse_column_map
    try:
        from wandb.proto import wandb_internal_pb2 as pb
    except ImportError:
        raise InputError("reading a W&B run needs the wandb package", path,
                         hint="pip install traindx[wandb]") from None
    log = LogData(path=os.path.dirname(path) or path, format="wandb")
    sink = _RecordSink(log, path, parse_column_map(column_map), log_words(params))
    n = 0
    for data in _wandb_records(path):
        rec = pb.Record()
        try:
            rec.ParseFromString(data)
        except Exception:  # a damaged protobuf is the file's fault
            raise InputError("unreadable W&B record", path) from None
        if rec.WhichOneof("record_type") != "history":
            continue
        row = {}
        for item in rec.history.item:
            key = item.key or "/".join(item.nested_key)
            try:
                v = json.loads(item.value_json) if item.value_json else None
            except ValueError:
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                row[key] = v
        if rec.history.HasField("step") and "_step" not in row:
            row["_step"] = rec.history.step.num
        if row:
            sink.add(row, None)
            n += 1
            if n % 4096 == 0:
                sink.flush()
    if n == 0:
        raise InputError("no logged history in the W&B run", path)
    sink.finish()
    log._finish()
    return log


__all__ = ["is_run_store", "read_run_store", "read_mlflow", "read_wandb"]
