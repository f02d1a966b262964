"""Two table shapes of the console reader that span several lines per record: a boxed key/value
block (stable-baselines3's logger) and a pandas DataFrame printed whole, its columns wrapped.

- **A boxed block** (:class:`_Boxes`)::

      ----------------------------------
      | train/           |             |
      |     epoch        | 1           |
      |     loss         | 12.72       |
      | val/             |             |
      |     mse          | 0.9341      |
      ----------------------------------

  Between two rules of dashes, each ``| key | value |`` row is one metric of the same record; a
  row with no value is a section (``train/``, ``rollout/``) whose name, nested by its indent,
  prefixes the keys under it (``val/mse``). The block is read as one record when its closing rule
  comes (a key that names the epoch or the step, ``train/epoch``, is the record's axis). A block
  that turns out to be something else (a row that is not a name and a number) is read line by
  line as before.
- **A pandas DataFrame** (:class:`_Frames`): a whitespace-aligned header whose first column, the
  index, has no name (the header starts blank, each row has one cell more than the header names:
  the index label, dropped), and ``...`` for elided columns. When the frame is too wide for the
  screen pandas prints it in blocks of columns, each header but the last ending in ``\\``, each
  block repeating the index: the rows are kept by index label until the last block ends, then read
  as one record per index label with every block's columns.

Mixins of :class:`~traindx.probes.readers.console.ConsoleReader` (its ``words``, ``_role``,
``_table_record``, ``_feed``). Torch-free.
"""

from __future__ import annotations

import re

from .console_lines import _cell

#: a rule of dashes alone on its line, above and below a boxed block; a rule drawn with ``+`` at its corners
#: and column joints (``+-------+------+``, PrettyTable's and tabulate's grid) is one too
_BOX_RULE = re.compile(r"\s*\+?-{3,}(?:\+-+)*\+?\s*")
#: one ``| key | value |`` row of a boxed block: its key's indent, the key, the value (maybe blank)
_BOX_ROW = re.compile(r"\s*\|( *)([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*")
#: the first characters a rule or a row of a boxed block can start with
BOX_START = frozenset("-+| \t")
#: the most rows one boxed block holds (a bound on the lines buffered before it is read)
_BOX_MAX_ROWS = 200
#: the most index labels a wrapped DataFrame keeps before its last block (a bound on memory)
_FRAME_MAX_ROWS = 100_000
#: the roles of a key that gives a record its x rather than a metric
_AXIS_ROLES = ("epoch", "step")


class _Boxes:
    """Boxed key/value blocks (see the module docstring): ``box`` is None outside a block, else the
    ``(name, key, value)`` rows read so far; ``box_raw`` the block's lines, read one by one should
    the block turn out to be no block; ``box_sections`` the open sections ``(indent, name)``."""

    # set per reader in ConsoleReader.__init__ (a class-level list would be one list shared by every reader)
    box = None
    box_raw: list
    box_sections: list
    box_off = False

    def _box_line(self, line: str) -> bool:
        """Whether ``line`` was taken as a rule or a row of a boxed block (False: read it as usual)."""
        if self.box_off:
            return False
        if _BOX_RULE.fullmatch(line):
            if self.box:
                self._box_flush()      # the closing rule: the block is one record
            elif self.box is None:
                self.box, self.box_raw, self.box_sections = [], [line], []
            else:
                self.box_raw.append(line)   # a second rule before any row (the next block's top)
            return True
        if self.box is None:
            return False
        m = _BOX_ROW.fullmatch(line)
        if m is None or len(self.box_raw) > _BOX_MAX_ROWS:
            self._box_abort()
            return False
        indent, key, value = len(m.group(1)), m.group(2), m.group(3)
        secs = self.box_sections
        while secs and secs[-1][0] >= indent:
            secs.pop()
        if not (key[:1].isalpha() or key[:1] == "_"):
            self._box_abort()   # a row of numbers under a table's header (| 1 | 0.52 |), not a key
            return False
        if not value:
            secs.append((indent, key.rstrip("/")))   # a section: its name prefixes the keys below it
            self.box_raw.append(line)
            return True
        v = _cell(value)
        if v is None:
            self._box_abort()
            return False
        self.box.append(("/".join([s for _, s in secs] + [key]), key, v))
        self.box_raw.append(line)
        return True

    def _box_abort(self) -> None:
        """The lines buffered were no boxed block: read them one by one, as any other line."""
        raw = self.box_raw
        self.box, self.box_raw, self.box_sections = None, [], []
        self.box_off = True
        try:
            for line in raw:
                self._feed(line)
        finally:
            self.box_off = False

    def _box_flush(self) -> None:
        """The block read so far as one record: a key naming the epoch or the step is its x."""
        rows = []
        match_role = self.words.match_role
        for name, key, v in self.box:
            m = match_role(key)
            if m is not None and m[0] in _AXIS_ROLES:
                rows.append((key, None, v))
            else:
                rows.append((name, self._role(name, None), v))
        self.box, self.box_raw, self.box_sections = None, [], []
        self._table_record(rows)


class _Frames:
    """A pandas DataFrame printed in blocks of columns (see the module docstring): ``frame`` is None
    unless a wrapped frame is being read, else ``{index label: [(name, role, value), ...]}``;
    ``frame_more`` says whether the current block's header announced another block."""

    frame = None
    frame_more = False
    header_indexed = None
    row_index = None

    def _frame_header(self, wrapped: bool) -> None:
        """A header was read; ``wrapped``: it ends in ``\\`` (more columns follow in another block)."""
        if self.frame is not None and not self.frame_more:
            self._frame_flush()        # a new table after a wrapped frame's last block
        if wrapped and self.frame is None:
            self.frame = {}
        self.frame_more = wrapped

    def _frame_row(self, row) -> bool:
        """Keep a row of a wrapped frame by its index label (True), or say it is read now (False)."""
        if self.frame is None or self.row_index is None:
            return False
        kept = self.frame.get(self.row_index)
        if kept is None:
            if len(self.frame) >= _FRAME_MAX_ROWS:
                return True
            kept = self.frame[self.row_index] = []
        kept.extend(row)
        return True

    def _frame_flush(self) -> None:
        """A wrapped frame's rows, every block's columns together, one record per index label."""
        frame, self.frame, self.frame_more = self.frame, None, False
        for row in (frame or {}).values():
            self._table_record(row)


#: one cell of an HTML table row, header or data (``<th>loss</th>``, ``<td class="n">0.52</td>``)
_HTML_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.I)
#: markup inside a cell (``<b>0.41</b>``)
_HTML_TAG = re.compile(r"<[^>]*>")
#: a SQL table's definition on one line: its column list (``CREATE TABLE m (epoch INTEGER, loss REAL)``)
_SQL_CREATE = re.compile(r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w.\"`\[\]]+\s*\((.*)\)\s*;?\s*$", re.I)
#: a SQL row: its column list if any and its values (``INSERT INTO m VALUES (1, 0.52);``)
_SQL_INSERT = re.compile(r"\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+[\w.\"`\[\]]+\s*(?:\(([^()]*)\))?\s*VALUES\s*"
                         r"\(([^()]*)\)\s*;?\s*$", re.I)
#: a record that names its metric in one field and holds its number in another (MLPerf's ``:::MLLOG {..., "key":
#: "train_loss", "value": 6.87, ...}``, MLflow's metric records ``{"key": "loss", "value": 0.5, "step": 3}``): the
#: name field and the value field, read as one ``"train_loss": 6.87`` pair
_KEYED_VALUE = re.compile(r'"(?:key|metric|tag)"\s*:\s*"([^"\\]{1,200})"\s*,\s*"value"\s*:')
#: a MediaWiki table's header row (``! Epoch !! Train loss``) and data row (``| 1 || 6.94``), split on their
#: doubled marks; ``{|``, ``|-`` and ``|}`` (the table's start, a row's rule, its end) hold no cell
_WIKI_HEAD = "!!"
_WIKI_CELLS = "||"
#: a column definition's constraints that are no column (``PRIMARY KEY (run, epoch)``)
_SQL_CONSTRAINTS = ("primary", "foreign", "unique", "constraint", "check")
#: a SQL name's quotes
_SQL_QUOTES = "\"`[]' "


def _top_level(cols: str) -> list:
    """A SQL list split on the commas outside parentheses (``DECIMAL(10, 4)``, ``PRIMARY KEY (a, b)``)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(cols):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cols[start:i])
            start = i + 1
    return parts + [cols[start:]]


def _sql_names(cols: str) -> list:
    """The column names of a SQL column list (each definition's first word, quotes off)."""
    names = []
    for c in _top_level(cols):
        words = c.split()
        if words and words[0].lower().strip(_SQL_QUOTES) not in _SQL_CONSTRAINTS:
            names.append(words[0].strip(_SQL_QUOTES))
    return names


def markup_row(line: str) -> str | None:
    """A table printed as markup, one row a line, as the delimited row the table reader reads:
    an HTML ``<tr>`` of ``<th>``/``<td>`` cells as ``a|b|c``; a SQL dump's ``CREATE TABLE`` as its
    column names (a header) and each ``INSERT ... VALUES (...)`` as its values (a row), or, when
    the insert names its columns, as ``name=value`` pairs; a MediaWiki table's ``! a !! b`` header and
    ``| 1 || 2`` rows as ``a|b`` and ``1|2``; a record with its metric's name in a ``"key"`` field and its
    number in ``"value"`` with the two as one ``"name": number`` pair. None for any other line."""
    if '"value"' in line:
        keyed = _KEYED_VALUE.sub(lambda m: f'"{m.group(1)}":', line)
        if keyed != line:
            return keyed
    wiki = _wiki_row(line)
    if wiki is not None:
        return wiki
    if "<t" in line or "<T" in line:
        cells = _HTML_CELL.findall(line)
        if len(cells) >= 2:
            return "|".join(_HTML_TAG.sub("", c).strip() for c in cells)
        return None
    head = line.lstrip()[:6].upper()
    if head == "CREATE":
        m = _SQL_CREATE.match(line)
        return ", ".join(_sql_names(m.group(1))) if m else None
    if head == "INSERT":
        m = _SQL_INSERT.match(line)
        if not m:
            return None
        vals = [v.strip() for v in m.group(2).split(",")]
        if m.group(1):
            names = _sql_names(m.group(1))
            if len(names) == len(vals):
                return ", ".join(f"{n}={v}" for n, v in zip(names, vals))
            return None
        return ", ".join(vals)
    return None


def _wiki_row(line: str) -> str | None:
    """A MediaWiki table's header or data row as a delimited row (``a|b|c``), else None (a row whose
    cells are split by single bars as well is another table's)."""
    s = line.strip()
    mark = _WIKI_HEAD if s.startswith("!") else _WIKI_CELLS if s.startswith("|") and s[1:2] != "|" else None
    if mark is None or mark not in s or "|" in s[1:].replace(mark, ""):
        return None   # a markdown row with an empty cell (``| a || b |``) keeps its single bars
    cells = s[1:].split(mark)
    return "|".join(c.strip() for c in cells)
