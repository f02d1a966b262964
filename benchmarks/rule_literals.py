"""Every bare numeric literal in a rule's condition, and which of them another rule or parameter shares.

A rule compares a fact with a threshold; the threshold belongs in ``kb/parameters`` as ``{param: ID}``
(README, "a threshold") when more than one place decides with it, so that one idea is written once and a
pack's override moves every rule that uses it. This lists what is still written as a bare number in a rule's
``when:``::

    python benchmarks/rule_literals.py            # one line per literal, then the count
    python benchmarks/rule_literals.py --shared   # only literals two or more rules share (same fact and value)
    python benchmarks/rule_literals.py --count    # only the count
    python benchmarks/rule_literals.py --used-by  # {param: ID}s whose parameter's used_by omits the rule
    python benchmarks/rule_literals.py --same-as REV  # do the rules decide as at REV, parameters substituted?

Each line: rule id, fact, operator, value, how many rules compare the same fact with the same value
(``shared``), and the parameters whose value is the same number and whose id or description names the
fact (``params``: a cut the knowledge base may already express elsewhere, for a person to judge). A
literal inside a value expression (``{fact: x, gt: {mul: [{fact: y}, 3]}}``) is listed with its operator
path (``gt.mul``); ``rtol`` is a ``near`` test's tolerance.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
from collections import Counter

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: literals that are no threshold but the shape of a test or a formula (the rules' counterpart of
#: tests/test_architecture.py's LITERAL_ALLOWED): (fact or None for any, operator or None for any, value, why).
#: A pack has nothing to move in them; they are counted apart.
STRUCTURAL = [
    (None, "gt", 0, "positive: a loss, a ratio or a coefficient above zero (a setting switched on)"),
    (None, "ge", 0, "non-negative: a loss read as a number at all"),
    (None, "le", 0, "zero or below: a setting switched off, a ratio exactly zero"),
    (None, "eq", 0, "exactly zero: a setting switched off"),
    ("num_classes", "ge", 2, "a classification task has at least two classes"),
    ("num_classes", "eq", 2, "a binary task has two classes"),
    ("num_classes", "ge", 3, "more than two classes: not a binary task"),
    ("run_length_steps", "le", 1, "a single record: no curve to read"),
    ("nan_first_step", "ge", 1, "after the first update (step 0 is before any)"),
    ("current_loss", "near", 0.6931, "ln 2: a binary loss at chance"),
    (None, "expr", 1, "arithmetic of a formula: 1/C, 1 - tolerance, 1 + x"),
    (None, "expr", -1, "a sign flip: the mirror image of a cut"),
    (None, "expr", 2.718281828, "e, in the softmax squash floor's formula"),
]


def structural(row: dict) -> str | None:
    """Why a literal is no threshold, or None when it is one."""
    op = "expr" if "." in row["op"] else row["op"]
    for fact, want, value, why in STRUCTURAL:
        if (fact is None or fact == row["fact"]) and want == op and float(value) == float(row["value"]):
            return why
    return None


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _expr_literals(node, path):
    """(operator path, number) for every bare number inside a value expression."""
    if _is_number(node):
        yield path, node
    elif isinstance(node, dict):
        if set(node) in ({"param"}, {"var"}, {"fact"}):
            return
        for k, v in node.items():
            yield from _expr_literals(v, path + (k,))
    elif isinstance(node, list):
        for v in node:
            yield from _expr_literals(v, path)


def _shape(arg, value) -> str:
    """A value expression with its literal blanked: two rules share a literal inside an expression only
    when they compare with the same expression (``0.2 * initial_loss`` is no ``0.2 * ln C``)."""
    if _is_number(arg):
        return "_" if float(arg) == float(value) else repr(arg)
    if isinstance(arg, dict):
        return "{" + ",".join(f"{k}:{_shape(v, value)}" for k, v in sorted(arg.items())) + "}"
    if isinstance(arg, list):
        return "[" + ",".join(_shape(v, value) for v in arg) + "]"
    return repr(arg)


def _literals(node):
    """(fact, operator, value, shape) for every bare number in a condition."""
    if isinstance(node, list):
        for v in node:
            yield from _literals(v)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("fact"), str):
        for op, arg in node.items():
            if op == "fact":
                continue
            if op in ("in", "not_in") and isinstance(arg, list):
                for v in arg:
                    if _is_number(v):
                        yield node["fact"], op, v, ""
                continue
            for path, v in _expr_literals(arg, (op,)):
                yield node["fact"], ".".join(path), v, "" if _is_number(arg) else _shape(arg, v)
        return
    for key in ("all", "any", "not", "holds"):
        if key in node:
            yield from _literals(node[key])


def _documents(folder: str, rev: str | None):
    """(path, parsed YAML) of every file in kb/FOLDER, from the working tree or from git revision REV."""
    if rev is None:
        for path in sorted(glob.glob(os.path.join(ROOT, "kb", folder, "*.yaml"))):
            with open(path, encoding="utf-8") as fh:
                yield os.path.relpath(path, ROOT), yaml.safe_load(fh)
        return
    names = subprocess.run(["git", "ls-tree", "--name-only", rev, f"kb/{folder}/"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for name in sorted(n for n in names if n.endswith(".yaml")):
        text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
        yield name, yaml.safe_load(text)


def rule_literals(rev: str | None = None) -> list[dict]:
    rows = []
    for path, doc in _documents("rules", rev):
        for rule in doc.get("rules", []):
            for fact, op, value, shape in _literals(rule.get("when")):
                rows.append({"rule": rule["id"], "fact": fact, "op": op, "value": value, "shape": shape,
                             "file": path})
    return rows


def parameters(rev: str | None = None) -> list[dict]:
    out = []
    for _path, doc in _documents("parameters", rev):
        out.extend(doc.get("parameters", []))
    return out


def _key(row: dict) -> tuple:
    return row["fact"], float(row["value"]), row["shape"]


def same_number_params(row: dict, params: list[dict]) -> list[str]:
    """Parameters with the literal's value whose id or description names its fact."""
    fact = row["fact"]
    hits = []
    for p in params:
        v = p.get("value")
        if not _is_number(v) or float(v) != float(row["value"]):
            continue
        text = f"{p['id']} {p.get('description', '')}"
        if fact in text or fact.replace("_", ".") in text:
            hits.append(p["id"])
    return hits


def _param_ids(node):
    if isinstance(node, dict):
        if set(node) == {"param"}:
            yield node["param"]
            return
        for v in node.values():
            yield from _param_ids(v)
    elif isinstance(node, list):
        for v in node:
            yield from _param_ids(v)


def _stale_used_by(rev: str | None) -> int:
    used_by = {p["id"]: set(p.get("used_by", [])) for p in parameters(rev)}
    missing = sorted({(rule["id"], pid) for _path, doc in _documents("rules", rev) for rule in doc.get("rules", [])
                      for pid in _param_ids([rule.get("when"), rule.get("then")])
                      if f"rule:{rule['id']}" not in used_by.get(pid, ())})
    for rid, pid in missing:
        print(f"{rid:50} {pid}")
    print(f"{len(missing)} rule reads of a parameter whose used_by does not name the rule")
    return 0


def _substituted(node, values: dict):
    """``node`` with each ``{param: ID}`` replaced by its value and each ``{mul: [numbers]}`` multiplied out."""
    if isinstance(node, dict):
        if set(node) == {"param"}:
            return values[node["param"]]
        out = {k: _substituted(v, values) for k, v in node.items()}
        if set(out) == {"mul"} and all(_is_number(v) for v in out["mul"]):
            product = 1
            for v in out["mul"]:
                product *= v
            return product
        return out
    if isinstance(node, list):
        return [_substituted(v, values) for v in node]
    return node


def _equal(a, b) -> bool:
    if _is_number(a) and _is_number(b):
        return float(a) == float(b) or (a != a and b != b)   # a case's given NaN equals NaN
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _same_as(old_rev: str, rev: str | None) -> int:
    def rules(r):
        values = {p["id"]: p["value"] for p in parameters(r)}
        return {rule["id"]: _substituted({k: rule.get(k) for k in ("when", "then", "cases")}, values)
                for _path, doc in _documents("rules", r) for rule in doc.get("rules", [])}, \
            {rule["id"]: rule["when"] for _path, doc in _documents("rules", r) for rule in doc.get("rules", [])}
    old, old_when = rules(old_rev)
    new, new_when = rules(rev)
    if old.keys() != new.keys():
        print(f"rule ids differ: {sorted(old.keys() ^ new.keys())}")
        return 1
    changed = [i for i in old if old_when[i] != new_when[i]]
    differ = [i for i in old if not _equal(old[i], new[i])]
    for i in differ:
        print(f"decides differently: {i}")
    print(f"{len(changed)} rules' when written differently from {old_rev}; {len(differ)} decide differently "
          f"once parameters are substituted")
    return 1 if differ else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", action="store_true", help="only literals two or more rules share")
    ap.add_argument("--count", action="store_true", help="only the count")
    ap.add_argument("--thresholds", action="store_true", help="leave out the structural literals (STRUCTURAL)")
    ap.add_argument("--used-by", action="store_true",
                    help="list each rule that reads {param: ID} while ID's used_by does not name it")
    ap.add_argument("--same-as", metavar="REV",
                    help="check that every rule's when, then and cases equal REV's once each {param: ID} (at both "
                         "ends) is replaced by its value and a product of numbers is multiplied out")
    ap.add_argument("--rev", help="read kb/ as git revision REV has it (e.g. the commit before a change)")
    a = ap.parse_args(argv)
    if a.used_by:
        return _stale_used_by(a.rev)
    if a.same_as:
        return _same_as(a.same_as, a.rev)
    rows = rule_literals(a.rev)
    every = list(rows)
    n_all = len(rows)
    if a.thresholds:
        rows = [r for r in rows if not structural(r)]
    shared = Counter(_key(r) for r in every)
    rules_per = {k: len({r["rule"] for r in every if _key(r) == k}) for k in shared}
    params = parameters(a.rev)
    if not a.count:
        print(f"{'rule':44} {'fact':34} {'op':12} {'value':>10} shared  params / why structural")
        for r in sorted(rows, key=lambda r: (r["fact"], float(r["value"]), r["rule"])):
            n = rules_per[_key(r)]
            if a.shared and n < 2:
                continue
            note = ",".join(same_number_params(r, params)) or (f"[{structural(r)}]" if structural(r) else "")
            print(f"{r['rule']:44} {r['fact']:34} {r['op']:12} {r['value']!s:>10} {n:6}  {note}")
    n_struct = sum(bool(structural(r)) for r in every)
    thresholds = [r for r in every if not structural(r)]
    n_shared = sum(rules_per[_key(r)] >= 2 for r in thresholds)
    print(f"{n_all} bare numeric literals in rule conditions: {n_struct} structural, {len(thresholds)} thresholds "
          f"in {len({r['rule'] for r in thresholds})} rules ({n_shared} of them share their fact and value with "
          f"another rule)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
