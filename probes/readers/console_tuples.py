"""Metrics printed as a tuple of names beside a tuple of their values, split into name/value pairs.

A script that trains several heads or loss terms at once sometimes prints them as one name, then
the names of the parts in parentheses, then their values in parentheses, in the same order::

    Epoch[128] Batch[199/478] Speed: 786.95 samples/sec, Loss:(pitch, yaw, roll)/(4.013, 2.438, 3.250)
    Epoch[128] val  : MAE:(pitch, yaw, roll, mean)/(6.523, 6.928, 5.208, 6.220), Cost=158 sec

Read as it stands, no number follows a metric's name (``Loss:`` is followed by words), so the line
holds no metric. :func:`split_named_tuples` writes each such group as the pairs it means --
``Loss_pitch: 4.013, Loss_yaw: 2.438, Loss_roll: 3.250`` -- before the line is read; the pairs are
then read like any ``key: value`` record (a loss's parts, an error's parts). The two tuples are
joined by ``/``, ``:`` or ``=`` (``Loss (cls, box): (0.31, 0.12)`` too), and only when every part
of the first is a name, every part of the second a number, and the two are as long as each other:
a tuple of numbers alone (``lr (0.1, 0.01)``) or of unequal length is left as it is. Torch-free.
"""

from __future__ import annotations

import re

#: a name, its parts' names in parentheses, a joining mark, and as many values in parentheses; the name starts
#: where a word does (tried from inside a word, a long word before a ``):(`` cost time quadratic in its length)
_GROUP = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][\w.-]*)\s*:?\s*\((?P<parts>[A-Za-z][^()]*)\)\s*[/:=]\s*\((?P<vals>[^()]*)\)")
#: one part's name: a word, perhaps with digits, dashes or dots (``yaw``, ``loss-cls``, ``top1``)
_PART = re.compile(r"[A-Za-z][\w.-]*")
#: one value: a decimal or scientific number, or NaN/Inf as Python prints them
_VALUE = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)", re.IGNORECASE)


def has_named_tuple(line: str) -> bool:
    """A cheap test first: only a line with a closing parenthesis right before a joining mark and an
    opening one can hold such a group."""
    return ")/(" in line or "): (" in line or ")=(" in line or ") / (" in line or "):(" in line


def _pairs(m: re.Match) -> str | None:
    parts = [p.strip() for p in m.group("parts").split(",")]
    vals = [v.strip() for v in m.group("vals").split(",")]
    if len(parts) != len(vals) or len(parts) < 2:
        return None
    if not all(_PART.fullmatch(p) for p in parts) or not all(_VALUE.fullmatch(v) for v in vals):
        return None
    name = m.group("name")
    return ", ".join(f"{name}_{p}: {v}" for p, v in zip(parts, vals))


def split_named_tuples(line: str) -> str:
    """``line`` with each ``Name:(a, b)/(1.0, 2.0)`` group written as ``Name_a: 1.0, Name_b: 2.0``;
    the line itself when it holds none."""
    if not has_named_tuple(line):
        return line
    return _GROUP.sub(lambda m: _pairs(m) or m.group(0), line)
