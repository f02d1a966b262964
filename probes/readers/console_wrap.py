"""Console text hard-wrapped at a terminal's width, joined back into its records.

A log copied from a terminal (a Windows console at 80 columns, a tmux pane, a web terminal) or
saved through ``fold`` keeps the terminal's line breaks: every record longer than the width is cut
into physical lines of exactly that width and a shorter remainder, often inside a name or a
number::

    round        0:[     300] 232 sec elapsed[1]    train-error:0.898737    train-re
    c@1:0.101263    train-rec@5:0.497522    test-error:0.9  test-rec@1:0.1  test-rec
    @5:0.5

Read line by line, the remainders are records of their own (``c@1:0.10``, ``e objf: 1.54``) and the
names cut in two are lost. :func:`wrap_width` finds the width from the text's head, and only when
the text shows it again and again (``console.wrap_min_records`` records cut at the same longest
width, each cut inside a word or a number, and the remainder never a line that begins a record
elsewhere in the text); :func:`unwrap_batches` then joins each cut line with its remainder before
the lines are read. A table whose rows all have one width, or a Keras epoch line followed by the
next ``Epoch 2/8``, is not wrapped: the rows are not cut inside a token, and ``Epoch`` begins lines
that follow no cut line. Torch-free.
"""

from __future__ import annotations

import re

from traindx.engine.parameters import resolve

_DIGITS = re.compile(r"\d+")
_LETTERS = re.compile(r"[^\W\d]+")
#: marks that join the parts of one token (``train-rec@1``, ``loss_pix``, ``0.5``, ``a/b``, ``name:value``)
_JOINING = "-_.@/:"


def _cut_inside(line: str, rest: str) -> bool:
    """Whether ``line`` ends and ``rest`` begins inside one token: a name or a number cut in two
    (``train-re`` + ``c@1``, ``averag`` + ``e``, ``0.12`` + ``34``), not a record's end (a closing
    bracket, a separator) followed by the next record (``]`` + ``Epoch``, ``0.7386`` + ``Epoch``,
    ``loss`` + ``Val``): a remainder goes on in lower case, a digit or a joining mark."""
    if not line or not rest:
        return False
    end, start = line[-1], rest[0]
    if not (end.isalnum() or end in _JOINING) or not (start.islower() or start.isdigit() or start in _JOINING):
        return False
    return not (end.isdigit() and start.isalpha())


def _first_shape(line: str) -> str:
    """The shape of a line's first word: its runs of digits and of letters each one mark
    (``2021-01-01`` and ``2020-11-14`` -> ``0-0-0``, ``step:5250/20000`` -> ``a:0/0``), so that the
    records of one print share it whatever their numbers."""
    word = line.split(None, 1)[0] if line.strip() else ""
    return _LETTERS.sub("a", _DIGITS.sub("0", word))


def wrap_width(head: str, params=None) -> int | None:
    """The width at which the text's records were cut (see the module docstring); None when the
    text is not hard-wrapped."""
    p = resolve(params)
    lines = [ln.rstrip("\r") for ln in head.split("\n")]
    if "\r" in head.replace("\r\n", "\n"):
        return None   # a progress bar redrawn in place: its pieces are no terminal's wrap
    width = max((len(ln) for ln in lines), default=0)
    if width < int(p["console.wrap_min_width"]):
        return None
    cuts, rests = 0, []
    for i, line in enumerate(lines[:-1]):
        if len(line) != width:
            continue
        nxt = lines[i + 1]
        if not _cut_inside(line, nxt):
            return None   # a line of the longest width that ends a record: rows of one width
        if len(nxt) < width:
            cuts += 1
            rests.append(i + 1)
    if cuts < int(p["console.wrap_min_records"]):
        return None
    after_cut = {i for i, ln in enumerate(lines[1:], 1) if len(lines[i - 1]) in (width, width - 1)}
    whole = [ln for i, ln in enumerate(lines) if i not in after_cut and len(ln) not in (width, width - 1)]
    near = width * p["console.wrap_near_width_share"]
    if sum(1 for ln in whole if len(ln) >= near) >= cuts:
        return None   # records of about the width printed whole as often: rows that vary, not cut
    starts = {_first_shape(ln) for i, ln in enumerate(lines) if i not in after_cut and ln.strip()}
    if any(_first_shape(lines[i]) in starts for i in rests):
        return None   # the "remainder" begins lines of its own elsewhere: a record, not a remainder
    return width


def _joined(line: str, rest: str, width: int) -> str | None:
    """``line`` and the next physical line as one record, or None when ``line`` was not cut: a line
    of the full width cut inside a token, or one a column short whose cut fell on a space (the
    terminal's trailing blank dropped in the paste) and whose remainder goes on in lower case."""
    if not rest.strip():
        return None
    if len(line) == width and _cut_inside(line, rest):
        return line + rest
    if len(line) == width - 1 and not line[-1:].isspace() and rest[0].islower():
        return line + " " + rest
    return None


def unwrap_batches(batches, width: int):
    """The ``(pieces, news)`` batches of ``console._line_batches`` with each cut record joined
    into one line: yields ``(text, new, extra)``, ``extra`` the physical lines joined onto the
    record (so that line numbers still count the file's lines); a batch of ``\\r`` pieces is passed
    on as it is, piece by piece with its ``new`` flag."""
    held, last, extra = None, "", 0
    for pieces, news in batches:
        if news is not None:
            if held is not None:
                yield held, True, extra
                held, extra = None, 0
            for piece, new in zip(pieces, news):
                yield piece, new, 0
            continue
        for line in pieces:
            if held is not None:
                j = _joined(last, line, width)
                if j is not None:
                    held, last, extra = held + j[len(last):], line, extra + 1
                    continue
                yield held, True, extra
                held, extra = None, 0
            if len(line) in (width, width - 1):
                held, last = line, line
            else:
                yield line, True, 0
    if held is not None:
        yield held, True, extra
