"""The Markdown report: the seed's Output Format, in the seed's order, then the protocol sections.

Symptom Identified, Diagnostic Questions Asked, Root Cause (Category, Specific Issue, Evidence),
Fix, What NOT to Do, Reference — then Confidence Assessment, Risk Assessment, Information Gaps and
Caveats. Rendered from the report dict alone, so JSON and Markdown never disagree.
"""

from __future__ import annotations

from .values import fmt

SOURCE_WORDS = {"user": "you", "probe": "probe", "code": "code", "config": "config", "log": "log", "rule": "derived"}


def where(source: str) -> str:
    kind, _, rest = source.partition(":")
    word = SOURCE_WORDS.get(kind, kind)
    return f"{word}: {rest}" if rest else word


def _experiments(out: list, report: dict) -> None:
    exps = report.get("experiments") or []
    if not exps:
        return
    out += ["", "**Experiments on copies** (the run itself untouched):"]
    for e in exps:
        out.append(f"- `{e['id']}`: {e['result']}")


def _head(out: list, report: dict) -> None:
    """Title, a pressure response, a common misdiagnosis, the sources read."""
    out += ["## Training Diagnosis", ""]
    if report.get("pressure"):
        out += [f"> {report['pressure']['response']}", ""]
    if report.get("misdiagnosis"):
        m = report["misdiagnosis"]
        out += [f"> **Common misdiagnosis** — you think: *{m['user_thinks']}*; usually it is: "
                f"*{m['usually_actually']}*. {m['message']}", ""]

    for line in report.get("sources_read") or []:
        out.append(f"*{line}*  ")
    if report.get("sources_read"):
        out.append("")


def _symptom_sections(out: list, report: dict) -> None:
    """Symptom, conflicting sources, the scope note of a deferral."""
    out += ["### Symptom Identified", ""]
    sym = report.get("symptom")
    if sym:
        out.append(f"**{sym['name']}** — {sym['category']} (`{sym['id']}`)")
        if sym.get("predicted"):
            out.append(f"*Predicted, not observed* — {sym['how']}.")
        for e in sym.get("evidence", []):
            out.append(f"- {e['fact']} = {fmt(e['value'])} ({where(e['source'])})")
    else:
        out.append("Not identified yet — the loss behaviour is unknown.")
    out.append("")

    for c in report.get("conflicts") or []:
        out.append(f"**Sources disagree:** {c['message']}")
    if report.get("conflicts"):
        out.append("")

    if report.get("deferral"):
        d = report["deferral"]
        out += ["### Scope", "", d["message"], ""]


def _questions_section(out: list, report: dict) -> None:
    """The diagnostic questions answered, with where each answer came from."""
    out += ["### Diagnostic Questions Asked", ""]
    qs = report.get("questions", [])
    if qs:
        for i, q in enumerate(qs, 1):
            src = where(q["where"]) if q.get("where") else q["source"]
            out.append(f"{i}. {q['text']} → {q['answer']} ({src})")
    else:
        out.append("None answered.")
    out.append("")


def _root_cause_section(out: list, report: dict) -> None:
    """The diagnosed cause and its evidence, a healthy run's normal behaviours, or the leads."""
    status = report["status"]
    out += ["### Root Cause", ""]
    causes = report.get("root_causes", [])
    if status == "diagnosed" and causes:
        top = causes[0]
        out.append(f"**Category:** {top['category']}")
        out.append(f"**Specific Issue:** {top['name']} (`{top['id']}`, confidence {top['confidence']:.2f}) — "
                   f"{top['specific_issue']}")
        out.append("**Evidence:**")
        for e in top["evidence"]:
            out.append(f"- {e['fact']} = {fmt(e['value'])} ({where(e['source'])}) — {e.get('effect', '')}"
                       + (f": {e['detail']}" if e.get("detail") else ""))
        _experiments(out, report)
        if len(causes) > 1:
            out.append("")
            out.append("Other candidates: " + ", ".join(f"`{c['id']}` {c['confidence']:.2f}" for c in causes[1:]))
    elif status == "healthy":
        out.append("None — training looks healthy.")
        for b in (report.get("normal") or {}).get("behaviours", []):
            out.append("")
            out.append(f"**{b['title']}** is normal: {b['why']}")
            out.append("")
            out.append("It would be a problem if:")
            out += [f"- {x}" for x in b["abnormal_if"]]
    elif status == "out_of_scope":
        out.append("Not diagnosed here (out of scope).")
    else:
        out.append("Not determined — not enough evidence.")
        if causes:
            out.append("Leading hypotheses: " + ", ".join(f"`{c['id']}` {c['confidence']:.2f}" for c in causes[:3]))
        _experiments(out, report)
    out.append("")


def _fix_section(out: list, report: dict) -> None:
    """The fix: steps, code, how to verify, whether a copy verified it, the patch."""
    out += ["### Fix", ""]
    fix = report.get("fix")
    if fix:
        for line in fix.get("tailored") or []:
            out += [f"**Given your setup:** {line}", ""]
        out.append(fix["summary"])
        out.append("")
        for i, s in enumerate(fix.get("steps") or [], 1):
            out.append(f"{i}. {s}")
        out += ["", "```python", fix["code"].rstrip(), "```"]
        if fix.get("verify"):
            out += ["", f"Verify: {' '.join(fix['verify'].split())}"]
        v = fix.get("verified")
        if v:
            word = "yes" if v["on_copy"] else f"no ({v['outcome']})"
            out += ["", f"**Verified on a copy:** {word} — {v['effect']}"]
        elif report.get("experiments"):
            out += ["", "**Verified on a copy:** not tried (none of the experiments run applies this fix)."]
        if report.get("patch"):
            p = report["patch"]
            head = f"**Patch** for `{p['file']}`" + (f" (written to `{p['written_to']}`; apply with `{p['apply']}`)"
                                                    if p.get("written_to") else "")
            out += ["", head + ":", "", "```diff", p["diff"].rstrip(), "```"]
    else:
        out.append("No fix without a diagnosis — close the information gaps below first.")
    out.append("")


def _closing_sections(out: list, report: dict) -> None:
    """What not to do, reference, confidence, risk, information gaps, caveats."""
    status = report["status"]
    causes = report.get("root_causes", [])
    out += ["### What NOT to Do", ""]
    out += [f"- {w}" for w in report.get("what_not_to_do",
                                         [])] or ["- Change things at random before the cause is known."]
    out.append("")

    out += ["### Reference", ""]
    ref = report.get("reference")
    out.append(f"Load: `{ref}` (`traindx reference {ref}`)" if ref else "—")
    if report.get("plot"):
        out += ["", f"![loss curves]({report['plot']})"]
    out.append("")

    out += ["### Confidence Assessment", "", report.get("confidence_assessment") or "—", ""]
    if status == "diagnosed" and causes and causes[0].get("contributions"):
        out.append(f"How {causes[0]['id']} reached {causes[0]['confidence']:.2f} (prior {causes[0]['prior']:.2f}):")
        for c in causes[0]["contributions"]:
            out.append(f"- ×{c['factor']:g} {c['effect']} — {c['because']} (rule `{c['rule']}`)")
        out.append("")
    out += ["### Risk Assessment", "", report.get("risk_assessment") or "—", ""]
    out += ["### Information Gaps", ""]
    out += [f"- {g}" for g in report.get("information_gaps", [])] or ["- None that would change the diagnosis."]
    out.append("")
    out += ["### Caveats", ""]
    out += [f"- {c}" for c in report.get("caveats", [])] or ["- None."]
    out.append("")


def render_markdown(report: dict) -> str:
    """The report (contract section 6) as the seed's Markdown sections."""
    out: list = []
    for section in (_head, _symptom_sections, _questions_section, _root_cause_section, _fix_section,
                    _closing_sections):
        section(out, report)
    return "\n".join(out)
