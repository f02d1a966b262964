"""A metric's history printed as a list of numbers: Keras' ``print(history.history)``
(``{'loss': [0.69, 0.52, ...], 'val_loss': [...]}``), a script's ``val_losses = [...]``, a numpy
``array([...])`` of losses (a name on the line, or on the line just above it that ends with a
colon: ``Here is history of validation losses:``), wrapped over several lines.

One value per epoch: the lists printed together are aligned by position (the k-th value of each is
epoch k). Only a text whose history comes before any record of the run is read this way (a history
printed after the run's own lines repeats them: those lines are the curve, and the history adds no
point to it); and only a list
named by a loss or an accuracy opens a history (a learning-rate list on its own is a schedule's
setting, ``lr: [0.1, 0.01, 0.001]``). Torch-free; a mixin of
:class:`~traindx.probes.readers.console.ConsoleReader` (uses ``_role``, ``_commit``, ``cands``,
``line_no`` and ``params``).
"""

from __future__ import annotations

import re

#: a bound on memory, not knowledge: at most this many values of one history are kept until it is
#: read out (a list longer than this is cut, the values after it dropped)
_HISTORY_MAX_VALUES = 100_000
#: at most this many lists are read as one history (a dict of many metrics' lists): a bound on work
_HISTORY_MAX_LISTS = 64

_NUM = r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)"
#: a list that opens with a number followed by a comma (cheap test, starting at a ``[``: most lines
#: with one are time stamps, ``Epoch [1/10]`` or ``[1][50/500]``, whose number is followed by ``]`` or ``/``)
_LIST_OPEN = re.compile(r"\[\s*(?:np\.float\d*\(|tensor\()?" + _NUM + r"\)?\s*,", re.IGNORECASE)
#: one list: its opening (``[`` or ``array([``) and its body up to ``]`` or the end of the line
_LIST = re.compile(r"(?:array\(\s*)?\[([^\[\]]*)(\])?")
#: a line that only continues an open list: numbers and commas, maybe its closing bracket
_CONTINUED = re.compile(r"\s*(?:(?:np\.float\d*\(|tensor\()?" + _NUM + r"\)?\s*,?\s*)+(\][^\[\]]*)?",
                        re.IGNORECASE)
_ITEM_WRAP = re.compile(r"^(?:np\.float\d*|tensor)\((.*)\)$")
#: the name in front of a list: the words just before it, without quotes, braces and ``:``/``=``
#: (a list is a value only after ``:``, ``=`` or ``(``, or alone at the start of its line)
_NAME = re.compile(r"([A-Za-z][\w./ -]*?)\W*$")
_OPENERS = ("loss", "val_loss", "accuracy", "val_accuracy")
_READ_ROLES = _OPENERS + ("lr", "grad_norm")


def _numbers(body: str) -> list | None:
    """The numbers of a list's body (``0.5, 0.4,`` or ``np.float64(0.5), ...``), None when an item
    is not a number."""
    out = []
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        m = _ITEM_WRAP.match(item)
        if m:
            item = m.group(1).strip()
        try:
            out.append(float(item))
        except ValueError:
            return None
    return out


class _Histories:
    """Lists of a metric's values, one per epoch (see the module's docstring)."""

    hist = None         # {role tuple: [values]} of the history being read, in print order
    hist_open = None    # the role of a list still open at the end of the last line
    hist_label = None   # (line number, text) of the last line without numbers that ends with ':'

    def _history_label(self, line: str) -> None:
        if line.rstrip().endswith(":"):
            self.hist_label = (self.line_no, line.strip().rstrip(":").strip())

    def _history_line(self, line: str) -> bool:
        """Read ``line`` as (part of) a history; False when it is not one (then it is read as usual,
        after any history before it is read out)."""
        if self.hist_open is not None:
            m = _CONTINUED.fullmatch(line)
            if m is not None:
                vals = _numbers(line.split("]", 1)[0])
                if vals is not None:
                    self._history_add(self.hist_open, vals)
                    if m.group(1) is not None:
                        self.hist_open = None
                    return True
            self.hist_open = None
        if "[" not in line or not _LIST_OPEN.search(line):
            if self.hist is not None:
                self._history_flush()
            return False
        return self._history_lists(line)

    def _history_lists(self, line: str) -> bool:
        found = []
        start = 0
        for m in _LIST.finditer(line):
            before = line[start:m.start()]
            start = m.end()
            tail = before.rstrip()
            if tail and tail[-1] not in ":=(":
                continue   # ``Loss [31, 100](epoch, minibatch): 3.2``: brackets that label, not a list assigned
            vals = _numbers(m.group(1))
            name = _NAME.search(before)
            phrase = name.group(1).strip() if name else ""
            if not phrase and m.start() == len(line) - len(line.lstrip()) and self.hist_label \
                    and self.hist_label[0] == self.line_no - 1:
                phrase = self.hist_label[1]   # the list alone on its line, named by the line above
            r = self._role(phrase, None) if phrase and vals else None
            if r is not None and self._quality_named(phrase):
                continue   # ``average dice: [0.59, 0.32, 0.08]``: a score per class or n-gram, not per epoch
            if r is not None and r[0] in _READ_ROLES:
                found.append((r, vals, m.group(2) is None))
        if not any(r[0] in _OPENERS for r, _, _ in found):
            self._history_flush()
            return False
        if self.cands and self.hist is None:
            return True   # printed after the run's own records: it repeats them, its first value no new point
        if self.hist is None:
            self.hist = {}
        for r, vals, still_open in found:
            self._history_add(r, vals)
            self.hist_open = r if still_open else None
        return True

    def _history_add(self, r, vals: list) -> None:
        h = self.hist
        if r not in h:
            if len(h) >= _HISTORY_MAX_LISTS:
                return
            h[r] = []
        kept = h[r]
        kept.extend(vals[: max(0, _HISTORY_MAX_VALUES - len(kept))])

    def _history_flush(self) -> None:
        """Read out the history: the k-th value of each list is epoch k, when the longest list has
        at least ``console.min_history_values`` values (a shorter one is left unread)."""
        h, self.hist, self.hist_open = self.hist, None, None
        if not h or max(len(v) for v in h.values()) < int(self.params["console.min_history_values"]):
            return
        for k in range(max(len(v) for v in h.values())):
            metrics = [(r, v[k]) for r, v in h.items() if k < len(v)]
            self._commit(float(k + 1), None, None, None, None, False, metrics)
