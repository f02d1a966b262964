"""The Python API for embedding traindx in other tools — no terminal, no torch.

    from traindx.engine.api import load_kb, Session
    kb = load_kb()                       # core knowledge base (+ packs: load_kb(["my_pack/"]))
    s = Session(kb)
    s.add_complaint("loss went to NaN at step 200")
    s.add("grads_have_nan", True, source="probe:grad_norms")
    q = s.next_question()                # dict with id/text/hint, or None when decided
    s.answer(q["id"], "no")
    report = s.report()                  # dict (schemas/report.schema.json)
    print(s.markdown())

Findings from probes and readers go in with ``s.add_findings([...])``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import InputError
from .evidence import Finding
from .inference import Session as _Session
from .loader import KnowledgeBase, load_kb
from .markdown import render_markdown
from .report import build_report

__all__ = ["load_kb", "Session", "Finding", "KnowledgeBase", "diagnose"]


def _expect(ok: bool, what: str, got, path=None) -> None:
    """An argument of the wrong type from a caller of the API: an InputError saying what was expected
    (not an AttributeError from deep inside)."""
    if not ok:
        raise InputError(f"{what}, got {type(got).__name__}", path)


class Session(_Session):
    """A diagnosis session (see :class:`traindx.engine.inference.Session`) with report helpers and
    the API's argument checks."""

    def add_answers(self, answers, source: str = "user", marks=None, path: str | None = None) -> None:
        _expect(isinstance(answers, Mapping), "answers are a mapping of fact names or question ids to values",
                answers, path)
        super().add_answers(answers, source, marks, path)

    def add_finding(self, finding):
        _expect(isinstance(finding, Finding), "a finding is a traindx Finding(fact, value, source)", finding)
        return super().add_finding(finding)

    def add_complaint(self, text) -> None:
        _expect(isinstance(text, str), "the complaint is text", text)
        super().add_complaint(text)

    def report(self) -> dict:
        """The report as a dict matching ``schemas/report.schema.json``."""
        return build_report(self)

    def markdown(self) -> str:
        """The report as Markdown (the seed's Output Format)."""
        return render_markdown(self.report())

    def why(self, qid: str) -> str:
        from .explain import why
        return why(self, qid)

    def how(self, cause: str | None = None) -> str:
        from .explain import how
        return how(self, cause)


def diagnose(facts: dict | None = None, *, complaint: str | None = None, findings=(),
             kb: KnowledgeBase | None = None) -> dict:
    """One-shot, non-interactive diagnosis: facts (name -> value), complaint, findings -> report dict."""
    s = Session(kb or load_kb())
    if complaint:
        s.add_complaint(complaint)
    s.add_answers(facts or {})
    s.add_findings(findings)
    return s.report()
