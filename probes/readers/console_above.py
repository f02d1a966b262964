"""Shapes of the console reader in which the names of values stand on the line above them.

- **A value under its name**: a line of words that ends with a colon, and on the next line one
  number alone::

      current training loss is :
      0.0063

  is read as ``current training loss is : 0.0063``. A name followed by several numbers alone, one
  per line, is a heading over a list of values printed without names (read as such, as before): the
  number is held until the line after it shows which of the two it is. A YAML-style block (a state
  runner's output, a dumped dict) is one case of it: a key alone on its line (``    train_loss:``)
  and its value alone on the next (``        9.81435``) read as ``train_loss: 9.81435``.
- **PHP's ``var_dump``** prints an array's key on a line of its own (``  ["train_loss"]=>``) and its
  value, typed, on the next (``  float(0.52)``): the two are read as one ``'train_loss' => 0.52`` line.
- **A table's header behind a split's heading** (``DEV: loss, acc, f1``, then ``0.014 0.78 0.47``):
  the heading is read as a heading line above the header would be (the rows are that split's), and
  the names after it as the header.

A mixin of :class:`~traindx.probes.readers.console.ConsoleReader` (its ``line_no``, ``_feed``,
``_bare_value``, ``_is_bare_number``, ``_history_label``, ``dump_key``, ``_heading``, ``_header_line``,
``block_split``, ``block_seen``, ``heading_at``). Torch-free.
"""

from __future__ import annotations

import re

#: a split's heading in front of a header's names on one line: the heading word(s), the colon, the names
_HEADED = re.compile(r"\s*([A-Za-z][\w ]*?)\s*:\s+(\S.*)")
#: a ``var_dump`` key line and the typed value line under it
_DUMP_KEY = re.compile(r'^(\s*)\["([^"\]]+)"\]=>\s*$')
_DUMP_VALUE = re.compile(r"^\s*(?:int|float|double)\(([^()]*)\)\s*$")


class _NamedAbove:
    """A value printed on the line under its name (see the module docstring)."""

    named_above = None   # (line number, name) of the last line without numbers that ends with ':'
    held_value = None    # (line number, name, number) held until the next line says what it is
    dump_key = None      # (indent, name) of a var_dump key line whose value is on the next line

    def _name_above(self, line: str) -> None:
        """Remember ``line`` (a line without numbers) as the name of a value on the next line (and as a
        history's label, console_history._Histories)."""
        if line[-1] == ":":
            self._history_label(line)
        s = line.rstrip()
        if s.endswith(":") and any(c.isalpha() for c in s):
            self.named_above = (self.line_no, s[:-1].strip())

    def _hold_named(self, number: str) -> bool:
        """Whether the number alone on this line is held as the value of the name on the line above."""
        n = self.named_above
        if n is None or n[0] != self.line_no - 1 or not self._is_bare_number(number):
            return False
        self.held_value = (self.line_no, n[1], number.strip())
        return True

    def _release_held(self, line: str | None) -> None:
        """Read the held value now that the next ``line`` came (None: the text ended): under another
        number alone it began a list of values without names, else it is its name's value."""
        held, self.held_value = self.held_value, None
        if held is None:
            return
        if line is not None and self._is_bare_number(line):
            self._bare_value(held[2])
            return
        now = self.line_no
        self.line_no = held[0]
        try:
            self._feed(f"{held[1]}: {held[2]}")
        finally:
            self.line_no = now

    def _headed_header(self, line: str) -> bool:
        """Whether ``line`` is a split's heading and a table header together (``DEV: loss, acc, f1``):
        read as the heading, then the header (True); else nothing changes (False)."""
        m = _HEADED.fullmatch(line)
        if m is None:
            return False
        state = (self.block_split, self.block_seen, self.heading_at)
        if not self._heading(m.group(1) + ":"):
            return False
        if self._header_line(m.group(2)):
            return True
        self.block_split, self.block_seen, self.heading_at = state
        return False

    def _dump_pair(self, line: str) -> str | None:
        """A ``var_dump`` key line is held (None: nothing to read yet); the typed value line after it is
        read as the pair (``  'name' => value,``); any other line is itself."""
        held, self.dump_key = self.dump_key, None
        m = _DUMP_KEY.match(line)
        if m is not None:
            self.dump_key = (m.group(1), m.group(2))
            return None
        v = _DUMP_VALUE.match(line) if held is not None else None
        return line if v is None else f"{held[0]}'{held[1]}' => {v.group(1)},"
