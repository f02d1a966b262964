"""Conditions and value expressions: knowledge-base data compiled to closures at load time.

A condition is ``{all: [...]}``, ``{any: [...]}``, ``{not: ...}`` (negation as failure: true unless the inner
condition is known to hold), ``{for_some: {param: ID}, as: C, holds: ...}`` (the inner condition holds for
some value of a list parameter, ``{var: C}`` standing for it: ``{fact: current_loss, near: {ln: {var: C}}}``
for every standard class count, a list a pack can extend) or a test of one fact
(``{fact: learning_rate, lt: 1e-5}``). Evaluation is three-valued: ``True``, ``False`` or
``None`` (unknown — the fact has no value yet). A rule fires only on ``True``; a condition that is
``None`` could still fire once more is known, which is what question selection looks at.

Value expressions (``{ln: {fact: num_classes}}``, ``{sub: [{fact: a}, {fact: b}]}``) are a closed
set of arithmetic operators over facts. ``{param: ID}`` is the value of a knowledge-base parameter
(``kb/parameters``, a pack's overrides applied), fixed when the knowledge base is loaded: a threshold
that a rule shares with a reader or the report is written once. Nothing in the knowledge base is ever
evaluated as code.
"""

from __future__ import annotations

import math
import re
from typing import Any
from collections.abc import Callable, Mapping

from .errors import KBError
from .parameters import resolve

Facts = Mapping[str, Any]
Compiled = Callable[[Facts], "bool | None"]
ValueFn = Callable[[Facts], Any]

UNKNOWN = None
_NUM_OPS = ("lt", "le", "gt", "ge")


def _num(x) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        return float(x)
    return None


def param_value(ident, params: Mapping | None, where: str = ""):
    """The number a ``{param: ID}`` stands for; a clear KBError when there is no such parameter."""
    if params is None or ident not in params:
        raise KBError(f"unknown parameter {ident!r}", where, hint="see `traindx explain` or kb/parameters for the ids")
    value = params[ident]
    if _num(value) is None:
        raise KBError(f"parameter {ident!r} is not a number ({value!r}): a condition cannot compare with it", where)
    return value


def param_list(ident, params: Mapping | None, where: str = "") -> list:
    """The numbers a ``{for_some: {param: ID}}`` ranges over; a clear KBError when ID is no list of numbers."""
    if params is None or ident not in params:
        raise KBError(f"unknown parameter {ident!r}", where, hint="see `traindx explain` or kb/parameters for the ids")
    value = params[ident]
    if not isinstance(value, list) or any(_num(v) is None for v in value):
        raise KBError(f"parameter {ident!r} is not a list of numbers ({value!r}): for_some ranges over one", where)
    return list(value)


def _bind(obj, var: str, value):
    """``obj`` with every ``{var: VAR}`` replaced by ``value`` (another variable's stays, for an outer binding)."""
    if isinstance(obj, dict):
        if set(obj) == {"var"} and obj["var"] == var:
            return value
        return {k: _bind(v, var, value) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_bind(v, var, value) for v in obj]
    return obj


def instances(spec: dict, params: Mapping | None, where: str = "") -> list:
    """A ``for_some`` condition's inner condition once per value of its list parameter, the variable bound."""
    ranges = spec["for_some"]
    values = param_list(ranges["param"], params, where) if isinstance(ranges, dict) else list(ranges)
    return [_bind(spec["holds"], spec["as"], v) for v in values]


def value_facts(expr) -> set[str]:
    """The facts a value expression reads (parameters and bound variables are constants, not facts)."""
    if not isinstance(expr, dict) or "param" in expr or "var" in expr:
        return set()
    if "fact" in expr:
        return {expr["fact"]}
    (op, arg), = expr.items()
    return set().union(*(value_facts(a) for a in ([arg] if op in ("ln", "log10", "abs") else arg)))


def compile_value(expr, where: str = "", params: Mapping | None = None) -> tuple[ValueFn, set[str]]:
    """Compile a value expression; return (function of facts -> value or None, facts it reads).
    ``params``: the knowledge base's parameter values, for ``{param: ID}``."""
    if isinstance(expr, dict):
        if set(expr) == {"fact"}:
            name = expr["fact"]
            return (lambda facts: facts.get(name)), {name}
        if set(expr) == {"param"}:
            value = param_value(expr["param"], params, where)
            return (lambda facts: value), set()
        if set(expr) == {"var"}:
            raise KBError(f"variable {expr['var']!r} is not bound here: only inside the holds of a for_some "
                          f"with as: {expr['var']}", where)
        (op, arg), = expr.items()
        if op in ("ln", "log10", "abs"):
            fn, deps = compile_value(arg, where, params)
            unary = {"ln": math.log, "log10": math.log10, "abs": abs}[op]

            def f_unary(facts, fn=fn, unary=unary):
                v = _num(fn(facts))
                if v is None or (op != "abs" and v <= 0):
                    return None
                return unary(v)
            return f_unary, deps
        parts = [compile_value(a, where, params) for a in arg]
        fns = [p[0] for p in parts]
        deps = set().union(*(p[1] for p in parts))

        def f_nary(facts, fns=fns, op=op):
            vals = [_num(fn(facts)) for fn in fns]
            if any(v is None for v in vals):
                return None
            if op == "add":
                return sum(vals)
            if op == "sub":
                return vals[0] - vals[1]
            if op == "mul":
                return math.prod(vals)
            if op == "div":
                return None if vals[1] == 0 else vals[0] / vals[1]
            if op == "min":
                return min(vals)
            if op == "max":
                return max(vals)
            raise KBError(f"unknown operator {op!r}", where)
        if op not in ("add", "sub", "mul", "div", "min", "max"):
            raise KBError(f"unknown value operator {op!r}", where)
        return f_nary, deps
    return (lambda facts, v=expr: v), set()


def _fact_test(spec: dict, where: str, params: Mapping | None = None) -> tuple[Compiled, set[str]]:
    """One fact's test (``{fact: NAME, op: arg, ...}``): every operator's check must hold."""
    name = spec["fact"]
    deps = {name}
    checks: list[Callable[[Any, Facts], bool | None]] = []
    known_req = spec.get("known")
    rtol = spec["rtol"] if "rtol" in spec else resolve(params)["rules.near_rtol"]
    rtol = float(param_value(rtol["param"], params, where) if isinstance(rtol, dict) else rtol)
    for op, arg in spec.items():
        if op in ("fact", "known", "rtol"):
            continue
        if op in _NUM_OPS or op == "near":
            chk, d = _numeric_check(op, arg, rtol, where, params)
            deps |= d
        else:
            chk = _value_check(op, arg, where)
        checks.append(chk)
    return _fact_tester(name, known_req, checks), deps


def _numeric_check(op: str, arg, rtol: float, where: str, params: Mapping | None):
    """``lt``/``le``/``gt``/``ge``/``near`` against a value expression: unknown when the expression
    is, False when the fact is not a number."""
    fn, deps = compile_value(arg, where, params)

    def chk(v, facts, fn=fn, op=op):
        a, b = _num(v), _num(fn(facts))
        if b is None:
            return None
        if a is None:
            return False
        if op == "lt":
            return a < b
        if op == "le":
            return a <= b
        if op == "gt":
            return a > b
        if op == "ge":
            return a >= b
        return abs(a - b) <= rtol * abs(b)
    return chk, deps


def _value_check(op: str, arg, where: str) -> Callable[[Any, Facts], bool | None]:
    """The non-numeric operators: equality, membership, containment, a regular expression, emptiness."""
    if op == "eq":
        return lambda v, facts, t=arg: _equal(v, t)
    if op == "ne":
        return lambda v, facts, t=arg: not _equal(v, t)
    if op == "in":
        return lambda v, facts, t=arg: any(_equal(v, x) for x in t)
    if op == "not_in":
        return lambda v, facts, t=arg: not any(_equal(v, x) for x in t)
    if op == "contains":
        def chk_contains(v, facts, t=arg):
            if isinstance(v, (list, tuple, set)):
                return any(_equal(x, t) for x in v)
            if isinstance(v, str) and isinstance(t, str):
                return t.lower() in v.lower()
            return False
        return chk_contains
    if op == "matches":
        try:
            rx = re.compile(arg, re.IGNORECASE)
        except re.error as exc:
            raise KBError(f"invalid regular expression {arg!r}: {exc}", where) from None
        return lambda v, facts, rx=rx: isinstance(v, str) and rx.search(v) is not None
    if op == "nonempty":
        return lambda v, facts, want=bool(arg): (isinstance(v, (list, tuple, set)) and len(v) > 0) == want
    # the schema rejects these first; keep the engine honest anyway
    raise KBError(f"unknown condition operator {op!r}", where)


def _fact_tester(name: str, known_req, checks: list) -> Compiled:
    """The compiled test: ``known`` first, then every check (False wins, then unknown)."""
    def test(facts: Facts) -> bool | None:
        present = name in facts and facts[name] is not None
        if known_req is not None and present != bool(known_req):
            return False
        if not present:
            return True if (known_req is False and not checks) else (None if checks or known_req is None else True)
        value = facts[name]
        result: bool | None = True
        for chk in checks:
            r = chk(value, facts)
            if r is False:
                return False
            if r is None:
                result = None
        return result
    return test


def _equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return na == nb
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def compile_condition(spec, where: str = "", params: Mapping | None = None) -> tuple[Compiled, set[str]]:
    """Compile a condition; return (function of facts -> True/False/None, facts it reads).
    ``params``: the knowledge base's parameter values, for ``{param: ID}``."""
    if "all" in spec:
        parts = [compile_condition(c, where, params) for c in spec["all"]]
        fns = [p[0] for p in parts]

        def f_all(facts):
            result: bool | None = True
            for fn in fns:
                r = fn(facts)
                if r is False:
                    return False
                if r is None:
                    result = None
            return result
        return f_all, set().union(*(p[1] for p in parts))
    if "any" in spec:
        parts = [compile_condition(c, where, params) for c in spec["any"]]
        fns = [p[0] for p in parts]

        def f_any(facts):
            result: bool | None = False
            for fn in fns:
                r = fn(facts)
                if r is True:
                    return True
                if r is None:
                    result = None
            return result
        return f_any, set().union(*(p[1] for p in parts))
    if "for_some" in spec:
        return compile_condition({"any": instances(spec, params, where)}, where, params)
    if "not" in spec:
        fn, deps = compile_condition(spec["not"], where, params)

        def f_not(facts):
            # negation as failure, as in CLIPS: "not known to hold" — unknown counts as not holding
            return fn(facts) is not True
        return f_not, deps
    return _fact_test(spec, where, params)


def condition_text(spec) -> str:
    """A readable rendering of a condition, for explanations and graph labels."""
    if "all" in spec:
        return " and ".join(_paren(c) for c in spec["all"])
    if "any" in spec:
        return " or ".join(_paren(c) for c in spec["any"])
    if "not" in spec:
        return f"not {_paren(spec['not'])}"
    if "for_some" in spec:
        ranges = spec["for_some"]
        over = f"[{ranges['param']}]" if isinstance(ranges, dict) else value_text(ranges)
        return f"for some {spec['as']} in {over}: {_paren(spec['holds'])}"
    name = spec["fact"]
    sym = {"eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "in": "in", "not_in": "not in",
           "contains": "contains", "matches": "matches", "near": "≈"}
    bits = []
    for op, arg in spec.items():
        if op in ("fact", "rtol"):
            continue
        if op == "known":
            bits.append(f"{name} is {'known' if arg else 'unknown'}")
        elif op == "nonempty":
            bits.append(f"{name} is {'non-empty' if arg else 'empty'}")
        else:
            bits.append(f"{name} {sym.get(op, op)} {value_text(arg)}")
    return " and ".join(bits)


def _paren(c) -> str:
    t = condition_text(c)
    return f"({t})" if ("all" in c or "any" in c or "for_some" in c) and " " in t else t


def value_text(expr) -> str:
    if isinstance(expr, dict):
        if set(expr) == {"fact"}:
            return expr["fact"]
        if set(expr) == {"param"}:
            return f"[{expr['param']}]"
        if set(expr) == {"var"}:
            return str(expr["var"])
        (op, arg), = expr.items()
        if op in ("ln", "log10", "abs"):
            return f"{op}({value_text(arg)})"
        sep = {"add": " + ", "sub": " - ", "mul": "×", "div": "/"}.get(op)
        if sep:
            return "(" + sep.join(value_text(a) for a in arg) + ")"
        return f"{op}(" + ", ".join(value_text(a) for a in arg) + ")"
    if isinstance(expr, str) and re.search(r"[^\w.-]", expr):
        return repr(expr)
    return str(expr)
