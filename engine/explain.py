"""Explanations: ``why`` at a question, ``how`` for a conclusion, ``explain ID`` for any entity.

``why`` (EMYCIN's) says what is already known, which hypotheses lead, and what this answer would
decide. ``how`` gives the provenance chain of a conclusion: which rules fired, from which facts,
from which sources. ``explain`` prints an entity's fixed fields, like ``ruff rule``.
"""

from __future__ import annotations

import textwrap

from . import confidence as cf
from .conditions import condition_text
from .values import fmt


def _where(source: str) -> str:
    from .markdown import where
    return where(source)


def why(session, qid: str) -> str:
    kb = session.kb
    q = kb.questions[qid]
    lines = []
    known = [f for f in session.facts.values() if f.name != "complaint" and f.kind != "rule"]
    sym = session.symptom()
    if sym:
        lines.append(f"Known: symptom {kb.symptoms[sym]['name'].lower()} ({sym}).")
    if known:
        lines.append("Facts: " + ", ".join(f"{f.name}={fmt(f.value)} ({_where(f.source)})" for f in known[:8]))
    lead = session.leading(3)
    if lead:
        lines.append("Leading causes: " + ", ".join(f"{c} ({p:.2f})" for c, p in lead) + ".")
    if q.get("why"):
        lines.append(q["why"])
    cands = {c.question["id"]: c for c in session.candidates()}
    c = cands.get(qid)
    if c and c.worlds:
        dist = session.posterior()
        outcomes = []
        for h, ev in sorted(c.worlds.items(), key=lambda kv: -dist.get(kv[0], 0))[:3]:
            after = cf.posterior(dist, ev)
            outcomes.append(f"an answer pointing to {h} would take it to {after[h]:.2f}")
        lines.append("This answer decides: " + "; ".join(outcomes) + ".")
    srcs = q.get("answered_by", [])
    if srcs:
        lines.append("traindx could measure this instead: " + ", ".join(srcs) + ".")
    return "\n".join(lines)


def how(session, cause: str | None = None) -> str:
    kb = session.kb
    res = session.run()
    dist = session.posterior()
    if cause is None:
        ranked = cf.ranked(dist)
        if not ranked:
            return "Nothing concluded yet."
        cause = ranked[0][0]
    cause = kb.aliases.get(cause, cause)
    if cause == "symptom":
        f = session.facts.get("symptom")
        if not f:
            return "The symptom is not known yet."
        return f"symptom = {f.value} ({_where(f.source)})" + (f": {f.detail}" if f.detail else "")
    if cause not in kb.root_causes:
        return f"{cause!r} is not a root cause."
    prior = session.prior().get(cause, 0.0)
    lines = [f"{cause}: {cf.shown(dist.get(cause, 0.0), session.kb.params()):.2f} (prior {prior:.2f}"
             + (f" given symptom {session.symptom()})" if session.symptom() else ")")]
    contributions = [(lr, fr) for c, lr, fr in res.evidence if c == cause]
    if not contributions:
        lines.append("  no rule has weighed in on it yet")
    for lr, fr in sorted(contributions, key=lambda t: -abs(t[0] - 1)):
        lines.append(f"  ×{lr:g} {'supports' if lr > 1 else 'argues against'} — rule {fr.rule.id}: "
                     f"{fr.rule.description}")
        for f in fr.facts.values():
            lines.append(f"      {f.name} = {fmt(f.value)} ({_where(f.source)})" + (f" — {f.detail}" if f.detail
                                                                                    else ""))
    return "\n".join(lines)


def _wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(" ".join(str(text).split()), width=96, initial_indent=indent, subsequent_indent=indent)


def _explain_root_cause(kb, e) -> list:
    out = []
    fx = kb.fixes[e["fix"]]
    out += [f"{e['id']} — {e['name']}  [root cause; {e['category']}]", ""]
    out += ["What it is:", _wrap(e["description"])]
    if e.get("why"):
        out += ["Why it matters:", _wrap(e["why"])]
    if e.get("symptoms"):
        out += ["Shows as:", _wrap(", ".join(e["symptoms"]))]
    if e.get("supports"):
        out += ["Evidence for:"] + [_wrap("- " + s) for s in e["supports"]]
    if e.get("argues_against"):
        out += ["Evidence against:"] + [_wrap("- " + s) for s in e["argues_against"]]
    rules = [r for r in kb.rules.values() if any(c == e["id"] for c, _ in r.evidence)]
    if rules:
        out += ["Rules that weigh it:"] + [f"  ×{lr:g} {r.id}" for r in rules for c,
                                           lr in r.evidence if c == e["id"]]
    out += [f"Fix ({fx['id']}):", _wrap(fx["summary"])]
    out += ["", textwrap.indent(fx["code"].rstrip(), "    "), ""]
    out += ["What NOT to do:"] + [_wrap("- " + w) for w in e.get("what_not_to_do", [])]
    out += ["Risk of the fix:", _wrap(e["risk"]), f"Reference: traindx reference {e['reference']}"]
    return out


def _explain_symptom(kb, e) -> list:
    out = []
    out += [f"{e['id']} — {e['name']}  [symptom; {e['category']}]", _wrap(e["description"])]
    if e.get("usually"):
        out.append(f"Root cause usually: {e['usually']}")
    if e.get("priors"):
        out += ["Priors:"] + [f"  {c}: {p:.2f}" for c, p in sorted(e["priors"].items(), key=lambda kv: -kv[1])]
    if e.get("questions"):
        out += ["Questions:"] + [f"  {q}: {kb.questions[q]['text']}" for q in e["questions"]]
    return out


def _explain_question(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [question]", _wrap(e["text"]), f"Sets: {', '.join(e['facts'])}"]
    if e.get("hint"):
        out.append(f"Answer: {e['hint']}")
    if e.get("why"):
        out += ["Why:", _wrap(e["why"])]
    if e.get("answered_by"):
        out.append(f"Measured instead by: {', '.join(e['answered_by'])}")
    return out


def _explain_rule(kb, e) -> list:
    out = []
    out += [f"{e.id}  [rule, salience {e.salience}]", _wrap(e.description), "When:", _wrap(condition_text(e.when))]
    if e.evidence:
        out += ["Evidence:"] + [f"  ×{lr:g} {c}" for c, lr in e.evidence]
    if e.sets:
        out += ["Sets: " + ", ".join(e.sets)]
    out.append(f"Cases: {len(e.cases)}")
    return out


def _explain_fix(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [fix]", _wrap(e["summary"])]
    out += [f"  {i}. {s}" for i, s in enumerate(e.get("steps", []), 1)]
    out += ["", textwrap.indent(e["code"].rstrip(), "    "), ""]
    if e.get("verify"):
        out += ["Verify:", _wrap(e["verify"])]
    out.append(f"Reference: traindx reference {e['reference']}")
    return out


def _explain_fact(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [fact, {e['type']}]", _wrap(e["description"])]
    if e.get("values"):
        out.append(f"Values: {', '.join(e['values'])}")
    srcs = [s for s, src in kb.sources.items() if e["id"] in src["facts"]]
    qs = [q for q, qq in kb.questions.items() if e["id"] in qq["facts"]]
    if qs:
        out.append(f"Asked by: {', '.join(qs)}")
    if srcs:
        out.append(f"Measured by: {', '.join(srcs)}")
    return out


def _explain_misdiagnosis(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [common misdiagnosis]", f"User says: {e['user_says']}", f"User thinks: {e['user_thinks']}",
            f"Usually actually: {e['usually_actually']}", _wrap(e["message"])]
    return out


def _explain_pressure(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [pressure response]", f"Pressure: {e['pressure']}",
            f"Wrong response: {e['wrong_response']}",
            f"Correct response: {e['correct_response']}"]
    return out


def _explain_deferral(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [scope boundary → {e['to']}]", e["title"], f"Found: {e['found_message']}",
            f"Not found: {e['not_found_message']}"]
    return out


def _explain_parameter(kb, e) -> list:
    out = []
    out += [f"{e['id']} = {e['value']!r} {e['unit']}  [parameter]", _wrap(e["description"])]
    if "min" in e or "max" in e:
        out.append(f"Range: [{e.get('min', '-inf')}, {e.get('max', 'inf')}]")
    if "overridden_by" in e:
        out.append(f"Overridden by: {e['overridden_by']} (default {e['default']!r})")
    if "extended_by" in e:
        out.append(f"Extended by: {', '.join(e['extended_by'])}")
    out.append(f"Used by: {', '.join(e['used_by'])}")
    return out


def _explain_source(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [evidence source, {e['kind']}]", _wrap(e["description"]),
            f"Facts: {', '.join(e['facts'])}"]
    return out


def _explain_normal(kb, e) -> list:
    out = []
    out += [f"{e['id']}  [normal behaviour]", e["title"],
            _wrap("Why it is normal: " + " ".join(e["why"].split())),
            "It would be a problem if:"] + [f"  - {x}" for x in e["abnormal_if"]]
    return out


#: one renderer per entity kind
_EXPLAIN = {
    "root_cause": _explain_root_cause,
    "symptom": _explain_symptom,
    "question": _explain_question,
    "rule": _explain_rule,
    "fix": _explain_fix,
    "fact": _explain_fact,
    "misdiagnosis": _explain_misdiagnosis,
    "pressure": _explain_pressure,
    "deferral": _explain_deferral,
    "parameter": _explain_parameter,
    "source": _explain_source,
    "normal": _explain_normal,
}


def explain(kb, ident: str) -> str | None:
    """Fixed fields of any entity (root cause, symptom, question, rule, fix, fact, ...)."""
    found = kb.lookup(ident)
    if found is None:
        return None
    kind, e = found
    origin = kb.origins.get((kind, e.id if hasattr(e, "id") else e["id"]))
    out = []
    render = _EXPLAIN.get(kind)
    if render is not None:
        out += render(kb, e)
    if origin:
        out.append(f"Defined at: {origin}")
    return "\n".join(out)
