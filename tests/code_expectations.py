"""Expectation comments in the code reader's fixture scripts (tests/code_cases/), semgrep style.

A case is a training script in ``tests/code_cases/`` (or in a folder there, with the files it reads,
e.g. a config next to it). Comments in it say what :func:`analyze_code` must report:

``# expect: FACT=VALUE; FACT2=VALUE2`` (at the end of a code line)
    the finding FACT cites this line (``source == "code:<file>:<this line>"``) and its value equals
    VALUE, a Python literal (floats compared approximately; a bare word is a string);
    ``# expect: FACT`` checks the line only.
``# expect-not: FACT``
    the script yields no finding FACT.
``# expect-detail: FACT: TEXT``
    FACT's one-sentence detail contains TEXT.
``# expect-unresolved: TEXT`` / ``# expect-unresolved: none``
    something the reader could not resolve mentions TEXT / nothing is unresolved.
``# expect-note: TEXT``
    a note mentions TEXT.
``# expect-config-paths: [...]``
    the config paths the script names, in order.
``# code-case: runnable``
    the script really trains under torch (tests/test_code_reader.py runs these, slow).

Only real comments count (``tokenize``), never text inside strings. File-wide directives sit at the
end, so adding one never moves the lines findings cite.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass, field

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "code_cases")

_DIRECTIVE = re.compile(r"#\s*(expect|expect-not|expect-detail|expect-unresolved|expect-note|"
                        r"expect-config-paths|code-case):\s*(.*?)\s*$")


#: "; " between two expectations on one line (not the "; " inside a quoted value)
_ITEMS = re.compile(r";\s+(?=[a-z_][a-z0-9_]*\s*(?:=|;|$))")


@dataclass
class Expectations:
    """What a case's comments ask for."""

    at_line: list = field(default_factory=list)        # (line, fact, value or NO_VALUE)
    absent: list = field(default_factory=list)         # facts
    details: list = field(default_factory=list)        # (fact, text)
    unresolved: list = field(default_factory=list)     # texts
    no_unresolved: bool = False
    notes: list = field(default_factory=list)
    config_paths: list | None = None
    runnable: bool = False


NO_VALUE = object()


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_expectations(path: str) -> Expectations:
    """The expectations written in the comments of the script at ``path``."""
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    exp = Expectations()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        m = _DIRECTIVE.match(tok.string)
        if not m:
            if re.match(r"#\s*expect", tok.string):
                raise ValueError(f"{path}:{tok.start[0]}: unknown expectation {tok.string!r}")
            continue
        kind, body = m.groups()
        line = tok.start[0]
        if kind == "expect":
            for item in (x.strip() for x in _ITEMS.split(body) if x.strip()):
                fact, eq, value = item.partition("=")
                exp.at_line.append((line, fact.strip(), _literal(value.strip()) if eq else NO_VALUE))
        elif kind == "expect-not":
            exp.absent.extend(x.strip() for x in body.split(";") if x.strip())
        elif kind == "expect-detail":
            fact, _, text = body.partition(": ")
            exp.details.append((fact.strip(), text))
        elif kind == "expect-unresolved":
            if body == "none":
                exp.no_unresolved = True
            else:
                exp.unresolved.append(body)
        elif kind == "expect-note":
            exp.notes.append(body)
        elif kind == "expect-config-paths":
            exp.config_paths = ast.literal_eval(body)
        elif kind == "code-case" and body == "runnable":
            exp.runnable = True
    return exp


def case_paths() -> list[str]:
    """Every case script: ``code_cases/*.py`` and the scripts with expectations in its folders."""
    out = []
    for name in sorted(os.listdir(CASES_DIR)):
        full = os.path.join(CASES_DIR, name)
        if name.endswith(".py"):
            out.append(full)
        elif os.path.isdir(full):
            for sub in sorted(os.listdir(full)):
                p = os.path.join(full, sub)
                if sub.endswith(".py") and "# expect" in open(p, encoding="utf-8").read():
                    out.append(p)
    return out


def case_id(path: str) -> str:
    return os.path.relpath(path, CASES_DIR)[:-3]


def same_value(got, want) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        return isinstance(got, (int, float)) and not isinstance(got, bool) \
            and isinstance(want, (int, float)) and abs(got - want) <= 1e-9 * max(1.0, abs(want))
    return type(got) is type(want) and got == want if isinstance(want, bool) or isinstance(got, bool) \
        else got == want


def check(report, exp: Expectations) -> list[str]:
    """The expectations ``report`` misses, one line each (empty: all met)."""
    problems = []
    base = os.path.basename(report.path)
    facts = report.facts()
    for line, fact, value in exp.at_line:
        f = report.get(fact)
        if f is None:
            problems.append(f"line {line}: no {fact} (have {sorted(facts)})")
            continue
        if f.source != f"code:{base}:{line}":
            problems.append(f"line {line}: {fact} cites {f.source} ({f.detail})")
        if value is not NO_VALUE and not same_value(f.value, value):
            problems.append(f"line {line}: {fact} = {f.value!r}, expected {value!r}")
    for fact in exp.absent:
        if fact in facts:
            problems.append(f"{fact} = {facts[fact]!r} reported, expected none ({report.get(fact).detail})")
    for fact, text in exp.details:
        f = report.get(fact)
        if f is None or text not in f.detail:
            problems.append(f"{fact}'s detail lacks {text!r}: {f.detail if f else 'no finding'}")
    for text in exp.unresolved:
        if not any(text in u for u in report.unresolved):
            problems.append(f"nothing unresolved mentions {text!r}: {report.unresolved}")
    if exp.no_unresolved and report.unresolved:
        problems.append(f"unresolved, expected nothing: {report.unresolved}")
    for text in exp.notes:
        if not any(text in n for n in report.notes):
            problems.append(f"no note mentions {text!r}: {report.notes}")
    if exp.config_paths is not None and report.config_paths != exp.config_paths:
        problems.append(f"config paths {report.config_paths}, expected {exp.config_paths}")
    return problems
