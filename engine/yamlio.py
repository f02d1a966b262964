"""Reading YAML safely while remembering where every value came from.

PyYAML's safe loader composes a node tree whose nodes carry ``start_mark`` (line, column). We
build plain Python data from that tree ourselves, recording the mark of every mapping value and
sequence item under its JSON path, so schema and semantic errors can point at ``file:line:col``.
Only the safe constructor resolves scalars: no tags, no Python objects, nothing evaluated.
"""

from __future__ import annotations

from typing import Any

import yaml

from . import bounded
from .errors import InputError

Path = tuple


class Marks(dict):
    """JSON path (tuple of keys/indexes) -> (line, col), both 1-based."""

    def at(self, path) -> tuple[int, int] | None:
        """The mark of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while True:
            if path in self:
                return self[path]
            if not path:
                return None
            path = path[:-1]


def _mark(node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


_PLAIN_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str", "tag:yaml.org,2002:int",
               "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
               "tag:yaml.org,2002:timestamp"}


def _build(node, path: Path, marks: Marks, constructor, source: str) -> Any:
    marks[path] = _mark(node)
    if node.tag not in _PLAIN_TAGS:
        line, col = _mark(node)
        raise InputError(f"YAML tag {node.tag!r} is not allowed: knowledge is plain data", source, line, col)
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                line, col = _mark(key_node)
                raise InputError("mapping keys must be plain scalars", source, line, col)
            key = constructor.construct_object(key_node)
            if key == "<<":
                line, col = _mark(key_node)
                raise InputError("YAML merge keys (<<) are not supported", source, line, col,
                                 hint="write the keys out")
            if key in out:
                line, col = _mark(key_node)
                raise InputError(f"duplicate key {key!r}", source, line, col)
            out[key] = _build(value_node, path + (key,), marks, constructor, source)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), marks, constructor, source) for i, item in enumerate(node.value)]
    return construct_scalar(constructor, node, source)


def construct_scalar(constructor, node, source: str):
    """The safe constructor's value for a scalar node; a value it cannot build (a timestamp with
    month 13, an integer of more than 4300 digits) is an InputError at the node's line."""
    try:
        return constructor.construct_object(node)
    except yaml.YAMLError:
        raise
    except (ValueError, OverflowError, TypeError) as exc:
        line, col = _mark(node)
        raise InputError(f"invalid YAML value {node.value[:40]!r}: {str(exc).splitlines()[0][:120]}",
                         source, line, col) from None


def load_yaml(text: str, source: str, limits: bounded.Limits | None = None) -> tuple[Any, Marks]:
    """Parse one YAML document with the safe loader; return (data, marks).

    The text is read within ``limits`` (default: the shipped ``limits.*`` parameters): size, nodes
    after alias expansion, depth and value length. Raises :class:`InputError` naming ``source`` and
    the line for any syntax problem or limit.
    """
    lim = limits if limits is not None else bounded.limits()
    with bounded.compose_yaml(text, source, lim) as (node, loader):
        marks = Marks()
        if node is None:
            return None, marks
        try:
            data = _build(node, (), marks, loader, source)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
            msg = exc.problem or exc.context or "invalid YAML"
            raise InputError(f"invalid YAML: {msg}", source, line, col) from None
        except yaml.YAMLError as exc:
            raise InputError(f"invalid YAML: {str(exc).splitlines()[0]}", source) from None
        return data, marks


def read_text(path, what: str = "file", limits: bounded.Limits | None = None) -> str:
    """Read a UTF-8 text file (at most ``limits.max_file_bytes``) or raise a one-line InputError naming it."""
    lim = limits if limits is not None else bounded.limits()
    return bounded.read_text(path, lim.max_file_bytes, what)
