"""Loading the knowledge base: YAML files -> validated, compiled :class:`KnowledgeBase`.

Two layers, as in semgrep: each file is validated against the JSON Schema of its ``kind`` (shape),
then the whole base is checked for meaning — duplicate or dangling ids, unknown facts in
conditions, root causes nothing reaches, rules that can never fire, rule cycles. Every problem is
one line ``file:line:col: message (hint: ...)``.

The core base ships in ``traindx.kb``; packs add folders (``--kb DIR``) or installed packages
(entry-point group ``traindx.kb_packs``). A pack's id that clashes with the core is an error,
never a silent override.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from collections.abc import Iterable

from . import bounded, kbmemo
from .conditions import compile_condition, compile_value, value_facts
from .errors import InputError, KBError
from .yamlio import Marks, load_yaml, read_text

#: Names longer than this are not looked up for a "did you mean": difflib's cost grows with the
#: square of the length, and such a "name" is pasted text, not a misspelt id. A bound on work, not
#: knowledge.
CLOSE_MATCH_MAX_CHARS = 100

log = logging.getLogger("traindx.loader")

#: file kind -> (list key, schema file)
KINDS = {
    "facts": "facts", "sources": "sources", "symptoms": "symptoms", "questions": "questions",
    "rules": "rules", "root_causes": "root_causes", "fixes": "fixes", "misdiagnoses": "misdiagnoses",
    "pressure": "pressure", "scope": "deferrals", "cases": "cases", "parameters": "parameters",
    "language": "language", "normal": "normal",
    "experiments": "experiments",
}
#: the evidence source whose findings carry experiment outcomes (kb/sources.yaml)
EXPERIMENT_SOURCE = "probe:experiment"
#: the values of an experiment's outcome fact ``exp_<id>``
EXPERIMENT_OUTCOMES = ("confirms", "refutes", "inconclusive")
ENTRY_POINT_GROUP = "traindx.kb_packs"
#: the core's pack label: not a name a pack folder can have (a pack folder called ``core`` is a pack)
CORE = "<core>"


@dataclass
class Origin:
    path: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        return ":".join(str(x) for x in (self.path, self.line, self.col) if x is not None)


@dataclass
class Rule:
    id: str
    description: str
    when: dict
    then: dict
    cases: list
    salience: int = 0
    explain: str | None = None
    origin: Origin | None = None
    test: Any = None              # compiled condition
    reads: frozenset = frozenset()  # facts the condition reads
    sets: dict = field(default_factory=dict)   # fact -> compiled value fn
    set_reads: frozenset = frozenset()
    evidence: list = field(default_factory=list)  # [(cause, lr)]
    order: int = 0

    @property
    def specificity(self) -> int:
        return len(self.reads)


@dataclass
class KnowledgeBase:
    facts: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    symptoms: dict = field(default_factory=dict)
    questions: dict = field(default_factory=dict)
    rules: dict = field(default_factory=dict)
    root_causes: dict = field(default_factory=dict)
    fixes: dict = field(default_factory=dict)
    misdiagnoses: dict = field(default_factory=dict)
    pressure: dict = field(default_factory=dict)
    deferrals: dict = field(default_factory=dict)
    cases: list = field(default_factory=list)
    references: dict = field(default_factory=dict)   # name -> path
    packs: list = field(default_factory=list)        # manifests of loaded packs
    origins: dict = field(default_factory=dict)      # (kind, id) -> Origin
    aliases: dict = field(default_factory=dict)      # old id -> id
    warnings: list = field(default_factory=list)
    # indexes built after loading
    rules_by_fact: dict = field(default_factory=dict)
    questions_by_fact: dict = field(default_factory=dict)
    answerable_facts: frozenset = frozenset()
    extractors: dict = field(default_factory=dict)   # fact -> [compiled regex]
    compiled_deferrals: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)   # id -> {id, value, unit, description, used_by, ...}
    language_files: list = field(default_factory=list)   # [(data, path)] of kind: language
    language: Any = None                              # engine.understand.Language, compiled
    normal: dict = field(default_factory=dict)        # "is this normal?" entries (kb/normal.yaml)
    compiled_normal: dict = field(default_factory=dict)
    experiments: dict = field(default_factory=dict)  # id -> experiment (kb/experiments.yaml)

    def param(self, ident: str):
        """The value of parameter ``ident`` (a pack's override included); KeyError if there is none."""
        return self.parameters[ident]["value"]

    def params(self) -> dict:
        """Every parameter's value: what readers and probes receive."""
        return {k: v["value"] for k, v in self.parameters.items()}

    def provides(self) -> set:
        out = set()
        for p in self.packs:
            out |= set(p.get("provides", []))
        return out

    def lookup(self, ident: str):
        """Find any entity by id (aliases and ``kind:id`` prefixes accepted): (kind, entity) or None."""
        kind_hint = None
        if ":" in ident and not ident.startswith(("probe:", "code:", "config:", "log:")):
            kind_hint, ident = ident.split(":", 1)
        plain = str(ident).strip().lower()   # "LR_TOO_LOW", "lr too low", "lr-too-low" as typed
        for name in dict.fromkeys([ident, plain, re.sub(r"[\s-]+", "_", plain), re.sub(r"[\s_]+", "-", plain)]):
            found = self._lookup_exact(self.aliases.get(name, name), kind_hint)
            if found is not None:
                return found
        return None

    def _lookup_exact(self, ident: str, kind_hint: str | None):
        tables = [("root_cause", self.root_causes), ("symptom", self.symptoms), ("question", self.questions),
                  ("rule", self.rules), ("fix", self.fixes), ("fact", self.facts), ("misdiagnosis", self.misdiagnoses),
                  ("pressure", self.pressure), ("deferral", self.deferrals), ("source", self.sources),
                  ("parameter", self.parameters), ("normal", self.normal), ("experiment", self.experiments)]
        for kind, table in tables:
            if kind_hint and kind != kind_hint:
                continue
            if ident in table:
                return kind, table[ident]
        return None


_SCHEMAS: dict = {}


def schema_for(name: str) -> dict:
    """The JSON Schema ``schemas/<name>.schema.json`` (cached)."""
    if name not in _SCHEMAS:
        text = resources.files("traindx.schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
        _SCHEMAS[name] = json.loads(text)
    return _SCHEMAS[name]


def _best_error(errors):
    """Pick the most useful of several schema errors (deepest path, then most specific)."""
    return max(errors, key=lambda e: (len(e.absolute_path), -len(e.context or [])))


def _plain(error) -> str:
    """semgrep-style plain messages for the common schema failures."""
    v = error.validator
    if v == "required":
        missing = [r for r in error.validator_value if r not in (error.instance or {})]
        return f"missing required field(s): {', '.join(missing)}"
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        return f"unknown field(s) {', '.join(map(repr, extra))}; allowed: {', '.join(allowed)}"
    if v in ("enum", "const"):
        return f"{error.instance!r} is not one of {error.validator_value if v == 'enum' else [error.validator_value]}"
    if v == "oneOf" and isinstance(error.instance, dict):
        keys = set(error.instance)
        if keys & {"all", "any", "not"} and len(keys) > 1:
            return f"a condition has exactly one of all/any/not, got {sorted(keys)}"
        if "fact" in keys:
            sub = [e for e in (error.context or []) if e.validator == "additionalProperties"]
            if sub:
                return _plain(sub[-1])
        return "not a valid condition: expected {all: [...]}, {any: [...]}, {not: ...} or {fact: NAME, OP: VALUE}"
    return error.message


_VALIDATORS: dict = {}
_FAST: dict = {}
#: set to ``python`` to check every file with the Python validator alone (a benchmark's baseline, or a
#: suspicion that the compiled one accepts what it should not)
VALIDATOR_ENV = "TRAINDX_SCHEMA_VALIDATOR"


def _fast_valid(data, schema_name: str) -> bool:
    """True when the compiled validator (``jsonschema_rs``) accepts ``data``: a valid file - nearly
    every file - is then checked some twenty times faster. False when it does not, when the package is
    absent or switched off, or when it cannot take the data (a YAML timestamp, an integer wider than
    64 bits): the Python validator then decides, and explains a failure with the path and line."""
    if os.environ.get(VALIDATOR_ENV) == "python":
        return False
    fast = _FAST.get(schema_name)
    if fast is None:
        try:
            import jsonschema_rs
            fast = jsonschema_rs.Draft202012Validator(schema_for(schema_name))
        except Exception:   # absent, or a schema it cannot compile: the Python validator alone, quietly
            fast = False
        _FAST[schema_name] = fast
    if fast is False:
        return False
    try:
        return bool(fast.is_valid(data))
    except Exception:   # data it cannot convert: not a verdict, so the Python validator gives one
        return False


def validate_shape(data, marks: Marks, schema_name: str, path: str) -> None:
    if _fast_valid(data, schema_name):
        return
    validator = _VALIDATORS.get(schema_name)
    if validator is None:
        import jsonschema   # only for a file the compiled validator refused or could not check
        validator = _VALIDATORS[schema_name] = jsonschema.Draft202012Validator(schema_for(schema_name))
    errors = list(validator.iter_errors(data))
    if not errors:
        return
    err = _best_error(errors)
    if err.validator in ("oneOf", "anyOf") and err.context:
        deeper = [e for e in err.context if len(e.absolute_path) > len(err.absolute_path)]
        if deeper:
            err = _best_error(deeper)
    pos = marks.at(err.absolute_path)
    where = "/".join(str(p) for p in err.absolute_path) or "(top)"
    line, col = pos if pos else (None, None)
    raise KBError(f"{_plain(err)} (at {where})", path, line, col)


class _Builder:
    """Accumulates entities from many files, checking ids as they come."""

    def __init__(self, limits: bounded.Limits | None = None):
        #: what every file is read within: the *core's* limits, which a pack cannot loosen for itself
        self.limits = limits if limits is not None else bounded.limits()
        self.kb = KnowledgeBase()
        self.entity_marks: dict = {}   # (kind, id) -> (path, marks, json path prefix)
        self.pack_of: dict = {}        # (kind, id) -> pack name or "core"
        self.override_at: dict = {}    # parameter id -> (path, line, col) of the pack's override

    def add_file(self, path: str, pack: str) -> None:
        try:
            text = read_text(path, "knowledge-base file", self.limits)
            data, marks = load_yaml(text, path, self.limits)
        except KBError:
            raise
        except InputError as exc:
            raise KBError(exc.message, exc.path, exc.line, exc.col, exc.hint) from None
        if not isinstance(data, dict) or "kind" not in data:
            raise KBError("not a knowledge-base file: expected a mapping with 'kind'", path, 1, 1,
                          hint=f"kind is one of {', '.join(sorted(KINDS))} or pack")
        kind = data["kind"]
        if kind == "pack":
            validate_shape(data, marks, "kb-pack", path)
            self.kb.packs.append({**data, "path": os.path.dirname(path)})
            return
        if kind not in KINDS:
            line, col = marks.at(("kind",)) or (1, 1)
            raise KBError(f"unknown kind {kind!r}", path, line, col, hint=f"one of {', '.join(sorted(KINDS))}")
        validate_shape(data, marks, f"kb-{kind}", path)
        key = KINDS[kind]
        items = data.get(key, [])
        if kind == "parameters":
            self._add_parameters(data, marks, path, pack)
            return
        if kind == "language":
            self.kb.language_files.append((data, path))
            return
        if kind == "cases":
            for i, case in enumerate(items):
                line, col = marks.at((key, i)) or (None, None)
                self.kb.cases.append({**case, "_origin": Origin(path, line, col)})
            return
        table = getattr(self.kb, key)
        single = {"normal": "normal", "root_causes": "root_cause", "symptoms": "symptom", "questions": "question",
                  "rules": "rule", "fixes": "fix", "facts": "fact", "misdiagnoses": "misdiagnosis",
                  "pressure": "pressure", "deferrals": "deferral", "sources": "source",
                  "experiments": "experiment"}[key]
        for i, item in enumerate(items):
            ident = item["id"]
            line, col = marks.at((key, i)) or (None, None)
            origin = Origin(path, line, col)
            if ident in table:
                prev = self.kb.origins[(single, ident)]
                prev_pack = self.pack_of[(single, ident)]
                what = ("clashes with the core knowledge base" if prev_pack == CORE and pack != CORE
                        else "is defined twice")
                raise KBError(f"{single} id {ident!r} {what} (first at {prev})", path, line, col,
                              hint="pick a new id; packs cannot override core entries")
            if kind == "rules":
                item = Rule(id=ident, description=item["description"], when=item["when"], then=item["then"],
                            cases=item["cases"], salience=item.get("salience", 0), explain=item.get("explain"),
                            origin=origin, order=len(table))
            table[ident] = item
            self.kb.origins[(single, ident)] = origin
            self.pack_of[(single, ident)] = pack
            self.entity_marks[(single, ident)] = (path, marks, (key, i))
            for alias in (item.get("aliases", []) if isinstance(item, dict) else []):
                self.kb.aliases[alias] = ident

    def _add_parameters(self, data, marks, path, pack) -> None:
        table = self.kb.parameters
        for i, item in enumerate(data.get("parameters", [])):
            self._add_entity("parameter", item["id"], dict(item), marks, path, pack, ("parameters", i))
        for ident, value in (data.get("overrides") or {}).items():
            entry, line, col = self._pack_parameter(ident, "overrides", marks, path, pack)
            default = entry["value"]
            if isinstance(default, bool) != isinstance(value, bool) or (
                    isinstance(default, (int, float)) and not isinstance(value, (int, float))) or (
                    isinstance(default, (str, list, dict)) and type(value) is not type(default)):
                raise KBError(f"override of {ident!r} has the wrong type: {value!r} (the default is {default!r})",
                              path, line, col)
            for bound, bad in (("min", lambda v, b: v < b), ("max", lambda v, b: v > b)):
                if bound in entry and isinstance(value, (int, float)) and bad(value, entry[bound]):
                    raise KBError(f"override of {ident!r} = {value!r} is outside its range "
                                  f"[{entry.get('min', '-inf')}, {entry.get('max', 'inf')}]", path, line, col)
            table[ident] = {**entry, "value": value, "overridden_by": f"{path}:{line}" if line else path,
                            "default": default}
            self.override_at[ident] = (path, line, col)
        for ident, more in (data.get("extends") or {}).items():
            self._extend_parameter(ident, more, marks, path, pack)

    def _pack_parameter(self, ident, key, marks, path, pack):
        """``(entry, line, col)`` of the parameter a pack's ``overrides:`` or ``extends:`` (``key``)
        names; a KBError where the core does it or the parameter is unknown."""
        table = self.kb.parameters
        line, col = marks.at((key, ident)) or (None, None)
        verb, noun, fix = (("overrides", "override", "change its value where it is defined") if key == "overrides"
                           else ("extends", "extension", "add the words where it is defined"))
        if pack == CORE:
            raise KBError(f"the core knowledge base {verb} parameter {ident!r}", path, line, col, hint=fix)
        if ident not in table:
            close = _closest(ident, table)
            raise KBError(f"{noun} of unknown parameter {ident!r}", path, line, col,
                          hint=f"did you mean {close!r}?" if close else "see `traindx explain` for the ids")
        return table[ident], line, col

    def _extend_parameter(self, ident, more, marks, path, pack) -> None:
        """A pack's words added to a list- or map-valued parameter (a vocabulary): new items of a
        list are appended, a map's entries added (an entry already there takes the pack's meaning,
        a list-valued meaning grows)."""
        table = self.kb.parameters
        entry, line, col = self._pack_parameter(ident, "extends", marks, path, pack)
        default = entry["value"]
        if not isinstance(default, (list, dict)) or type(more) is not type(default):
            raise KBError(f"extension of {ident!r} has the wrong type: {more!r} (the default is "
                          f"{type(default).__name__}; only a list or a map is extended)", path, line, col)
        if isinstance(default, list):
            if any(isinstance(v, (list, dict)) for v in more):
                raise KBError(f"extension of {ident!r} adds an item that is not a word or a number", path, line, col)
            value = default + [v for v in more if v not in default]
        else:
            value = dict(default)
            for k, v in more.items():
                old = value.get(k)
                if isinstance(old, list) != isinstance(v, list) and k in value:
                    raise KBError(f"extension of {ident!r} gives {k!r} the wrong type: {v!r} (it is {old!r})",
                                  path, line, col)
                value[k] = old + [x for x in v if x not in old] if isinstance(old, list) else v
        where = f"{path}:{line}" if line else path
        self.override_at[ident] = (path, line, col)
        table[ident] = {**entry, "value": value, "extended_by": entry.get("extended_by", []) + [where],
                        "default": entry.get("default", default)}

    def _add_entity(self, single, ident, item, marks, path, pack, json_path) -> None:
        table = self.kb.parameters
        line, col = marks.at(json_path) or (None, None)
        origin = Origin(path, line, col)
        if ident in table:
            prev = self.kb.origins[(single, ident)]
            prev_pack = self.pack_of[(single, ident)]
            what = "clashes with the core knowledge base" if prev_pack == CORE and pack != CORE else "is defined twice"
            raise KBError(f"{single} id {ident!r} {what} (first at {prev})", path, line, col,
                          hint="a pack changes a core parameter with 'overrides: {id: value}'")
        table[ident] = item
        self.kb.origins[(single, ident)] = origin
        self.pack_of[(single, ident)] = pack
        self.entity_marks[(single, ident)] = (path, marks, json_path)

    def add_dir(self, directory: str, pack: str) -> None:
        inside = _Inside(directory)
        for sub in (*PACK_SUBDIRS, REFERENCES):
            if os.path.isdir(os.path.join(directory, sub)):
                inside.check(os.path.join(directory, sub))
        yaml_files, sheets = pack_files(directory)
        for path in yaml_files:
            inside.check(path)
            self.add_file(path, pack)
        for path in sheets:
            inside.check(path)
            ref = os.path.basename(path)[:-3]
            if ref in self.kb.references and pack != CORE:
                raise KBError(f"reference sheet {ref!r} clashes with an existing one", path)
            self.kb.references[ref] = path

    def where(self, kind: str, ident: str, *subpath) -> tuple:
        path, marks, prefix = self.entity_marks[(kind, ident)]
        pos = marks.at(prefix + tuple(subpath)) or (None, None)
        return path, pos[0], pos[1]

    def fail(self, kind, ident, subpath, message, hint=None):
        path, line, col = self.where(kind, ident, *subpath)
        raise KBError(message, path, line, col, hint=hint)


#: the folders of a pack whose YAML files are loaded after its top-level ones, in this order
PACK_SUBDIRS = ("cases", "rules", "parameters", "language")
#: the folder of a pack's reference sheets (``NAME.md``, shown by ``traindx explain``)
REFERENCES = "references"


def pack_files(directory: str) -> tuple[list[str], list[str]]:
    """The files a load reads from a pack folder, in load order: its YAML files (the top level's
    regular files, then those of each of PACK_SUBDIRS) and its reference sheets."""
    yaml_files = [os.path.join(directory, n) for n in sorted(os.listdir(directory))
                  if n.endswith((".yaml", ".yml")) and os.path.isfile(os.path.join(directory, n))]
    for sub in PACK_SUBDIRS:
        subdir = os.path.join(directory, sub)
        if os.path.isdir(subdir):
            yaml_files += [os.path.join(subdir, n) for n in sorted(os.listdir(subdir)) if n.endswith((".yaml", ".yml"))]
    refdir = os.path.join(directory, REFERENCES)
    sheets = ([os.path.join(refdir, n) for n in sorted(os.listdir(refdir)) if n.endswith(".md")]
              if os.path.isdir(refdir) else [])
    return yaml_files, sheets


class _Inside:
    """A knowledge pack reads only inside the folder it names: a symlink out of it is refused."""

    def __init__(self, directory: str):
        self.root = os.path.realpath(directory)

    def check(self, path: str) -> None:
        real = os.path.realpath(path)
        if real != self.root and not real.startswith(self.root.rstrip(os.sep) + os.sep):
            raise KBError(f"links outside the knowledge pack folder (to {real})", path,
                          hint="copy the file into the pack instead of linking to it")


def core_dir() -> str:
    return str(resources.files("traindx.kb"))


def discover_packs() -> list[str]:
    """Folders of installed knowledge packs (entry-point group ``traindx.kb_packs``).

    Each entry point names a module or package; its folder is loaded like a ``--kb DIR``. An entry
    point may also resolve to a callable returning a folder path.
    """
    from importlib.metadata import entry_points
    out = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            if callable(obj):
                folder = obj()
            elif getattr(obj, "__file__", None):
                folder = os.path.dirname(obj.__file__)
            else:  # a namespace package (no __init__.py): its one folder, if it has exactly one
                paths = list(getattr(obj, "__path__", []))
                folder = paths[0] if len(paths) == 1 else None
        except Exception as exc:  # a broken third-party pack must not take traindx down
            log.warning("knowledge pack %s (%s) failed to load: %s", ep.name, ep.value, exc)
            continue
        if not isinstance(folder, (str, os.PathLike)) or not os.path.isdir(folder):
            log.warning("knowledge pack %s (%s) names no folder (got %r); skipped", ep.name, ep.value, folder)
            continue
        out.append(os.fspath(folder))
    return out


def _pack_name(folder: str) -> str:
    """The ``name`` in a folder's pack.yaml, else the folder's name."""
    path = os.path.join(folder, "pack.yaml")
    if os.path.isfile(path):
        try:
            _Inside(folder).check(path)
            lim = bounded.limits()
            data, _ = load_yaml(read_text(path, "pack manifest", lim), path, lim)
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                return data["name"]
        except InputError:
            pass  # the real load reports a broken pack.yaml with its line
    return os.path.basename(os.path.abspath(folder))


def load_kb(extra_dirs: Iterable[str] = (), *, entry_point_packs: bool = True, core: bool = True) -> KnowledgeBase:
    """Load and validate the core knowledge base plus packs; raise :class:`KBError` on any problem.

    A process that loads the same folders with the same bytes again gets a copy of the first
    load (:mod:`.kbmemo`), not a second parse."""
    dirs = [os.fspath(d) for d in extra_dirs]
    for d in dirs:
        if not os.path.isdir(d):
            if os.path.exists(d):
                raise KBError("a knowledge pack is a folder of YAML files, not a file", str(d),
                              hint="pass the folder that holds it: --kb FOLDER")
            from .bounded import missing
            raise KBError(missing(d, "knowledge pack folder"), str(d))
    explicit = {_pack_name(d) for d in dirs}
    for d in (discover_packs() if entry_point_packs else []):
        if _pack_name(d) in explicit:   # --kb wins: the folder being edited shadows its installed copy
            log.info("installed knowledge pack %s is shadowed by a --kb folder of the same name", d)
            continue
        dirs.append(d)
    key = kbmemo.key(([core_dir()] if core else []) + dirs, pack_files, core=core)
    kb = kbmemo.get(key)
    if kb is None:
        kb = _build(dirs, core)
        kbmemo.put(key, kb)
    return kb


def _core_builder() -> _Builder:
    """A builder holding the core's files, parsed and checked: a copy of one this process made
    earlier while the core's files held the same bytes (:mod:`.kbmemo`), so that loading a pack beside
    the core does not parse and schema-check the core's fifty files again.

    A copy costs a sixth of a parse, so a process keeps one only once it parses the core a second
    time (a command that loads one knowledge base never pays for it)."""
    key = kbmemo.key([core_dir()], pack_files, stage="core files", limits=repr(bounded.limits()))
    b = kbmemo.get(key)
    if b is None:
        b = _Builder()
        b.add_dir(core_dir(), CORE)
        if key in _cores_parsed:
            kbmemo.put(key, b)
        _cores_parsed.add(key)
    return b


#: the core file sets this process has parsed (see :func:`_core_builder`)
_cores_parsed: set = set()


def _build(dirs: list[str], core: bool) -> KnowledgeBase:
    """Parse, check and compile the core (when ``core``) and each pack folder of ``dirs``."""
    b = _core_builder() if core else _Builder()
    seen = set()
    if core:
        seen.add(os.path.realpath(core_dir()))
    for d in dirs:
        real = os.path.realpath(d)
        if real in seen:   # the same folder twice: --kb of an installed pack's own folder, or --kb twice
            continue
        seen.add(real)
        before = len(b.kb.packs)
        b.add_dir(d, os.path.basename(os.path.abspath(d)))
        if len(b.kb.packs) == before:  # a folder without pack.yaml is still a pack, named after the folder
            b.kb.packs.append({"kind": "pack", "name": os.path.basename(os.path.abspath(d)), "provides": [], "path": d})
    _experiment_rules(b)
    _check_param_refs(b)
    _compile(b)
    _check(b)
    _check_experiments(b)
    _index(b.kb)
    from .understand import compile_language
    b.kb.language = compile_language(b.kb.language_files, b.kb.facts, b.kb.symptoms, b.kb.params())
    return b.kb


def experiment_fact(eid: str) -> str:
    """The fact an experiment's outcome is recorded under."""
    return f"exp_{eid}"


def _experiment_rules(b: _Builder) -> None:
    """Each experiment becomes an outcome fact ``exp_<id>`` produced by ``probe:experiment`` and two
    rules (``exp-<id>-confirms`` / ``-refutes``) carrying its likelihood ratios, so that its evidence
    goes through forward chaining, explanations and the report like any other."""
    kb = b.kb
    if not kb.experiments:
        return
    src = kb.sources.get(EXPERIMENT_SOURCE)
    for eid, e in kb.experiments.items():
        for outcome in ("confirms", "refutes"):
            for i, x in enumerate((e.get("evidence") or {}).get(outcome) or []):
                if x["cause"] not in kb.root_causes:
                    close = _closest(x["cause"], kb.root_causes)
                    b.fail("experiment", eid, ("evidence", outcome, i, "cause"), f"unknown root cause {x['cause']!r}",
                           hint=f"did you mean {close!r}?" if close else None)
        fact = experiment_fact(eid)
        if fact in kb.facts:
            b.fail("experiment", eid, ("id",), f"fact {fact!r} already exists", hint="pick another experiment id")
        kb.facts[fact] = {"id": fact, "type": "enum", "values": list(EXPERIMENT_OUTCOMES),
                          "description": f"Outcome of the experiment {eid!r} on copies: {e['description']}"}
        if src is not None and fact not in src["facts"]:
            src["facts"] = list(src["facts"]) + [fact]
        origin = kb.origins[("experiment", eid)]
        for outcome in ("confirms", "refutes"):
            ev = (e.get("evidence") or {}).get(outcome) or []
            if not ev:
                continue
            rid = f"exp-{eid}-{outcome}"
            if rid in kb.rules:
                b.fail("experiment", eid, ("id",), f"rule id {rid!r} already exists")
            kb.rules[rid] = Rule(
                id=rid, description=f"The experiment {eid!r} on copies {outcome.rstrip('s')}s: {e['description']}",
                when={"fact": fact, "eq": outcome}, then={"evidence": [dict(x) for x in ev]},
                cases=[{"given": {fact: outcome}, "fires": True},
                       {"given": {fact: "inconclusive"}, "fires": False}],
                explain=f"experiment {eid} on copies: {outcome}", origin=origin, order=len(kb.rules))
            b.entity_marks[("rule", rid)] = b.entity_marks[("experiment", eid)]
            b.pack_of[("rule", rid)] = b.pack_of[("experiment", eid)]
            kb.origins[("rule", rid)] = origin


def _check_experiments(b: _Builder) -> None:
    kb = b.kb
    if kb.experiments and EXPERIMENT_SOURCE not in kb.sources:
        raise KBError(f"experiments need the evidence source {EXPERIMENT_SOURCE!r}", core_dir(),
                      hint="declare it in sources.yaml")
    for eid, e in kb.experiments.items():
        for outcome in ("confirms", "refutes"):
            for i, x in enumerate((e.get("evidence") or {}).get(outcome) or []):
                if x["cause"] not in kb.root_causes:
                    close = _closest(x["cause"], kb.root_causes)
                    b.fail("experiment", eid, ("evidence", outcome, i, "cause"), f"unknown root cause {x['cause']!r}",
                           hint=f"did you mean {close!r}?" if close else None)
        for i, c in enumerate(e.get("verifies", [])):
            if c not in kb.root_causes:
                b.fail("experiment", eid, ("verifies", i), f"unknown root cause {c!r}")
        for i, s in enumerate(e.get("symptoms", [])):
            if s not in kb.symptoms:
                b.fail("experiment", eid, ("symptoms", i), f"unknown symptom {s!r}")
        for i, f in enumerate(e.get("unless_known", [])):
            if f not in kb.facts:
                b.fail("experiment", eid, ("unless_known", i), f"unknown fact {f!r}")
        if e.get("when") is not None:
            try:
                e["_test"], _ = compile_condition(e["when"], str(kb.origins[("experiment", eid)]), kb.params())
            except KBError:
                raise
            _check_condition_facts(b, "experiment", eid, ("when",), e["when"],
                                   lambda kind, ident, sub, name: name in kb.facts or b.fail(
                                       kind, ident, sub, f"unknown fact {name!r}"))
        m = e["measure"]
        if m["metric"] == "heldout_gain" and not ("confirm_gain" in m and "refute_gain" in m):
            b.fail("experiment", eid, ("measure",), "heldout_gain needs confirm_gain and refute_gain")
        if m["metric"] in ("oscillation_ratio", "progress_ratio") and not (
                "confirm_ratio" in m and "refute_ratio" in m):
            b.fail("experiment", eid, ("measure",), f"{m['metric']} needs confirm_ratio and refute_ratio")


def _param_refs(node, path=()):
    """Every ``{param: ID}`` in a rule's condition or derivations: (json path, id)."""
    if isinstance(node, dict):
        if set(node) == {"param"}:
            yield path, node["param"]
            return
        for k, v in node.items():
            yield from _param_refs(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _param_refs(v, path + (i,))


def _check_param_refs(b: _Builder) -> None:
    """A rule's ``{param: ID}`` names a numeric parameter: reported where it is written."""
    params = b.kb.parameters
    for rid, rule in b.kb.rules.items():
        for part in ("when", "then"):
            for path, ident in _param_refs(getattr(rule, part), (part,)):
                if ident not in params:
                    close = _closest(ident, params)
                    b.fail("rule", rid, path, f"unknown parameter {ident!r}",
                           hint=f"did you mean {close!r}?" if close else "see `traindx explain` for the ids")
                value = params[ident]["value"]
                if path[-1] == "for_some":
                    if not isinstance(value, list) or not all(_is_number(v) for v in value):
                        b.fail("rule", rid, path, f"parameter {ident!r} is not a list of numbers ({value!r}): "
                                                  "for_some ranges over one")
                elif not _is_number(value):
                    b.fail("rule", rid, path, f"parameter {ident!r} is not a number ({value!r})")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compile(b: _Builder) -> None:
    kb = b.kb
    params = kb.params()   # every pack's overrides are in: a {param: ID} is fixed here
    for rule in kb.rules.values():
        where = str(rule.origin)
        rule.test, reads = compile_condition(rule.when, where, params)
        rule.reads = frozenset(reads)
        sets, set_reads = {}, set()
        for fact, expr in rule.then.get("set", {}).items():
            fn, deps = compile_value(expr, where, params)
            sets[fact] = fn
            set_reads |= deps
        rule.sets = sets
        rule.set_reads = frozenset(set_reads)
        rule.evidence = [(e["cause"], float(e["lr"])) for e in rule.then.get("evidence", [])]
    for did, d in kb.deferrals.items():
        conds = []
        if d.get("when"):
            conds.append(d["when"])
        if d.get("patterns"):
            conds.append({"any": [{"fact": "complaint", "matches": p} for p in d["patterns"]]})
        if not conds:
            b.fail("deferral", did, (), "a deferral needs patterns or when")
        spec = conds[0] if len(conds) == 1 else {"any": conds}
        kb.compiled_deferrals[did] = compile_condition(spec, str(kb.origins[("deferral", did)]), params)
    for nid, entry in kb.normal.items():
        if entry.get("when"):
            kb.compiled_normal[nid] = compile_condition(entry["when"], str(kb.origins[("normal", nid)]), params)
    for table, kind in ((kb.misdiagnoses, "misdiagnosis"), (kb.pressure, "pressure")):
        for mid, m in table.items():
            compile_condition({"any": [{"fact": "complaint", "matches": p} for p in m["patterns"]]},
                              str(kb.origins[(kind, mid)]))  # validates every regex now


def _need_fact(b: _Builder, kind, ident, subpath, name) -> None:
    if name not in b.kb.facts:
        close = _closest(name, b.kb.facts)
        b.fail(kind, ident, subpath, f"unknown fact {name!r}", hint=f"did you mean {close!r}?" if close else
               "declare it in a facts file")


def _need(b: _Builder, kind, ident, subpath, table, name, what, hint=None) -> None:
    if name not in table:
        close = _closest(name, table)
        b.fail(kind, ident, subpath, f"unknown {what} {name!r}",
               hint=(f"did you mean {close!r}?" if close else hint))


def _check(b: _Builder) -> None:
    """Cross-references, producers, cycles, parameters and reachability, after every file is in."""
    facts = b.kb.facts
    if "complaint" not in facts or "symptom" not in facts:
        raise KBError("the fact vocabulary must define 'complaint' and 'symptom'", core_dir())
    _check_references(b)
    produced = _produced(b.kb)
    _check_rules(b, produced)
    _check_cases(b)
    _check_cycles(b)
    _check_parameters(b)
    _check_reachable(b)


def _check_references(b: _Builder) -> None:
    """Every id an entry names (fact, source, question, cause, symptom, fix, reference) exists."""
    kb = b.kb
    def need_fact(kind, ident, subpath, name):
        _need_fact(b, kind, ident, subpath, name)

    for fid, f in kb.facts.items():
        if f["type"] == "enum" and not f.get("values"):
            b.fail("fact", fid, (), f"enum fact {fid!r} has no values")
    for sid, src in kb.sources.items():
        for i, fname in enumerate(src["facts"]):
            need_fact("source", sid, ("facts", i), fname)
    for qid, q in kb.questions.items():
        for i, fname in enumerate(q["facts"]):
            need_fact("question", qid, ("facts", i), fname)
        for i, s in enumerate(q.get("answered_by", [])):
            _need(b, "question", qid, ("answered_by", i), kb.sources, s, "evidence source",
                  "declare it in sources.yaml")
    _check_cause_refs(b)
    for mid, m in kb.misdiagnoses.items():
        for i, fname in enumerate(m.get("decided_by", [])):
            need_fact("misdiagnosis", mid, ("decided_by", i), fname)
        for i, cause in enumerate(m.get("suspects", [])):
            _need(b, "misdiagnosis", mid, ("suspects", i), kb.root_causes, cause, "root cause")
    for did, d in kb.deferrals.items():
        _check_condition_facts(b, "deferral", did, ("when",), d.get("when"), need_fact)
    for nid, entry in kb.normal.items():
        _check_condition_facts(b, "normal", nid, ("when",), entry.get("when"), need_fact)
    from .inference import placeholders     # (inference imports this module)
    for fid, fx in kb.fixes.items():
        for i, t in enumerate(fx.get("tailor") or []):
            _check_condition_facts(b, "fix", fid, ("tailor", i, "when"), t["when"], need_fact)
            loose = set(placeholders(t["say"])) - _required_facts(t["when"])
            if loose:       # a placeholder the condition does not require could be shown unfilled
                b.fail("fix", fid, ("tailor", i, "say"), f"names {', '.join(sorted(loose))}, which its "
                       "condition does not require to be known")


def _check_cause_refs(b: _Builder) -> None:
    """Causes, symptoms and fixes name existing priors, questions, fixes and reference sheets."""
    kb = b.kb
    for cid, c in kb.root_causes.items():
        for sym in c.get("priors", {}):
            _need(b, "root_cause", cid, ("priors", sym), kb.symptoms, sym, "symptom")
    for sid, s in kb.symptoms.items():
        for cause in s.get("priors", {}):
            _need(b, "symptom", sid, ("priors", cause), kb.root_causes, cause, "root cause")
        if sum(s.get("priors", {}).values()) > 1.0 + 1e-9:
            b.fail("symptom", sid, ("priors",), "priors add up to more than 1")
        for i, qid in enumerate(s.get("questions", [])):
            _need(b, "symptom", sid, ("questions", i), kb.questions, qid, "question")
        if s.get("reference"):
            _need(b, "symptom", sid, ("reference",), kb.references, s["reference"], "reference sheet")
    for cid, c in kb.root_causes.items():
        _need(b, "root_cause", cid, ("fix",), kb.fixes, c["fix"], "fix")
        _need(b, "root_cause", cid, ("reference",), kb.references, c["reference"], "reference sheet")
    for fid, f in kb.fixes.items():
        _need(b, "fix", fid, ("reference",), kb.references, f["reference"], "reference sheet")


def _produced(kb: KnowledgeBase) -> set:
    """The facts something other than a rule can produce: a source, a question, the user's words."""
    produced = set()
    for src in kb.sources.values():
        produced |= set(src["facts"])
    for q in kb.questions.values():
        produced |= set(q["facts"])
    for fid, f in kb.facts.items():
        if f.get("extract"):
            produced.add(fid)
    for data, _path in kb.language_files:
        produced |= {f["fact"] for f in data.get("facts", [])} | {m["fact"] for m in data.get("metrics", [])}
        if data.get("symptoms"):
            produced.add("complaint_symptom")      # the symptom read from the user's words
    produced |= {"complaint", "symptom"}
    return produced


def _check_rules(b: _Builder, produced: set) -> None:
    """Each rule names known facts and causes, does something, and can fire (``produced`` grows
    with what the rules derive)."""
    kb = b.kb
    def need_fact(kind, ident, subpath, name):
        _need_fact(b, kind, ident, subpath, name)

    for rid, rule in kb.rules.items():
        _check_condition_facts(b, "rule", rid, ("when",), rule.when, need_fact)
        for fact in rule.set_reads:
            need_fact("rule", rid, ("then", "set"), fact)
        for fact, expr in rule.then.get("set", {}).items():
            need_fact("rule", rid, ("then", "set", fact), fact)
            if fact in ("complaint",):
                b.fail("rule", rid, ("then", "set", fact), "rules may not set the user's complaint")
            _check_literal(b, rid, fact, expr)
        for i, (cause, _lr) in enumerate(rule.evidence):
            _need(b, "rule", rid, ("then", "evidence", i, "cause"), kb.root_causes, cause, "root cause")
        note = rule.then.get("note")
        if note:
            from .inference import placeholders     # (inference imports this module)
            for fact in placeholders(note):
                if fact not in rule.reads:
                    b.fail("rule", rid, ("then", "note"),
                           f"the note names {{{fact}}}, a fact the condition does not read")
        if not rule.evidence and not rule.sets and not note:
            b.fail("rule", rid, ("then",), "the rule does nothing: give it evidence, set or a note")
        produced |= set(rule.sets)
        for i, case in enumerate(rule.cases):
            for fname in case["given"]:
                if fname not in kb.facts and fname not in kb.questions:
                    b.fail("rule", rid, ("cases", i, "given", fname), f"unknown fact {fname!r} in test case")
    for rid, rule in kb.rules.items():
        missing = sorted(f for f in rule.reads if f not in produced and not _only_negated(rule.when, f))
        if missing:
            b.fail("rule", rid, ("when",), f"the rule can never fire: nothing produces {', '.join(missing)}",
                   hint="add a question or an evidence source for it")


def _check_cases(b: _Builder) -> None:
    kb = b.kb
    for case in kb.cases:
        for fname in case["given"]:
            if fname not in kb.facts and fname not in kb.questions:
                o = case["_origin"]
                raise KBError(f"unknown fact {fname!r} in case {case['name']!r}", o.path, o.line, o.col)


def _check_reachable(b: _Builder) -> None:
    """Every root cause can win: a symptom prior or a rule with evidence for it."""
    kb = b.kb
    reach = set()
    for s in kb.symptoms.values():
        reach |= set(s.get("priors", {}))
    reach |= {cid for cid, c in kb.root_causes.items() if c.get("priors")}
    for rule in kb.rules.values():
        reach |= {c for c, lr in rule.evidence if lr > 1}
    for cid in kb.root_causes:
        if cid not in reach:
            b.fail("root_cause", cid, (),
                   f"root cause {cid!r} is unreachable: no symptom prior and no rule supports it",
                   hint="add it to a symptom's priors or write a rule with evidence lr > 1")


_ITEM_TABLES = {"symptom": "symptoms", "root_cause": "root_causes", "fact": "facts"}


def _check_parameters(b: _Builder) -> None:
    """A parameter whose value names knowledge (``items_are``) names only what exists, after every
    pack's overrides: a pack's typo is reported at its override."""
    kb = b.kb
    for pid, p in kb.parameters.items():
        _check_map_parameter(b, pid, p)
        what = p.get("items_are")
        if not what:
            continue
        table = getattr(kb, _ITEM_TABLES[what])
        for i, v in enumerate(p["value"] if isinstance(p["value"], list) else [p["value"]]):
            if v in table:
                continue
            close = _closest(str(v), table)
            _parameter_error(b, pid, ("value", i), f"parameter {pid!r} names an unknown {what.replace('_', ' ')} {v!r}",
                             f"did you mean {close!r}?" if close else None)


def _parameter_error(b: _Builder, pid: str, where: tuple, message: str, hint: str | None) -> None:
    """A parameter's value is wrong: reported at the pack's override or extension that made it so,
    else at the parameter's own entry."""
    if pid in b.override_at:
        raise KBError(message, *b.override_at[pid], hint=hint)
    b.fail("parameter", pid, where, message, hint=hint)


def _check_map_parameter(b: _Builder, pid: str, p: dict) -> None:
    """A map-valued parameter whose keys are patterns (``keys_are: pattern``) holds only ones that
    compile, and one whose meanings are a fact's values (``meanings_are_values_of``) only those; a
    pack's bad entry is reported at its extension."""
    value = p["value"]
    fact = p.get("meanings_are_values_of")
    allowed = None
    if fact:
        allowed = (b.kb.facts.get(fact) or {}).get("values")
        if allowed is None:
            _parameter_error(b, pid, ("meanings_are_values_of",),
                             f"parameter {pid!r} takes its meanings from {fact!r}, not a fact with listed values", None)
            return
    for key, meaning in value.items() if isinstance(value, dict) else ():
        if p.get("keys_are") == "pattern":
            try:
                re.compile(str(key))
            except re.error as e:
                _parameter_error(b, pid, ("value", str(key)),
                                 f"parameter {pid!r} holds a pattern that does not compile: {key!r} ({e})", None)
                continue
        if allowed is not None and meaning not in allowed:
            _parameter_error(b, pid, ("value", str(key)),
                             f"parameter {pid!r} gives {key!r} the meaning {meaning!r}, not a value of {fact!r}",
                             f"one of: {', '.join(map(str, allowed))}")


def _only_negated(cond, fact) -> bool:
    """A fact read only under ``known: false`` needs no producer."""
    if "all" in cond or "any" in cond:
        return all(_only_negated(c, fact) for c in cond.get("all", cond.get("any")) if fact in _facts_in(c))
    if "not" in cond:
        return _only_negated(cond["not"], fact)
    if "for_some" in cond:
        return _only_negated(cond["holds"], fact)
    return cond.get("fact") != fact or cond.get("known") is False


def _required_facts(cond) -> set:
    """The facts ``cond`` holds only when known: a tested fact, and every part of an ``all`` (an
    ``any``, a ``not`` or ``known: false`` can hold with the fact unknown)."""
    if "all" in cond:
        return set().union(*(_required_facts(c) for c in cond["all"]))
    if "fact" in cond and cond.get("known", True) is not False:
        return {cond["fact"]}
    return set()


def _facts_in(cond) -> set:
    if "all" in cond or "any" in cond:
        return set().union(*(_facts_in(c) for c in cond.get("all", cond.get("any"))))
    if "not" in cond:
        return _facts_in(cond["not"])
    if "for_some" in cond:
        return _facts_in(cond["holds"])
    return {cond["fact"]} | value_facts(next((v for k, v in cond.items() if k in ("lt", "le", "gt", "ge", "near")), 0))


def _check_condition_facts(b, kind, ident, subpath, cond, need_fact):
    if cond is None:
        return
    if "all" in cond or "any" in cond:
        key = "all" if "all" in cond else "any"
        for i, c in enumerate(cond[key]):
            _check_condition_facts(b, kind, ident, subpath + (key, i), c, need_fact)
        return
    if "not" in cond:
        _check_condition_facts(b, kind, ident, subpath + ("not",), cond["not"], need_fact)
        return
    if "for_some" in cond:
        _check_condition_facts(b, kind, ident, subpath + ("holds",), cond["holds"], need_fact)
        return
    need_fact(kind, ident, subpath + ("fact",), cond["fact"])
    f = b.kb.facts[cond["fact"]]
    for op in ("eq", "ne", "in", "not_in"):
        if op in cond and f["type"] == "enum":
            vals = cond[op] if isinstance(cond[op], list) else [cond[op]]
            for v in vals:
                if v not in f["values"]:
                    b.fail(kind, ident, subpath + (op,),
                           f"{v!r} is not a value of {cond['fact']} ({', '.join(f['values'])})")
    for op in ("lt", "le", "gt", "ge", "near"):
        if op in cond:
            if f["type"] not in ("number", "integer"):
                b.fail(kind, ident, subpath + (op,), f"{op} needs a numeric fact; {cond['fact']} is {f['type']}")
            for dep in value_facts(cond[op]):
                need_fact(kind, ident, subpath + (op,), dep)
    if "matches" in cond and f["type"] not in ("string", "enum"):
        b.fail(kind, ident, subpath + ("matches",), f"matches needs a string fact; {cond['fact']} is {f['type']}")


def _check_literal(b, rid, fact, expr):
    f = b.kb.facts[fact]
    if isinstance(expr, dict):
        return
    if f["type"] == "enum" and expr not in f["values"]:
        b.fail("rule", rid, ("then", "set", fact), f"{expr!r} is not a value of {fact} ({', '.join(f['values'])})")
    if f["type"] == "boolean" and not isinstance(expr, bool):
        b.fail("rule", rid, ("then", "set", fact), f"{fact} is boolean; got {expr!r}")


def _check_cycles(b: _Builder) -> None:
    """A rule may not (indirectly) set a fact it reads: depth-first search over rule -> rule edges."""
    kb = b.kb
    readers: dict = {}
    for rid, rule in kb.rules.items():
        for fact in rule.reads | rule.set_reads:
            readers.setdefault(fact, []).append(rid)
    succ = {rid: sorted({r for fact in rule.sets for r in readers.get(fact, ())}) for rid, rule in kb.rules.items()}
    WHITE, GREY, BLACK = 0, 1, 2
    color = dict.fromkeys(succ, WHITE)
    for root in succ:
        if color[root] != WHITE:
            continue
        stack = [(root, iter(succ[root]))]
        path = [root]
        color[root] = GREY
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = BLACK
                stack.pop()
                path.pop()
                continue
            if color[nxt] == GREY:
                cycle = path[path.index(nxt):] + [nxt]
                b.fail("rule", cycle[0], ("then", "set"), f"rule cycle: {' -> '.join(cycle)}",
                       hint="a rule may not (indirectly) set a fact it reads")
            if color[nxt] == WHITE:
                color[nxt] = GREY
                stack.append((nxt, iter(succ[nxt])))
                path.append(nxt)


def _closest(name: str, table) -> str | None:
    import difflib
    m = (difflib.get_close_matches(name, list(table), n=1, cutoff=0.75)
         if len(str(name)) <= CLOSE_MATCH_MAX_CHARS else [])
    return m[0] if m else None


def _index(kb: KnowledgeBase) -> None:
    import re
    by_fact: dict = {}
    for rule in kb.rules.values():
        for fact in rule.reads | rule.set_reads:
            by_fact.setdefault(fact, []).append(rule)
    kb.rules_by_fact = by_fact
    qb: dict = {}
    for q in kb.questions.values():
        for fact in q["facts"]:
            qb.setdefault(fact, []).append(q)
    kb.questions_by_fact = qb
    kb.answerable_facts = _answerable(kb)
    kb.extractors = {fid: [re.compile(p, re.IGNORECASE) for p in f.get("extract", [])]
                     for fid, f in kb.facts.items() if f.get("extract")}


def _answerable(kb: KnowledgeBase) -> frozenset:
    """Facts an interview can obtain: those a question asks, and those a rule derives from them
    (to a fixpoint). Facts only a probe, the code reader or a log measures are not among them."""
    got = set(kb.questions_by_fact)
    changed = True
    while changed:
        changed = False
        for rule in kb.rules.values():
            if set(rule.sets) <= got or needs_unanswerable(rule.when, {}, got):
                continue
            got |= set(rule.sets)
            changed = True
    return frozenset(got)


def needs_unanswerable(cond, known, answerable) -> bool:
    """Whether ``cond`` can only hold with a fact that is neither known nor answerable. Conservative:
    a fact under ``not`` or in one branch of an ``any`` never blocks on its own."""
    if not isinstance(cond, dict):
        return False
    if "all" in cond:
        return any(needs_unanswerable(c, known, answerable) for c in cond["all"])
    if "any" in cond:
        return all(needs_unanswerable(c, known, answerable) for c in cond["any"])
    if "not" in cond:
        return False
    if "for_some" in cond:
        return needs_unanswerable(cond["holds"], known, answerable)
    fact = cond.get("fact")
    if fact is None or cond.get("known") is False:
        return False
    return fact not in known and fact not in answerable

