#!/usr/bin/env python
"""Engine benchmarks (issue 2): import cost, inference time against knowledge-base size, and
questions asked per diagnosis. These measure and print; they are not timed tests.

    python benchmarks/bench_engine.py                       # everything, default sizes 100,1000,10000
    python benchmarks/bench_engine.py --json bench.json     # also write every number as JSON
    python benchmarks/bench_engine.py --only scale --sizes 100,1000 --profile

Three parts:

a. **import** — ``traindx --help`` and a whole non-interactive Q&A diagnosis run under
   ``python -X importtime``: the import log is grepped for "torch" (it must never appear), and
   both commands are timed as subprocesses (median of N), beside the bare interpreter and, for
   scale, ``python -c "import torch"``.
b. **scale** — synthetic knowledge packs of 100 / 1,000 / 10,000 rules (:class:`SynthKB`: a fact
   vocabulary, questions that produce the base facts, rules with all/any/not, numeric
   comparisons, fact-to-fact comparisons, ``set`` derivations chaining three levels deep, evidence
   on the core root causes, and a test case for every rule) are written to a temp folder, loaded
   with ``load_kb([pack])`` (core + pack) and timed: load, ``Session.run()`` (forward chaining to
   quiescence) for a typical and a dense set of facts, and ``next_question()``.
c. **questions** — simulated users with a known root cause answer every question the engine asks
   from an oracle table (``skip`` for facts the oracle lacks), until ``next_question()`` is None;
   the questions asked are compared with the seed's list for the symptom and with every question
   in kb/questions.yaml that can bear on that symptom's causes.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

try:  # libyaml makes writing 10,000 rules quick; the pure-Python dumper writes the same text
    from yaml import CSafeDumper as _Dumper
except ImportError:  # pragma: no cover
    from yaml import SafeDumper as _Dumper

RUN_TARGET_S = 0.2          # issue 2: Session.run() at 10,000 rules
DEFAULT_SIZES = (100, 1000, 10000)
DEFAULT_COMPLAINT = "loss flat from epoch 0, lr 1e-7"


# =========================================================================== helpers
def median(xs):
    return statistics.median(xs) if xs else float("nan")


def fmt_s(x: float) -> str:
    if x != x:  # nan
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} µs"


def ratio(a, b) -> float:
    return a / b if b else float("nan")


def table(headers, rows) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(cells[0]),
                      "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in cells[1:]])


def core_root_causes() -> list[str]:
    """Root-cause ids of the core knowledge base (read straight from its YAML, no engine load)."""
    from traindx.engine.loader import core_dir
    with open(os.path.join(core_dir(), "root_causes.yaml"), encoding="utf-8") as fh:
        return [rc["id"] for rc in yaml.safe_load(fh)["root_causes"]]


# =========================================================================== (b) the KB generator
ENUM_VALUES = ["none", "low", "high", "extreme"]
LIST_ITEMS = ["alpha", "beta", "gamma", "delta", "epsilon"]
SYMPTOMS = ["not_learning", "plateau", "instability", "explosion", "overfitting", "slow_training"]
LRS = [0.1, 0.2, 0.3, 0.5, 0.7, 1.5, 2.0, 3.0, 5.0, 8.0]
MISSING = object()


@dataclass
class SynthFact:
    id: str
    type: str                 # number | integer | boolean | enum | list
    level: int = 0            # 0: base (asked by a question); 1..3: derived by rules
    setters: int = 0

    def random_value(self, rng: random.Random):
        if self.type == "number":
            return round(rng.uniform(0, 100), 3)
        if self.type == "integer":
            return rng.randint(0, 1000)
        if self.type == "boolean":
            return rng.random() < 0.5
        if self.type == "enum":
            return rng.choice(ENUM_VALUES)
        return rng.sample(LIST_ITEMS, rng.randint(0, 3))


@dataclass
class Node:
    """A condition with an assignment of its facts that makes it true and one that makes it false."""
    spec: dict
    true: dict
    false: dict


@dataclass
class SynthKB:
    """A valid, realistic-looking knowledge pack of ``n_rules`` rules (deterministic for a seed).

    * facts: ``n_rules // 8`` (at least 24) base facts of every type, asked by questions of one or
      two facts, and ``n_rules // 40`` (at least 6) derived facts on levels 1..3;
    * rules: a single test, ``all``, ``any``, or ``all`` with a nested ``any`` and a ``not``; tests
      are numeric comparisons and ranges, ``near``, fact-to-fact comparisons through a value
      expression, enum ``eq``/``in``/``ne``/``not_in``, booleans, list ``nonempty``/``contains``,
      and some read core facts (symptom, learning_rate, optimizer, batch_size, uses_amp) — only
      inside an ``all`` after a synthetic test, so pack rules never fire on core facts alone;
    * about 25% of the rules ``set`` a derived fact (a literal or an arithmetic expression) from
      base facts and lower-level derived facts, so chains run up to three rules deep — acyclic by
      construction; about 20% of the other rules read derived facts;
    * evidence: one to three likelihood ratios on core root causes;
    * cases: every rule has a ``fires: true`` case built from the assignment that makes its
      condition true, half also a ``fires: false`` case from one that makes it false.
    """
    n_rules: int
    seed: int = 0
    causes: list = field(default_factory=list)
    base: list = field(default_factory=list)
    derived: list = field(default_factory=list)
    questions: list = field(default_factory=list)
    rules: list = field(default_factory=list)

    def __post_init__(self):
        rng = random.Random(self.seed * 1_000_003 + self.n_rules)
        self.rng = rng
        self.causes = self.causes or core_root_causes()
        n_base = max(24, self.n_rules // 8)
        n_derived = max(6, self.n_rules // 40)
        types = ["number"] * 8 + ["integer"] * 3 + ["boolean"] * 4 + ["enum"] * 4 + ["list"] * 1
        self.base = [SynthFact(f"sx_b{i:05d}", types[i % len(types)]) for i in range(n_base)]
        dtypes = ["number", "number", "boolean", "number", "enum", "boolean"]
        self.derived = [SynthFact(f"sx_d{j:04d}", dtypes[j % len(dtypes)], level=1 + j % 3) for j in range(n_derived)]
        self.numeric_base = [f for f in self.base if f.type == "number"]
        self.by_id = {f.id: f for f in self.base + self.derived}
        # questions: base facts in order, one or two facts each
        i, q = 0, 0
        while i < len(self.base):
            k = 2 if rng.random() < 0.35 and i + 1 < len(self.base) else 1
            facts = [f.id for f in self.base[i:i + k]]
            self.questions.append({"id": f"sxq_{q:05d}", "text": f"What are {', '.join(facts)}?", "facts": facts,
                                   "hint": "values in the order asked", "why": "synthetic benchmark question"})
            i += k
            q += 1
        # rules: the first ones are setters covering every derived fact, the rest mixed
        n_setters = max(len(self.derived), self.n_rules // 4)
        setter_targets = list(self.derived) + [rng.choice(self.derived) for _ in range(n_setters - len(self.derived))]
        rng.shuffle(setter_targets)
        kinds = ["set"] * n_setters + ["evidence"] * (self.n_rules - n_setters)
        rng.shuffle(kinds)
        targets = iter(setter_targets)
        for r, kind in enumerate(kinds):
            self.rules.append(self._rule(r, next(targets) if kind == "set" else None))

    # ------------------------------------------------------------------ atoms
    def _atom(self, fact_id: str, used: set) -> Node:
        rng = self.rng
        f = self.by_id.get(fact_id)
        if f is None:
            return self._core_atom(fact_id)
        if f.type == "number":
            r = rng.random()
            if r < 0.1 and f.level == 0:
                other = self._pick(self.numeric_base, used)
                if other is not None:       # a fact compared with another through an expression
                    return Node({"fact": f.id, "gt": {"mul": [{"fact": other.id}, 0.5]}},
                                {f.id: 60.0, other.id: 40.0}, {f.id: 10.0, other.id: 80.0})
            t = round(rng.uniform(10, 90), 2)
            if r < 0.4:
                return Node({"fact": f.id, "lt": t}, {f.id: round(t * 0.5, 3)}, {f.id: round(t + (100 - t) * 0.5, 3)})
            if r < 0.7:
                op = rng.choice(["gt", "ge"])
                return Node({"fact": f.id, op: t}, {f.id: round(t + (100 - t) * 0.5, 3)}, {f.id: round(t * 0.5, 3)})
            if r < 0.9:
                lo = round(rng.uniform(5, 50), 2)
                hi = round(lo + rng.uniform(10, 40), 2)
                return Node({"fact": f.id, "ge": lo, "le": hi}, {f.id: round((lo + hi) / 2, 3)}, {f.id: round(hi + 5,
                                                                                                              3)})
            return Node({"fact": f.id, "near": t, "rtol": 0.1}, {f.id: t}, {f.id: round(t * 1.5 + 5, 3)})
        if f.type == "integer":
            t = rng.randint(100, 900)
            r = rng.random()
            if r < 0.45:
                return Node({"fact": f.id, "le": t}, {f.id: t // 2}, {f.id: t + 50})
            if r < 0.9:
                return Node({"fact": f.id, "ge": t}, {f.id: t + 50}, {f.id: t // 2})
            return Node({"fact": f.id, "eq": t}, {f.id: t}, {f.id: t + 1})
        if f.type == "boolean":
            v = rng.random() < 0.6
            return Node({"fact": f.id, "eq": v}, {f.id: v}, {f.id: not v})
        if f.type == "enum":
            vals = rng.sample(ENUM_VALUES, 4)
            r = rng.random()
            if r < 0.4:
                return Node({"fact": f.id, "eq": vals[0]}, {f.id: vals[0]}, {f.id: vals[1]})
            if r < 0.7:
                return Node({"fact": f.id, "in": vals[:2]}, {f.id: vals[1]}, {f.id: vals[2]})
            if r < 0.85:
                return Node({"fact": f.id, "ne": vals[0]}, {f.id: vals[3]}, {f.id: vals[0]})
            return Node({"fact": f.id, "not_in": vals[:2]}, {f.id: vals[2]}, {f.id: vals[0]})
        # list
        if rng.random() < 0.5:
            return Node({"fact": f.id, "nonempty": True}, {f.id: ["alpha", "beta"]}, {f.id: []})
        item = rng.choice(LIST_ITEMS)
        other = next(x for x in LIST_ITEMS if x != item)
        return Node({"fact": f.id, "contains": item}, {f.id: [item, other]}, {f.id: [other]})

    def _core_atom(self, name: str) -> Node:
        rng = self.rng
        if name == "symptom":
            s, other = rng.sample(SYMPTOMS, 2)
            return Node({"fact": "symptom", "eq": s}, {"symptom": s}, {"symptom": other})
        if name == "learning_rate":
            return Node({"fact": "learning_rate", "lt": 1.0e-3}, {"learning_rate": 1.0e-4}, {"learning_rate": 1.0e-2})
        if name == "optimizer":
            return Node({"fact": "optimizer", "in": ["adam", "adamw"]}, {"optimizer": "adam"}, {"optimizer": "sgd"})
        if name == "batch_size":
            return Node({"fact": "batch_size", "le": 16}, {"batch_size": 8}, {"batch_size": 64})
        return Node({"fact": "uses_amp", "eq": True}, {"uses_amp": True}, {"uses_amp": False})

    def _pick(self, pool, used: set):
        for _ in range(20):
            f = self.rng.choice(pool)
            if f.id not in used:
                used.add(f.id)
                return f
        return None

    def _leaf(self, used: set, max_level: int | None, derived_share: float, core: bool = False) -> Node:
        """One test on a fact not yet used by this rule (base, derived below max_level, or — where
        ``core`` — a core fact; only after a positive synthetic test inside ``all``, so that a pack
        rule never fires on core facts alone and the core's own cases stay untouched)."""
        rng = self.rng
        r = rng.random()
        if core and r < 0.2:
            core = [c for c in ("symptom", "learning_rate", "optimizer", "batch_size", "uses_amp") if c not in used]
            if core:
                name = rng.choice(core)
                used.add(name)
                return self._atom(name, used)
        pool = self.base
        if rng.random() < derived_share:
            cands = [d for d in self.derived if max_level is None or d.level < max_level]
            if cands:
                pool = cands
        f = self._pick(pool, used) or self._pick(self.base, used)
        return self._atom(f.id, used)

    @staticmethod
    def _all(children) -> Node:
        true, false = {}, {}
        for c in children:
            true.update(c.true)
        false.update(true)
        false.update(children[0].false)
        return Node({"all": [c.spec for c in children]}, true, false)

    @staticmethod
    def _any(children) -> Node:
        true, false = {}, {}
        for c in children:
            true.update(c.true)
            false.update(c.false)
        return Node({"any": [c.spec for c in children]}, true, false)

    @staticmethod
    def _not(child) -> Node:
        # negation as failure: true unless the inner condition is known to hold
        return Node({"not": child.spec}, dict(child.false), dict(child.true))

    def _condition(self, max_level: int | None, derived_share: float) -> Node:
        rng = self.rng
        used: set = set()
        leaf = lambda core=False: self._leaf(used, max_level, derived_share, core)  # noqa: E731
        r = rng.random()
        if r < 0.30:
            return leaf()
        if r < 0.65:
            return self._all([leaf()] + [leaf(core=True) for _ in range(rng.randint(1, 2))])
        if r < 0.80:
            return self._any([leaf() for _ in range(rng.randint(2, 3))])
        return self._all([leaf(), self._any([leaf(), leaf(core=True)]), self._not(leaf(core=True))])

    def _rule(self, r: int, target: SynthFact | None) -> dict:
        rng = self.rng
        rid = f"sx-{self.n_rules}-{r:05d}"
        if target is not None:
            # level-1 facts come from base facts only; level k also reads level < k (the chains)
            cond = self._condition(target.level, 0.0 if target.level == 1 else 0.5)
            target.setters += 1
            if target.type == "number":
                a, b = rng.sample(self.numeric_base, 2)
                expr = rng.choice([{"mul": [{"fact": a.id}, round(rng.uniform(0.5, 1.5), 2)]},
                                   {"max": [{"fact": a.id}, {"fact": b.id}]},
                                   {"div": [{"add": [{"fact": a.id}, {"fact": b.id}]}, 2]}])
            elif target.type == "boolean":
                expr = rng.random() < 0.7
            else:
                expr = rng.choice(ENUM_VALUES)
            then = {"set": {target.id: expr}}
            if rng.random() < 0.5:
                then["evidence"] = self._evidence()
            salience = 10 * (4 - target.level)
        else:
            cond = self._condition(None, 0.2)
            then = {"evidence": self._evidence()}
            salience = 0
        rule = {"id": rid, "description": f"Synthetic rule {r} of {self.n_rules}."}
        if salience:
            rule["salience"] = salience
        cases = [{"given": _json_safe(cond.true), "fires": True}]
        if rng.random() < 0.5:
            cases.append({"given": _json_safe(cond.false), "fires": False})
        rule.update({"when": cond.spec, "then": then, "cases": cases})
        return rule

    def _evidence(self) -> list:
        rng = self.rng
        return [{"cause": c, "lr": rng.choice(LRS)} for c in rng.sample(self.causes, rng.randint(1, 3))]

    # ------------------------------------------------------------------ output
    def write(self, folder: str | os.PathLike, rules_per_file: int = 250) -> Path:
        """Write the pack (pack.yaml, facts.yaml, questions.yaml, rules/*.yaml) into ``folder``."""
        folder = Path(folder)
        (folder / "rules").mkdir(parents=True, exist_ok=True)

        def dump(path, data, header=""):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(header)
                yaml.dump(data, fh, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=160,
                          allow_unicode=True)

        dump(folder / "pack.yaml", {"kind": "pack", "name": f"synth-{self.n_rules}", "version": "0",
                                    "description": f"Synthetic benchmark pack: {self.n_rules} rules "
                                                   f"(seed {self.seed})."},
             "# generated by benchmarks/bench_engine.py — do not edit\n")
        facts = []
        for f in self.base + self.derived:
            item = {"id": f.id, "type": f.type,
                    "description": f"Synthetic {'base' if f.level == 0 else f'derived (level {f.level})'} fact."}
            if f.type == "enum":
                item["values"] = list(ENUM_VALUES)
            if f.type in ("number", "integer") and f.level == 0:
                item["min"] = 0
            facts.append(item)
        dump(folder / "facts.yaml", {"kind": "facts", "facts": facts})
        dump(folder / "questions.yaml", {"kind": "questions", "questions": self.questions})
        for k in range(0, len(self.rules), rules_per_file):
            dump(folder / "rules" / f"synth_{k // rules_per_file:03d}.yaml",
                 {"kind": "rules", "rules": self.rules[k:k + rules_per_file]})
        return folder

    def session_facts(self, fraction: float, seed: int = 1) -> dict:
        """A realistic set of facts for one session: core facts a user and the probes report, plus
        random values for ``fraction`` of the synthetic base facts (derived facts are left to the rules)."""
        rng = random.Random(seed)
        facts = {"optimizer": "adam", "batch_size": 32, "num_classes": 10, "current_loss": 2.30,
                 "uses_amp": False, "grads_have_nan": False, "zero_grad_called": True,
                 "frozen_params": [], "params_without_grad": [], "weight_decay": 0.01}
        k = max(1, round(fraction * len(self.base)))
        for f in rng.sample(self.base, k):
            facts[f.id] = f.random_value(rng)
        return facts

    def stats(self) -> dict:
        n_set = sum(1 for r in self.rules if "set" in r["then"])
        reads_derived = sum(1 for r in self.rules if "sx_d" in json.dumps(r["when"]))
        return {"rules": len(self.rules), "base_facts": len(self.base), "derived_facts": len(self.derived),
                "questions": len(self.questions), "setter_rules": n_set, "rules_reading_derived": reads_derived,
                "cases": sum(len(r["cases"]) for r in self.rules)}


def _json_safe(d: dict) -> dict:
    return {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in d.items()}


def generate_pack(folder, n_rules: int, seed: int = 0) -> SynthKB:
    """Generate and write a synthetic pack of ``n_rules`` rules into ``folder``; return the generator."""
    kb = SynthKB(n_rules, seed)
    kb.write(folder)
    return kb


# =========================================================================== (a) import cost
def _cli_cmd():
    exe = shutil.which("traindx")
    return [exe] if exe else [sys.executable, "-m", "traindx.engine"]


def _env():
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def importtime(args: list, cwd: str) -> dict:
    """Run ``python -X importtime -m traindx.engine ARGS``; parse the import log."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "traindx.engine", *args], capture_output=True,
                       text=True, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, timeout=300)
    mods = []
    other = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+)\s*\|\s*(\d+)\s*\|(\s*)(\S+)", line)
        if m:
            mods.append({"module": m.group(4), "self_us": int(m.group(1)), "cum_us": int(m.group(2)),
                         "depth": (len(m.group(3)) - 1) // 2})
        elif not line.startswith("import time:"):
            other.append(line)
    torch_lines = [line for line in p.stderr.splitlines() if "torch" in line.lower()
                   and line.startswith("import time:")]
    top = sorted((x for x in mods if x["depth"] == 0), key=lambda x: -x["cum_us"])[:8]
    return {"command": "python -X importtime -m traindx.engine " + " ".join(_quote(a) for a in args),
            "rc": p.returncode, "modules": len(mods), "total_import_s": sum(x["self_us"] for x in mods) / 1e6,
            "torch_lines": torch_lines, "torch_imported": bool(torch_lines),
            "top_cumulative": [{"module": x["module"], "cum_s": x["cum_us"] / 1e6} for x in top],
            "stdout_bytes": len(p.stdout), "stderr_other": other[-5:]}


def _quote(a: str) -> str:
    return a if re.fullmatch(r"[\w./=:-]+", a) else json.dumps(a)


def wall(cmd: list, n: int, cwd: str) -> dict:
    """Wall time of a subprocess, and its CPU time (user + system, from the children's rusage)."""
    import resource
    times, cpus = [], []
    rc = None
    for _ in range(n):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, timeout=300)
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        rc = p.returncode
    return {"median_s": median(times), "min_s": min(times), "max_s": max(times), "cpu_median_s": median(cpus),
            "n": n, "rc": rc}


def bench_import(n: int, torch_ref: bool) -> dict:
    cwd = tempfile.mkdtemp(prefix="traindx-bench-import-")
    try:
        diag_args = ["diagnose", "--non-interactive", "--complaint", DEFAULT_COMPLAINT, "--format", "json"]
        out = {"help": importtime(["--help"], cwd), "diagnose": importtime(diag_args, cwd)}
        cli = _cli_cmd()
        out["wall"] = {
            "python -c pass": wall([sys.executable, "-c", "pass"], n, cwd),
            "traindx --help": wall(cli + ["--help"], n, cwd),
            "traindx diagnose (non-interactive, json)": wall(cli + diag_args, n, cwd),
        }
        if torch_ref and importlib.util.find_spec("torch") is not None:
            out["wall"]['python -c "import torch" (reference)'] = wall([sys.executable, "-c", "import torch"],
                                                                        max(3, n // 2), cwd)
        out["cli"] = " ".join(cli)
        return out
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def print_import(res: dict) -> None:
    print("\n## (a) Import cost\n")
    rows = []
    for key in ("help", "diagnose"):
        r = res[key]
        rows.append([r["command"], r["rc"], r["modules"], fmt_s(r["total_import_s"]),
                     "NO (0 lines)" if not r["torch_imported"] else f"YES ({len(r['torch_lines'])} lines)"])
    print(table(["importtime run", "rc", "modules", "sum of import self-times", "torch imported?"], rows))
    for key in ("help", "diagnose"):
        tops = ", ".join(f"{t['module']} {fmt_s(t['cum_s'])}" for t in res[key]["top_cumulative"][:6])
        print(f"\n  heaviest top-level imports ({key}): {tops}")
        for line in res[key]["torch_lines"][:5]:
            print("  TORCH:", line)
    floor = res["wall"]["python -c pass"]["median_s"]
    diag = res["wall"]["traindx diagnose (non-interactive, json)"]["median_s"]
    print()
    rows = []
    for name, w in res["wall"].items():
        rows.append([name, w["rc"], w["n"], fmt_s(w["median_s"]), fmt_s(w["min_s"]), fmt_s(w["cpu_median_s"]),
                     f"{ratio(w['median_s'], floor):.1f}×", f"{ratio(w['median_s'], diag):.2f}×"])
    print(table(["command (subprocess)", "rc", "runs", "wall median", "wall min", "CPU median", "vs python -c pass",
                 "vs diagnose"], rows))


# =========================================================================== (b) scale
def _session(kb, facts: dict, complaint: str):
    from traindx.engine.api import Session
    s = Session(kb)
    s.add_complaint(complaint)
    for k, v in facts.items():
        s.add(k, v, "probe:bench")
    return s


class Clock:
    """Wall time and CPU time of this process together. On a shared machine the CPU time is the
    steadier number (it leaves out the time other processes held the cores); both are recorded."""

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.w0, time.process_time() - self.c0


def _repeat(make, call, reps: int, budget_s: float, min_n: int = 1) -> dict:
    """Time ``call(make())`` up to ``reps`` times; stop early once ``budget_s`` of wall time is spent."""
    wall, cpu = [], []
    for _ in range(reps):
        obj = make()
        gc.collect()
        with Clock() as c:
            call(obj)
        wall.append(c.wall)
        cpu.append(c.cpu)
        if len(wall) >= min_n and sum(wall) > budget_s:
            break
    return {"cpu": median(cpu), "wall": median(wall), "cpu_min": min(cpu), "n": len(wall)}


def _time_run(kb, facts, complaint, reps, budget_s):
    last = {}

    def call(s):
        last["res"] = s.run()
    t = _repeat(lambda: _session(kb, facts, complaint), call, reps, budget_s, min_n=3)
    return t, last["res"]


def _time_next_question(kb, facts, complaint, reps, budget_s):
    """Question selection, run() already done. next_question() returns at once when the leading cause
    is decided (posterior ≥ 0.85), so the scoring itself — candidates(), every open question scored by
    expected information gain, which is what next_question() does whenever it is undecided — is timed
    too: cold (the first call on this KB, which also builds the question -> rules closures) and warm."""
    if hasattr(kb, "_closure_cache"):
        del kb._closure_cache

    def ready():
        s = _session(kb, facts, complaint)
        s.run()
        return s
    last = {}

    def cands(s):
        last["cands"] = s.candidates()

    def nq(s):
        last["q"] = s.next_question()
        last["decided"] = s.decided()
    cold = _repeat(ready, cands, 1, budget_s)
    warm = _repeat(ready, cands, reps, budget_s)
    nqt = _repeat(ready, nq, reps, budget_s)
    return {"next_question_s": nqt["cpu"], "next_question_wall_s": nqt["wall"],
            "next_question": (last["q"] or {}).get("id"), "decided": last["decided"],
            "candidates_cold_s": cold["cpu"], "candidates_cold_wall_s": cold["wall"],
            "candidates_s": warm["cpu"], "candidates_wall_s": warm["wall"], "candidates": len(last["cands"]),
            "timed_runs": {"candidates": warm["n"], "next_question": nqt["n"]}}


def bench_scale(sizes, reps: int, seed: int, keep: str | None, typical: float, profile: bool,
                budget_s: float = 15.0) -> dict:
    from traindx.engine.loader import load_kb
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="traindx-bench-kb-"))
    out = {"sizes": [], "typical_fraction": typical, "reps": reps, "seed": seed,
           "times": "CPU seconds of the benchmark process (time.process_time), median; *_wall_s: wall clock"}
    try:
        with Clock() as c:
            core = load_kb()
        out["core_load_s"], out["core_load_wall_s"] = c.cpu, c.wall
        out["core_rules"] = len(core.rules)
        kbs = {}
        for n in sizes:
            with Clock() as c:
                gen = generate_pack(root / f"synth_{n}", n, seed)
            gen_s = c.cpu
            gc.collect()
            with Clock() as c:
                kb = load_kb([str(root / f"synth_{n}")])
            row = {"rules": n, "total_rules": len(kb.rules), "generate_s": gen_s, "load_s": c.cpu,
                   "load_wall_s": c.wall, **gen.stats(), "total_questions": len(kb.questions)}
            for label, frac in (("typical", typical), ("dense", 1.0)):
                facts = gen.session_facts(frac, seed=seed + 1)
                t, res = _time_run(kb, facts, DEFAULT_COMPLAINT, reps, budget_s)
                nq = _time_next_question(kb, facts, DEFAULT_COMPLAINT, reps, budget_s)
                nq["timed_runs"]["run"] = t["n"]
                row[label] = {"facts_given": len(facts) + 1, "run_s": t["cpu"], "run_wall_s": t["wall"],
                              "run_min_s": t["cpu_min"], "firings": len(res.firings),
                              "derived": sum(1 for f in res.wm.values() if f.kind == "rule"),
                              "evidence": len(res.evidence), "capped": res.capped, **nq}
            out["sizes"].append(row)
            kbs[n] = (kb, gen)
            print(f"  generated+loaded {n} rules: gen {fmt_s(gen_s)}, load {fmt_s(row['load_s'])}, "
                  f"run {fmt_s(row['typical']['run_s'])}, candidates {fmt_s(row['typical']['candidates_s'])}",
                  file=sys.stderr, flush=True)
        big = max(sizes)
        last = out["sizes"][-1]
        out["target"] = {"run_target_s": RUN_TARGET_S, "at_rules": big,
                         "typical_run_s": last["typical"]["run_s"], "dense_run_s": last["dense"]["run_s"],
                         "typical_run_wall_s": last["typical"]["run_wall_s"],
                         "dense_run_wall_s": last["dense"]["run_wall_s"]}
        out["target"]["met_typical"] = out["target"]["typical_run_s"] <= RUN_TARGET_S
        out["target"]["met_dense"] = out["target"]["dense_run_s"] <= RUN_TARGET_S
        if profile or not out["target"]["met_typical"] or not out["target"]["met_dense"]:
            kb, gen = kbs[big]
            out["profile"] = profile_big(kb, gen, seed, typical)
            mid = min(sizes, key=lambda n: abs(n - 1000))
            out["load_profile"] = profile_load(str(root / f"synth_{mid}"), mid)
        return out
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def profile_big(kb, gen: SynthKB, seed: int, typical: float) -> dict:
    import cProfile
    import io
    import pstats
    out = {}
    for label, frac in (("run() dense", 1.0), ("run() typical", typical), ("candidates() typical, warm", typical)):
        facts = gen.session_facts(frac, seed=seed + 1)
        s = _session(kb, facts, DEFAULT_COMPLAINT)
        if label.startswith("candidates"):
            s.run()
            s.candidates()  # warm the closure cache
            s = _session(kb, facts, DEFAULT_COMPLAINT)
            s.run()
            call = s.candidates
        else:
            call = s.run
        pr = cProfile.Profile()
        pr.enable()
        call()
        pr.disable()
        buf = io.StringIO()
        st = pstats.Stats(pr, stream=buf)
        st.sort_stats("tottime").print_stats(12)
        rows = []
        for (fname, line, func), (_cc, nc, tt, ct, _callers) in sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:12]:
            rows.append({"function": f"{os.path.basename(fname)}:{line}({func})", "calls": nc, "tottime_s": tt,
                         "cumtime_s": ct})
        out[label] = {"total_s": st.total_tt, "top": rows}
    return out


def profile_load(folder: str, n: int) -> dict:
    """Where load_kb() spends its time: YAML composing, JSON-Schema validation, compiling, checking."""
    import cProfile
    import pstats
    from traindx.engine.loader import load_kb
    pr = cProfile.Profile()
    pr.enable()
    load_kb([folder])
    pr.disable()
    st = pstats.Stats(pr)
    parts = {"load_yaml": "yamlio.py", "validate_shape": "loader.py", "_compile": "loader.py", "_check": "loader.py",
             "_check_cycles": "loader.py", "_index": "loader.py", "get_single_node": "composer.py",
             "iter_errors": "validators.py"}
    out = {"rules": n, "total_s": st.total_tt, "parts": {}}
    for (fname, _line, func), (_cc, _nc, _tt, ct, _callers) in st.stats.items():
        if func in parts and fname.endswith(parts[func]):
            out["parts"][f"{parts[func]}:{func}"] = out["parts"].get(f"{parts[func]}:{func}", 0.0) + ct
    return out


def print_scale(res: dict) -> None:
    print("\n## (b) Inference time against knowledge-base size\n")
    print(f"Core KB alone: {res['core_rules']} rules, load {fmt_s(res['core_load_s'])}. Synthetic pack loaded on top "
          f"of the core. Times are CPU time of the benchmark process, median of up to {res['reps']} runs (fewer "
          f"when one run takes seconds); wall clock is in the JSON. 'typical' = complaint + 10 core facts + "
          f"{res['typical_fraction']:.0%} of the pack's base facts; 'dense' = every base fact known.\n")
    rows = []
    prev = None
    for r in res["sizes"]:
        rows.append([r["rules"], r["base_facts"], r["derived_facts"], r["questions"], r["setter_rules"],
                     r["rules_reading_derived"], r["cases"], fmt_s(r["generate_s"]), fmt_s(r["load_s"]),
                     f"{ratio(r['load_s'], prev['load_s']):.1f}×" if prev else "-"])
        prev = r
    print(table(["pack rules", "base facts", "derived facts", "questions", "set rules", "rules reading derived",
                 "cases", "generate", "load (core+pack)", "load growth"], rows))
    print()
    for label in ("typical", "dense"):
        rows = []
        prev = None
        for r in res["sizes"]:
            x = r[label]
            g = (lambda k: f"{ratio(x[k], prev[label][k]):.1f}×" if prev else "-")  # noqa: E731, B023 -- called within this iteration
            nq = (f"{fmt_s(x['next_question_s'])} → "
                  f"{x['next_question'] or ('None, decided' if x['decided'] else 'None')}")
            rows.append([r["rules"], x["facts_given"], x["firings"], x["derived"], fmt_s(x["run_s"]), g("run_s"), nq,
                         x["candidates"], fmt_s(x["candidates_cold_s"]), fmt_s(x["candidates_s"]), g("candidates_s")])
            prev = r
        print(f"{label} facts:")
        print(table(["pack rules", "facts given", "rules fired", "facts derived", "run()", "run growth",
                     "next_question() → asks", "open questions scored", "scoring cold", "scoring warm",
                     "scoring growth"], rows))
        print()
    if len(res["sizes"]) > 1:
        first, last = res["sizes"][0], res["sizes"][-1]
        k = last["rules"] / first["rules"]
        print(f"Over {first['rules']}→{last['rules']} rules ({k:.0f}×): run() typical "
              f"{ratio(last['typical']['run_s'], first['typical']['run_s']):.0f}×, dense "
              f"{ratio(last['dense']['run_s'], first['dense']['run_s']):.0f}×, question scoring typical "
              f"{ratio(last['typical']['candidates_s'], first['typical']['candidates_s']):.0f}×, dense "
              f"{ratio(last['dense']['candidates_s'], first['dense']['candidates_s']):.0f}×, load "
              f"{ratio(last['load_s'], first['load_s']):.0f}× (linear would be {k:.0f}×; the core's "
              f"{res['core_rules']} rules are in every size).")
    t = res["target"]
    print(f"Target run() ≤ {fmt_s(t['run_target_s'])} at {t['at_rules']} rules: typical {fmt_s(t['typical_run_s'])} "
          f"({'met' if t['met_typical'] else 'MISSED'}; wall {fmt_s(t['typical_run_wall_s'])}), dense "
          f"{fmt_s(t['dense_run_s'])} ({'met' if t['met_dense'] else 'MISSED'}; wall {fmt_s(t['dense_run_wall_s'])}).")
    if res.get("load_profile"):
        lp = res["load_profile"]
        print(f"\nload_kb() at {lp['rules']} pack rules under cProfile: {fmt_s(lp['total_s'])}; cumulative: "
              + ", ".join(f"{k} {fmt_s(v)} ({v / lp['total_s']:.0%})" for k, v in
                          sorted(lp["parts"].items(), key=lambda kv: -kv[1])))
    if res.get("profile"):
        print(f"\ncProfile at {t['at_rules']} rules (top by own time):")
        for label, p in res["profile"].items():
            print(f"\n  {label}: {fmt_s(p['total_s'])} under the profiler")
            print(table(["function", "calls", "tottime", "cumtime"],
                        [[x["function"], x["calls"], fmt_s(x["tottime_s"]), fmt_s(x["cumtime_s"])]
                         for x in p["top"][:10]]))


# =========================================================================== (c) questions per diagnosis
COMPLAINTS = {
    "not_learning": "my model isn't learning, the loss is flat from the start",
    "plateau": "the loss dropped then plateaued",
    "instability": "the loss is oscillating and unstable",
    "explosion": "the loss went to NaN",
    "overfitting": "training accuracy is great but validation accuracy is bad, it overfits",
    "slow_training": "training is too slow",
}

#: what a user with an ordinary, working setup reports (the oracle's defaults)
BASE_ANSWERS = {
    "learning_rate": 1e-3, "optimizer": "adam", "batch_size": 64, "scheduler": "cosineannealinglr",
    "scheduler_step_per_batch": False, "uses_amp": False, "custom_loss": False, "grads_have_nan": False,
    "zero_grad_called": True, "weight_decay": 0.01, "dropout_p": 0.1, "output_activation": "none",
    "loss_function": "cross_entropy", "task_type": "classification", "inputs_have_nan": False,
    "inputs_normalized": True, "shuffle": True, "model_mode_in_validation": "eval", "init_constant": False,
    "frozen_params": [], "params_without_grad": [], "params_not_in_optimizer": [],
    "regularization": ["weight_decay", "dropout"], "num_workers": 4, "data_time_fraction": 0.05,
    "gpu_utilization": 0.9, "train_size": 50000, "val_size": 10000,
}

#: what anyone with the symptom observes, whatever the cause
SYMPTOM_ANSWERS = {
    "not_learning": {"current_loss": 2.302, "num_classes": 10, "train_accuracy": 0.10, "val_accuracy": 0.10},
    "plateau": {"current_loss": 0.9, "num_classes": 10, "train_accuracy": 0.72, "val_accuracy": 0.70},
    "instability": {"num_classes": 10},
    "explosion": {"grads_have_nan": True},
    "overfitting": {"train_accuracy": 0.99, "val_accuracy": 0.70, "current_loss": 0.02, "num_classes": 10},
    "slow_training": {"current_loss": 0.4, "num_classes": 10, "train_accuracy": 0.88, "val_accuracy": 0.86},
}

#: the bug: fact values a user with this root cause would report (overriding the defaults)
ORACLE = {
    "lr_too_low": {"learning_rate": 1e-7},
    "lr_too_high": {"learning_rate": 0.1, "oscillation_pattern": "spikes", "oscillation_trend": "growing",
                    "nan_first_step": 300},
    "frozen_parameters": {"frozen_params": ["encoder.weight", "encoder.bias", "head.weight"]},
    "params_not_in_optimizer": {"params_not_in_optimizer": ["blocks.0.weight", "blocks.1.weight"]},
    "broken_gradient_flow": {"params_without_grad": ["fc1.weight", "fc1.bias"]},
    "bad_initialization": {"init_constant": True},
    "double_softmax": {"output_activation": "softmax", "loss_function": "cross_entropy"},
    "wrong_loss_function": {"loss_function": "mse", "output_activation": "none"},
    "over_clipping": {"clip_max_norm": 0.001},
    "excessive_regularization": {"weight_decay": 0.8, "dropout_p": 0.8},
    "lr_schedule_collapse": {"scheduler": "steplr", "scheduler_step_per_batch": True},
    "missing_lr_decay": {"scheduler": "none"},
    "batch_too_small": {"batch_size": 2, "oscillation_pattern": "noisy", "oscillation_trend": "steady",
                        "gpu_utilization": 0.3},
    "missing_zero_grad": {"zero_grad_called": False, "oscillation_trend": "growing"},
    "unnormalized_inputs": {"inputs_normalized": False, "oscillation_pattern": "spikes"},
    "unshuffled_data": {"shuffle": False, "oscillation_pattern": "periodic", "oscillation_trend": "steady"},
    "exploding_gradients": {"nan_first_step": 1500, "learning_rate": 3e-3},
    "numerical_instability": {"custom_loss": True, "nan_first_step": 800},
    "nan_in_inputs": {"inputs_have_nan": True, "nan_first_step": 0},
    "fp16_overflow": {"uses_amp": True, "nan_first_step": 50, "oscillation_pattern": "spikes"},
    "insufficient_regularization": {"regularization": [], "train_size": 1500, "val_size": 300, "weight_decay": 0.0,
                                    "dropout_p": 0.0},
    "train_eval_mode_mismatch": {"model_mode_in_validation": "train", "regularization": ["dropout", "batchnorm"]},
    "data_loading_bottleneck": {"data_time_fraction": 0.7, "gpu_utilization": 0.3, "num_workers": 0},
}

#: (symptom, true root cause) pairs simulated
SCENARIOS = [
    ("not_learning", "lr_too_low"), ("not_learning", "frozen_parameters"), ("not_learning", "params_not_in_optimizer"),
    ("not_learning", "broken_gradient_flow"), ("not_learning", "bad_initialization"), ("not_learning",
                                                                                       "double_softmax"),
    ("not_learning", "wrong_loss_function"), ("not_learning", "over_clipping"),
    ("not_learning", "excessive_regularization"),
    ("plateau", "missing_lr_decay"), ("plateau", "lr_schedule_collapse"), ("plateau", "excessive_regularization"),
    ("plateau", "lr_too_high"),
    ("instability", "lr_too_high"), ("instability", "batch_too_small"), ("instability", "unshuffled_data"),
    ("instability", "missing_zero_grad"), ("instability", "unnormalized_inputs"), ("instability", "fp16_overflow"),
    ("explosion", "lr_too_high"), ("explosion", "nan_in_inputs"), ("explosion", "numerical_instability"),
    ("explosion", "fp16_overflow"), ("explosion", "exploding_gradients"), ("explosion", "missing_zero_grad"),
    ("overfitting", "insufficient_regularization"), ("overfitting", "train_eval_mode_mismatch"),
    ("slow_training", "data_loading_bottleneck"), ("slow_training", "batch_too_small"),
]


def applicable_questions(kb, symptom: str) -> list[str]:
    """Questions (besides loss_behavior) whose answer can reach, through derived facts too, a rule
    that supports one of the symptom's listed causes and is not gated on another symptom. The symptom
    is taken as settled: the walk does not go on through rules that (re)derive ``symptom``."""
    causes = set(kb.symptoms[symptom].get("priors", {}))
    out = []
    for qid, q in kb.questions.items():
        if qid == "loss_behavior":
            continue
        seen, frontier, hit = set(q["facts"]), list(q["facts"]), False
        while frontier and not hit:
            fact = frontier.pop()
            for rule in kb.rules_by_fact.get(fact, ()):
                if _gated_elsewhere(rule.when, symptom):
                    continue
                if any(c in causes and lr > 1 for c, lr in rule.evidence):
                    hit = True
                    break
                for o in rule.sets:
                    if o not in seen and o != "symptom":
                        seen.add(o)
                        frontier.append(o)
        if hit:
            out.append(qid)
    return out


def _gated_elsewhere(cond: dict, symptom: str) -> bool:
    """The condition requires (at top level, or in a top-level ``all``) a different symptom."""
    atoms = cond["all"] if "all" in cond else [cond]
    for a in atoms:
        if a.get("fact") == "symptom":
            if "eq" in a and a["eq"] != symptom:
                return True
            if "in" in a and symptom not in a["in"]:
                return True
    return False


def simulate(kb, symptom: str, cause: str) -> dict:
    from traindx.engine.api import Session
    answers = {**BASE_ANSWERS, **SYMPTOM_ANSWERS[symptom], **ORACLE[cause]}
    s = Session(kb)
    s.add_complaint(COMPLAINTS[symptom])
    asked, skipped = [], []
    while len(asked) < 60:
        q = s.next_question()
        if q is None:
            break
        qid = q["id"]
        asked.append(qid)
        if qid == "loss_behavior":
            s.answer(qid, symptom)
            continue
        vals = [answers.get(f, MISSING) for f in q["facts"]]
        if all(v is MISSING for v in vals):
            s.answer(qid, "skip")
            skipped.append(qid)
        elif len(vals) == 1:
            s.answer(qid, vals[0])
        else:
            s.answer(qid, ["skip" if v is MISSING else v for v in vals])
    report = s.report()
    top = report["root_causes"][0] if report["root_causes"] else None
    return {"symptom": symptom, "cause": cause, "symptom_found": s.symptom(), "asked": asked, "skipped": skipped,
            "top": top["id"] if top else None, "confidence": top["confidence"] if top else 0.0,
            "correct": bool(top) and top["id"] == cause, "status": report["status"]}


def bench_questions() -> dict:
    from traindx.engine.loader import load_kb
    kb = load_kb()
    rows = []
    per_symptom = {}
    for sym in SYMPTOMS:
        seed_qs = list(kb.symptoms[sym].get("questions", []))
        appl = applicable_questions(kb, sym)
        per_symptom[sym] = {"seed_questions": seed_qs, "applicable": appl}
    for sym, cause in SCENARIOS:
        r = simulate(kb, sym, cause)
        seed_qs = per_symptom[sym]["seed_questions"]
        r.update({"seed_list": len(seed_qs), "applicable": len(per_symptom[sym]["applicable"]),
                  "seed_asked": [q for q in r["asked"] if q in seed_qs]})
        rows.append(r)
    n = len(rows)
    summary = {
        "scenarios": n, "mean_asked": sum(len(r["asked"]) for r in rows) / n,
        "mean_answered": sum(len(r["asked"]) - len(r["skipped"]) for r in rows) / n,
        "mean_seed_list": sum(r["seed_list"] for r in rows) / n,
        "mean_applicable": sum(r["applicable"] for r in rows) / n,
        "questions_in_kb": len(kb.questions),
        "top1_accuracy": sum(r["correct"] for r in rows) / n,
        "mean_confidence_correct": (sum(r["confidence"] for r in rows if r["correct"]) /
                                    max(1, sum(r["correct"] for r in rows))),
        "max_questions": 8,
    }
    by_sym = {}
    for sym in SYMPTOMS:
        rs = [r for r in rows if r["symptom"] == sym]
        if rs:
            by_sym[sym] = {"scenarios": len(rs), "mean_asked": sum(len(r["asked"]) for r in rs) / len(rs),
                           "seed_list": len(per_symptom[sym]["seed_questions"]),
                           "applicable": len(per_symptom[sym]["applicable"]),
                           "correct": sum(r["correct"] for r in rs)}
    return {"rows": rows, "summary": summary, "by_symptom": by_sym, "per_symptom": per_symptom}


def print_questions(res: dict) -> None:
    print("\n## (c) Questions asked per diagnosis (simulated users, core KB)\n")
    rows = []
    for r in res["rows"]:
        rows.append([r["symptom"], r["cause"], len(r["asked"]), len(r["skipped"]),
                     f"{len(r['seed_asked'])}/{r['seed_list']}",
                     r["applicable"], r["top"], "yes" if r["correct"] else "NO", f"{r['confidence']:.2f}", r["status"],
                     " ".join(r["asked"])])
    print(table(["symptom", "true cause", "asked", "skipped", "seed asked/seed list", "applicable", "top cause",
                 "right",
                 "conf", "status", "questions asked (in order)"], rows))
    print()
    rows = [[s, d["scenarios"], f"{d['mean_asked']:.1f}", d["seed_list"], d["applicable"],
             f"{d['correct']}/{d['scenarios']}"]
            for s, d in res["by_symptom"].items()]
    print(table(["symptom", "scenarios", "mean asked", "seed list", "applicable questions", "top right"], rows))
    s = res["summary"]
    print(f"\nMean questions asked {s['mean_asked']:.2f} (answered {s['mean_answered']:.2f}) vs the seed's list "
          f"{s['mean_seed_list']:.2f} and {s['mean_applicable']:.1f} applicable questions of {s['questions_in_kb']} in "
          f"kb/questions.yaml; engine cap {s['max_questions']}. Top cause right in "
          f"{s['top1_accuracy']:.0%} of {s['scenarios']} scenarios; mean confidence when right "
          f"{s['mean_confidence_correct']:.2f}.")
    for sym, d in res["per_symptom"].items():
        print(f"  {sym}: seed list {d['seed_questions']}; "
              f"applicable {len(d['applicable'])}: {' '.join(d['applicable'])}")


# =========================================================================== main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["import", "scale", "questions"], action="append",
                    help="run only this part (repeatable); default all three")
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                    help="pack sizes in rules (default %(default)s)")
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions per measurement (default %(default)s)")
    ap.add_argument("--runs", type=int, default=7,
                    help="subprocess runs per command for wall time (default %(default)s)")
    ap.add_argument("--typical", type=float, default=0.4,
                    help="share of the pack's base facts known in the typical session (default %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-torch-ref", action="store_true", help="skip timing 'import torch' for reference")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile run()/candidates() at the largest size and load_kb() near 1,000 rules "
                    "(done anyway when the run() target is missed)")
    ap.add_argument("--keep", metavar="DIR", help="write the generated packs here and keep them")
    ap.add_argument("--json", metavar="OUT", help="also write all results as JSON")
    args = ap.parse_args(argv)
    parts = args.only or ["import", "scale", "questions"]
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    import platform
    results = {"benchmark": "engine (issue 2)",
               "command": " ".join(["python", "benchmarks/bench_engine.py"]
                                   + (argv if argv is not None else sys.argv[1:])),
               "python": platform.python_version(), "machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}
    results["loadavg_start"] = os.getloadavg()
    print(f"# traindx engine benchmarks — Python {results['python']}, {results['machine']}, "
          f"load average {results['loadavg_start'][0]:.1f} at start")
    if "import" in parts:
        results["import"] = bench_import(args.runs, not args.no_torch_ref)
        print_import(results["import"])
    if "scale" in parts:
        results["scale"] = bench_scale(sizes, args.reps, args.seed, args.keep, args.typical, args.profile)
        print_scale(results["scale"])
    if "questions" in parts:
        results["questions"] = bench_questions()
        print_questions(results["questions"])
    results["loadavg_end"] = os.getloadavg()
    print(f"\nload average at the end: {results['loadavg_end'][0]:.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1, default=str)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
