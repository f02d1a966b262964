"""Tables a program's logger prints (a mixin's helpers for :mod:`console_lines`'s table reading).

A training loop that logs its metric history through Python's ``logging`` writes every line of
the table behind the logger's prefix, the header too::

    2024-08-19 13:28:48,101 INFO [casanovo/MainProcess] model._log_history : Step<TAB>Train loss<TAB>Valid loss
    2024-08-19 13:28:48,101 INFO [casanovo/MainProcess] model._log_history : 20000<TAB>nan<TAB>1.594399

The time stamp changes from line to line; what stands between the level and the message
separator (``INFO [casanovo/MainProcess] model._log_history : ``) does not. :func:`logged_header`
finds that constant part on a tab-separated header line and :func:`logged_row` takes it off each
row, so the rows are read under the header as any table's are.

Such a table, like a metrics file that a logger appends one row to at each training step and
another at each evaluation (Lightning's ``CSVLogger``), leaves the columns a row does not log
empty, and pandas and many loops print an empty cell as ``nan``. :func:`blank_nans` reads a row
whose every metric of one split is NaN while a metric of the other split is finite as a row that
logs the other split only: its NaNs are cells left blank, not a loss that turned NaN (a diverged
run's row is NaN in both splits, or in its loss beside a finite accuracy of the same split).
"""

from __future__ import annotations

import math
import re

#: a logging level word: what stands before the logger's message separator
_LEVEL_WORD = re.compile(r"\b(?:INFO|DEBUG|WARNING|WARN|NOTICE)\b")
#: the separator between a logger's prefix and its message (`` : ``, `` - ``, `` >> ``, `` | ``)
_MESSAGE_SEP = re.compile(r"\s(?::|-|>>|\|)\s+(?=[A-Za-z_])")
#: a logger's prefix up to its message: the level word, the logger's name (a dotted identifier) and
#: the separators around it (``INFO - allennlp.training.gradient_descent_trainer - Validating``)
_LOGGED_MESSAGE = re.compile(r"\b(?:INFO|DEBUG|WARNING|WARN|NOTICE)\b(?:\s*[-:|]\s*|\s+)"
                             r"(?:[A-Za-z_][\w.<>]*(?:\s+[-:|]\s+|\s*:\s*))?(?=[A-Za-z])(.*)$")
#: the roles of a table's columns by the split they measure (a role tuple's first item)
_TRAIN_ROLES = frozenset(("loss", "accuracy", "loss_part"))
_HELD_OUT_ROLES = frozenset(("val_loss", "val_accuracy", "val_loss_part"))


def logged_header(line: str) -> tuple | None:
    """``(prefix, message)`` of a tab-separated line that a logger printed: ``prefix`` is its
    constant part, from the level word through the message separator, and ``message`` the text
    after it (the header to read); None for a line with no tab in its message, no level word
    before the first tab, or no separator after that word."""
    tab = line.find("\t")
    if tab < 0:
        return None
    head = line[:tab]
    lv = _LEVEL_WORD.search(head)
    if lv is None:
        return None
    sep = _MESSAGE_SEP.search(head, lv.end())
    if sep is None:
        return None
    return head[lv.start():sep.end()], line[sep.end():]


def logged_row(line: str, prefix: str) -> str | None:
    """The message of a row printed behind ``prefix`` (see :func:`logged_header`), or None when the
    line does not hold it."""
    at = line.find(prefix)
    return None if at < 0 else line[at + len(prefix):]


def logged_message(line: str) -> str | None:
    """The message of a line a logger printed (the text after its level word and its logger's name:
    ``2026-12-07 05:52:07,747 - INFO - allennlp.training.gradient_descent_trainer - Validating`` ->
    ``Validating``), or None for a line without a level word followed by a message."""
    m = _LOGGED_MESSAGE.search(line)
    return None if m is None else m.group(1)


def _split_of(role) -> str | None:
    if role is None:
        return None
    if role[0] in _TRAIN_ROLES:
        return "train"
    return "held_out" if role[0] in _HELD_OUT_ROLES else None


def blank_nans(row: list) -> list:
    """The table row ``[(name, role, value), ...]`` with the NaNs of a split it does not log made
    blank (None): every metric of that split NaN, a metric of the other split finite."""
    nan = {"train": True, "held_out": True}
    finite = {"train": False, "held_out": False}
    for _name, role, v in row:
        s = _split_of(role)
        if s is None or v is None:
            continue
        if math.isnan(v):
            finite_here = False
        else:
            finite_here = not math.isinf(v)
            nan[s] = False
        finite[s] = finite[s] or finite_here
    seen = {_split_of(r) for _n, r, v in row if v is not None}
    blank = {s for s in ("train", "held_out") if s in seen and nan[s] and finite[_other(s)]}
    if not blank:
        return row
    return [(n, r, None if _split_of(r) in blank and v is not None and math.isnan(v) else v) for n, r, v in row]


def _other(split: str) -> str:
    return "held_out" if split == "train" else "train"
