"""How the console reader reads one line: prefixes removed, axes located, name-number pairs
found, a repeated line shape read by a remembered plan, table headers and rows.

Split out of :mod:`traindx.probes.readers.console` (whose docstring describes the reading);
:class:`LineParser` is a mixin of :class:`~traindx.probes.readers.console.ConsoleReader` and
uses its state (``header``, ``plans``, ``mode``, ``words``: the knowledge base's vocabulary) and
record methods (``_commit``, ``_role``, ``_record``, ``_set_epoch``, ``_exception_line``,
``_nan_warning``). Torch-free."""

from __future__ import annotations

import math
import re
from operator import itemgetter

from collections.abc import Mapping

from traindx.engine.values import THOUSANDS_GROUPED

from .console_logged import blank_nans, logged_header, logged_message, logged_row
from .words import LogWords, normalize_name

#: The shape of a table header line (format, not knowledge): longer lines, or more names, are prose
#: or data rows, never a header.
_HEADER_MAX_CHARS = 400
_HEADER_MAX_NAMES = 40

# ------------------------------------------------------------------------------ line cleaning
_PREFIX = re.compile(
    r"^\s*(?:"
    r"[IWEF]\d{4}\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\d+\s+[\w./-]+:\d+\]"          # glog
    r"|\[?\d{4}[-/]\d\d[-/]\d\d(?:[ T_]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?\]?"  # ISO
    r"|\[?\d\d/\d\d(?:/\d{2,4})?\s+\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"              # 08/12 10:00:00
    r"|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"                                      # 10:00:00
    r")(?:\s+[AP]M\b)?")                          # a 12-hour clock's half of the day (sar: ``09:03:51 AM``)
_LEVEL = re.compile(r"\b(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|NOTICE|TRACE)\b:?")
#: Python logging's default format, ``LEVEL:logger.name:message``: the logger's name is no metric's
#: (``INFO:train:Eval at step 10: loss 0.8`` is an evaluation, not a training line)
_PY_LOGGER = re.compile(r"\b(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.<>]+:(?![-+.\d])")
#: a split word, a whole number and a bracketed counter opening a line (timm: ``Train: 3 [ 120/390 ( 31%)]``):
#: the number is the epoch
_SPLIT_EPOCH = re.compile(r"\s*(train|training|valid|validation|val|eval|test)\s*:?\s*(\d+)\s+(?=\[\s*\d+\s*/\s*\d+)",
                          re.IGNORECASE)
_SPLIT_EPOCH_START = frozenset(" TtVvEe")
#: the name of a value printed as a fraction, correct over total (``Accuracy: 9812/10000 (98%)``):
#: the fraction after it is the value, not a batch counter
_FRAC_VALUE = re.compile(r"(?:acc\w*|correct\w*|top-?[15])\s*[:=]\s*$", re.IGNORECASE)
#: (every pattern below that repeats a class starts only where a run of that class starts, so that a
#: 4,096-character line of digits or blanks is searched in linear time, not quadratic)
_CLOCK = re.compile(r"(?<![\w.])\d+(?::\d\d){1,2}(?:[.,]\d+)?(?![\w.])|(?<!\d)\d+\s+days?,\s*")
_TENSOR = re.compile(r"\b(?:tf\.)?tensor\(\s*\[*", re.IGNORECASE)
#: a NumPy scalar's repr (NumPy 2: ``np.float32(0.25)``), a JAX array's (``Array(0.25, dtype=float32)``)
_NP_SCALAR = re.compile(r"\b(?:np|numpy|jnp)\.(?:float|int|uint|bfloat)\d*\(|\bArray\((?=\s*[-+.\d])")
#: a Julia Float32 literal's suffix (``38.7037f0``: Float32 values in the ordinary range print so): read
#: as blanks, the number before it is the value (``1.5f-5`` stays unread: its exponent is the value's)
_JULIA_F32 = re.compile(r"(?<=\d)f0(?![\w.])")
#: a non-finite float as Microsoft's C runtime printed it before Visual Studio 2015 (printf's ``%f`` of a
#: NaN is ``1.#QNAN0`` or ``-1.#IND00``, of an infinity ``1.#INF00``): what a C/C++ trainer built on
#: Windows (CNTK, Caffe, darknet, dlib) prints for a NaN or an infinite loss
_MSVC_NONFINITE = re.compile(r"(?<![\w.])([-+]?)1\.#(?:(QNAN|SNAN|NAN|IND)|INF)\d*(?![\w.])", re.IGNORECASE)


#: YAML's spelling of a non-finite float (``episode_reward_mean: .nan``, ``loss: -.inf``: ``yaml.dump`` of a
#: metrics dict, Ray Tune's result printed as YAML)
_YAML_NONFINITE = re.compile(r"(?<![\w.])([-+]?)\.(nan|inf)\b", re.IGNORECASE)


def yaml_nonfinite(text: str) -> str:
    """``text`` with YAML's ``.nan``, ``.inf`` and ``-.inf`` written as the ``nan`` and ``inf`` every
    reading knows (a name before ``.nan`` then stands before a number, as printed metrics do)."""
    if ".n" not in text and ".i" not in text and ".N" not in text and ".I" not in text:
        return text
    return _YAML_NONFINITE.sub(r"\1\2", text)


def msvc_nonfinite(line: str) -> str:
    """``line`` with Microsoft's printed non-finite floats (``1.#QNAN0``, ``-1.#IND00``, ``1.#INF00``)
    written as the ``nan`` and ``inf`` every reading knows."""
    if ".#" not in line:
        return line
    return _MSVC_NONFINITE.sub(lambda m: "nan" if m.group(2) else m.group(1) + "inf", line)


#: a value in angle brackets after its name (``INFO:  Iteration: 3, Loss: <0.8058>``, as a SQL engine's
#: in-database trainer prints it): the brackets are read as blanks
_ANGLED_VALUE = re.compile(r"<\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\s*>", re.IGNORECASE)
#: a typed tensor's show in front of its value (Hasktorch's ``Loss: Tensor Float []  0.3401``: the dtype,
#: then the shape, ``[]`` for a scalar): read as blanks, the number after it is the value
_TYPED_TENSOR = re.compile(r"\bTensor\s+(?:Float|Double|Half|BFloat16|U?Int\d*|Bool)\s+\[[\d,\s]*\]")


#: a metric's kind in angle brackets between its name and its value (SageMaker's built-in algorithms:
#: ``#quality_metric: host=algo-1, epoch=0, train mse_objective <loss>=0.965``): the name is a loss's
_LOSS_TAG = " <loss>"
_AS_LOSS = "_loss  "


def _unwrapped(text: str) -> str:
    """``text`` with the wrappers some printers put around a scalar taken off, span for span (an
    angle-bracketed value, a typed tensor's dtype and shape, a ``<loss>`` kind tag read as the name's
    ``_loss``)."""
    if "<" in text:
        text = _ANGLED_VALUE.sub(lambda m: " " + m.group(0)[1:-1] + " ", text)
        if _LOSS_TAG in text:
            text = text.replace(_LOSS_TAG, _AS_LOSS)
    if "Tensor " in text:
        text = _TYPED_TENSOR.sub(_spaces, text)
    return text


def value_calls(names) -> re.Pattern:
    """The pattern of a value shown inside a call that holds it unchanged, right after its name's ``=``
    or ``:`` (``loss(x, y) = param(0.0913)``; ``console.value_wrapper_calls`` names the calls)."""
    alts = "|".join(sorted((re.escape(str(n)) for n in names), key=len, reverse=True)) or "(?!)"
    return re.compile(rf"(?<=[=:])(?P<gap>\s*)(?P<call>(?:{alts})\()"
                      rf"(?P<value>\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\s*)\)", re.IGNORECASE)


def _value_unwrapped(m) -> str:
    """A call around a value (``value_calls``) read as blanks around the value, span for span."""
    return m.group("gap") + " " * len(m.group("call")) + m.group("value") + " "


#: a Julia symbol naming the value after it in a tuple (``(:epoch,8,:trn,38.7,:tst,38.6)``, Knet's examples):
#: the colon and the comma after the symbol are read as blanks, ``epoch 8, trn 38.7, tst 38.6``
_JULIA_SYMBOL = re.compile(r"(?<=[(,]):([A-Za-z_]\w*),(?=\s*[-+.\d])")
#: a name opening a bracketed tuple with its value after a comma (Erlang's and Elixir's terms,
#: ``{epoch,1,[{train_loss,0.2661},{lr,0.05}]}``): the comma after the name is read as a blank,
#: ``epoch 1, train_loss 0.2661, lr 0.05``
_TUPLE_NAME = re.compile(r"(?<=[{(\[])([A-Za-z_]\w*),(?=\s*[-+.\d]|nan\b|inf\b)")
#: a quoted name and its value after a comma: Python 2's ``print("loss:", loss)`` prints the tuple
#: ``('loss:', 0.53)``; the comma after the closing quote is read as a blank, ``('loss:'  0.53)``
_QUOTED_NAME_COMMA = re.compile(r"(?<=[A-Za-z_:=)\] ]['\"]),(?=\s*(?:[-+]?(?:\d|\.\d)|nan\b|inf\b))", re.IGNORECASE)
#: a command-line option and its value (``python train.py -b 64 --learning-rate 0.0001 --epoch 200``):
#: a setting the command asks for, not a value the run printed
_OPTION = re.compile(r"(?<!\S)--[A-Za-z][\w.-]*(?:=|\s+)(?!-[A-Za-z])\S+")

# ------------------------------------------------------------------------------ axes
_MM = re.compile(r"\bepoch\s*(?:\(\s*(\w+)\s*\))?\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*/\s*(\d+)\s*\]",
                 re.IGNORECASE)
#: (a number glued to a time unit is what the epoch took, ``epoch:59.6s``, not its index)
_EPOCH = re.compile(r"\b(?:epoch|ep)\b[\]'\"]?\s*(?:\(\s*(\w+)\s*\))?\s*[:=#]?\s*(?:(?<==)\")?[\[(]?\s*(\d+(?:\.\d+)?)"
                    r"(?![\d.]*\s*%)(?![\d.]*(?:ms|s|secs?|mins?)(?![\w.]))(?:\s*/\s*(\d+))?\s*[\])]?", re.IGNORECASE)
#: a progress bar that counts epochs, not steps: its description names epochs before the percentage
#: (``Training epochs on cpu:   8%|``, ``Epochs: 50%|``) or its unit is the epoch (``0.15s/epoch``,
#: ``3.2epoch/s``); its counter (``1/12``) is then the epoch
_EPOCH_BAR = re.compile(r"^[^\d|%]*\bepochs?\b[^\d|%]*\d+%|\d\s*(?:s|secs?)\s*/\s*epoch\b|\depochs?\s*/\s*s\b",
                        re.IGNORECASE)
#: an epoch printed as a number glued to the word and a colon (ESPnet's ``15epoch:train:751-1125batch:``)
_EPOCH_GLUED = re.compile(r"(?<![\w.#])(\d+)epoch:")
#: an epoch printed as the word glued to its number, a logger's prose ``The train loss of epoch12-batch-50:0.087``:
#: the number ends the token or a separator follows, never a point (``epoch12.pth`` is a file) or a word
#: character; the token may go on with the batch counted in the epoch, joined by a hyphen or underscore
_EPOCH_WORD_GLUED = re.compile(r"\bepoch(\d+)(?:[-_](?:batch|iter|it|step)[-_]?(\d+))?(?![\w.])", re.IGNORECASE)
#: a whole number printed with thousands separators (``iter:   1,000``, Python's ``{:,d}``): three digits
#: after each comma, and no further digit, point or comma-digit after the last group
_GROUPED = THOUSANDS_GROUPED + r"(?![\d.]|,\d)"
_STEP = re.compile(r"\b(global[_ ]step|step|steps|iteration|iter|it|batch|batch_id|batch_idx|step_id|iter_id|"
                   r"update|updates|num_updates|n_iter|global_iter)\b[\]'\"]?\s*[:=#]?\s*[\[(]?\s*"
                   rf"({_GROUPED}|\d+(?![.\d]))(?:\s*/\s*({_GROUPED}|\d+))?\s*[\])]?",
                   re.IGNORECASE)
#: a batch counter ``120/390``; never two numbers of a date (``08/11/20``, ``12/15/2021``): a third
#: number after another slash makes it no counter
_COUNTER = re.compile(r"(?<![\w./])(\d+)\s*/\s*(\d+)(?![\w./]|\s*[a-zA-Z])")
#: a line that starts with its step and a separator (``12: 463.5 ...``, ``1220 | loss 3.29 | lr ...``,
#: ``1000 || B: 2.48 | ...``), perhaps behind its epoch in brackets (YOLACT's ``[ 10]    1000 || ...``), or
#: with its round in brackets (gradient boosting's ``[6209]\tvalid-rmse:128.8``)
_LEAD_STEP = re.compile(r"^\s*(?:(?:\[\s*(\d+)\]\s+)?(\d+)\s*(?::|\|+)|\[(\d+)\])\s")

# ------------------------------------------------------------------------------ tokens
#: a name stops before the number glued to it that ends the token (``loss0.692-|``: the loss is 0.692,
#: not a ``loss0`` of 0.692 left unread); digits a name goes on after (``conv1``, ``layer1.weight``) stay in it,
#: and so does a version in a path (``lib/python3.11/site-packages``). A run of digits is tested once, at its
#: start, and taken whole (``\d+(?!\d)``): tested at every digit, a 4,096-digit name cost a third of a second
#: a line (quadratic), which a garbage log repeats on every line
_TOKEN = re.compile(
    r"(?P<count>(?<![\w.,])[1-9]\d{0,2}(?:,\d{3})+(?![\w.,]))"
    r"|(?P<frac>(?<![\w.])\d+\s*/\s*\d+(?![\w.]))"
    r"|(?P<dur>(?<![\w.])(?:\d+\.\d*|\.\d+|\d+)(?=(?:ms|s)(?![\w.])))"
    r"|(?P<num>[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?!\w|\.\w)|(?:nan|inf(?:inity)?)\b)%?)"
    r"|(?P<junk>\d[\w.]*)"
    r"|(?P<name>[A-Za-z_](?:[^\W\d]|(?!\d+\.\d+(?:[eE][-+]?\d+)?(?![\w./\\]))\d+(?!\d))*(?:[./@\-][A-Za-z_]\w*|[@\-][15](?![\w.])|@\d+(?:\.\d+)?(?![\w.])"
    r"|-\d+(?=[ \t]*[:=]|[ \t]+[-+]?\.?\d))*)"
    r"|(?P<sep>[^\sA-Za-z0-9_])", re.IGNORECASE)
#: a whole number of at least this many digits, inside a name, is a count (a test set's size)
_COUNT_DIGITS = 3
#: a printed speed: the time of one step (``646.632 sec/step``, ``65.28s/it``, ``12 ms/batch``) or its
#: inverse, steps or examples per second (``1.29it/s``, ``2.37 iter/s``, ``1.43 examples/second``, an RL
#: agent's environment frames, ``281.9 f/s``);
#: group ``per`` is set for a time per step, ``rate`` for a count per second, ``ms`` for milliseconds
_SPEED = re.compile(
    r"(?<![\w.])(?P<v>\d+(?:\.\d+)?)\s*(?:"
    r"(?P<per>(?P<ms>ms)|s|secs?|seconds?)\s*/\s*(?:it|iters?|itr|steps?|batch(?:es)?)"
    r"|(?P<rate>it|its|iters?|steps?|batch(?:es)?|examples?|samples?|imgs?|images?|tokens?|words?|frames?|f)"
    r"\s*/\s*(?:s|secs?|seconds?))"
    r"(?![\w/])", re.IGNORECASE)
#: a speed printed as a named value: a count per second (``SamplesPerSec=29.5``, ``steps_per_second=1.58``,
#: ``tokens_per_second_per_gpu:405``, ``samples/sec: 812``). A rate named for a split (``eval_samples_per_second``,
#: ``train_steps_per_second``) is the average over an evaluation or over the whole run in a summary, not a step's
_NAMED_RATE = re.compile(
    r"(?<![A-Za-z0-9])(?<!eval_)(?<!val_)(?<!test_)(?<!train_)(?:it|iters?|iterations?|steps?|batch(?:es)?|examples?|"
    r"samples?|imgs?|images?|tokens?|words?)[ _]?(?:per[ _]?|/)(?:s|secs?|seconds?)"
    r"(?:[ _]?per[ _]?(?:gpu|device|rank))?"
    r"['\"]?\s*[:=]\s*(?P<v>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])", re.IGNORECASE)
#: a number with a unit of time (``5.0622 sec``, ``222.8s``, ``618.377 ms``), not inside a clock time or a name
_DURATION = re.compile(r"(?<![\w.:])(?P<v>\d+(?:\.\d+)?)\s*(?:(?P<ms>ms)|s|secs?|seconds?)(?![\w/])",
                       re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+")
#: the hours or minutes of a clock time written in units (``1h 38m 21s``) right before its seconds: the
#: seconds are then a part of an elapsed time, not a record's duration
_CLOCK_PART = re.compile(r"\d\s*(?:h|hr|hrs|m|min|mins)\s*,?\s*$", re.IGNORECASE)
#: a number named only by one of these (``12: 463.5, 463.6 avg, 0.01 rate``) is the running mean of
#: the line's objective
_MEAN_WORDS = {"avg", "average", "mean"}
_PAIR_SEP = {":", "=", "'", '"', "]", "{"}   # [loss]: 4.99, G_Loss: {1.20, 1.10}
#: a number followed by one of these is a duration (``cost 14.01 s``), not a metric
_TIME_UNITS = {"s", "sec", "secs", "second", "seconds", "ms", "min", "mins", "minutes", "h", "hr", "hrs",
               "hours"}
#: the time units among them that name a unit even apart from their number (``5 sec``); a letter (``5 s``,
#: ``3 h``) is one only glued to it (``5s``): apart, it may open a name
_SPOKEN_TIME_UNITS = frozenset(_TIME_UNITS - {"s", "h"})
#: the name of a time a step or its data loading took (``iter_time: 8.7s``, ``data_time 0.4 s``): its
#: value, printed with a time unit, is the timing the reader wants (see ``console._timing_role``)
_TIMED_NAME = re.compile(r"(?:^|[_ ])(?:time|data)$", re.IGNORECASE)
#: the words at the end of a name read together for a timing (``data wait 32.2s``: a wait, of the data)
_TIMED_PHRASE_WORDS = 2
#: the roles of a name that the timing rules read (``console._timing_role``)
_TIME_WAIT_ROLES = ("data_wait", "step_wait")

_KEY_ROLES = ("loss", "val_loss", "accuracy", "val_accuracy")
_PROGRESS = re.compile(r"(?<!\d)\d+%\|")
#: a Keras progress bar (``16/63 [======>......] - ETA: 3s - loss: 1.3856``): Keras prints each
#: metric there as its mean over the epoch's batches so far, restarted each epoch, not one batch's value
_EPOCH_MEAN_BAR = re.compile(r"\b\d+/\d+\s+\[=*[>.]*\]\s+-\s")
#: a progress bar's tail printed without bar characters (``448: 100% 1626/1626 [22:57<00:00,
#: 1.18it/s]``): a percentage, a counter and the bracketed timing
_PROGRESS_TAIL = re.compile(r"(?!(?<=\s)\s):?\s+\d+%\s+\d+/\d+\s*\[")
#: a line's shape is its UTF-8 bytes with the ASCII digits read as 0 (bytes.translate is ~15x
#: faster than str.translate; a digit's byte never occurs inside a multi-byte character)
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def shape(line: str) -> bytes:
    """The shape of ``line``: ``b"0"`` in it exactly when the line holds an ASCII digit."""
    return line.encode("utf-8", "surrogatepass").translate(_ZEROS)
_NO_PLAN = object()


def _spaces(m) -> str:
    return " " * (m.end() - m.start())


def _clock_gap(m) -> str:
    """A clock value (``eta: 2 days, 3:59:15``, ``[00:12<00:34``) blanked as a separator: the name
    before it named the clock, so it must not run on into the next name (``eta: 3:59:15  time:
    8.91  data_time: 7.43`` is a step time and a data time, not an ``eta time``)."""
    return "," + " " * (m.end() - m.start() - 1)


def _cut(text: str, a: int, b: int) -> str:
    """Blank ``text[a:b]`` in place (a separator and spaces): offsets stay those of the line."""
    return text[:a] + (";" + " " * (b - a - 1) if b > a else "") + text[b:]


#: how far before an axis the word that joins it to a name is looked for (characters: a bound on
#: the work per line, not a reading rule; a joiner is a short word right before the axis)
_JOINER_REACH = 32


def _cut_axis(text: str, a: int, b: int, joiners: frozenset) -> str:
    """Blank an axis ``text[a:b]`` like :func:`_cut`, but with spaces only when the word right
    before it binds the name in front to the value behind (``loss at step 20: 0.91``, ``Loss at
    epoch 3 is 0.52``: ``console.axis_joiners``): the name and its value stay one pair."""
    words = text[max(0, a - _JOINER_REACH):a].split()
    if len(words) >= 2 and words[-1].lower() in joiners and (words[-2][-1:].isalnum() or words[-2][-1:] == ")"):
        j = len(text[:a].rstrip()) - len(words[-1])     # the joiner goes with the axis
        return text[:j] + " " * (b - j) + text[b:]
    return _cut(text, a, b)


def _num(line: str, spec, max_digits: int):
    """The number at ``spec``; None for an integer of more than ``max_digits`` digits
    (``limits.max_counter_digits``), too long to be a step or epoch counter."""
    kind, a, b = spec
    t = line[a:b]
    if kind == "f":
        return float(t)
    t = t.replace(",", "")   # a count printed with thousands separators (_GROUPED)
    return int(t) if len(t.strip().lstrip("+-")) <= max_digits else None


def _count(t: str) -> int:
    """A step or counter a plan reads, thousands separators (_GROUPED) dropped."""
    return int(t.replace(",", "")) if "," in t else int(t)


class _Plan:
    """How to read every line of one shape. A shape is the line with its ASCII digits read as 0,
    so two lines of one shape hold the same characters at the same offsets except for the digits:
    every span the first line's full parse read (a number, an axis) is the same span of the
    other. ``ms`` is ``(start, end, convert)`` per metric, ``rs`` their roles; ``is_eval`` and
    ``style`` are what :meth:`ConsoleReader._record` would derive from the roles and the bar;
    ``cands`` the metrics' candidates once resolved (a name either has one or, with
    ``console.max_metric_names`` reached, never will)."""

    __slots__ = ("e", "c", "ct", "st", "split", "progress", "ms", "rs", "roles", "is_eval", "style",
                 "cands", "texts", "timing", "round")

    def __init__(self, ex: tuple, line: str):
        epoch, counter, counter_total, step, split, progress, metrics = ex
        self.e, self.c, self.ct, self.st = (None if v is None else (v[1], v[2])
                                            for v in (epoch, counter, counter_total, step))
        self.split, self.progress = split, progress
        self.round = step is not None and step[0] == "r"
        self.ms = tuple((a, b, float if kind == "num" and line[b - 1] != "%" else _converter(kind, r[0]))
                        for r, kind, (a, b) in metrics)
        self.rs = tuple(r for r, _, _ in metrics)
        self.roles = tuple(r[0] for r in self.rs)
        # every metric a plain number: all its texts cut by one call, then read by float
        self.texts = itemgetter(*(slice(a, b) for a, b, _ in self.ms)) \
            if len(self.ms) > 1 and all(cv is float for _, _, cv in self.ms) else None
        self.is_eval = split in ("val", "test") or all(r[0] in ("val_loss", "val_accuracy")
                                                       for r in self.rs)
        self.style = "progress" if progress else "pairs"
        self.cands = None
        self.timing = None


def _converter(kind: str, role: str):
    def convert(text: str) -> float:
        return _value(kind, text, role)
    return convert


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
    if kind == "per_s":
        v = float(val)
        return 1.0 / v if v > 0 else math.inf
    if kind == "ms":
        return float(val) / 1000.0
    pct = val.endswith("%")
    if pct:
        val = val[:-1]
    v = float(val)
    return v / 100.0 if pct and not (role or "").endswith("loss") else v


def abbreviated_axes(table: Mapping) -> dict:
    """``console.abbreviated_axis_words`` (abbreviation -> ``epoch`` or ``step``) compiled: for each
    axis, a pattern of its abbreviations printed with their full stop before the axis's number
    (Marian's ``Ep. 1 : Up. 14000``); group 1 is the number."""
    out = {}
    for axis in ("epoch", "step"):
        words = sorted((re.escape(str(w)) for w, a in table.items() if str(a) == axis), key=len, reverse=True)
        if words:
            out[axis] = re.compile(rf"(?<![\w.])(?:{'|'.join(words)})\.\s*[:=#]?\s*({_GROUPED}|\d+(?![.\d]))",
                                   re.IGNORECASE)
    return out


def _abbreviated_axis(text: str, abbrevs: Mapping | None, axis: str):
    """``(text with the axis blanked, (kind, start, end))`` for ``axis`` printed as an abbreviation
    with its full stop (:func:`abbreviated_axes`), else ``(text, None)``."""
    rx = abbrevs.get(axis) if abbrevs else None
    m = rx.search(text) if rx is not None else None
    if m is None:
        return text, None
    return _cut(text, *m.span()), ("i" if axis == "step" else "f",) + m.span(1)


def _axes(text: str, progress: bool, joiners: frozenset, split_words: Mapping, abbrevs: Mapping | None = None):
    """Locate the epoch, in-epoch counter (and its total), step and split named on a line;
    each axis is ``(kind, start, end)`` or None, and its text is blanked from ``text`` (see
    :func:`_cut_axis` for an axis that ``joiners`` bind to the name before it). ``split_words``:
    the knowledge base's ``logs.split_words`` (word -> split); ``abbrevs``: the axes printed as
    abbreviations (:func:`abbreviated_axes`), read where the full words are not printed."""
    epoch = counter = counter_total = step = None   # (kind, start, end)
    split = None
    mm = _MM.search(text)
    if mm:
        split = split_words.get((mm.group(1) or "").lower())
        epoch, counter, counter_total = ("f",) + mm.span(2), ("i",) + mm.span(3), ("i",) + mm.span(4)
        text = _cut(text, *mm.span())
    else:
        em = _EPOCH.search(text)
        if em:
            split = split_words.get((em.group(1) or "").lower())
            epoch = ("f",) + em.span(2)
            text = _cut_axis(text, *em.span(), joiners)
        elif "poch" in text:
            em = _EPOCH_GLUED.search(text)
            if em:
                epoch = ("f",) + em.span(1)
                text = _cut(text, *em.span())
            else:
                em = _EPOCH_WORD_GLUED.search(text)
                if em:
                    epoch = ("f",) + em.span(1)
                    if em.group(2) is not None:
                        counter = ("i",) + em.span(2)
                    text = _cut_axis(text, *em.span(), joiners)
    if epoch is None and text[:1] in _SPLIT_EPOCH_START:
        tm = _SPLIT_EPOCH.match(text)
        if tm:   # timm's "Train: 3 [ 120/390 ( 31%)]": the split, its epoch, then the batch counter
            split = split_words.get(tm.group(1).lower())
            epoch = ("f",) + tm.span(2)
            text = _cut(text, *tm.span())
    if epoch is None:
        text, epoch = _abbreviated_axis(text, abbrevs, "epoch")
    sm = _STEP.search(text)
    if sm is None:
        text, step = _abbreviated_axis(text, abbrevs, "step")
    if sm:
        step = ("i",) + sm.span(2)
        st_total = ("i",) + sm.span(3) if sm.group(3) else None
        kind = sm.group(1).lower()
        if kind in ("batch", "batch_id", "batch_idx", "it") or (st_total is not None and epoch is not None):
            counter, counter_total = step, st_total
            step = None
        text = _cut_axis(text, *sm.span(), joiners)
    elif epoch is None and step is None:
        lm = _LEAD_STEP.match(text)
        if lm:
            # a number in brackets opening the line is a round (gradient boosting's ``[8]``): kind "r";
            # one in brackets before the step is the step's epoch
            step = ("i",) + lm.span(2) if lm.group(2) is not None else ("r",) + lm.span(3)
            if lm.group(1) is not None:
                epoch = ("f",) + lm.span(1)
            text = _cut(text, 0, lm.end())
    if counter is None:
        cm = _COUNTER.search(text)
        if cm and not re.search(r"[\w.]\s*$", text[:cm.start()]) and not _FRAC_VALUE.search(text[:cm.start()]) \
                or (cm and progress):
            counter, counter_total = ("i",) + cm.span(1), ("i",) + cm.span(2)
            if progress and epoch is None and step is None and _EPOCH_BAR.search(text):
                epoch, counter, counter_total = counter, None, None   # a bar over the epochs
            text = _cut(text, *cm.span())
    if progress:
        text = _PROGRESS.sub(_spaces, text)   # the bar's share done ("eval model:: 100%|"), no metric's value
    return text, epoch, counter, counter_total, step, split


#: how far past a line's start, in characters, a split word (``Validation: ...``) still names the
#: split of a line that pairs no name with a number: the head of the line, not a later aside
_SPLIT_WORD_REACH = 40
#: the longest line looked at as a split's heading (``Validation @ 1000``; a few words): a bound on
#: the work per line, not a decision
_HEADING_MAX_CHARS = 80
#: how many words of the name before a number make its phrase (``Training loss (for one batch) at
#: step 0``: the last six), and of a name printed after its number (``24.93 avg loss``): the last
#: four; longer runs of words are prose, not a metric's name
_PHRASE_WORDS = 6
_TRAILING_NAME_WORDS = 4


def _loss_part(name: str, epoch_table: bool, vocab: LogWords) -> bool:
    """``box_loss``, ``loss_cls`` (one component of a loss), or, in a table with an epoch or step
    column, a bare component name (``console.loss_part_names``: ``box``, ``obj``, ``cls``); a split
    word or ``total`` beside ``loss`` makes it no component."""
    words = [w for w in re.split(r"[^0-9a-z]+", name.lower()) if w]
    if "loss" in words:
        return len(words) > 1 and not any(w in vocab.split or w == "total" for w in words)
    return epoch_table and len(words) == 1 and words[0] in vocab.loss_parts


def _half_unit(text: str) -> float:
    """Half the unit of the last digit printed (``6.110`` -> 0.0005, ``1.2e-3`` -> 0.00005): how far
    the printed number can be from the value it rounds."""
    t = text.lower().rstrip("%")
    mant, _, exp = t.partition("e")
    decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
    try:
        scale = 10.0 ** (int(exp) if exp else 0)
    except (ValueError, OverflowError):
        return math.inf
    return 0.5 * 10.0 ** -decimals * scale


def _speed(text: str):
    """The first printed speed of a training record's line (see ``_SPEED``) as a metric of role
    ``step_time`` (seconds per step, or its inverse when a count per second is printed: a ratio
    of two such values is a ratio of step times while the batch stays the same); None if none."""
    m = _SPEED.search(text)
    if m is None:
        m = _NAMED_RATE.search(text)
        if m is None:
            return None
        return ("step_time", 0, "/s", None), "per_s", m.span("v")
    kind = "per_s" if m.group("rate") else "ms" if m.group("ms") else "num"
    unit = text[m.end("v"):m.end()].strip().replace(" ", "")
    return ("step_time", 0, unit, None), kind, m.span("v")


def _duration(text: str, duration_words: frozenset):
    """The first duration of a line that prints no metric, as :func:`_speed` returns a speed: a number
    in milliseconds, or one in seconds after a word of ``console.duration_words`` on the line (``End
    of epoch 118 / 500000  Time Taken: 5.0622 sec``, ``took 222.8s``); None if none. What the record
    took is how fast the run goes, read only when the text prints nothing else."""
    for m in _DURATION.finditer(text):
        if _CLOCK_PART.search(text, 0, m.start()):
            continue
        if m.group("ms") or any(w.lower() in duration_words for w in _WORD.findall(text[:m.start()])):
            return ("step_time", 0, "s", None), "ms" if m.group("ms") else "num", m.span("v")
    return None


def _total_time(text: str, metrics: list, remaining_words: frozenset):
    """The time a record took in all, as a step time beside the data wait the line names, when the
    line prints that wait with a unit of time and exactly one other duration of the same unit, that
    no metric of the line holds and at least as long (``(60.5s, data 38.6s)``, ``done in 61.4s (data
    wait 32.2s)``, ``data wait 17.6s of 28.5s``, a progress bar's ``Data: 0.0002s | Batch: 0.276s``):
    the wait is a share of it. None when a step time is
    named, when the line prints no such wait or several other durations, or when the other is a time
    still to go (``console.remaining_time_words``: ``eta 41s``)."""
    waits = [span for r, _k, span in metrics if r[0] == "data_wait"]
    if len(waits) != 1 or any(r[0] == "step_wait" for r, _k, _s in metrics):
        return None
    a, b = waits[0]
    own = _DURATION.match(text, a)
    if own is None or own.end("v") != b:
        return None
    others = [m for m in _DURATION.finditer(text) if m.start() != a and not _CLOCK_PART.search(text, 0, m.start())]
    if len(others) != 1:
        return None
    m = others[0]
    if bool(m.group("ms")) != bool(own.group("ms")) or float(m.group("v")) < float(own.group("v")):
        return None
    before = text[max((e for _r, _k, (_a, e) in metrics if e <= m.start()), default=0):m.start()]
    after = text[m.end():].split(None, 1)[:1]
    if remaining_words.intersection(w.lower() for w in _WORD.findall(before)[-1:] + after):
        return None
    if any(sa < m.end("v") and m.start() < sb for _r, _k, (sa, sb) in metrics):
        return None   # a value the line already names
    return ("step_wait", 0, "total", None), "num", m.span("v")


def _sum_total(line: str, pairs: list, rel_tol: float, max_parts: int) -> int | None:
    """The index of the pair whose value is the sum of a run of two to ``max_parts`` pairs printed
    right before or right after it, within the print's rounding (YOLACT's ``B: 6.110 | C: 2.926 |
    M: 4.701 | S: 0.337 | T: 14.074``: T is the total of the loss components before it); None when
    no value is such a total. Names the reader does not know are read by this identity alone, so
    the total must be a positive number printed with decimals and every part at least zero. Each
    run grows one pair at a time from the total outward, so a line of n numbers costs
    n x ``max_parts`` additions, not n cubed."""
    texts = [line[a:b] for _, kind, a, b, _pos in pairs]
    vals = []
    for (_, kind, _a, _b, _pos), t in zip(pairs, texts):
        if kind != "num":
            return None
        try:
            vals.append(float(t.rstrip("%")))
        except ValueError:
            return None
    halves = [_half_unit(t) for t in texts]
    n = len(vals)
    for k in range(n):
        total = vals[k]
        if not (math.isfinite(total) and total > 0) or "." not in texts[k]:
            continue
        own = halves[k] + rel_tol * total
        for step in (-1, 1):
            if _run_sums_to(vals, halves, k, step, max_parts, total, own):
                return k
    return None


def _run_sums_to(vals: list, halves: list, k: int, step: int, max_parts: int, total: float, own: float) -> bool:
    """Whether a run of two to ``max_parts`` values beside index ``k`` (before it for ``step`` -1,
    after it for +1), all at least zero and two of them positive, sums to ``total`` within the
    rounding of every printed number (``halves``) plus ``own`` (the total's share)."""
    acc = tol = 0.0
    positive = 0
    i = k + step
    for size in range(1, max_parts + 1):
        if not 0 <= i < len(vals) or vals[i] < 0:
            return False
        acc += vals[i]
        tol += halves[i]
        positive += vals[i] > 0
        i += step
        if size < 2 or positive < 2 or not math.isfinite(acc):
            continue
        bound = tol + own
        if math.isfinite(bound) and abs(acc - total) <= bound:
            return True
    return False


#: a table column read as a component, and the total it is summed into
_PART_OF = {"loss_part": "loss", "val_loss_part": "val_loss"}


def _val_loss_part(name: str, epoch_table: bool, vocab: LogWords) -> bool:
    """A component of the validation loss (``val box``, ``val/box_loss``, ``val_cls_loss``): a
    validation or test split word, then what :func:`_loss_part` calls a component."""
    words = [w for w in re.split(r"[^0-9a-z]+", name.lower()) if w]
    if len(words) < 2 or vocab.split.get(words[0]) not in ("val", "test"):
        return False
    return _loss_part("_".join(words[1:]), epoch_table, vocab)


def _tag_loss_parts(names: list, roles: list, epoch_table: bool, vocab: LogWords) -> None:
    """Loss components printed without their total (YOLO's ``box_loss obj_loss cls_loss`` or, in a
    table with an epoch column, ``box obj cls``) become ``loss_part`` roles in ``roles``, read as one
    loss, their sum; the same for the validation loss's components (YOLOv5's ``val box  val obj  val
    cls``, YOLOv8's ``val/box_loss val/cls_loss val/dfl_loss``): ``val_loss_part``. A header that
    names its total (a role ranked before ``console.part_rank``) keeps it."""
    part = vocab.part_rank
    for is_part, role, tag in ((_loss_part, "loss", "loss_part"), (_val_loss_part, "val_loss", "val_loss_part")):
        found = [i for i, (n, r) in enumerate(zip(names, roles))
                 if (r is None or r[1] >= part) and is_part(n, epoch_table, vocab)]
        if len(found) >= 2 and not any(r is not None and r[0] == role and r[1] < part for r in roles):
            for i in found:
                roles[i] = (tag, 0, names[i], None)


def _join_split_words(names: list, split_words: Mapping) -> list:
    """A header printed with single spaces (``epoch train loss valid loss accuracy``): a split
    word and the word after it are one column's name (``train loss``)."""
    out: list = []
    i = 0
    while i < len(names):
        n = names[i]
        if " " not in n and n.lower() in split_words and i + 1 < len(names) \
                and names[i + 1].lower() not in split_words:
            out.append(n + " " + names[i + 1])
            i += 2
            continue
        out.append(n)
        i += 1
    return out


#: a column name of a table header: a name, or ``#`` (the row's count: spaCy's ``E  #  LOSS NER``)
_HEADER_NAME = re.compile(r"[A-Za-z_][\w ./@\-()%]*|#")
_WORD_SPAN = re.compile(r"\S+(?: \S+)*")
_CELL_SPAN = re.compile(r"\S+")
#: the gap between the columns of a whitespace-aligned table whose cells may hold one space
_WIDE_GAP = re.compile(r"\s{2,}")


def _column_spans(line: str, names: list):
    """Where each column name of a whitespace-aligned header stands on its line (``(start, end)``),
    or None when the names are not the line's runs of text between wider gaps (a header printed
    with single spaces)."""
    spans = [m.span() for m in _WORD_SPAN.finditer(line.replace("\t", " "))]
    if len(spans) != len(names):
        return None
    return spans


def _aligned_cells(line: str, spans: list):
    """The cells of a row of a fixed-width table that leaves some cells blank (Chainer's
    ``PrintReport`` prints the validation columns only at an evaluation): each number is put in
    the column whose name it overlaps most, blanks elsewhere. None when a piece of the row is not a
    number, overlaps no column, or two share a column: the line is no row of this table."""
    cells = [""] * len(spans)
    last = -1
    for m in _CELL_SPAN.finditer(line):
        a, b = m.span()
        if _cell(m.group()) is None:
            return None
        best, over = -1, 0
        for i, (c0, c1) in enumerate(spans):
            o = min(b, c1) - max(a, c0)
            if o > over:
                best, over = i, o
        if best <= last:
            return None
        cells[best] = m.group()
        last = best
    return cells


def _inside_name(toks: list, i: int) -> int:
    """How many tokens from ``i``, inside a metric's phrase, belong to its name and not its value: a
    count inside the name (``Accuracy on the 10,000 test images: 54 %``), or an index before the
    value (:func:`_index_before_value`); 0 when ``toks[i]`` is the value."""
    kind, val = toks[i][0], toks[i][1]
    if kind in ("num", "count") and _count_in_name(toks, i):
        return 1
    if kind == "num" and val.isdigit() and toks[i - 1][0] == "name":
        return _index_before_value(toks, i)
    return 0


def _index_before_value(toks: list, i: int) -> int:
    """How many tokens the whole number at ``i``, right after a metric's name, takes up when it is an
    index and the value follows (``Validation loss 6312:  0.1499``: the number and its ``:``;
    ``Train loss 3 9.564240``, a decimal value right after it: the number); 0 when it is the value."""
    n = len(toks)
    if i + 2 < n and toks[i + 1][1] in (":", "=") and toks[i + 2][0] == "num":
        return 2
    if i + 1 < n and toks[i + 1][0] == "num" and _has_decimals(toks[i + 1][1]):
        return 1
    return 0


def _unit_of_number(toks: list, i: int) -> bool:
    """Whether the name ``toks[i]`` is the unit of the number printed right before it: a time
    (``4251ms``, ``359.59s``) or a rate over one (``95.71 samples/sec``, ``1.59 updates/sec``,
    ``1.75/s``), never the first word of the next metric's name."""
    name = toks[i][1].lower()
    j = i - 1
    if j >= 0 and toks[j][1] == "/" and toks[j][3] == toks[i][2]:
        j -= 1                  # "1.75/s": the rate's slash is a separator of its own
        rate = True
    else:
        rate = "/" in name
        name = name.rsplit("/", 1)[-1]
    return j >= 0 and toks[j][0] == "num" and name in _TIME_UNITS and (rate or toks[j][3] == toks[i][2]
                                                                        or name in _SPOKEN_TIME_UNITS)


def _abbreviation_stop(toks: list, i: int) -> bool:
    """Whether the separator ``toks[i]`` is the full stop that closes an abbreviated name glued to it,
    one with a stop inside already (Marian's ``L.r. 5.2e-05``): the name goes on to its value."""
    return toks[i][1] == "." and toks[i - 1][0] == "name" and "." in toks[i - 1][1] and toks[i - 1][3] == toks[i][2]


def _has_decimals(t: str) -> bool:
    """Whether a number token is printed with decimals or an exponent (``35.2297``, ``1e-3``, ``nan``), as a
    metric's value is, unlike an index or a count."""
    t = t.lower()
    return "." in t or "e" in t or "n" in t


def _list_of_values(toks: list, i: int) -> bool:
    """A bracket opened after a name holds that name's values (``Losses = ['215.0370', '105.7615',
    ...]``: the first is the total or the one printed first) when its first item, quoted or not, is
    a number with decimals; a bracket of whole numbers holds indices (``Loss [31, 100]: 3.2``)."""
    while i < len(toks) and toks[i][0] == "sep" and toks[i][1] in "'\"":
        i += 1
    if i >= len(toks) or toks[i][0] != "num":
        return False
    return _has_decimals(toks[i][1])


#: the name of a field that holds a record's value when another field, quoted, names the metric
#: (ClearML's ``Reporting scalar 'loss/train' iteration=3 value=0.41``, a TensorBoard event printed as
#: ``tag: "loss" simple_value: 0.41``, MLflow's ``Metric(key='loss', value=0.41, step=3)``)
_VALUE_FIELDS = frozenset({"value", "simple_value", "scalar_value"})
#: quote characters around a field's name
_QUOTES = ("'", '"')


def _named_by_field(toks: list, i: int, phrase: list) -> list:
    """The phrase naming the value at ``i``: the quoted name printed before it in the line when the
    phrase ends in a value field's name (``value``), else the phrase itself."""
    if phrase[-1].lower() not in _VALUE_FIELDS:
        return phrase
    for k in range(i - 2, 0, -1):
        if toks[k][0] == "name" and toks[k - 1][1] in _QUOTES and toks[k + 1][1] == toks[k - 1][1]:
            return [toks[k][1]]
    return phrase


def _parts_pair(toks: list, i: int) -> bool:
    """Whether the separator at ``i``, right after a name, stands between the name and its value:
    ``:``/``=``/quotes (:data:`_PAIR_SEP`), a ``[`` opening a list of values, a lone ``|``, or an arrow
    (``meta_loss -> 3.96``, Julia's pair ``:loss => 0.52``, ``loss → 0.52``)."""
    val = toks[i][1]
    return val in _PAIR_SEP or (val == "[" and _list_of_values(toks, i + 1)) or \
        (val == "|" and _pipe_before_value(toks, i)) or _arrow_before_value(toks, i)


#: an arrow's characters: ``-``/``=`` then ``>`` (two tokens), or one arrow character
_ARROW_HEADS = ("-", "=")
_ARROWS = ("→", "⇒", "⟶")
_QUOTES = ("'", '"')


def _arrow_before_value(toks: list, i: int) -> bool:
    """An arrow right after a name whose value follows it: ``->``/``=>`` (their first character, at
    ``i``; the ``>`` after it is skipped as the next separator) or one arrow character. An arrow after a
    number (``lr 0.1 -> 0.01``) is a change of value and never gets here (no name before it)."""
    if toks[i][1] in _ARROWS:
        return _quoted_value_at(toks, i + 1)
    if toks[i][1] in _ARROW_HEADS and i + 2 < len(toks) and toks[i + 1][1] == ">":
        return _quoted_value_at(toks, i + 2)
    return toks[i][1] == ">" and i > 0 and toks[i - 1][1] in _ARROW_HEADS and _quoted_value_at(toks, i + 1)


def _quoted_value_at(toks: list, j: int) -> bool:
    """A number at ``j``, bare or in quotes (Perl's Data::Dumper prints a number it holds as a string
    quoted: ``'train_loss' => '1.61320',``)."""
    if j < len(toks) and toks[j][1] in _QUOTES and j + 2 < len(toks) and toks[j + 2][1] == toks[j][1]:
        j += 1
    return j < len(toks) and toks[j][0] == "num"


def _pipe_before_value(toks: list, i: int) -> bool:
    """The line's only ``|``, at ``i``, parts a metric's name from its value when that value ends the
    line (trax's ``Step 63: train  CrossEntropyLoss |  2.31``); a ``|`` among others is a column of a
    table (a model summary's ``1 | loss_fn | CrossEntropyLoss | 0``) and parts nothing."""
    return i + 2 == len(toks) and toks[i + 1][0] == "num" and \
        sum(1 for t in toks if t[0] == "sep" and t[1] == "|") == 1


#: tokens of one label of a label set before its value's text: its name, ``=`` and the opening quote
_LABEL_HEAD_TOKENS = 3
#: tokens of a parenthesised word after a metric's name: ``(``, the word, ``)``
_PAREN_WORD_TOKENS = 3


def _label_set(toks: list, i: int) -> int:
    """The index after the ``}`` of a label set opened before ``toks[i]`` (Prometheus's exposition
    ``name{label="value",...} 0.41``: each label a name, ``=`` and a quoted value, its number no
    metric), or 0 when the braces hold anything else (a dict of named values)."""
    n = len(toks)
    labels = 0
    while i < n and toks[i][1] != "}":
        if i + 2 < n and toks[i][0] == "name" and toks[i + 1][1] == "=" and toks[i + 2][1] == '"':
            j = i + _LABEL_HEAD_TOKENS
            while j < n and toks[j][1] != '"':
                j += 1
            labels += 1
            i = j + 1
        elif toks[i][1] in ('"', ",", ";"):
            labels += toks[i][1] == '"'   # the quote an epoch label leaves when its axis is cut from the line
            i += 1
        else:
            return 0
    return i + 1 if labels and i < n else 0


def _opens_group(toks: list, i: int) -> bool:
    """A bracket opened after a name holds named values of that name (``predict_loss: [local: 0.69 |
    reduced: 0.69]``, ``train: {'loss': 0.5, 'acc': 0.8}``): a name, optionally quoted, then ``:`` or
    ``=`` and a number."""
    n = len(toks)
    while i < n and toks[i][0] == "sep" and toks[i][1] in "'\"":
        i += 1
    if i >= n or toks[i][0] != "name":
        return False
    i += 1
    while i < n and toks[i][0] == "sep" and toks[i][1] in "'\"":
        i += 1
    return i + 1 < n and toks[i][1] in (":", "=") and toks[i + 1][0] in ("num", "frac")


def _count_in_name(toks: list, i: int) -> bool:
    """The whole number at ``i`` is a count inside a metric's name (``Accuracy of the network on the
    10000 test images: 54 %``): printed with thousands separators or with at least
    ``_COUNT_DIGITS`` digits, between words, and followed by words and then ``:`` or ``=`` and a
    number."""
    kind, t = toks[i][0], toks[i][1]
    if kind == "num" and not (t.isdigit() and len(t) >= _COUNT_DIGITS):
        return False
    if i == 0 or toks[i - 1][0] != "name":
        return False   # right after ``=`` or ``:`` it is the value (``train=2895 val=705``)
    j = i + 1
    n = len(toks)
    if j >= n or toks[j][0] != "name":
        return False
    while j < n and toks[j][0] == "name":
        j += 1
    return j + 1 < n and toks[j][1] in (":", "=") and toks[j + 1][0] in ("num", "frac")


def _call_args(toks: list, i: int) -> int | None:
    """Where the ``=`` begins after a call's argument list glued to a name (``toks[i]`` is its ``(``):
    an expression shown with its value, as Julia's ``@show`` and Python's ``f"{expr=}"`` print it
    (``loss(x, y) = 0.0913``, ``accuracy(m, x, label, 0.0:9) = 0.105``, ``loss(dataset[1]...) = 0.2``,
    ``loss.item()=0.53``): the function names the value. Only an empty list, or one holding a comma or
    a splat (``...``), is a call's; a single word in parentheses stays a name's (``time(s)=12``,
    ``Loss (G)``). None for any other parenthesis."""
    n = len(toks)
    if i == 0 or toks[i - 1][0] != "name" or toks[i - 1][3] != toks[i][2]:
        return None
    depth, j, listed = 0, i + 1, i + 1 < n and toks[i + 1][1] == ")"
    while j < n:
        val = toks[j][1]
        if val in "([{":
            depth += 1
        elif val in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (val == "," or (val == "." and toks[j - 1][1] == "." and toks[j - 2][1] == ".")):
            listed = True
        j += 1
    if not listed or j + 1 >= n or toks[j][1] != ")" or toks[j + 1][1] != "=" \
            or (j + 2 < n and toks[j + 2][1] == "="):
        return None
    return j + 1


def _after_index(toks: list, i: int) -> int | None:
    """Where the value begins after a name's bracketed index (``Loss [31, 100](epoch, minibatch):
    3.209``): the bracket holds whole numbers and commas, an optional parenthesis names them, and a
    ``:`` or ``=`` comes before the value; None for any other bracket."""
    n = len(toks)
    while i < n and (toks[i][1] == "," or (toks[i][0] == "num" and toks[i][1].isdigit())):
        i += 1
    if i >= n or toks[i][1] != "]":
        return None
    i += 1
    if i < n and toks[i][1] == "(":
        i += 1
        while i < n and (toks[i][0] == "name" or toks[i][1] == ","):
            i += 1
        if i >= n or toks[i][1] != ")":
            return None
        i += 1
    if i < n and toks[i][1] in (":", "="):
        j = i + 1
        return j if j < n and toks[j][0] == "num" else None
    return None


#: the delimiters a table's header may split its names on (LaTeX's ``&`` included)
_HEADER_DELIMS = (",", "\t", "|", "│", ";", "&")


def _delimited_cells(row: str, n: int) -> list | None:
    """The ``n`` cells of a row set apart by a delimiter its header, printed with blanks between its
    names, does not print (``D_loss  acc  G_loss`` over ``0.0041 | 100 | 6.25 | 2 days, 12:04:16``):
    the first delimiter that cuts the row into ``n`` numbers, or into ``n`` numbers and one more, last,
    cell that is none (the clock a print adds after the values, which no name heads); None when none does."""
    for d in _HEADER_DELIMS:
        if d not in row:
            continue
        cells = [c.strip() for c in row.split(d)]
        if len(cells) in (n, n + 1) and all(_cell(c) is not None for c in cells[:n]) and (
                len(cells) == n or _cell(cells[-1]) is None):
            return cells[:n]
    return None
def _timed_cells(cells: list, n: int) -> list | None:
    """The ``n`` cells of a row set apart by blanks that goes on, after its ``n`` numbers, with the time
    the record took, which no header name heads (fastai v1's ``1 1.513 1.041 0.507 (00:13)`` under
    ``epoch train_loss valid_loss error_rate``): a clock time or a duration, bare or in parentheses;
    None for any other row."""
    if len(cells) != n + 1 or not all(_cell(c) is not None for c in cells[:n]):
        return None
    last = cells[-1]
    if last[:1] == "(" and last[-1:] == ")":
        last = last[1:-1]
    return cells[:n] if _CLOCK.fullmatch(last) or _DURATION.fullmatch(last) else None


#: a comment mark and one blank opening a line, before a name: a header a data file's writer commented out
_COMMENTED_HEADER = re.compile(r"^\s*(?:#{1,2}|%|//) (?=[A-Za-z_])")
#: a unit printed in parentheses under a column's name on a header's second line
_UNIT_BELOW = re.compile(r"^\([^()]*\)$")
#: the end of a row of a LaTeX tabular (``1 & 0.087 & 0.29 \\``)
_LATEX_ROW_END = "\\\\"


#: a training metric and the role its second printing on one line has (see _second_is_held_out)
_HELD_OUT_ROLE = {"loss": "val_loss", "accuracy": "val_accuracy"}
_HELD_OUT_ROLES = frozenset(_HELD_OUT_ROLE.values())
_AS_HELD_OUT = "second printing"    # marks a held-out metric read from a second printing
#: a letter of any script (a word that qualifies a metric's name, known or not, holds one; a
#: script's vowel signs, which are no letters to ``\w``, stay inside its words split at spaces)
_LETTER = re.compile(r"[^\W\d_]")


def _second_is_held_out(metrics: list, quals: list) -> list:
    """A line that prints the loss (or accuracy) twice under one name, each after words of its own
    that no split word of the knowledge base tells apart (``Epoch 3 | তালিম loss: 0.61 | যাচাই loss:
    0.74``: the split words are in a language it lacks, the metric word is one it knows): the first
    is the training value, the second the held-out one, the order every epoch summary prints them
    in. Read as one metric, the two would alternate in one curve (a loss that oscillates); a third
    printing then is a test split's, on no curve. Both printed after the same words (``loss: 15.9
    ... loss: 15.9``: a progress bar's redraws run together) or a value restated after its name
    (caffe's ``loss = 6.37 (* 1 = 6.37 loss)``) is left alone. A line whose first name says
    "train" (``train [loss 0.85] val [loss 1.01]``) is read the same way: that word is the first
    metric's, not the line's. Printed behind the same words, the second is the held-out one when a
    metric named held-out stands between the two (``loss on train 0.81, acc 0.61; loss on val 0.67,
    acc 0.79``: the line's second half is the validation's)."""
    first: dict = {}
    held_out = set()    # the metrics read first before a held-out metric of the line's own naming
    out = []
    for m, q in zip(metrics, quals):
        r = m[0]
        key = (r[0], r[2])
        if key not in first:
            first[key] = q
            if r[0] in _HELD_OUT_ROLES:
                held_out.update(first)
        elif r[0] in _HELD_OUT_ROLE and (_HELD_OUT_ROLE[r[0]], r[2]) in first:
            if first[(_HELD_OUT_ROLE[r[0]], r[2])] is not _AS_HELD_OUT:
                out.append(m)
            continue   # a third printing after the two read as train and held-out: a test split's, no curve
        elif first[key] is not None and q is not None and (q != first[key] or key in held_out) \
                and r[0] in _HELD_OUT_ROLE:
            first[(_HELD_OUT_ROLE[r[0]], r[2])] = _AS_HELD_OUT
            m = ((_HELD_OUT_ROLE[r[0]],) + tuple(r[1:]),) + tuple(m[1:])
        out.append(m)
    return out


def _latex_row(s: str) -> str:
    """A row of a LaTeX tabular without its ``\\\\`` (the cells split on ``&``); any other text as it was."""
    if s.endswith(_LATEX_ROW_END) and "&" in s:
        return s[:-len(_LATEX_ROW_END)].rstrip()
    return s


#: the heavy and double vertical bars of box-drawn tables (rich's ``┃ epoch ┃ loss ┃`` header over
#: ``│ 1 │ 0.52 │`` rows) read as the light one, so a header and its rows split on the same bar
_BOX_BARS = str.maketrans({"┃": "│", "║": "│"})
#: the end of a pandas header whose frame goes on in another block of columns, and the name of the
#: columns pandas elides from a wide frame (their cells print ``...`` too)
_WRAPPED = "\\"
_ELIDED = "..."


class _HeaderTables:
    """A table printed one row a line under a header line of names (a mixin of :class:`LineParser`,
    using the reader's ``header`` state, ``words``, ``_role``, ``_set_epoch`` and ``_record``): the
    header read, a header continued on a second line, a row's cells, and the row as one record.
    A table belongs to a split two ways: the heading right above its header names it (``Validation:``
    over ``epoch, loss, acc``: ``header_split``), or a row names its own in a column no metric heads
    (``| valid | 1.21 | 0.27 |``: ``row_split``); its metrics are read as that split's."""

    header_split = None   # the split named by the heading right above the header in force (val/test), else None
    row_split = None      # the split the table row read last names in a cell of its own, else None
    header_logged = None  # the logger's prefix the header in force was printed behind (console_logged), else None

    def _maybe_header(self, line: str) -> bool:
        """A line of names only, one of them a metric: a table header (returns True). A line of
        names right below a header, cell for cell under its columns, goes on with their names
        (:meth:`_header_continued`). A header behind a comment mark (``# epoch  train_mse  val_mse``:
        gnuplot's data files, NumPy's ``savetxt(header=...)``) is read without the mark when the line
        is no header with it, and so is one behind a time stamp."""
        if self._header_line(line):
            return True
        p = _PREFIX.match(line)
        if p is not None and p.end() and self._header_line(" " * p.end() + line[p.end():]):
            return True   # a header behind the logger's time stamp, as its rows are (sar: ``09:03:51 AM  epoch  loss``)
        m = _COMMENTED_HEADER.match(line)
        if m is not None and self._header_line(" " * m.end() + line[m.end():]):
            return True
        logged = logged_header(line) if "\t" in line else None
        if logged is not None and self._header_line(logged[1]):
            self.header_logged = logged[0]   # a logger's table: each row behind the same prefix
            return True
        return ":" in line and self._headed_header(line)   # ``DEV: loss, acc, f1`` (console_above)

    def _header_line(self, line: str) -> bool:
        s = _latex_row(line.strip().translate(_BOX_BARS).strip("|│").strip())
        if not s or len(s) > _HEADER_MAX_CHARS:
            return False
        joined = self._header_continued(s)
        if joined is not None:
            s = joined
        wrapped = s.endswith(_WRAPPED) and line[:1].isspace()
        if wrapped:   # a pandas frame too wide for the screen: more of its columns follow in a block below
            s = s[:-len(_WRAPPED)].rstrip()
        for delim in _HEADER_DELIMS:
            if s.count(delim) >= 1:
                names = [c.strip() for c in s.split(delim)]
                break
        else:
            delim = None
            names = [c for c in re.split(r"\s{2,}", s) if c]
            if len(names) < 2:
                names = s.split()
        names = [n for n in names if n]
        if delim is None:
            names = _join_split_words(names, self.words.split)
        if len(names) < 2 or len(names) > _HEADER_MAX_NAMES:
            return False
        if not all(_HEADER_NAME.fullmatch(n) or n == _ELIDED for n in names):
            return False
        # a right-aligned header whose gaps vary with its names' widths (``epoch     loss train_acc``):
        # the wide gaps alone hold several names together; its rows say which reading is the table's
        narrow = _join_split_words(s.split(), self.words.split) if delim is None else names
        roles, axes = self._header_roles(names, delim, wrapped)
        if roles is None and len(narrow) > len(names) and all(_HEADER_NAME.fullmatch(n) for n in narrow):
            names = narrow   # no metric among the runs, one among the words (``epoch    train_loss val_loss``)
            roles, axes = self._header_roles(names, delim, wrapped)
        if roles is None:
            return False
        self.header = (names, delim, roles)
        self.header_narrow = (line, narrow) if len(narrow) > len(names) else None
        self.header_logged = None
        self.header_split = self._table_split()
        if self.header_split is not None:
            self.block_split = None   # the heading's block is this table: its rows carry the split
        self.header_cells = (self.line_no, delim, [c.strip() for c in s.split(delim)] if delim else [])
        self.header_axes = axes
        self.header_spans = _column_spans(line, names) if delim is None else None
        # pandas prints its index column without a name: the header starts blank, and a row's index
        # label ends before the header's first name starts (where it starts, or None)
        self.header_indexed = len(line) - len(line.lstrip()) if delim is None and line[:1].isspace() else None
        self._frame_header(wrapped)
        return True

    header_narrow = None   # (line, names) of the header read word by word, where that differs from its runs

    def _header_roles(self, names: list, delim, wrapped: bool = False):
        """``(roles, axes)`` of a header's names, or ``(None, None)`` when none of them is a metric
        (a block of a wrapped pandas frame may hold none of its own: its others are in another block)."""
        roles = [self._role(n, None) for n in names]
        axes = [i for i, n in enumerate(names) if (self.words.match_role(n) or ("",))[0] in ("epoch", "step")]
        _tag_loss_parts(names, roles, bool(axes), self.words)
        framed = delim is None and (wrapped or self.frame is not None)
        if not framed and not any(r is not None and r[0] in ("loss", "val_loss", "accuracy", "val_accuracy",
                                                             "loss_part", "val_loss_part")
                                  for r in roles):
            return None, None
        return roles, axes

    def _header_word_by_word(self, cells: int) -> bool:
        """A row with as many cells as the header has words, not as many as its runs between wide
        gaps: the header is read word by word (True when it now is)."""
        if self.header_narrow is None or len(self.header_narrow[1]) != cells:
            return False
        line, names = self.header_narrow
        self.header_narrow = None
        if not all(_HEADER_NAME.fullmatch(n) or n == _ELIDED for n in names):
            return False
        roles, axes = self._header_roles(names, None)
        if roles is None:
            return False
        self.header = (names, None, roles)
        self.header_axes = axes
        spans = [m.span() for m in _CELL_SPAN.finditer(line)]
        self.header_spans = spans if len(spans) == len(names) else None
        return True

    def _header_continued(self, s: str) -> str | None:
        """The header's names with this line's words below them, when this line comes right after
        the header and splits on its delimiter into as many cells (blank ones included): a header
        printed on two lines (MATLAB's ``Mini-batch | Validation`` over ``RMSE | Loss``) names each
        column by both; None for any other line."""
        h = self.header_cells
        if h is None or self.header is None or h[0] != self.line_no - 1 or not h[1] or s.count(h[1]) + 1 != len(h[2]):
            return None
        # a unit in parentheses below a name (``(hh:mm:ss)``) says how it is printed, not what it is
        below = [_UNIT_BELOW.sub("", c.strip()) for c in s.split(h[1])]
        if not any(below) or not all(not c or _HEADER_NAME.fullmatch(c) for c in below):
            return None   # a rule under the header (``---- | ----``), or no names
        return h[1].join(f"{a} {b}".strip() for a, b in zip(h[2], below))

    def _table_row(self, line: str):
        names, delim, roles = self.header
        s = _latex_row(line.strip().translate(_BOX_BARS).strip("|│").strip())
        if delim is None and "%" in s:
            # a row that ends in its progress bar (``1/99  2.64G  0.05 ...  416: 100%|███| 7/7``),
            # drawn with or without bar characters (``... 448: 100% 1626/1626 [22:57<00:00, ...]``)
            m = _PROGRESS.search(s) or _PROGRESS_TAIL.search(s)
            if m:
                s = s[:m.start()].rstrip().rstrip(":").rstrip()
        cells = [c.strip() for c in s.split(delim)] if delim else s.split()
        if delim and len(cells) == 1 and len(s.split()) == len(names):
            cells = s.split()   # names joined by commas over numbers set apart by blanks (``loss, acc`` / ``0.4 0.8``)
        if delim is None and len(cells) > len(names) + 1:
            # cells that hold a space themselves (H2O's scoring history: ``2026-12-05 05:40:24``,
            # ``0.151 sec``) in a table whose columns stand two or more spaces apart, as its header's do
            wide = [c for c in _WIDE_GAP.split(s) if c]
            if len(wide) in (len(names), len(names) + 1):
                cells = wide
        if delim is None and len(cells) != len(names):
            cells = _delimited_cells(s, len(names)) or _timed_cells(cells, len(names)) or cells
        self.row_index = None
        if self.header_indexed is not None and len(cells) == len(names) + 1:
            first = _CELL_SPAN.search(line)
            if first is not None and first.end() <= self.header_indexed:
                self.row_index = cells[0]   # a pandas row's index label, which no header name heads
                cells = cells[1:]
        if delim is None and len(cells) != len(names) and self._header_word_by_word(len(cells)):
            names, delim, roles = self.header
        present = len(cells)
        if delim is None and present < len(names) and self.header_spans is not None:
            cells = _aligned_cells(line, self.header_spans)
            if cells is None:
                return None
        if len(cells) != len(names):
            return None
        vals = []
        numeric = 0
        self.row_split = None
        for c, role in zip(cells, roles):
            v = _cell(c)
            if v is not None:
                numeric += 1
            elif role is None and c:
                self.row_split = self.words.split.get(c.lower()) or self.row_split
            vals.append(v)
        if numeric < max(1, self.header_min_numeric * present):
            return None
        if any(vals[i] is None for i in self.header_axes):
            return None   # a row of another table (``all  14  0 ...`` under ``Epoch ...``)
        if any(v is not None and math.isnan(v) for v in vals):
            return blank_nans(list(zip(names, roles, vals)))   # a split the row does not log (console_logged)
        return list(zip(names, roles, vals))

    def _table_record(self, row) -> None:
        if self.frame is not None and self._frame_row(row):
            return   # a block of a wrapped pandas frame: read with its other blocks (console_tables._Frames)
        metrics = []
        parts: dict = {"loss": [], "val_loss": []}      # the components of each, summed into one value
        epoch = step = None
        split = self.row_split or self.header_split
        held_out = split in ("val", "test")
        for name, role, v in row:
            if v is None:
                continue
            if held_out and role is not None:
                # a training name read as the table's split, named by it (a test row and a valid row: two curves)
                role = self._role(f"{split} {name}", split) or role
            if role is not None and role[0] in _PART_OF:
                parts[_PART_OF[role[0]]].append((name, v))
                continue
            m = self.words.match_role(name)
            if m and m[0] == "epoch":
                epoch = v
                continue
            if m and m[0] == "step":
                step = int(v)
                continue
            if role is not None:
                metrics.append((role, v))
        for total, pv in parts.items():
            if pv:
                metrics.append(((total, self.words.summed_total_rank, " + ".join(n for n, _ in pv), None),
                                sum(v for _, v in pv)))
        if epoch is not None:
            self._set_epoch(epoch)
        if metrics:
            self.epoch_on_line = epoch is not None
            self._record(metrics, split, None, None, step, False, "table")


class LineParser(_HeaderTables):
    """Line parsing for :class:`~traindx.probes.readers.console.ConsoleReader` (a mixin)."""

    # A console log repeats a few line shapes thousands of times. The first line of each shape
    # (its ASCII digits all read as 0, which keeps every offset) is parsed in full, with every
    # removal done in place (blanks of the same length), so each number read is a span of the
    # line; the shape's *plan* (:class:`_Plan`) keeps those spans. A later line of the same shape
    # is read by its plan: slices of the line instead of a dozen regular expressions.
    # A line of a shape that holds no record (a warning, a progress bar without metrics) is
    # parsed in full each time, since what it means can depend on the reader's state; but what
    # a full parse found in one exact text that held no metric (an epoch, an exception, a NaN
    # warning) is remembered too (``noise``), and replayed while no table header is in force.
    def _parse(self, line: str, key: bytes | None = None) -> None:
        if key is None:
            key = shape(line)
        plan = self.plans.get(key)
        if plan is not None:
            if plan is _NO_PLAN:
                return self._parse_again(line)
            return self._apply(line, plan)
        if len(self.plans) >= self.max_plans:
            return self._parse_again(line)
        if "[" in line and self._history_line(line):
            return None   # a metric's history as a list (console_history): never a plan
        ex = self._parse_full(line)
        self.plans[key] = _NO_PLAN if ex is None else self._capped(_Plan(ex, line), line)

    def _parse_again(self, line: str) -> None:
        """A full parse of a line whose shape has no plan, or the remembered outcome of one."""
        if "[" in line and self._history_line(line):
            return None
        if self.header is None:
            hit = self.noise.get(line)
            if hit is not None:
                return self._replay(hit)
            self._noise_out = None
            self._parse_full(line)
            if self._noise_out is not None and len(self.noise) < self.max_plans:
                self.noise[line] = self._noise_out
            return None
        self._parse_full(line)

    def _replay(self, hit: tuple) -> None:
        epoch, exc, nan_warning, step, scale, verdict = hit
        if epoch is not None:
            self._set_epoch(epoch)
        if step is not None:
            self._axis_step(step)
        if exc is not None:
            self._error(exc, self.line_no)
        if nan_warning:
            self._nan_hit()
        if scale is not None:
            self._scale_down(*scale)
        if verdict is not None:
            self._verdict(verdict)

    def _capped(self, plan: _Plan, line: str) -> _Plan:
        """A counter span too long to be a step or epoch counter (``limits.max_counter_digits``)
        is no axis in the plan either: every line of the shape has as many digits there, and the
        full parse of the first one did not count it."""
        for name in ("c", "ct", "st"):
            span = getattr(plan, name)
            if span is not None and _num(line, ("i", span[0], span[1]), self.max_counter_digits) is None:
                setattr(plan, name, None)
        return plan

    def _apply(self, line: str, plan: _Plan) -> None:
        try:
            texts = plan.texts
            vals = list(map(float, texts(line))) if texts is not None else \
                [convert(line[a:b]) for a, b, convert in plan.ms]
            e, c, ct, st = plan.e, plan.c, plan.ct, plan.st
            epoch = None if e is None else float(line[e[0]:e[1]])
            counter = None if c is None else _count(line[c[0]:c[1]])
            total = None if ct is None else _count(line[ct[0]:ct[1]])
            step = None if st is None else _count(line[st[0]:st[1]])
        except ValueError:
            return self._apply_each(line, plan)
        if epoch is not None:
            self._set_epoch(epoch)
        self.epoch_on_line = epoch is not None
        rs, is_eval, kept = plan.rs, plan.is_eval, plan
        self.step_round = plan.round
        if self.block_split is not None:   # a validation block is open (console._SplitBlocks)
            rs, is_eval, kept = self._block_record(rs, plan.split, step, is_eval, plan)
        if total and plan.split is None and not is_eval:   # a second, smaller loop (console._EvalLoops)
            rs, is_eval, kept = self._loop_record(rs, counter, total, is_eval, kept)
        self._record_values(vals, rs, plan.split, counter, total, step, plan.progress, plan.style, is_eval, kept)

    def _apply_each(self, line: str, plan: _Plan) -> None:
        """The plan read metric by metric: a value that is not a number is left out."""
        metrics = []
        for r, (a, b, convert) in zip(plan.rs, plan.ms):
            try:
                metrics.append((r, convert(line[a:b])))
            except ValueError:
                continue
        if metrics:
            e, c, ct, st = plan.e, plan.c, plan.ct, plan.st
            self.step_round = plan.round
            self._commit(None if e is None else float(line[e[0]:e[1]]),
                         None if c is None else _count(line[c[0]:c[1]]),
                         None if ct is None else _count(line[ct[0]:ct[1]]),
                         None if st is None else _count(line[st[0]:st[1]]),
                         plan.split, plan.progress, metrics)

    def _values_bared(self, text: str) -> str:
        """``text`` with what some printers wrap around a value or put between a name and its value
        read as blanks, span for span: ``tensor(``, NumPy and JAX scalars' reprs, angle brackets and typed
        tensors (``_unwrapped``), Julia's ``f0``, calls that hold a value (``console.value_wrapper_calls``),
        Julia symbols and tuple names."""
        if "tensor(" in text or "Tensor(" in text:
            text = _TENSOR.sub(_spaces, text)
        if "p.float" in text or "p.int" in text or "Array(" in text:
            text = _NP_SCALAR.sub(_spaces, text)
        if "<" in text or "Tensor " in text:
            text = _unwrapped(text)
        if "f0" in text:
            text = _JULIA_F32.sub(_spaces, text)
        if "(" in text:
            text = self.value_calls.sub(_value_unwrapped, text)
        if ",:" in text or "(:" in text:
            text = _JULIA_SYMBOL.sub(lambda m: " " + m.group(1) + " ", text)
        if "{" in text:
            text = _TUPLE_NAME.sub(lambda m: m.group(1) + " ", text)
        return text

    def _parse_full(self, line: str):
        """Parse one line; returns the extraction (for a plan) when it is a record, else None.
        A line that held no metric leaves ``(epoch, exception message, NaN warning, step, loss
        scale after an overflow, a callback's verdict on a validation metric)`` in
        ``_noise_out`` (None when it set a table header or held a record)."""
        text = line
        m = _PREFIX.match(text)
        if m:
            text = " " * m.end() + text[m.end():]
        text = self._values_bared(text)
        # a table row?
        if self.header is not None:
            # a logger's table: the row behind its prefix (console_logged)
            logged = logged_row(text, self.header_logged) if self.header_logged is not None else None
            row = self._table_row(text if logged is None else logged)
            if row is not None:
                self._table_record(row)
                return None
            if self.frame is not None and not self.frame_more:
                self._frame_flush()   # the line after a wrapped frame's last block
        if "'," in text or '",' in text:
            text = _QUOTED_NAME_COMMA.sub(" ", text)
        if ":" in text:
            text = _PY_LOGGER.sub(_spaces, text)
        text = _LEVEL.sub(_spaces, text)
        text = _CLOCK.sub(_clock_gap, text)
        if " --" in text:
            text = _OPTION.sub(_spaces, text)
        progress = bool(_PROGRESS.search(text)) or "it/s" in text or "s/it" in text
        text, epoch, counter, counter_total, step, split = _axes(text, progress, self.axis_joiners, self.words.split,
                                                                   self.axis_abbrevs)
        pairs = self._pairs(text)
        if split is None:
            split = self._line_split(text, pairs)
        metrics = self._named_metrics(line, pairs, split, None if progress else text)
        self._more_metrics(line, text, pairs, split, metrics)
        if not metrics:
            return self._no_record(line, text, epoch, step, pairs)
        if epoch is None and step is None and counter is None and not any(
                r[0] in _KEY_ROLES or r[0] == "data_wait" for r, _, _ in metrics) and (
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
            self.step_round = step is not None and step[0] == "r"
            self._commit(*(None if v is None else _num(line, v, self.max_counter_digits)
                           for v in (epoch, counter, counter_total, step)),
                         split, progress, vals)
        return ex

    def _split_heading(self, line: str, text: str) -> bool:
        """Whether the line is a split's heading: its text, or the message a logger printed it as
        (``... - INFO - allennlp.training.gradient_descent_trainer - Validating``: the logger's
        name is no part of the heading)."""
        if len(text) <= _HEADING_MAX_CHARS and self._heading(text.strip()):
            return True
        msg = logged_message(line)
        return msg is not None and len(msg) <= _HEADING_MAX_CHARS and self._heading(msg.strip())

    def _no_record(self, line: str, text: str, epoch, step, pairs) -> None:
        """A line that holds no metric: a speed, an epoch or step header, a table header, an
        exception, a NaN warning, a loss scaler's overflow, a callback's verdict (what it found is
        left in ``_noise_out``, see :meth:`_parse_full`)."""
        if not pairs and epoch is None and step is None and self._split_heading(line, text):
            return None   # a split's heading: never remembered as noise (replaying it would skip it)
        if not pairs and epoch is not None and step is None and len(text) <= _HEADING_MAX_CHARS \
                and self._heading_split(text.strip()) is not None \
                and (ep := _num(line, epoch, self.max_counter_digits)) is not None:
            # a heading behind its epoch (``Epoch [1/5] - Test Metrics:``): the epoch, then the block
            self._set_epoch(ep)
            self._heading(text.strip())
            return None
        sp = _speed(text) or _duration(text, self.words.duration)
        if sp is not None:   # a speed and no metric: kept apart (ConsoleReader._speed_series)
            a, b = sp[2]
            self._speed_value(_value(sp[1], text[a:b]))
        ep = st = None
        if epoch is not None and not pairs and _num(line, epoch, self.max_counter_digits) is not None:
            ep = _num(line, epoch, self.max_counter_digits)
            if self.epoch is None and self.epoch0 is None and self.counted_in_epoch:
                # the first epoch header comes after records counted within an epoch (an
                # excerpt that starts mid-epoch): those records were the epoch before
                self.epoch0 = ep - 1
            self._set_epoch(ep)
        if step is not None and not pairs:
            st = _num(line, step, self.max_counter_digits)
            if st is not None:
                self._axis_step(st)
        header = False
        if not pairs:
            header = self._maybe_header(line)
            if not header and self.header is None and self.layouts:
                header = self._headerless(line)
        exc = self._exception_line(line)
        nan_warning = self._nan_warning(line)
        scale = self._overflow_line(line) if "scal" in line else None
        verdict = self._verdict_line(line) if "mprov" in line else None
        if verdict is not None:
            self._verdict(verdict)
        if not header:
            self._noise_out = (ep, exc, nan_warning, st, scale, verdict)
        return None

    def _named_metrics(self, line: str, pairs: list, split, text: str | None = None) -> list:
        """``(role, kind, (start, end))`` of each pair whose name has a role (``text``: the line with
        its prefix and axes blanked, where the words that qualify each name are read; None on a
        progress bar's line, whose metrics are read by name alone: two printings there are redraws)."""
        metrics = []
        quals = []
        for k, (phrase, kind, a, b, pos) in enumerate(pairs):
            r = self._role(phrase, split)
            if r is None:
                continue
            if self.words.split_alone_rank <= r[1] < self.words.console_last_resort_rank and line[a:b].isdigit():
                continue   # "train 5446, val 616": a split's size (a count), not its loss
            metrics.append((r, kind, (a, b)))
            # the words printed between the pair before and this one's name: its qualifier, when
            # the name comes before the value (None for "6.37 loss", a value restated after its name)
            words = [w for w in (text or "")[pairs[k - 1][3] if k else 0:pos].split() if _LETTER.search(w)]
            quals.append(" ".join(words) if pos <= a and len(words) <= self.qualifier_words else None)
        if text is not None and split in (None, "train") and len(metrics) > 1:
            metrics = _second_is_held_out(metrics, quals)
        return metrics

    def _more_metrics(self, line: str, text: str, pairs: list, split, metrics: list) -> None:
        """What a line says beyond its named metrics, added to ``metrics``: with no name known, a
        value that is the sum of its neighbours (the loss total, see :func:`_sum_total`); beside a
        training record's metrics, the speed it prints (see :func:`_speed`)."""
        if not metrics:
            if len(pairs) >= 3:
                k = _sum_total(line, pairs, self.sum_rel_tol, self.sum_max_parts)
                if k is not None:
                    phrase, kind, a, b, _pos = pairs[k]
                    metrics.append((("loss", self.words.part_rank, phrase, None), kind, (a, b)))
            return
        total = _total_time(text, metrics, self.words.remaining_time)
        if total is not None:
            metrics.append(total)
        if split not in ("val", "test") and not all(r[0] in ("val_loss", "val_accuracy") for r, _, _ in metrics):
            speed = _speed(text)
            if speed is not None:
                metrics.append(speed)

    def _line_split(self, text: str, pairs) -> str | None:
        first = pairs[0][4] if pairs else len(text)
        for w in re.findall(r"[A-Za-z]+", text[:first + _SPLIT_WORD_REACH] if not pairs else
                            text[:first] + " " + pairs[0][0]):
            s = self.words.split.get(w.lower())
            if s:
                return s
        return None

    def _name_aside(self, toks: list, i: int) -> int | None:
        """The index after the ``)`` of a parenthesised aside of words inside a metric's name
        (``Training loss (for one batch) at step 0: 0.61``), starting at ``toks[i]``; None when
        the parentheses hold anything but ``console.name_aside_words`` words (a number, one
        word such as a network's ``(G)``, a long remark); a call's argument list glued to the name before
        an ``=`` is read past as well (``_call_args``: ``loss(x, y) = 0.09``)."""
        lo, hi = self.aside_words
        j = i
        while j < len(toks) and j - i <= hi and toks[j][0] == "name":
            j += 1
        if j < len(toks) and toks[j][1] == ")" and lo <= j - i <= hi:
            return j + 1
        return _call_args(toks, i - 1)

    def _name_tail(self, toks: list, i: int, phrase: list) -> int:
        """The index after what ``toks[i]`` opens when it still belongs to the name in ``phrase``, else 0:
        a label set (``train_loss{epoch="3"} 0.41``: the name's labels, then its value), or a split in
        parentheses (``loss (val) 0.73``: the split is the loss's, and joins its name)."""
        if toks[i][1] == "{":
            return _label_set(toks, i + 1)
        if i + 2 < len(toks) and toks[i + 1][0] == "name" and toks[i + 2][1] == ")" \
                and toks[i + 1][1].lower() in self.words.split:
            phrase.append(toks[i + 1][1])
            return i + _PAREN_WORD_TOKENS
        return 0

    def _names_timing(self, phrase: list) -> bool:
        """Whether a name's last word (``iter_time``, ``reader_cost``) or its last words (``data wait``)
        name a step's time or its data wait."""
        return bool(_TIMED_NAME.search(phrase[-1])) or self._timing_named(phrase[-1]) \
            or self._timing_named(" ".join(phrase[-_TIMED_PHRASE_WORDS:]))

    def _timed_kind(self, kind: str, unit: str, phrase: list, after_metric: bool) -> str | None:
        """The kind of a number printed with a unit of time when it is a step's timing, else None (a
        duration). "iter_time: 8.711s, data_time: 8.409s", "reader_cost: 5.34 s", "data wait 32.2s": in
        seconds; in milliseconds only after a metric of the same record (lit-llama's and nanoGPT's
        "loss 2.6089, time: 3363.41ms"; a line that prints only "step time: 100.87 ms" is a speed apart,
        read by ``_no_record``)."""
        if kind != "num" or not (unit in ("s", "sec", "secs") or unit == "ms" and after_metric) \
                or not self._names_timing(phrase):
            return None
        return "ms" if unit == "ms" else kind

    def _timing_named(self, name: str) -> bool:
        """Whether ``name`` names a step's time or its data wait (``console._timing_role``: PaddlePaddle's
        ``batch_cost``, ``reader_cost``), so that its value in seconds is that timing, not a duration."""
        res = self._role(name, None)
        return res is not None and res[0] in _TIME_WAIT_ROLES

    def _past_inside(self, toks: list, i: int, phrase: list, kind: str, skip: int) -> tuple:
        """Where reading goes on after the ``skip`` tokens at ``i`` inside a metric's phrase, and the phrase
        then. An index is passed over. A count (``Mean test loss of 296 batches:``, ``Accuracy of the
        network on the 10000 test images:``) is passed with what it counted: the phrase keeps its words
        before the count and a split word among the counted ones (the set it was computed on), and is
        dropped when neither part names a split (``accuracy on 800 held-out names =``: whose the value is
        stays unknown, and it is not read)."""
        if not (kind in ("num", "count") and _count_in_name(toks, i)):
            return i + skip, phrase

        def has_split(words) -> bool:
            return any(p in self.words.split for w in words for p in normalize_name(w).split("_"))
        j = i + 1
        while j < len(toks) and toks[j][0] == "name":
            j += 1
        kept = phrase + [t[1] for t in toks[i + 1:j] if has_split([t[1]])]
        return j, (kept if has_split(kept) else [])

    def _pairs(self, text: str) -> list:
        """``(phrase, kind, start, end, phrase_start)`` for each name-number pair of ``text``."""
        toks = [("num" if m.lastgroup == "dur" else m.lastgroup, m.group(m.lastgroup), m.start(), m.end())
                for m in _TOKEN.finditer(text)]
        out = []
        n = len(toks)
        i = 0
        phrase: list = []
        group: list = []     # the name of a bracketed group of named values, which names each of them
        phrase_pos, used = 0, set()
        while i < n:
            kind, val, pos, end = toks[i]
            if kind == "name" and val.lower() not in ("nan", "inf", "infinity"):
                # (the unit of a speed before a name is no word of it: "95.71 samples/sec Train-CrossEntropy=3.17")
                if phrase or not _unit_of_number(toks, i):
                    phrase_pos = phrase_pos if phrase else pos
                    phrase.append(val)
                i += 1
                continue
            kind = "num" if kind == "name" else kind
            skip = _inside_name(toks, i) if phrase else 0
            if skip:   # a count inside the name, or an index between the name and its value
                i, phrase = self._past_inside(toks, i, phrase, kind, skip)
                continue
            if phrase and kind in ("num", "frac"):
                phrase = _named_by_field(toks, i, phrase)
                if i + 1 < n and toks[i + 1][0] == "name" and toks[i + 1][1].lower() in _TIME_UNITS:
                    timed = self._timed_kind(kind, toks[i + 1][1].lower(), phrase, bool(out))
                    if timed is not None:
                        out.append((" ".join((group + phrase)[-_PHRASE_WORDS:]), timed, pos, end, phrase_pos))
                        used.add(i)
                    phrase = []       # "cost 14.01 s": a duration
                    i += 2
                    continue
                out.append((" ".join((group + phrase)[-_PHRASE_WORDS:]), kind, pos, end, phrase_pos))
                used.add(i)
                phrase = []
                i += 1
                # a parenthesised number right after a value is its running mean: skip it
                if i + 2 < n and toks[i][1] == "(" and toks[i + 1][0] == "num" and toks[i + 2][1] == ")":
                    used.add(i + 1)
                    i += 3
                continue
            if phrase and val in "{(" and (k := self._name_tail(toks, i, phrase)):
                i = k
                continue
            if phrase and kind == "sep" and val in "[{" and _opens_group(toks, i + 1):
                group, phrase = phrase, []     # "predict_loss: [local: 0.69 | reduced: 0.69]"
                i += 1
                continue
            if group and kind == "sep" and val in "]}":
                group = []
            if phrase and kind == "sep" and (_parts_pair(toks, i) or _abbreviation_stop(toks, i)):
                i += 1
                continue
            if phrase and val in "([":
                # "loss[3]: 0.5" (an index) or "Training loss (for one batch) at step 0: 0.61" (an aside)
                k = _after_index(toks, i + 1) if val == "[" else self._name_aside(toks, i + 1)
                if k is not None:
                    i = k
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
                    if len(words) == 1 and words[0].lower() in _MEAN_WORDS:
                        words = [words[0], "loss"]   # darknet's "463.57 avg,": the running mean loss
                    out.append((" ".join(words[-_TRAILING_NAME_WORDS:]), kind, pos, end, toks[i + 1][2]))
                    i = j
                    continue
            phrase = []
            i += 1
        return out
