"""``traindx kb test``: run the test cases kept beside every rule, and the end-to-end cases.

A rule case says: given these facts, this rule fires (or not), and optionally which root cause
ends on top, which must not, the symptom, the status and a minimum confidence. End-to-end cases
(``kind: cases`` files) say the same of a whole diagnosis. A rule without a case is a load error.
"""

from __future__ import annotations

from dataclasses import dataclass

from .loader import KnowledgeBase


@dataclass
class CaseResult:
    where: str
    name: str
    ok: bool
    message: str = ""


def _session(kb, given: dict):
    from .api import Session
    s = Session(kb)
    facts = dict(given)
    complaint = facts.pop("complaint", None)
    if complaint:
        s.add_complaint(complaint)
    s.add_answers(facts)
    return s


def check_case(kb: KnowledgeBase, case: dict, rule_id: str | None = None) -> list[str]:
    """Return the list of failed expectations for one case (empty = pass)."""
    problems = []
    s = _session(kb, case["given"])
    if rule_id is not None and "fires" in case:
        fired = any(f.rule.id == rule_id for f in s.run().firings)
        if fired != case["fires"]:
            problems.append(f"expected the rule {'to fire' if case['fires'] else 'not to fire'}")
    needs_report = any(k in case for k in ("top", "not_top", "status", "min_confidence"))
    report = s.report() if needs_report else None
    top = report["root_causes"][0] if report and report["root_causes"] else None
    if "top" in case:
        got = top["id"] if top else None
        if got != case["top"]:
            ranking = ", ".join(f"{c['id']} {c['confidence']}" for c in report["root_causes"][:3])
            problems.append(f"expected top cause {case['top']}, got {got} ({ranking})")
    for bad in case.get("not_top", []):
        if top and top["id"] == bad:
            problems.append(f"{bad} must not be the top cause")
    if "symptom" in case and s.symptom() != case["symptom"]:
        problems.append(f"expected symptom {case['symptom']}, got {s.symptom()}")
    if "status" in case and report["status"] != case["status"]:
        problems.append(f"expected status {case['status']}, got {report['status']}")
    if "min_confidence" in case:
        got = top["confidence"] if top else 0.0
        if got < case["min_confidence"]:
            problems.append(f"expected confidence ≥ {case['min_confidence']}, got {got}")
    return problems


def run_cases(kb: KnowledgeBase) -> list[CaseResult]:
    results = []
    for rid, rule in kb.rules.items():
        for i, case in enumerate(rule.cases):
            name = case.get("name") or f"{rid} case {i + 1}"
            try:
                problems = check_case(kb, case, rid)
            except Exception as exc:  # a case that cannot even run is a failed case, reported as such
                problems = [f"error: {exc}"]
            results.append(CaseResult(f"{rule.origin}", name, not problems, "; ".join(problems)))
    lang = getattr(kb, "language", None)
    for symptom, text, where in (lang.examples if lang is not None else []):
        # a language example is a case: the understanding reads it as its symptom, by its phrasings
        from .understand import understand
        u = understand(text, lang)
        ok = u.symptom == symptom
        msg = "" if ok else f"expected {symptom}, read {u.symptom} ({u.how}; scores {u.scores})"
        results.append(CaseResult(where, f"language example {text[:50]!r}", ok, msg))
    for case in kb.cases:
        try:
            problems = check_case(kb, case)
        except Exception as exc:
            problems = [f"error: {exc}"]
        results.append(CaseResult(str(case["_origin"]), case["name"], not problems, "; ".join(problems)))
    return results
