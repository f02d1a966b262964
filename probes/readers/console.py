"""Read the console output a training run printed (``python train.py | tee run.out``, ``nohup.out``,
a SLURM ``.out`` file, or an excerpt pasted into a thread) into the same bounded
:class:`~traindx.probes.readers.logs.LogData` the CSV reader builds. Torch-free.

Entry points
------------
``read_console(path, column_map=None, params=None) -> ConsoleLog``
    Stream a text file once.
``read_console_text(text, name="pasted log", ...) -> ConsoleLog``
    The same for text already in memory (a pasted excerpt).
``ConsoleLog.evidence(findings)``
    What the text says beyond its curves: a traceback's kind (``error_kind``: a CUDA OOM or a
    collate error puts the run out of scope), NaN warnings (explosion evidence).

How a line is read
------------------
Nothing keys on a framework's wording; a line is read by its *structure*:

1. **Prefixes go.** A leading time stamp (``2024-05-01 12:00:03,123``, ``[08/12 10:00:00]``,
   glog's ``I0418 14:52:11.1 123 solver.cpp:228]``), log levels (``INFO``), ANSI colours, clock
   times (``eta: 0:10:00``) and ``tensor(`` wrappers are removed.
2. **Axes.** ``epoch N``/``Epoch N/M``/``Epoch [N/M]``/``Epoch(train) [N][i/M]`` give the epoch
   (with an optional in-epoch counter); ``step|iter|iteration|batch|update|num_updates N[/M]``
   give a step; a bare ``i/M`` (a tqdm or Keras progress counter, ``12850/37527;``) is the counter
   within the epoch; a line that starts ``N:`` is step N. A line holding only an epoch sets the
   epoch for the lines that follow (Keras prints ``Epoch 3/10`` on its own line).
3. **Pairs.** A name (one or more words: ``val_loss``, ``Train Loss``, ``'loss'``) followed by a
   number, with ``:``, ``=``, quotes or blanks between, is a metric; so is a number followed by its
   name before a comma (``24.93 avg loss, 0.001 rate``). Numbers may be ``1.5e-3``, ``nan``,
   ``inf``, ``-inf``, percentages (``27.5%`` -> 0.275 for an accuracy) or ratios
   (``Accuracy: 9800/10000`` -> 0.98). A parenthesised number after a value (fairseq's running
   mean) is not a metric of its own.
4. **Tables.** A line of names only (``epoch,train_loss,val_acc``, fastai's and nolearn's
   whitespace tables, ``|``-separated) followed by rows of as many numbers is a header; its rows
   are records until another header.
5. **Roles.** Names get roles as in :func:`traindx.probes.readers.logs.match_role` (``loss``,
   ``val_loss``, ``accuracy``, ``val_accuracy``, ``lr``, ``grad_norm``), trying sub-phrases of
   up to three words. A split word in the line's prefix (``Validation accuracy: ...  (loss
   1.37)``, ``Test net output``, ``Epoch(val)``, ``valid on 'valid' subset``) attributes the
   line's unqualified metrics to that split. Perplexity stands in for a loss only when no loss is
   printed (``ln(ppl)`` is the cross-entropy).

Records, axes and restarts
--------------------------
The x axis is chosen once, from the first lines with metrics: ``step`` when a step or an
in-epoch counter is printed, else ``epoch``, else the record's number. An in-epoch counter
becomes a step ``(epoch - first epoch) * per_epoch + i`` (``per_epoch`` is the counter's total, or
the largest counter seen). A validation/test record takes the step of the latest training
record. When the step (or the epoch) goes back, the run restarted: the curve continues from the
new start (as for CSV) and the line is remembered. A progress bar redrawn with the same values
(tqdm and Lightning refresh with a carriage return) counts once, and a validation value carried
along every redraw counts when it changes.

Streaming
---------
The file is read line by line (``\\r`` also ends a line); each metric feeds a bounded
:class:`~traindx.probes.readers.logs.Series`, so memory does not grow with the file. At most
``console.max_metric_names`` distinct names are tracked, lines longer than
``console.max_line_chars`` are read up to that length, and the first ``console.max_events``
tracebacks/warnings are kept (counted beyond). A file with no metric raises one
:class:`~traindx.engine.errors.InputError` naming the file and the lines it tried.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass, field

from traindx.engine import bounded
from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

from .logs import LogData, Series, match_role, normalize_name, parse_column_map

# ------------------------------------------------------------------------------ line cleaning
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PREFIX = re.compile(
    r"^\s*(?:"
    r"[IWEF]\d{4}\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\d+\s+[\w./-]+:\d+\]"          # glog
    r"|\[?\d{4}[-/]\d\d[-/]\d\d(?:[ T_]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?\]?"  # ISO
    r"|\[?\d\d/\d\d(?:/\d{2,4})?\s+\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"              # 08/12 10:00:00
    r"|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"                                      # 10:00:00
    r")")
_LEVEL = re.compile(r"\b(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|NOTICE|TRACE)\b:?")
_CLOCK = re.compile(r"(?<![\w.])\d+(?::\d\d){1,2}(?:[.,]\d+)?(?![\w.])|\d+\s+days?,\s*")
_TENSOR = re.compile(r"\btensor\(\s*\[*", re.IGNORECASE)

# ------------------------------------------------------------------------------ axes
_MM = re.compile(r"\bepoch\s*(?:\(\s*(\w+)\s*\))?\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*/\s*(\d+)\s*\]",
                 re.IGNORECASE)
_EPOCH = re.compile(r"\b(?:epoch|ep)\b['\"]?\s*(?:\(\s*(\w+)\s*\))?\s*[:=#]?\s*[\[(]?\s*(\d+(?:\.\d+)?)"
                    r"(?:\s*/\s*(\d+))?\s*[\])]?", re.IGNORECASE)
_STEP = re.compile(r"\b(global[_ ]step|step|steps|iteration|iter|it|batch|update|updates|num_updates|"
                   r"n_iter|global_iter)\b['\"]?\s*[:=#]?\s*[\[(]?\s*(\d+)(?:\s*/\s*(\d+))?\s*[\])]?",
                   re.IGNORECASE)
_COUNTER = re.compile(r"(?<![\w./])(\d+)\s*/\s*(\d+)(?![\w.]|\s*[a-zA-Z])")
_LEAD_STEP = re.compile(r"^\s*(\d+)\s*:\s")

# ------------------------------------------------------------------------------ tokens
_TOKEN = re.compile(
    r"(?P<frac>(?<![\w.])\d+\s*/\s*\d+(?![\w.]))"
    r"|(?P<num>[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])|(?:nan|inf(?:inity)?)\b)%?)"
    r"|(?P<junk>\d[\w.]*)"
    r"|(?P<name>[A-Za-z_][\w]*(?:[./@\-][A-Za-z_]\w*)*)"
    r"|(?P<sep>[^\sA-Za-z0-9_])", re.IGNORECASE)
_PAIR_SEP = {":", "=", "'", '"'}
_AXIS_PAIR_SEP = _PAIR_SEP | {"[", "(", "#"}

_SPLIT = {"train": "train", "training": "train", "trn": "train", "tr": "train",
          "val": "val", "valid": "val", "validation": "val", "validate": "val", "eval": "val",
          "evaluation": "val", "evaluating": "val", "dev": "val", "validating": "val",
          "test": "test", "testing": "test"}
_EXTRA_FILLER = {"average", "avg", "mean", "running", "current", "smoothed", "batch", "epoch", "set",
                 "subset", "net", "output", "on", "the", "of", "model", "overall", "total", "final",
                 "last", "this", "data", "top", "for", "in", "at", "is", "a"}
_PPL = {"ppl", "perplexity"}
_SUMMARY_WORDS = {"best", "min", "max", "lowest", "highest", "minimum", "maximum", "worst", "previous",
                  "prev", "target", "threshold", "patience", "init", "initial", "base", "warmup",
                  "peak", "start", "end", "final"}
_KEY_ROLES = ("loss", "val_loss", "accuracy", "val_accuracy")
_PROGRESS = re.compile(r"\d+%\|")
_TRACE_START = re.compile(r"^\s*Traceback \(most recent call last\)")
_EXC_LINE = re.compile(r"^\s*((?:[\w.]+\.)?(\w*(?:Error|Exception|Interrupt)))\b:?\s*(.*)$")
_NAN_WARN = re.compile(r"(?:\bnan\b|\binf(?:inite|inity)?\b|non-?finite)", re.IGNORECASE)
_NAN_CTX = re.compile(r"\b(?:loss|grad\w*|gradient|weights?|output|logits?)\b", re.IGNORECASE)
_NAN_BENIGN = re.compile(r"overflow|loss[ _]?scal|skipping step|reducing", re.IGNORECASE)
_BANNER = re.compile(r"\b(?:run|seed|restart(?:ing|ed)?|resum(?:e|ing|ed)|trial|fold)\b", re.IGNORECASE)

#: error kinds (kb/facts.yaml error_kind) by the traceback's last line
_ERROR_KINDS = (
    ("cuda_oom", re.compile(r"out of memory|OutOfMemoryError|\bOOM\b", re.IGNORECASE)),
    ("cuda_error", re.compile(r"CUDA error|device-side assert|cuDNN|CUBLAS|NCCL", re.IGNORECASE)),
    ("dataloader_error", re.compile(r"DataLoader|collate|worker \(pid|default_collate", re.IGNORECASE)),
    ("shape_error", re.compile(r"size mismatch|shape|must match the size|dimension|Expected input "
                               r"batch_size|mat1 and mat2|sizes? of tensors", re.IGNORECASE)),
    ("dtype_error", re.compile(r"expected scalar type|dtype|Expected object of scalar type|"
                               r"expected .* but found .*(Float|Long|Half|Double)|"
                               r"can(?:'|no)t be cast|type (?:Float|Long|Half|Double|Int|Bool|Byte)\b",
                               re.IGNORECASE)),
    ("import_error", re.compile(r"^(ImportError|ModuleNotFoundError)")),
)
_NAN_ERROR = re.compile(r"\bnan\b|\binf(?:inite)?\b|FloatingPointError", re.IGNORECASE)


_DIGITS = re.compile(r"\d+")
_ZEROS = str.maketrans("123456789", "000000000")
_NO_PLAN = object()
_AXES = ("epoch", "counter", "counter_total", "step")


def _spaces(m) -> str:
    return " " * (m.end() - m.start())


def _cut(text: str, a: int, b: int) -> str:
    """Blank ``text[a:b]`` in place (a separator and spaces): offsets stay those of the line."""
    return text[:a] + (";" + " " * (b - a - 1) if b > a else "") + text[b:]


def _num(line: str, spec):
    kind, a, b = spec
    t = line[a:b]
    return float(t) if kind == "f" else int(t)


def _runs_span(a: int, b: int, runs: list):
    """A span as digit-run coordinates: ``("@", first run, last run, lead, tail)``, or the
    literal text when it holds no digit (``nan``)."""
    ks = [k for k, (ra, rb) in enumerate(runs) if ra >= a and rb <= b]
    if not ks:
        return None
    return ("@", ks[0], ks[-1], runs[ks[0]][0] - a, b - runs[ks[-1]][1])


def _token(line: str, spec, runs: list):
    if spec[0] == "#":
        return spec[1]
    _, k1, k2, lead, tail = spec
    return line[runs[k1][0] - lead: runs[k2][1] + tail]


def _plan(ex: tuple, runs: list, line: str) -> tuple:
    epoch, counter, counter_total, step, split, progress, metrics = ex
    axes = tuple(None if v is None else _runs_span(v[1], v[2], runs)
                 for v in (epoch, counter, counter_total, step))
    ms = []
    for r, kind, (a, b) in metrics:
        sp = _runs_span(a, b, runs)
        ms.append((r, kind, sp if sp is not None else ("#", line[a:b])))
    return axes + (split, progress, tuple(ms))


@dataclass
class ConsoleLog(LogData):
    """A :class:`LogData` read from console text, with what the text said besides its metrics.

    ``lines`` counts the lines read; ``errors`` lists the tracebacks (``{"line", "kind",
    "message"}``, first ``console.max_events``); ``nan_warnings`` counts lines that report a
    NaN/Inf loss or gradient in words, ``nan_warning_lines`` the first of them; ``restart_lines``
    the lines where a restart begins; ``epochs`` the epochs seen; ``names`` the metric names as
    printed, by role; ``styles`` the line shapes that held metrics.
    """

    lines: int = 0
    errors: list = field(default_factory=list)
    error_count: int = 0
    nan_warnings: int = 0
    nan_warning_lines: list = field(default_factory=list)
    nan_warning_x: float | None = None
    restart_lines: list = field(default_factory=list)
    epochs: int = 0
    names: dict = field(default_factory=dict)
    styles: list = field(default_factory=list)

    def describe(self) -> str:
        """One line: ``Read run.out: 41,200 lines, 3 metrics (loss, val_loss, lr) over 12 epochs;
        1 restart at line 18,433.``"""
        return describe(self)

    def evidence(self, findings: list) -> list:
        """``findings`` (the curve facts) plus what the text says: the crash's kind and message,
        NaN warnings as non-finite loss evidence."""
        out = list(findings)
        where = self.name
        if self.errors:
            last = self.errors[-1]
            src = f"log:{where}:line {last['line']}"
            if last["kind"] == "nonfinite":
                self.nan_warnings += 1
                self.nan_warning_lines.append(last["line"])
            else:
                out.append(Finding("error_kind", last["kind"], src,
                                   f"the run raised {last['message'][:160]}"))
                out.append(Finding("error_message", last["message"][:300], src,
                                   "the last line of the traceback"))
        gn = self.get("grad_norm")
        if gn is not None and gn.rows and not gn.nonfinite and not any(
                f.fact == "grads_have_nan" for f in out):
            out.append(Finding("grads_have_nan", False, f"log:{where}:{self.columns.get('grad_norm')}",
                               f"all {gn.rows} printed gradient norms are finite"))
        if gn is not None and gn.nonfinite and not any(f.fact == "grads_have_nan" for f in out):
            p = resolve(None)
            share = float(p.get("console.grad_nan_share", 0.5))
            loss = self.get("loss")
            if gn.trailing_nonfinite or gn.nonfinite >= share * gn.rows or (
                    loss is not None and loss.nonfinite):
                out.append(Finding("grads_have_nan", True,
                                   f"log:{where}:{self.columns.get('grad_norm')}",
                                   f"{gn.nonfinite} of {gn.rows} gradient norms are NaN/Inf"))
        if self.nan_warnings and not any(f.fact == "loss_has_nonfinite" and f.value is True
                                         for f in out):
            first = self.nan_warning_lines[0] if self.nan_warning_lines else None
            src = f"log:{where}:line {first}" if first else f"log:{where}"
            out = [f for f in out if f.fact not in ("loss_has_nonfinite", "loss_trend")
                   or (f.fact == "loss_trend" and False)]
            out.append(Finding("loss_has_nonfinite", True, src,
                               f"{self.nan_warnings} line(s) report a NaN/Inf loss or gradient "
                               f"(first at line {first})"))
            if self.nan_warning_x is not None and not any(f.fact == "nan_first_step" for f in out):
                out.append(Finding("nan_first_step", int(self.nan_warning_x), src,
                                   f"the first NaN/Inf report is at {self.x_label} "
                                   f"{self.nan_warning_x:g}"))
        return out


def _fmt_int(n) -> str:
    return f"{int(n):,}"


def describe(log: LogData) -> str:
    """``Read NAME: N lines, K metrics (...) over E epochs; R restarts at line L.`` for any log."""
    roles = [r for r in ("loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm",
                         "step_time") if r in log.series]
    n = len(roles)
    what = f"{n} metric{'s' if n != 1 else ''} ({', '.join(roles)})" if n else "no metrics"
    lines = getattr(log, "lines", 0)
    head = f"Read {log.name}: " + (f"{_fmt_int(lines)} lines, " if lines else
                                    f"{_fmt_int(log.rows)} rows, ")
    span = ""
    epochs = getattr(log, "epochs", 0)
    if epochs:
        span = f" over {epochs} epoch{'s' if epochs != 1 else ''}"
    else:
        xs = [s.last_x for s in log.series.values() if s.last_x is not None]
        if xs and log.x_label in ("step", "epoch"):
            span = f" over {_fmt_int(max(xs))} {log.x_label}s"
    text = head + what + span
    rl = getattr(log, "restart_lines", None)
    if rl:
        text += (f"; {len(rl)} restart{'s' if len(rl) != 1 else ''} at line"
                 f"{'s' if len(rl) != 1 else ''} " + ", ".join(_fmt_int(x) for x in rl[:5]))
    elif log.restarts:
        text += f"; {len(log.restarts)} restart{'s' if len(log.restarts) != 1 else ''}"
    errors = getattr(log, "errors", None)
    if errors:
        e = errors[-1]
        text += f"; a traceback at line {_fmt_int(e['line'])} ({e['message'][:80]})"
    nw = getattr(log, "nan_warnings", 0)
    if nw:
        text += f"; {nw} NaN/Inf warning{'s' if nw != 1 else ''}"
    return text + "."


# ------------------------------------------------------------------------------ the reader
class _Cand:
    __slots__ = ("role", "rank", "name", "series", "bx", "by", "last", "transform")

    def __init__(self, role, rank, name, transform=None):
        self.role, self.rank, self.name = role, rank, name
        self.series = Series(role, name, want_sq=role in ("loss", "val_loss"))
        self.bx, self.by = [], []
        self.last = None
        self.transform = transform


class ConsoleReader:
    """Feed lines with :meth:`feed`, then :meth:`finish` for the :class:`ConsoleLog`."""

    def __init__(self, path: str, column_map=None, params=None, fmt: str = "console"):
        p = resolve(params)
        self.max_line = int(p.get("console.max_line_chars", 4096))
        self.max_names = int(p.get("console.max_metric_names", 64))
        self.max_events = int(p.get("console.max_events", 20))
        self.header_min_numeric = float(p.get("console.table_min_numeric", 0.5))
        self.path = path
        self.cmap = {normalize_name(c): r for r, c in parse_column_map(column_map).items()}
        self.log = ConsoleLog(path=path, format=fmt)
        self.cands: dict = {}
        self.role_cache: dict = {}
        self.line_no = 0
        self.metric_lines = 0
        # axis state
        self.mode = None           # 'step' | 'epoch' | 'row'
        self.epoch = None
        self.epoch0 = None
        self.per_epoch = None
        self.max_counter = 0
        self.counter_epoch = None
        self.last_x = None
        self.train_records = 0
        self.epochs_seen = set()
        self.max_epochs_seen = 0
        self.step_is_global = None
        self.last_step = None
        self.prev_progress = None
        self.epoch_on_line = False
        # tables
        self.header = None         # (names, delim)
        # tracebacks
        self.in_trace = False
        self.trace_line = 0
        self.trace_lines = 0
        self.styles = {}
        self.plans: dict = {}
        self.max_plans = int(p.get("console.max_line_shapes", 512))

    # -- roles -------------------------------------------------------------------------------
    def _role(self, phrase: str, split: str | None):
        key = (phrase, split)
        hit = self.role_cache.get(key)
        if hit is not None or key in self.role_cache:
            return hit
        res = self._resolve(phrase, split)
        if len(self.role_cache) < 8192:
            self.role_cache[key] = res
        return res

    def _resolve(self, phrase: str, split: str | None):
        norm = normalize_name(phrase)
        if not norm:
            return None
        if norm in self.cmap:
            return self.cmap[norm], -1, phrase, None
        words = [w for w in norm.split("_") if w]
        if _SUMMARY_WORDS.intersection(words):
            return None  # "best val_loss: 0.71" summarises the run; it is not a point of its curve
        own = next((_SPLIT[w] for w in words if w in _SPLIT), None)
        eff = own or split
        # perplexity: a loss in disguise (ln ppl = cross-entropy), ranked after any loss name
        if words and words[-1] in _PPL:
            role = "val_loss" if eff in ("val", "test") else "loss"
            return role, 300 + (20 if eff == "test" else 0), phrase, "log"
        # sub-phrases of whole printed words (never parts of one identifier: loss_rpn_cls is
        # not "loss"), ending at the last word that is not filler ("Val loss decreased from"
        # names "from", not the loss)
        pwords = [normalize_name(w) for w in phrase.split()]
        pwords = [w for w in pwords if w]
        if len(pwords) == 1 and "_" in pwords[0] and match_role(pwords[0]) is None:
            kept = [t for t in pwords[0].split("_") if t not in _EXTRA_FILLER]
            if kept:
                pwords = ["_".join(kept)]
        while len(pwords) > 1 and pwords[-1] in _EXTRA_FILLER:
            pwords.pop()
        best = None
        n = len(pwords)
        for size in (3, 2, 1):
            start = n - size
            if start < 0:
                continue
            sub = [w for w in pwords[start:] if w not in _EXTRA_FILLER or w == "total"] \
                if size > 1 else pwords[start:]
            if not sub:
                continue
            joined = "_".join(sub)
            cands = [joined]
            if eff and not any(t in _SPLIT for t in joined.split("_")):
                cands.insert(0, eff + "_" + joined)
            for c in cands:
                m = match_role(c)
                if m is None:
                    continue
                role, rank = m
                if role in ("step", "epoch", "time", "step_time"):
                    continue
                if eff == "test" and role in ("val_loss", "val_accuracy"):
                    rank += 20
                if best is None or rank < best[1]:
                    best = (role, rank, phrase, None)
                break  # the split-qualified reading first: "Test ... accuracy" is a test accuracy
            if best is not None:
                break
        return best

    # -- feeding -----------------------------------------------------------------------------
    def feed(self, raw: str, new: bool = True) -> None:
        if new:
            self.line_no += 1
        if len(raw) > self.max_line:
            raw = raw[: self.max_line]
        line = raw.rstrip("\r\n")
        if not line.strip():
            return
        if "\x1b" in line:
            line = _ANSI.sub("", line)
        # tracebacks
        if self.in_trace:
            self._trace(line)
            return
        if _TRACE_START.match(line):
            self.in_trace = True
            self.trace_line = self.line_no
            self.trace_lines = 0
            return
        if not any(c.isdigit() for c in line) and "nan" not in line.lower() \
                and "inf" not in line.lower():
            self._maybe_header(line)
            self._exception_line(line)
            return
        self._parse(line)

    def _trace(self, line: str) -> None:
        self.trace_lines += 1
        if line.startswith((" ", "\t")) or self.trace_lines > 400:
            if self.trace_lines > 400:
                self.in_trace = False
            return
        if line.startswith(("During handling", "The above exception")):
            return
        m = _EXC_LINE.match(line)
        if m:
            self._error(m.group(1) + (": " + m.group(3) if m.group(3) else ""), self.trace_line)
            self.in_trace = False
            return
        self.in_trace = False
        self._parse(line)

    def _exception_line(self, line: str) -> None:
        m = _EXC_LINE.match(line)
        if m and m.group(3) and m.group(2) not in ("KeyboardInterrupt",) and \
                (m.group(2).endswith("Error") or "OutOfMemory" in m.group(2)):
            self._error(m.group(1) + ": " + m.group(3), self.line_no)

    def _error(self, message: str, line: int) -> None:
        message = message.strip()
        if message.startswith("KeyboardInterrupt"):
            return
        self.log.error_count += 1
        kind = "other_error"
        if _NAN_ERROR.search(message) and not re.search(r"out of memory", message, re.I):
            kind = "nonfinite"
        else:
            for k, rx in _ERROR_KINDS:
                if rx.search(message):
                    kind = k
                    break
        if len(self.log.errors) < self.max_events:
            self.log.errors.append({"line": line, "kind": kind, "message": message[:300]})
        else:
            self.log.errors[-1] = {"line": line, "kind": kind, "message": message[:300]}

    def _maybe_header(self, line: str) -> bool:
        """A line of names only, one of them a metric: a table header (returns True)."""
        s = line.strip().strip("|│┃").strip()
        if not s or len(s) > 400:
            return False
        for delim in (",", "\t", "|", "│", ";"):
            if s.count(delim) >= 1:
                names = [c.strip() for c in s.split(delim)]
                break
        else:
            delim = None
            names = [c for c in re.split(r"\s{2,}", s) if c]
            if len(names) < 2:
                names = s.split()
        names = [n for n in names if n]
        if len(names) < 2 or len(names) > 40:
            return False
        if not all(re.fullmatch(r"[A-Za-z_][\w ./@\-()%]*", n) for n in names):
            return False
        roles = [self._role(n, None) for n in names]
        if not any(r is not None and r[0] in ("loss", "val_loss", "accuracy", "val_accuracy")
                   for r in roles):
            return False
        self.header = (names, delim, roles)
        return True

    def _table_row(self, line: str):
        names, delim, roles = self.header
        s = line.strip().strip("|│┃").strip()
        cells = [c.strip() for c in s.split(delim)] if delim else s.split()
        if delim is None and len(cells) != len(names):
            return None
        if len(cells) != len(names):
            return None
        vals = []
        numeric = 0
        for c in cells:
            v = _cell(c)
            if v is not None:
                numeric += 1
            vals.append(v)
        if numeric < max(1, self.header_min_numeric * len(cells)):
            return None
        return list(zip(names, roles, vals))

    # A console log repeats a few line shapes thousands of times. The first line of each shape
    # (its digits all read as 0) is parsed in full, with every removal done in place (blanks of
    # the same length), so each number read is a span of the line; the shape's *plan* records
    # those spans as runs of digits. A later line of the same shape is read by its plan: one
    # scan for digit runs instead of a dozen regular expressions.
    def _parse(self, line: str) -> None:
        key = line.translate(_ZEROS)
        plan = self.plans.get(key)
        if plan is not None:
            if plan is _NO_PLAN:
                return self._parse_full(line, None)
            runs = [m.span() for m in _DIGITS.finditer(line)]
            return self._apply(line, plan, runs)
        rec = [] if len(self.plans) < self.max_plans else None
        ex = self._parse_full(line, rec)
        if rec is not None:
            if ex is None:
                self.plans[key] = _NO_PLAN
            else:
                runs = [m.span() for m in _DIGITS.finditer(line)]
                self.plans[key] = _plan(ex, runs, line)

    def _apply(self, line, plan, runs) -> None:
        e, c, ct, st, split, progress, ms = plan
        metrics = []
        for r, kind, spec in ms:
            t = line[runs[spec[1]][0] - spec[3]: runs[spec[2]][1] + spec[4]] if spec[0] == "@" else spec[1]
            try:
                metrics.append((r, float(t) if kind == "num" and t[-1] != "%" else _value(kind, t, r[0])))
            except ValueError:
                continue
        if metrics:
            self._commit(None if e is None else float(_token(line, e, runs)),
                         None if c is None else int(_token(line, c, runs)),
                         None if ct is None else int(_token(line, ct, runs)),
                         None if st is None else int(_token(line, st, runs)),
                         split, progress, metrics)

    # (complexity above the cap came with the merge of main: to be split, issue 11)
    def _parse_full(self, line: str, rec):  # noqa: C901
        """Parse one line; returns the extraction (for a plan) when it is a record, else None."""
        text = line
        m = _PREFIX.match(text)
        if m:
            text = " " * m.end() + text[m.end():]
        if "tensor(" in text or "Tensor(" in text:
            text = _TENSOR.sub(_spaces, text)
        # a table row?
        if self.header is not None:
            row = self._table_row(text)
            if row is not None:
                self._table_record(row)
                return None
        text = _LEVEL.sub(_spaces, text)
        text = _CLOCK.sub(_spaces, text)
        progress = bool(_PROGRESS.search(text)) or "it/s" in text or "s/it" in text
        epoch = counter = counter_total = step = None   # (kind, start, end)
        split = None
        mm = _MM.search(text)
        if mm:
            split = _SPLIT.get((mm.group(1) or "").lower())
            epoch, counter, counter_total = ("f",) + mm.span(2), ("i",) + mm.span(3), ("i",) + mm.span(4)
            text = _cut(text, *mm.span())
        else:
            em = _EPOCH.search(text)
            if em:
                split = _SPLIT.get((em.group(1) or "").lower())
                epoch = ("f",) + em.span(2)
                text = _cut(text, *em.span())
        sm = _STEP.search(text)
        if sm:
            step = ("i",) + sm.span(2)
            st_total = ("i",) + sm.span(3) if sm.group(3) else None
            kind = sm.group(1).lower()
            if kind in ("batch", "it") or (st_total is not None and epoch is not None):
                counter, counter_total = step, st_total
                step = None
            text = _cut(text, *sm.span())
        elif epoch is None:
            lm = _LEAD_STEP.match(text)
            if lm:
                step = ("i",) + lm.span(1)
                text = _cut(text, 0, lm.end())
        if counter is None:
            cm = _COUNTER.search(text)
            if cm and not re.search(r"[\w.]\s*$", text[:cm.start()]) or (cm and progress):
                counter, counter_total = ("i",) + cm.span(1), ("i",) + cm.span(2)
                text = _cut(text, *cm.span())
        pairs = self._pairs(text)
        if split is None:
            split = self._line_split(text, pairs)
        metrics = []
        for phrase, kind, a, b, _pos in pairs:
            r = self._role(phrase, split)
            if r is None:
                continue
            metrics.append((r, kind, (a, b)))
        if not metrics:
            if epoch is not None and not pairs:
                self._set_epoch(_num(line, epoch))
            if not pairs:
                self._maybe_header(line)
            self._exception_line(line)
            self._nan_warning(line)
            return None
        if epoch is None and step is None and counter is None and not any(
                r[0] in _KEY_ROLES for r, _, _ in metrics) and (
                self.mode is None or len(pairs) > len(metrics) + 1):
            return None  # a config dump ({'lr': 0.01, 'seed': 0, ...}), not a record of the run
        ex = (epoch, counter, counter_total, step, split, progress, metrics)
        vals = []
        for r, kind, (a, b) in metrics:
            try:
                vals.append((r, _value(kind, line[a:b], r[0])))
            except ValueError:
                continue
        if vals:
            self._commit(*(None if v is None else _num(line, v) for v in (epoch, counter, counter_total, step)),
                         split, progress, vals)
        return ex

    def _commit(self, epoch, counter, counter_total, step, split, progress, metrics) -> None:
        if epoch is not None:
            self._set_epoch(epoch)
        self.epoch_on_line = epoch is not None
        self._record(metrics, split, counter, counter_total, step, progress,
                     "progress" if progress else "pairs")

    def _line_split(self, text: str, pairs) -> str | None:
        first = pairs[0][4] if pairs else len(text)
        for w in re.findall(r"[A-Za-z]+", text[:first + 40] if not pairs else
                            text[:first] + " " + pairs[0][0]):
            s = _SPLIT.get(w.lower())
            if s:
                return s
        return None

    def _pairs(self, text: str) -> list:
        """``(phrase, kind, start, end, phrase_start)`` for each name-number pair of ``text``."""
        toks = [(m.lastgroup, m.group(m.lastgroup), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        out = []
        n = len(toks)
        i = 0
        phrase: list = []
        phrase_pos = 0
        used = set()
        while i < n:
            kind, val, pos, end = toks[i]
            if kind == "name":
                if val.lower() in ("nan", "inf", "infinity"):
                    kind = "num"
                else:
                    if not phrase:
                        phrase_pos = pos
                    phrase.append(val)
                    i += 1
                    continue
            if phrase and kind in ("num", "frac"):
                out.append((" ".join(phrase[-6:]), kind, pos, end, phrase_pos))
                used.add(i)
                phrase = []
                i += 1
                # a parenthesised number right after a value is its running mean: skip it
                if i + 2 < n and toks[i][1] == "(" and toks[i + 1][0] == "num" and toks[i + 2][1] == ")":
                    used.add(i + 1)
                    i += 3
                continue
            if phrase and kind == "sep" and val in _PAIR_SEP:
                i += 1
                continue
            if kind == "num" and i not in used and not phrase:
                # number then name: "24.93 avg loss," / "0.001 rate"
                j = i + 1
                words = []
                while j < n and toks[j][0] == "name":
                    words.append(toks[j][1])
                    j += 1
                if words and (j >= n or (toks[j][0] == "sep" and toks[j][1] in ",;|")) and \
                        (i == 0 or toks[i - 1][0] == "sep"):
                    out.append((" ".join(words[-4:]), kind, pos, end, toks[i + 1][2]))
                    i = j
                    continue
            phrase = []
            i += 1
        return out

    def _set_epoch(self, epoch: float) -> None:
        if self.epoch is not None and epoch < self.epoch and self.mode != "step":
            pass
        self.epoch = epoch
        if self.epoch0 is None:
            self.epoch0 = epoch
        if epoch not in self.epochs_seen and len(self.epochs_seen) < 100000:
            self.epochs_seen.add(epoch)

    def _table_record(self, row) -> None:
        metrics = []
        epoch = step = None
        for name, role, v in row:
            if v is None:
                continue
            norm = normalize_name(name)
            m = match_role(name)
            if m and m[0] == "epoch":
                epoch = v
                continue
            if m and m[0] == "step":
                step = int(v)
                continue
            if role is not None:
                metrics.append((role, v))
        if epoch is not None:
            self._set_epoch(epoch)
        if metrics:
            self.epoch_on_line = epoch is not None
            self._record(metrics, None, None, None, step, False, "table")
        _ = norm if row else None

    def _nan_warning(self, line: str) -> None:
        if _NAN_WARN.search(line) and _NAN_CTX.search(line) and not _NAN_BENIGN.search(line):
            self.log.nan_warnings += 1
            if len(self.log.nan_warning_lines) < self.max_events:
                self.log.nan_warning_lines.append(self.line_no)
            if self.log.nan_warning_x is None and self.last_x is not None:
                self.log.nan_warning_x = self.last_x

    # -- records -----------------------------------------------------------------------------
    def _record(self, metrics, split, counter, counter_total, step, progress, style) -> None:
        self.metric_lines += 1
        self.styles[style] = self.styles.get(style, 0) + 1
        is_eval = split in ("val", "test") or all(r[0] in ("val_loss", "val_accuracy")
                                                  for r, _ in metrics)
        if self.mode is None:
            if step is not None or counter is not None:
                self.mode = "step"
            elif self.epoch is not None:
                self.mode = "epoch"
            else:
                self.mode = "row"
            self.log.x_label = {"step": "step", "epoch": "epoch", "row": "row"}[self.mode]
        x = self._x(step, counter, counter_total, is_eval)
        if progress:
            key = (x, tuple(v for _, v in metrics))
            if key == self.prev_progress:
                return
            self.prev_progress = key
        explicit = step is not None or counter is not None or self.epoch_on_line
        if not is_eval and not explicit and self.last_x is not None and x < self.last_x:
            x = self.last_x
        if not is_eval:
            if self.last_x is not None and x < self.last_x:
                self.log.restart_lines.append(self.line_no) if len(self.log.restart_lines) < \
                    self.max_events else None
                self.max_counter = 0
                self.epochs_seen = set() if self.epoch is None else {self.epoch}
                self.epoch0 = self.epoch
                if self.mode == "step" and step is None and counter is not None:
                    x = self._x(step, counter, counter_total, is_eval)
            self.last_x = x
            self.train_records += 1
        self.max_epochs_seen = max(self.max_epochs_seen, len(self.epochs_seen))
        for (role, rank, name, transform), v in metrics:
            key = (role, name)
            c = self.cands.get(key)
            if c is None:
                if len(self.cands) >= self.max_names:
                    continue
                c = self.cands[key] = _Cand(role, rank, name, transform)
            if c.transform == "log":
                v = math.log(v) if v > 0 else (math.nan if v != 0 else -math.inf)
            if progress and role in ("val_loss", "val_accuracy") and v == c.last:
                continue
            c.last = v
            c.bx.append(x)
            c.by.append(v)
            if len(c.by) >= 4096:
                c.series.extend(c.bx, c.by)
                c.bx, c.by = [], []

    def _x(self, step, counter, counter_total, is_eval) -> float:
        if self.mode == "step":
            if step is not None:
                self.last_step = step
                return float(step)
            if is_eval and self.last_x is not None:
                return self.last_x
            e = self.epoch if self.epoch is not None else 0.0
            e0 = self.epoch0 if self.epoch0 is not None else e
            if counter_total:
                self.per_epoch = counter_total
            if counter is not None:
                if self.counter_epoch != e:
                    self.counter_epoch = e
                if counter > self.max_counter:
                    self.max_counter = counter
                per = self.per_epoch or self.max_counter or 1
                return float((e - e0) * per + counter)
            if self.last_step is not None and self.epoch is None:
                return float(self.last_step)
            per = self.per_epoch or self.max_counter
            if per:
                return float((e - e0 + 1) * per)
            return self.last_x if self.last_x is not None else 0.0
        if self.mode == "epoch":
            if self.epoch is not None:
                return float(self.epoch)
            return self.last_x if self.last_x is not None else 0.0
        if is_eval and self.last_x is not None:
            return self.last_x
        return float(self.train_records)

    # -- the end -----------------------------------------------------------------------------
    def finish(self) -> ConsoleLog:
        log = self.log
        log.lines = self.line_no
        for c in self.cands.values():
            if c.by:
                c.series.extend(c.bx, c.by)
                c.bx, c.by = [], []
        best: dict = {}
        for c in self.cands.values():
            if c.series.rows == 0:
                continue
            b = best.get(c.role)
            if b is None or (c.rank, -c.series.rows) < (b.rank, -b.series.rows):
                best[c.role] = c
        # a test split stands in for validation only when no validation was printed
        for role, c in best.items():
            log.series[role] = c.series
            log.columns[role] = c.name
            log.names[role] = c.name
        log.ignored_columns = sorted({c.name for c in self.cands.values()} - set(log.columns.values()))[:30]
        log.rows = self.metric_lines
        log.epochs = self.max_epochs_seen if self.epochs_seen or self.max_epochs_seen else 0
        log.styles = sorted(self.styles, key=self.styles.get, reverse=True)
        if self.log.x_label == "step" and log.restarts is not None:
            pass
        if not any(r in log.series for r in ("loss", "val_loss", "accuracy", "val_accuracy")):
            if log.errors or log.nan_warnings:
                return log  # a crash before the first metric is still evidence
            raise InputError(
                f"no training metrics found in {self.line_no:,} line(s) (lines 1-{self.line_no}): "
                "none holds a loss or accuracy as 'key value', 'key: value', 'key=value', a table "
                "with a header, a progress bar or a dict", self.path,
                hint="name a metric with --column-map, e.g. loss=my_loss")
        return log


def _cell(c: str):
    c = c.strip().rstrip("%")
    if not c:
        return None
    if "/" in c:
        a = c.split("/", 1)[0]
        try:
            return float(a)
        except ValueError:
            return None
    try:
        return float(c)
    except ValueError:
        return None


def _value(kind: str, val: str, role: str | None = None) -> float:
    """A printed value as a number: ``3/4`` -> 0.75; ``27.5%`` -> 0.275 — except for a loss, which
    is not a fraction of anything ("Loss: 2.520%" is a loss of 2.52 printed with a stray percent sign)."""
    if kind == "frac":
        a, b = val.split("/")
        b = float(b)
        return float(a) / b if b else math.nan
    pct = val.endswith("%")
    if pct:
        val = val[:-1]
    v = float(val)
    return v / 100.0 if pct and not (role or "").endswith("loss") else v


def _lines(f, path: str = "text", max_piece: int | None = None):
    """``(text, new)`` for the lines of a text stream opened with ``newline="\\n"``: a ``\\r`` (a
    progress bar redrawn) ends a piece of a line too; ``new`` is False for the pieces after the
    first, so that line numbers count the file's lines.

    Read in blocks, so a line is never held whole: a progress bar redrawn a million times without
    a newline streams piece by piece; a single piece longer than ``max_piece`` characters
    (``limits.max_line_chars``) is an InputError naming its line."""
    limit = max_piece if max_piece is not None else bounded.limits().max_line_chars
    buf = ""
    first = True          # the next piece of the current line is its first
    had_cr = False        # pieces of the current line were split off before its newline came
    line_no = 1
    while True:
        chunk = f.read(1 << 16)
        buf += chunk
        while True:
            nl = buf.find("\n")
            if nl < 0:
                break
            line, buf = buf[: nl + 1], buf[nl + 1:]
            if "\r" in line or had_cr:
                for part in line.rstrip("\r\n").split("\r"):
                    if part.strip():
                        yield part, first
                        first = False
                if first:
                    yield "", True
            else:
                yield line, True
            first, had_cr = True, False
            line_no += 1
        if not chunk:
            if buf:
                if "\r" in buf or had_cr:
                    for part in buf.split("\r"):
                        if part.strip():
                            yield part, first
                            first = False
                    if first:
                        yield "", True
                else:
                    yield buf, True
            return
        cr = buf.rfind("\r")
        if cr >= 0:   # finished pieces of an unfinished line: out now
            head, buf = buf[:cr], buf[cr:]
            had_cr = True
            for part in head.split("\r"):
                if part.strip():
                    yield part, first
                    first = False
            if len(buf) > 1:
                buf = buf[1:] if buf[1:2] != "\n" else buf
        if len(buf) > limit:
            raise InputError(f"line longer than {limit} characters", path, line_no,
                             hint="limits.max_line_chars in kb/parameters/limits.yaml")


def read_console(path, column_map=None, params=None) -> ConsoleLog:
    """Read a console log file into a :class:`ConsoleLog` (finished: percent accuracies scaled,
    restarts listed). Raises InputError (one line, file and lines tried) when no metric is found."""
    path = os.fspath(path)
    reader = ConsoleReader(path, column_map, params)
    try:
        f = open(path, encoding="utf-8-sig", errors="replace", newline="\n")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    with f:
        for line, new in _lines(f, path, bounded.limits(params).max_line_chars):
            reader.feed(line, new)
    log = reader.finish()
    _finish(log)
    return log


def read_console_text(text: str, name: str = "pasted log", column_map=None, params=None) -> ConsoleLog:
    """Read console text already in memory (a pasted excerpt)."""
    reader = ConsoleReader(name, column_map, params, fmt="pasted")
    for line, new in _lines(io.StringIO(text, newline="\n"), name, bounded.limits(params).max_line_chars):
        reader.feed(line, new)
    log = reader.finish()
    _finish(log)
    return log


def _finish(log: ConsoleLog) -> None:
    log._finish()
    # restarts are counted by line in the reader; LogData lists them by step
    if not log.restart_lines and log.restarts:
        log.restart_lines = []


def looks_like_console(text: str, params=None) -> bool:
    """True when ``text`` holds at least two printed metric records (used to tell a pasted log
    from prose)."""
    reader = ConsoleReader("text", None, params, fmt="pasted")
    for line, new in _lines(io.StringIO(text, newline="\n")):
        reader.feed(line, new)
    good = [c for c in reader.cands.values() if c.role in ("loss", "val_loss", "accuracy",
                                                            "val_accuracy")]
    return reader.metric_lines >= 2 and bool(good) or bool(reader.log.errors) and \
        reader.metric_lines >= 1


def analyze_console(log: ConsoleLog, num_classes=None, params=None):
    """Curve facts plus the text's own evidence: ``(findings, analysis)``."""
    from .curves import analyze
    if any(r in log.series for r in ("loss", "val_loss", "accuracy", "val_accuracy")):
        findings, analysis = analyze(log, num_classes=num_classes, params=params)
    else:
        findings, analysis = [], None
    return log.evidence(findings), analysis


__all__ = ["read_console", "read_console_text", "analyze_console", "looks_like_console",
           "ConsoleLog", "ConsoleReader", "describe"]
