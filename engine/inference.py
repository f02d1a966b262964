"""The inference engine: working memory, agenda, forward chaining, question selection.

One :class:`Session` is one diagnosis. Facts enter working memory from any source (the user, a
probe, the code/config/log readers) as :class:`~traindx.engine.evidence.Finding`\\ s. Forward
chaining (:meth:`Session.run`) matches every rule against working memory, keeps the activations on
an agenda ordered by one explicit key — salience, then specificity, then file order — fires the
best one, and repeats until quiescent or the step cap. Firing a rule derives facts and adds
likelihood ratios for root causes; :mod:`confidence` turns those into probabilities.

Working memory is rebuilt from the base facts on every run, so a changed answer (``back``)
retracts everything that depended on it. Each rule fires at most once per run (refraction).
"""

from __future__ import annotations

import heapq
import logging
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from . import confidence as cf
from .errors import InputError
from .evidence import Finding
from .loader import KnowledgeBase, Rule, needs_unanswerable
from .values import SKIP_WORDS, ValueProblem, coerce, fmt

log = logging.getLogger("traindx.engine")

#: A bound on work: forward chaining stops after this many rule firings (a loop in a pack's rules).
MAX_STEPS = 100_000
#: The interview's default length (the CLI's and MCP's --max-questions): a limit on the user's
#: time, which the caller sets; the KB's engine.min_gain_bits decides when to stop earlier.
DEFAULT_MAX_QUESTIONS = 8
#: Numeric stability, not knowledge: a question of zero cost is scored as if it cost this much.
_MIN_COST = 1e-9
#: How many leading causes ``Session.leading`` returns by default: presentation.
_LEADING = 3


@dataclass
class Fact:
    name: str
    value: Any
    source: str
    detail: str | None = None

    @property
    def kind(self) -> str:
        return self.source.split(":", 1)[0]


@dataclass
class Firing:
    rule: Rule
    facts: dict              # fact -> Fact read by the rule (known ones)
    derived: dict            # fact -> value set


@dataclass
class RunResult:
    wm: dict
    firings: list
    evidence: list           # (cause, lr, Firing)
    steps: int
    capped: bool = False


@dataclass
class Candidate:
    question: dict
    gain: float
    cost: float
    worlds: dict = field(default_factory=dict)

    @property
    def score(self) -> float:
        return self.gain / max(self.cost, _MIN_COST)


class Session:
    """One diagnosis: add facts, run the rules, ask the next best question, build a report."""

    def __init__(self, kb: KnowledgeBase, *, max_questions: int = DEFAULT_MAX_QUESTIONS,
                 max_steps: int = MAX_STEPS, available_sources: Iterable[str] = ()):
        self.kb = kb
        self.base: dict[str, Fact] = {}
        self.history: list[tuple[str, dict]] = []      # (question id, previous facts) for back
        self.asked: list[str] = []                      # question ids asked of the user, in order
        self.skipped: list[str] = []
        self.conflicts: list[str] = []
        self.notes: list[str] = []
        self.max_questions = max_questions
        self.max_steps = max_steps
        self.available_sources = set(available_sources)
        self.understood = None                          # what the complaint was read as (understand.py)
        self.measurements: dict[str, dict] = {}         # fact -> a finding's measured numbers (extra)
        self._result: RunResult | None = None

    # ------------------------------------------------------------------ facts in
    def add(self, name: str, value, source: str = "user", detail: str | None = None, *,
            from_text: bool = False) -> Fact:
        """Put one fact in working memory (validated and coerced to its declared type)."""
        if name in self.kb.questions and name not in self.kb.facts:
            q = self.kb.questions[name]
            last = None
            for fname, v in zip(q["facts"], _answer_parts(self.kb, q["facts"], value)):
                last = self.add(fname, v, source, detail, from_text=from_text)
            return last
        fact = self.kb.facts.get(name)
        if fact is None:
            raise InputError(f"unknown fact {name!r}", hint="see 'traindx explain' or kb/facts.yaml for the vocabulary")
        try:     # typed text reads as at the question's prompt ("none" for a weight decay)
            v = coerce(fact, value, from_text=from_text, choices=_choices_for(self.kb, name) if from_text else None)
        except ValueProblem as exc:
            raise InputError(str(exc)) from None
        kind = source.split(":", 1)[0]
        twin = _outranking_twin(self, name, v, kind)
        if twin is not None:      # "loss around 4.0" in the words, the excerpt's early 4.49: one quantity
            self.conflicts.append(f"{name}: {fmt(v)} ({source}) vs {twin.name} {fmt(twin.value)} "
                                  f"({twin.source}) — kept {fmt(twin.value)}")
            return twin
        old = self.base.get(name)
        if old is not None and old.value != v and name != "complaint" and _rounded(old.value, v) is not None:
            # "stuck at around 0.4" beside a pasted log's 0.4223: one value, stated to fewer digits —
            # the measured one is kept, whichever came first
            precise, user_first = _rounded(old.value, v), old.kind == "user"
            if (user_first and kind in ("log", "probe") and precise == v) or \
                    (kind == "user" and old.kind in ("log", "probe") and precise == old.value):
                if precise == old.value:
                    return old
                new = Fact(name, v, source, detail)
                self.base[name] = new
                self._result = None
                return new
        if old is not None and old.value != v and name != "complaint":
            msg = f"{name}: {fmt(old.value)} ({old.source}) vs {fmt(v)} ({source})"
            if self._source_rank(kind) < self._source_rank(old.kind):
                self.conflicts.append(msg + f" — kept {fmt(old.value)}")
                return old
            if old.kind != kind:
                self.conflicts.append(msg + f" — kept {fmt(v)}")
        new = Fact(name, v, source, detail)
        self.base[name] = new
        self._result = None
        return new

    def _source_rank(self, kind: str) -> float:
        """Which source wins a disagreement: ``engine.source_rank.KIND`` in the knowledge base."""
        p = self.kb.parameters.get(f"engine.source_rank.{kind}")
        return p["value"] if p else 0

    def add_finding(self, finding: Finding) -> Fact | None:
        """Add a probe/reader finding. Facts outside the vocabulary are noted and ignored."""
        if finding.fact not in self.kb.facts:
            self.notes.append(f"ignored unknown fact {finding.fact!r} from {finding.source}")
            return None
        try:
            kept = _beyond_probe(self, finding)
            fact = kept or self.add(finding.fact, finding.value, finding.source, finding.detail)
            if finding.extra and fact is not None and fact.source == finding.source:
                self.measurements[finding.fact] = dict(finding.extra)
            return fact
        except InputError as exc:
            self.notes.append(f"ignored {finding.fact} from {finding.source}: {exc.message}")
            return None

    def add_findings(self, findings: Iterable[Finding]) -> None:
        for f in findings:
            self.add_finding(f)

    def add_complaint(self, text: str) -> None:
        """The user's own words: stored, and what they say understood (:mod:`understand`): the
        symptom (as ``complaint_symptom``, which curves and probes outrank) and every fact they state
        ("lr 1e-7", "train acc 99% val 55%", "not using AMP"), each with the words it came from.
        Facts already known are kept: an answer or a measurement beats a reading of prose.

        Longer than ``limits.max_text_chars``: an InputError (every rule's pattern runs over it)."""
        limit = self.kb.parameters["limits.max_text_chars"]["value"]
        if limit and len(text) > limit:
            raise InputError(f"the complaint is {len(text)} characters, over the {limit}-character limit",
                             hint="describe the problem in a few sentences; pass logs with --log")
        self.add("complaint", text, "user")
        u = self.understand(text)
        self.understood = u
        if u is not None:
            if u.symptom and "complaint_symptom" in self.kb.facts and "complaint_symptom" not in self.base:
                self.add("complaint_symptom", u.symptom, "user", _from_words(u.symptom_phrase))
            for r in u.facts:
                if r.fact in self.base:
                    continue
                try:
                    self.add(r.fact, r.value, "user", _from_words(r.phrase))
                except InputError:
                    pass
        for fname, regexes in self.kb.extractors.items():        # a pack's legacy `extract:` patterns
            if fname in self.base:
                continue
            for rx in regexes:
                m = rx.search(text)
                if m and m.group("value"):
                    try:
                        self.add(fname, m.group("value"), "user", f"from your words: “{m.group(0).strip()}”",
                                 from_text=True)
                    except InputError:
                        pass
                    break

    def understand(self, text: str):
        """What ``text`` says, read with this knowledge base's language (None without one)."""
        if getattr(self.kb, "language", None) is None:
            return None
        from .understand import understand
        return understand(text, self.kb.language)

    def correct(self, text: str) -> list[Fact]:
        """A one-line correction of what was read ("lr 3e-3", "no, it's a plateau", "not using AMP"):
        read with the same understanding, and every fact it states replaces the one read before.
        A symptom named in it becomes the user's stated symptom."""
        u = self.understand(text)
        if u is None:
            return []
        changed = []
        named = _named_symptom(text, self.kb.symptoms)
        sym = named or u.symptom
        if sym:
            changed.append(self.add("symptom", sym, "user", _from_words(text.strip())))
            self.base.pop("complaint_symptom", None)
        for r in u.facts:
            try:
                changed.append(self.add(r.fact, r.value, "user", _from_words(r.phrase)))
            except InputError:
                pass
        self._result = None
        return changed

    def add_answers(self, answers: dict, source: str = "user", marks=None, path: str | None = None) -> None:
        """An answers file: fact names or question ids -> values."""
        for key, value in answers.items():
            try:
                if key == "complaint":
                    self.add_complaint(str(value))
                    continue
                if key not in self.kb.facts and key not in self.kb.questions:
                    raise InputError(f"unknown fact or question {key!r}",
                                     hint="fact names are listed by 'traindx explain facts'")
                self.add(key, value, source, from_text=isinstance(value, str))
                if key in self.kb.questions:
                    self.asked.append(key)
            except InputError as exc:
                pos = marks.at((key,)) if marks is not None else None
                raise InputError(exc.message, path, *(pos or (None, None)), hint=exc.hint) from None

    def retract(self, name: str) -> None:
        self.base.pop(name, None)
        self._result = None

    # ------------------------------------------------------------------ chaining
    def run(self) -> RunResult:
        """Forward-chain from the base facts to quiescence (cached until a fact changes)."""
        if self._result is not None:
            return self._result
        kb = self.kb
        wm: dict[str, Fact] = dict(self.base)
        values = {k: f.value for k, f in wm.items()}
        fired: set[str] = set()
        firings: list[Firing] = []
        evidence: list = []
        agenda: list = []

        def key(rule: Rule):
            return (-rule.salience, -rule.specificity, rule.order, rule.id)

        def consider(rule: Rule):
            if rule.id not in fired and rule.test(values) is True:
                heapq.heappush(agenda, (key(rule), rule.id))

        debug = log.isEnabledFor(logging.DEBUG)
        for rule in kb.rules.values():
            consider(rule)
        steps = 0
        capped = False
        while agenda:
            _, rid = heapq.heappop(agenda)
            rule = kb.rules[rid]
            if rid in fired or rule.test(values) is not True:
                continue
            if steps >= self.max_steps:
                capped = True
                log.warning("step cap %d reached; stopping", self.max_steps)
                break
            steps += 1
            fired.add(rid)
            read = {f: wm[f] for f in sorted(rule.reads | rule.set_reads) if f in wm}
            derived = {}
            for fname, fn in rule.sets.items():
                if fname in wm:        # base facts and earlier (higher-priority) derivations win
                    continue
                v = fn(values)
                if v is None:
                    continue
                try:
                    v = coerce(kb.facts[fname], v)
                except ValueProblem:
                    continue
                wm[fname] = Fact(fname, v, f"rule:{rid}", _render(rule.explain,
                                                                  values) if rule.explain else rule.description)
                values[fname] = v
                derived[fname] = v
            firing = Firing(rule, read, derived)
            firings.append(firing)
            for cause, lr in rule.evidence:
                evidence.append((cause, lr, firing))
            if debug:
                log.debug("FIRE %s: %s%s", rid, ", ".join(f"{k}={fmt(v.value)}" for k, v in read.items()),
                          f" -> {derived}" if derived else "")
            for fname in derived:
                for dep in kb.rules_by_fact.get(fname, ()):
                    if dep.id not in fired:
                        consider(dep)
        self._result = RunResult(wm, firings, evidence, steps, capped)
        return self._result

    @property
    def facts(self) -> dict[str, Fact]:
        return self.run().wm

    def value(self, name: str):
        f = self.facts.get(name)
        return None if f is None else f.value

    # ------------------------------------------------------------------ beliefs
    def symptom(self) -> str | None:
        return self.value("symptom")

    def deferral(self) -> dict | None:
        values = {k: f.value for k, f in self.facts.items()}
        for did, (test, _deps) in self.kb.compiled_deferrals.items():
            if test(values) is True:
                d = self.kb.deferrals[did]
                found = d["to"] in self.kb.provides()
                return {"id": did, "to": d["to"], "found": found,
                        "message": d["found_message"] if found else d["not_found_message"], "title": d["title"]}
        return None

    def _matched(self, table: dict) -> list[dict]:
        text = self.value("complaint")
        if not text:
            return []
        out = []
        for entry in table.values():
            if any(re.search(p, text, re.IGNORECASE) for p in entry["patterns"]):
                out.append(entry)
        return out

    def misdiagnosis(self) -> dict | None:
        m = self._matched(self.kb.misdiagnoses)
        return m[0] if m else None

    def pressure(self) -> dict | None:
        m = self._matched(self.kb.pressure)
        return m[0] if m else None

    def _symptom_priors(self, symptom: str) -> dict[str, float]:
        s = self.kb.symptoms.get(symptom)
        pri = dict(s.get("priors", {})) if s else {}
        for cid, rc in self.kb.root_causes.items():   # a pack's cause may declare its own prior
            if cid not in pri and symptom in rc.get("priors", {}):
                pri[cid] = rc["priors"][symptom]
        total = sum(pri.values())
        listed = self.kb.param("confidence.listed_prior_max")
        if total > listed:                                   # keep room for "none of these"
            pri = {c: p * listed / total for c, p in pri.items()}
        return pri

    def prior(self) -> dict[str, float]:
        """P(cause) before evidence: the symptom's priors; with no symptom known, uniform (evidence
        such as the code alone carries the diagnosis — no symptom's base rates should), leaning to
        the causes a named misdiagnosis usually hides."""
        symptom = self.symptom()
        causes = self.kb.root_causes
        if symptom:
            return cf.priors(causes, self._symptom_priors(symptom), self.kb.params())
        mis = self.misdiagnosis()
        if mis and mis.get("suspects"):
            share = self.kb.param("confidence.misdiagnosis_suspect_mass") / len(mis["suspects"])
            return cf.priors(causes, {c: share for c in mis["suspects"]}, self.kb.params())
        return cf.priors(causes, None, self.kb.params())

    def posterior(self) -> dict[str, float]:
        return cf.posterior(self.prior(), [(c, lr) for c, lr, _ in self.run().evidence])

    def leading(self, n: int = _LEADING) -> list[tuple[str, float]]:
        return cf.ranked(self.posterior())[:n]

    def decided(self) -> bool:
        lead = self.leading(1)
        return bool(lead) and lead[0][1] >= self.kb.param("confidence.decided")

    # ------------------------------------------------------------------ questions
    def _reachable(self, question: dict, known: dict, fired: set, test) -> list[Rule]:
        """Rules an answer to ``question`` could still fire: those reading its facts, and through the
        facts they derive, those reading those — but never through a fact already known (a known
        fact is not derived again), and never a rule whose condition is already false."""
        seen_facts = set(question["facts"])
        frontier = list(seen_facts)
        rules: dict[str, Rule] = {}
        answerable = self.kb.answerable_facts
        while frontier:
            fact = frontier.pop()
            for rule in self.kb.rules_by_fact.get(fact, ()):
                if rule.id in rules or rule.id in fired or test(rule) is False:
                    continue
                # a rule that also needs a fact no answer can give (one only a probe, the code or a log
                # measures) and that is not known cannot fire from this answer: it adds no value
                if needs_unanswerable(rule.when, known, answerable):
                    continue
                rules[rule.id] = rule
                for out in rule.sets:
                    if out not in seen_facts and out not in known:
                        seen_facts.add(out)
                        frontier.append(out)
        return list(rules.values())

    def candidates(self) -> list[Candidate]:
        """Every question worth asking now, scored by expected information gain per unit cost.

        For each leading hypothesis h, the "world" of h is the evidence the answer would add if h
        were true: every reachable rule that supports h fires. The gain is the drop in expected
        entropy over those worlds (the rest of the mass sees nothing fire)."""
        kb = self.kb
        res = self.run()
        known = res.wm
        if self.deferral() is not None:
            return []
        symptom = self.symptom()
        if symptom is None:
            q = kb.questions.get("loss_behavior")
            if q and "loss_behavior" not in self.skipped:
                return [Candidate(q, gain=1.0, cost=1.0)]
        if symptom == "healthy":
            return []
        dist = self.posterior()
        h_now = cf.entropy(dist)
        values = {k: f.value for k, f in known.items()}
        # every hypothesis still in play gets its world — a cause with a small prior but decisive
        # evidence to come (a pack's new cause, a rare bug) must be able to win a question
        floor = kb.param("engine.question_hypothesis_floor")
        top = {h for h, p in dist.items() if p >= floor}
        fired = {f.rule.id for f in res.firings}
        seed_qs = set(kb.symptoms.get(symptom, {}).get("questions", [])) if symptom else set()
        memo: dict[str, bool | None] = {}

        def test(rule: Rule):
            if rule.id not in memo:
                memo[rule.id] = rule.test(values)
            return memo[rule.id]

        out = []
        for qid, q in kb.questions.items():
            if qid in self.asked or qid in self.skipped or qid == "loss_behavior":
                continue
            if all(f in known for f in q["facts"]):
                continue
            worlds: dict[str, list] = {}
            for r in self._reachable(q, known, fired, test):
                for h in {c for c, lr in r.evidence if lr > 1 and c in top}:
                    worlds.setdefault(h, []).extend(r.evidence)
            if not worlds:
                continue
            gain = h_now - cf.expected_entropy(dist, worlds)
            if qid in seed_qs:
                gain *= self.kb.param("engine.seed_question_bonus")   # the seed's own questions break ties
            cost = self._cost(q)
            out.append(Candidate(q, gain, cost, worlds))
        out.sort(key=lambda c: (-c.score, c.question["id"]))
        return out

    def _cost(self, q: dict) -> float:
        costs = [self.kb.sources[s].get("cost", 1.0) for s in q.get("answered_by", []) if s in self.available_sources]
        ask = q.get("cost", self.kb.param("engine.default_question_cost"))
        return min(costs + [ask]) if costs else ask

    def next_question(self) -> dict | None:
        """The question that best separates the leading hypotheses, or None when done."""
        # a skipped question spends the budget too: a user who does not know ends the interview sooner
        if len(self.asked) + len(self.skipped) >= self.max_questions or (
                self.symptom() is not None and self.decided()):
            return None
        cands = self.candidates()
        if not cands:
            return None
        best = cands[0]
        if best.question["id"] != "loss_behavior" and best.gain < self.kb.param("engine.min_gain_bits"):
            return None
        return best.question

    def answer(self, qid: str, text) -> list[Fact]:
        """Answer question ``qid`` with what the user typed; raise InputError with a re-ask hint.
        Other facts the same words state ("adam with lr 3e-4" to "Which optimizer?") are taken too
        where still open; an answer that states only other facts ("lr 3e-4") leaves the question open."""
        q = self.kb.questions[qid]
        if isinstance(text, str) and text.strip().lower() in SKIP_WORDS:
            self.skip(qid)
            return []
        facts = q["facts"]
        parts = _answer_parts(self.kb, facts, text)
        if len(parts) > len(facts):
            raise InputError(f"expected at most {len(facts)} value(s): {', '.join(facts)}")
        coerced, also = [], []
        still_open = [f for f in facts if self.value(f) is None]
        for fname, part in zip(still_open if 0 < len(parts) == len(still_open) < len(facts) else facts, parts):
            if isinstance(part, str) and part.strip().lower() in SKIP_WORDS:
                continue
            value, others = _typed_value(self, q, fname, part, whole=len(facts) == 1)
            if value is not _STILL_OPEN:
                coerced.append((fname, value))
            also.extend(r for r in others if r.fact not in facts and self.value(r.fact) is None)
        previous = {f: self.base.get(f) for f in [*facts, *(r.fact for r in also)]}
        added = [self.add(fname, v, "user") for fname, v in coerced]
        for r in also:
            try:
                added.append(self.add(r.fact, r.value, "user", _from_words(r.phrase)))
            except InputError:   # a value the fact's range refuses: the words misread, not taken
                pass
        self.history.append((qid, previous))
        if (coerced or not also) and qid not in self.asked:
            self.asked.append(qid)
        return added

    def skip(self, qid: str) -> None:
        if qid not in self.skipped:
            self.skipped.append(qid)
        self.history.append((qid, {}))

    def back(self) -> str | None:
        """Undo the last answer; return the question id to ask again."""
        if not self.history:
            return None
        qid, previous = self.history.pop()
        if qid in self.skipped:
            self.skipped.remove(qid)
        if qid in self.asked:
            self.asked.remove(qid)
        for fname, old in previous.items():
            if old is None:
                self.base.pop(fname, None)
            else:
                self.base[fname] = old
        self._result = None
        return qid

    # ------------------------------------------------------------------ state
    def to_state(self) -> dict:
        """Everything needed to resume (JSON-safe)."""
        from .values import json_safe
        return {"facts": [{"name": f.name, "value": json_safe(f.value), "source": f.source, "detail": f.detail}
                          for f in self.base.values()],
                "asked": self.asked, "skipped": self.skipped, "conflicts": self.conflicts}

    @classmethod
    def from_state(cls, kb: KnowledgeBase, state: dict, **kw) -> Session:
        s = cls(kb, **kw)
        for f in state.get("facts", []):
            if f["name"] in kb.facts:
                s.base[f["name"]] = Fact(f["name"], coerce(kb.facts[f["name"]], f["value"]), f["source"],
                                         f.get("detail"))
        s.asked = list(state.get("asked", []))
        s.skipped = list(state.get("skipped", []))
        s.conflicts = list(state.get("conflicts", []))
        return s


def _beyond_probe(session: Session, finding: Finding) -> Fact | None:
    """A reader's number that holds more than a live probe can measure (``extra["beyond_probe"]``: an L2
    penalty written into the loss is weight decay the optimizer's own ``weight_decay``, which the probe
    reads, does not show) outranks a smaller probe reading of the same fact, whichever comes first.
    Returns the fact kept, or None where the usual ranking of sources applies."""
    old, name, kind = session.base.get(finding.fact), finding.fact, finding.kind
    if old is None or not all(isinstance(v, int | float) and not isinstance(v, bool)
                              for v in (old.value, finding.value)):
        return None
    if kind == "probe" and old.kind != "probe" and finding.value < old.value \
            and session.measurements.get(name, {}).get("beyond_probe"):
        keep = old
    elif old.kind == "probe" and kind != "probe" and finding.value > old.value and finding.extra.get("beyond_probe"):
        keep = Fact(name, finding.value, finding.source, finding.detail)
        session.base[name] = keep
        session._result = None
    else:
        return None
    why = (finding.extra if keep.source == finding.source else session.measurements.get(name, {})).get("why")
    session.conflicts.append(f"{name}: {fmt(old.value)} ({old.source}) vs {fmt(finding.value)} ({finding.source}) "
                             f"— kept {fmt(keep.value)}" + (f": {why}" if why else ""))
    return keep


_STILL_OPEN = object()   # an answer that gave other facts, not the one asked


def _typed_value(session: Session, q: dict, fname: str, part, *, whole: bool):
    """The value typed for ``fname`` and the readings of other facts in the same words (``whole``: the
    answer is the whole text of a one-fact question). A name fact (``is_name``: an optimizer, a
    scheduler) takes the name the understanding reads ("torch.optim.SGD, lr 0.1" -> sgd); a value
    that does not fit ("3e-4" is no optimizer name), but states other
    facts, leaves the question open (_STILL_OPEN); otherwise InputError says what would fit."""
    fact = session.kb.facts[fname]
    text = isinstance(part, str)
    u = session.understand(part) if text and whole else None
    read = [r.value for r in (u.facts if u else []) if r.fact == fname]
    others = [r for r in (u.facts if u else []) if r.fact != fname]
    try:
        value = coerce(fact, part, from_text=text, choices=q.get("choices"))
    except ValueProblem as exc:
        if fname == "symptom" and text:   # a symptom in the user's own words ("it went down, then stopped")
            said = session.understand(part)
            if said is not None and said.symptom is not None:
                return said.symptom, []
        if read:      # "yes, bf16" to "mixed precision?": the words say it, with more than a plain yes
            return read[0], others
        if others:
            return _STILL_OPEN, others
        raise InputError(str(exc), hint=None if fact["type"] == "enum" else q.get("hint")) from None
    if not (fact.get("is_name") and text) or value in (q.get("choices") or {}):
        return value, others
    if read:
        return read[0], others
    return (_STILL_OPEN if others else value), others   # "lr 3e-4" to "Which optimizer?" names none


def _from_words(phrase) -> str | None:
    return f"from your words: “{phrase}”" if phrase else "from your words"


def _named_symptom(text: str, symptoms: dict) -> str | None:
    """A symptom the text names by id or by the seed's name ("plateau", "not_learning", "Loss NaN/Inf")."""
    low = " ".join(text.lower().replace("_", " ").split())
    for sid, s in symptoms.items():
        names = {sid.replace("_", " "), s.get("name", "").lower(), s.get("category", "").lower()}
        if any(n and re.search(r"(?<![a-z])" + re.escape(n) + r"(?![a-z])", low) for n in names):
            if not re.search(r"\b(?:not|no|isn't|n't)\s+(?:an?\s+)?" + re.escape(sid.replace("_", " ")), low):
                return sid
    return None


def _choices_for(kb, fact: str) -> dict | None:
    """The choice words of the question that asks for ``fact`` alone, if any."""
    return next((q["choices"] for q in kb.questions.values() if q["facts"] == [fact] and q.get("choices")), None)


def _answer_parts(kb, facts: list, text) -> list:
    """What was typed for each of a question's facts, in order. For a question of numbers only, words
    label the numbers and are dropped ("loss 1.61, 5 classes", "train 0.99 val 0.55", "about 1.6").
    Fewer parts than facts fill the facts still open, in order ("1.61" when the classes are known)."""
    if len(facts) == 1:
        return [text]
    if isinstance(text, (list, tuple)):
        return list(text)
    parts = split_answer(str(text))
    if all(kb.facts[f]["type"] in ("number", "integer") for f in facts):
        parts = [p for p in parts if any(ch.isdigit() for ch in p) or p.lower() in SKIP_WORDS] or parts
    return parts


def split_answer(text: str) -> list[str]:
    """One typed answer to a multi-fact question: "2.302, 10" / "2.302 and 10" -> parts in fact order."""
    return [p for p in re.split(r"\s*(?:,|;|\band\b|\s)\s*", text.strip()) if p]


_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def _render(template: str, values: dict) -> str:
    """Replace {fact} with its value — plain substitution, no attribute access, no code."""
    return _PLACEHOLDER.sub(lambda m: fmt(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def placeholders(template: str) -> list[str]:
    """The fact names a template's ``{fact}`` placeholders name, in order."""
    return _PLACEHOLDER.findall(template)


def render(template: str | None, values: dict) -> str | None:
    return _render(template, values) if template else template


def _decimals(x) -> int:
    """How many decimals ``x`` is written to (0.4 -> 1, 4.0 -> 1, 1e-05 -> 5, 3 -> 0)."""
    text = str(x) if isinstance(x, int) else repr(float(x))
    mantissa, _, exp = text.partition("e")
    d = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return max(0, d - int(exp)) if exp else d


def _outranking_twin(session, name: str, v, kind: str):
    """A fact naming the same quantity as ``name`` (kb/language ``same_quantity``: the training
    loss is the current loss) that a higher-ranked source stated with another value (not the same
    value rounded): it stands, and ``v`` is not taken. None otherwise."""
    lang = getattr(session.kb, "language", None)
    for other in (getattr(lang, "same_quantity", None) or {}).get(name, ()):
        f = session.base.get(other)
        if f is None or f.value == v or _rounded(f.value, v) is not None:
            continue
        if isinstance(f.value, bool) or not isinstance(f.value, (int, float)):
            continue
        if session._source_rank(kind) < session._source_rank(f.kind):
            return f
    return None


def _rounded(a, b):
    """The more precise of two numbers when the other is it rounded (0.4 and 0.4223 -> 0.4223;
    4.0 and 4.4874 -> None); None for anything else (booleans, strings, values that differ)."""
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) \
            or not isinstance(b, (int, float)):
        return None
    da, db = _decimals(a), _decimals(b)
    if da == db:
        return None
    coarse, fine = (a, b) if da < db else (b, a)
    return fine if abs(fine - coarse) <= 0.5 * 10 ** -min(da, db) + 1e-12 else None
