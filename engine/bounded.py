"""Bounded parsing: every file a user or a pack hands traindx is read within stated limits.

A knowledge pack, an answers file, a config or a log must not be able to make traindx use more
than a few hundred MB or more than a few seconds beyond its honest work. The parsers underneath
(PyYAML, libyaml, :mod:`json`, :mod:`csv`) are not bounded by themselves: a YAML alias bomb
("billion laughs") expands a 1 KB file into 10^9 nodes, libyaml's composer recurses once per
nesting level and crashes the interpreter at ~10^5 levels, :func:`json.loads` raises
``RecursionError`` on deep nesting and ``ValueError`` on a 5,000-digit integer. This module puts
one check in front of each:

- **file size** (:func:`check_size`, :func:`read_text`) before anything is read;
- **YAML** (:func:`compose_yaml`) is composed from the parser's event stream by a loop, not by
  recursion, counting every node *after* alias expansion (an alias costs the size of what it
  names), the nesting depth and the length of every scalar; it stops at the first event over a
  limit, so a bomb costs microseconds;
- **JSON** (:func:`loads_json`) is scanned for nesting depth before it is parsed;
- **lines** (:func:`iter_line_blocks`) are read in blocks whose lines are each bounded, so one
  gigabyte without a newline is one error, not one gigabyte of memory.

Every rejection is an :class:`InputError`: one line naming the file and, where it applies, the
line. The limits are knowledge (``kb/parameters/limits.yaml``, ids ``limits.*``): readers receive
them as ``params`` like every other parameter; :func:`limits` reads them. The core's own parameter
files are read with :data:`BOOTSTRAP` (the values they must stay within to be read at all).

Nothing here imports torch or anything outside the standard library and PyYAML.
"""

from __future__ import annotations

import errno
import json
import os
import re
import select
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from collections.abc import Iterator, Mapping

import yaml

from .errors import InputError

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Limits:
    """The limits one read runs under (see ``kb/parameters/limits.yaml`` for each one's meaning)."""

    max_file_bytes: int = 16 << 20
    max_log_bytes: int = 4 << 30
    max_json_doc_bytes: int = 256 << 20
    max_nodes: int = 500_000
    max_depth: int = 100
    max_value_chars: int = 1 << 20
    max_line_chars: int = 1 << 20
    max_columns: int = 10_000
    max_text_chars: int = 20_000
    max_event_files: int = 10_000
    pipe_wait_seconds: int = 10

    @classmethod
    def from_params(cls, params: Mapping) -> Limits:
        """The ``limits.*`` values of a parameter mapping (missing ones keep their defaults)."""
        kw = {}
        for name in cls.__dataclass_fields__:
            v = params.get(f"limits.{name}")
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                kw[name] = int(v)
        return cls(**kw)


#: The limits under which the core's own parameter files are read (before ``limits.yaml`` is known).
BOOTSTRAP = Limits()


def limits(params: Mapping | None = None) -> Limits:
    """The limits in ``params`` (a knowledge base's ``params()``), else the shipped ones."""
    if params is None:
        from .parameters import shipped
        params = shipped()
    return Limits.from_params(params)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def missing(path, what: str = "file") -> str:
    """Why ``path`` cannot be opened although it was named: not there, or a symbolic link that
    loops or points nowhere (``os.path.exists`` is False for all three)."""
    if os.path.islink(path):
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{what} is a symbolic link that loops (it leads back to itself)"
        try:
            return f"{what} is a symbolic link to {os.readlink(path)!r}, which does not exist"
        except OSError:
            pass
    return f"{what} not found"


def check_size(path, max_bytes: int, what: str = "file") -> int:
    """The size of ``path`` in bytes; InputError if it is larger than ``max_bytes``."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        raise InputError(missing(path, what), str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    if size > max_bytes:
        raise InputError(f"{what} is {_mib(size)}, over the {_mib(max_bytes)} limit", str(path),
                         hint="limits.max_file_bytes / limits.max_log_bytes in kb/parameters/limits.yaml")
    return size


def file_kind(path) -> str:
    """What ``path`` leads to: ``"file"``, ``"dir"``, ``"pipe"`` (a named pipe, ``<(...)``),
    ``"device"`` (``/dev/zero``, a terminal) or ``"other"`` (a socket); OSError if it cannot be
    stat'ed."""
    mode = os.stat(path).st_mode
    for kind, test in (("file", stat.S_ISREG), ("dir", stat.S_ISDIR), ("pipe", stat.S_ISFIFO),
                       ("device", stat.S_ISCHR), ("device", stat.S_ISBLK)):
        if test(mode):
            return kind
    return "other"


def read_pipe(path, max_bytes: int, what: str = "file", wait_s: float | None = None,
              chunk: int = 1 << 20) -> Iterator[bytes]:
    """The bytes a pipe gives, in blocks, until its writer closes it. A named pipe is opened without
    waiting for a writer; at most ``wait_s`` seconds (``limits.pipe_wait_seconds``) pass without a
    byte: before the first one that is an InputError (nobody writes to it), after it the read ends
    there (a writer that keeps the pipe open, ``tail -f``). More than ``max_bytes`` is an InputError."""
    wait_s = limits().pipe_wait_seconds if wait_s is None else wait_s
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        total = 0
        while True:
            if not poller.poll(wait_s * 1000):
                if total:
                    return
                raise InputError(f"{what} is a pipe nothing was written to in {wait_s:g} s", str(path),
                                 hint="start the program that writes to it first, or pass a file")
            try:
                data = os.read(fd, chunk)
            except BlockingIOError:
                continue
            if not data:
                return
            total += len(data)
            if total > max_bytes:
                raise InputError(f"{what} gives more than the {_mib(max_bytes)} limit", str(path))
            yield data
    finally:
        os.close(fd)


def read_bytes(path, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file (or a pipe) no larger than ``max_bytes``; InputError otherwise."""
    if os.path.isdir(path):
        raise InputError(f"expected a {what}, got a directory", str(path))
    kind = file_kind(path) if os.path.exists(path) else "file"
    if kind == "pipe":
        return b"".join(read_pipe(path, max_bytes, what))
    if kind != "file":
        raise InputError(f"a {kind}, not a {what}" if kind == "device"
                         else f"not a regular file: cannot read it as a {what}", str(path))
    check_size(path, max_bytes, what)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)   # a file that grew since stat() still stops here
    except FileNotFoundError:
        raise InputError(missing(path, what), str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    if len(raw) > max_bytes:
        raise InputError(f"{what} is over the {_mib(max_bytes)} limit", str(path))
    return raw


def read_text(path, max_bytes: int, what: str = "file", *, bom: bool = False) -> str:
    """A UTF-8 text file no larger than ``max_bytes``; InputError (with the line) otherwise."""
    raw = read_bytes(path, max_bytes, what)
    try:
        return raw.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", str(path), line,
                         hint="save the file as UTF-8") from None


# --------------------------------------------------------------------------------------------
# YAML
# --------------------------------------------------------------------------------------------

def _line_col(mark) -> tuple[int | None, int | None]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def _yaml_error(exc: yaml.YAMLError, source: str, prefix: str, text: str) -> InputError:
    if isinstance(exc, yaml.MarkedYAMLError):
        line, col = _line_col(exc.problem_mark or exc.context_mark)
        msg = exc.problem or exc.context or "invalid YAML"
        return InputError(f"{prefix}: {msg}", source, line, col)
    pos = getattr(exc, "position", None)   # ReaderError: a control character and the like
    reason = getattr(exc, "reason", None) or str(exc).splitlines()[0]
    line = text.count("\n", 0, pos) + 1 if isinstance(pos, int) else None
    return InputError(f"{prefix}: {reason}", source, line)


@contextmanager
def compose_yaml(text: str, source: str, lim: Limits, *, prefix: str = "invalid YAML"):
    """Compose one YAML document into PyYAML nodes within ``lim``; yield ``(node, loader)``.

    ``node`` is ``None`` for an empty document. ``loader`` is the safe loader the text was parsed
    with (its ``construct_object``/``resolve``/``flatten_mapping`` work on the yielded nodes); it is
    disposed when the block ends. The document's size after alias expansion is at most
    ``lim.max_nodes``, so a caller may walk the nodes (aliases included) recursively, and its
    depth at most ``lim.max_depth``.
    """
    if len(text) > lim.max_file_bytes:
        raise InputError(f"YAML text of {len(text)} characters is over the {_mib(lim.max_file_bytes)} limit", source)
    try:
        loader = _YAML_LOADER(text)
    except yaml.YAMLError as exc:   # the pure-Python reader checks characters up front
        raise _yaml_error(exc, source, prefix, text) from None
    try:
        try:
            node = _compose(loader, source, lim)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, source, prefix, text) from None
        yield node, loader
    finally:
        loader.dispose()


def _compose(loader, source: str, lim: Limits):
    """The event loop behind :func:`compose_yaml` (PyYAML's Composer, made iterative and bounded)."""
    get = loader.get_event
    event = get()
    if not isinstance(event, yaml.StreamStartEvent):  # pragma: no cover - the parser guarantees it
        raise InputError("invalid YAML: no stream", source)
    event = get()
    if isinstance(event, yaml.StreamEndEvent):
        return None
    # DocumentStart
    root = _Composer(loader, source, lim).document()
    event = get()
    if not isinstance(event, yaml.StreamEndEvent):
        line, col = _line_col(event.start_mark)
        raise InputError("invalid YAML: expected a single document, found another", source, line, col)
    return root


class _Composer:
    """One YAML document's events composed into nodes, one method per kind of event; aliases are
    counted at their expanded size against ``lim.max_nodes``, nesting against ``lim.max_depth``."""

    def __init__(self, loader, source: str, lim: Limits):
        self.loader, self.source, self.lim = loader, source, lim
        self.anchors: dict = {}
        self.sizes: dict = {}          # id(node) -> expanded size, for anchored nodes
        self.open_anchors: set = set()
        self.stack: list = []          # [node, anchor, expanded size so far]
        self.total = 0
        self.root = None
        self.on_event = {yaml.ScalarEvent: self.scalar, yaml.AliasEvent: self.alias,
                         yaml.SequenceStartEvent: self.collection_start,
                         yaml.MappingStartEvent: self.collection_start,
                         yaml.SequenceEndEvent: self.collection_end, yaml.MappingEndEvent: self.collection_end}

    def document(self):
        """Compose events up to the document's end; returns its root node."""
        while True:
            event = self.loader.get_event()
            cls = type(event)
            if cls is yaml.DocumentEndEvent:
                return self.root
            handler = self.on_event.get(cls)
            if handler is None:  # pragma: no cover - the parser emits nothing else inside a document
                raise InputError(f"invalid YAML: unexpected {cls.__name__}", self.source)
            handler(event)

    def attach(self, child, size):
        if self.stack:
            parent = self.stack[-1]
            parent[0].value.append(child)
            parent[2] += size
        else:
            self.root = child

    def over(self, what, mark):
        line, col = _line_col(mark)
        return InputError(what, self.source, line, col, hint="limits.* in kb/parameters/limits.yaml")

    def check_total(self, event):
        if self.total > self.lim.max_nodes:
            raise self.over(f"YAML document expands to more than {self.lim.max_nodes} nodes "
                            f"(aliases counted at their expanded size)", event.start_mark)

    def duplicate_anchor(self, event):
        line, col = _line_col(event.start_mark)
        return InputError(f"invalid YAML: duplicate anchor &{event.anchor}", self.source, line, col)

    def scalar(self, event):
        from yaml.nodes import ScalarNode
        lim = self.lim
        if len(event.value) > lim.max_value_chars:
            raise self.over(f"a YAML value of {len(event.value)} characters is over the "
                            f"{lim.max_value_chars}-character limit", event.start_mark)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(ScalarNode, event.value, event.implicit)
        node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        self.total += 1
        self.check_total(event)
        if event.anchor is not None:
            if event.anchor in self.anchors:
                raise self.duplicate_anchor(event)
            self.anchors[event.anchor] = node
            self.sizes[id(node)] = 1
        self.attach(node, 1)

    def alias(self, event):
        anchor = event.anchor
        if anchor not in self.anchors:
            line, col = _line_col(event.start_mark)
            if anchor in self.open_anchors:
                raise InputError(f"YAML alias *{anchor} refers to the node it is inside (a cycle)",
                                 self.source, line, col)
            raise InputError(f"invalid YAML: found undefined alias {anchor!r}", self.source, line, col)
        node = self.anchors[anchor]
        size = self.sizes[id(node)]
        self.total += size
        self.check_total(event)
        self.attach(node, size)

    def collection_start(self, event):
        from yaml.nodes import MappingNode, SequenceNode
        if len(self.stack) >= self.lim.max_depth:
            raise self.over(f"YAML nested more than {self.lim.max_depth} levels deep", event.start_mark)
        tag = event.tag
        kind = SequenceNode if type(event) is yaml.SequenceStartEvent else MappingNode
        if tag is None or tag == "!":
            tag = self.loader.resolve(kind, None, event.implicit)
        node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
        self.total += 1
        if event.anchor is not None:
            if event.anchor in self.anchors or event.anchor in self.open_anchors:
                raise self.duplicate_anchor(event)
            self.open_anchors.add(event.anchor)
        self.stack.append([node, event.anchor, 1])
        self.check_total(event)

    def collection_end(self, event):
        from yaml.nodes import MappingNode
        node, anchor, size = self.stack.pop()
        node.end_mark = event.end_mark
        if isinstance(node, MappingNode):
            items = node.value
            node.value = list(zip(items[0::2], items[1::2]))
        if anchor is not None:
            self.open_anchors.discard(anchor)
            self.anchors[anchor] = node
            self.sizes[id(node)] = size
        self.attach(node, size)


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------

_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str, limit: int) -> int:
    """The deepest bracket nesting in JSON ``text`` (strings skipped), or ``limit + 1`` once over."""
    if text.count("[") + text.count("{") <= limit:
        return text.count("[") + text.count("{")   # cannot be deeper than this many openers
    depth = deepest = 0
    for m in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        else:
            depth -= 1
    return deepest


def depth_line(text: str, limit: int) -> int:
    """The 1-based line on which ``text`` first nests deeper than ``limit``."""
    stripped = _JSON_STRING.sub(lambda m: "\n" * m.group().count("\n") + '""', text)
    depth = 0
    for m in re.finditer(r"[\[\]{}]", stripped):
        depth += 1 if m.group() in "[{" else -1
        if depth > limit:
            return stripped.count("\n", 0, m.start()) + 1
    return 1


def loads_json(text: str, source: str, lim: Limits, *, line: int | None = None, prefix: str = "invalid JSON"):
    """``json.loads(text)`` within ``lim``: depth checked first; every failure an InputError.

    ``line`` is the line ``text`` starts on in ``source`` (a JSON-lines record); error lines are
    counted from it.
    """
    base = (line or 1) - 1
    if json_depth(text, lim.max_depth) > lim.max_depth:
        raise InputError(f"JSON nested more than {lim.max_depth} levels deep", source,
                         base + depth_line(text, lim.max_depth), hint="limits.max_depth in kb/parameters/limits.yaml")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{prefix}: {exc.msg}", source, base + exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:   # e.g. an integer of more than 4300 digits
        raise InputError(f"{prefix}: {str(exc).splitlines()[0][:200]}", source, line) from None


# --------------------------------------------------------------------------------------------
# Lines
# --------------------------------------------------------------------------------------------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")


def iter_line_blocks(fh, source: str, lim: Limits, block_chars: int = 1 << 18,
                     first_line: int = 1) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line number of the first line, lines)`` from text file ``fh``, every line bounded.

    Reads ``block_chars`` characters at a time (what ``readlines(hint)`` would, but a line of more
    than ``lim.max_line_chars`` characters is an InputError naming its line instead of being held
    in memory whole). Lines keep their endings; the last line may lack one.
    """
    carry = ""
    line_no = first_line
    while True:
        chunk = fh.read(block_chars)
        if not chunk:
            if carry:
                yield line_no, [carry]
            return
        text = carry + chunk
        cut = max(text.rfind("\n"), text.rfind("\r"))
        if cut < 0:
            carry = text
            if len(carry) > lim.max_line_chars:
                raise InputError(f"line longer than {lim.max_line_chars} characters", source, line_no,
                                 hint="limits.max_line_chars in kb/parameters/limits.yaml")
            continue
        if text[cut] == "\r" and cut == len(text) - 1:   # maybe half of a \r\n pair: keep it for later
            nxt = fh.read(1)
            text += nxt
            if nxt == "\n":
                cut += 1
        body, carry = text[: cut + 1], text[cut + 1:]
        lines = _LINE.findall(body)
        if len(body) > lim.max_line_chars and max(map(len, lines)) > lim.max_line_chars:
            i = next(i for i, s in enumerate(lines) if len(s) > lim.max_line_chars)
            raise InputError(f"line longer than {lim.max_line_chars} characters", source, line_no + i,
                             hint="limits.max_line_chars in kb/parameters/limits.yaml")
        yield line_no, lines
        line_no += len(lines)
