"""The diagnosis report: one dict (CONTRACT.md section 6, ``schemas/report.schema.json``).

Built from a :class:`~traindx.engine.inference.Session` only — every claim carries the source of
its evidence, every number comes from :mod:`confidence`. :mod:`markdown` renders the same dict.
"""

from __future__ import annotations

from . import confidence as cf
from .inference import Session, render
from .values import fmt, json_safe

#: The report looks at most at this many of the most informative questions (those above
#: engine.min_gain_bits) when it lists what else to check: the length of a list in the output, not
#: knowledge.
_BEST_QUESTIONS = 10

SCHEMA_VERSION = "1"
#: Presentation, not knowledge: how many root causes a report lists, the decimals of a cause's prior,
#: and how many findings that would change the top cause the confidence text names.
MAX_CAUSES = 5
_PRIOR_DECIMALS = 3
_SHOWN_CHANGERS = 3


def _evidence_item(fact) -> dict:
    item = {"fact": fact.name, "value": json_safe(fact.value), "source": fact.source}
    if fact.detail:
        item["detail"] = fact.detail
    return item


def _base_sources(session: Session, fact) -> list:
    """The base facts behind a (possibly derived) fact: what the user/probe/reader actually said.

    Walked with an explicit stack and a visited set: a chain of thousands of rules, or rules whose
    derivations share facts (a diamond), cost time linear in the firings, never a recursion."""
    if fact.kind != "rule":
        return [fact]
    by_rule: dict = {}
    for firing in session.run().firings:
        by_rule.setdefault(firing.rule.id, []).append(firing)
    out, seen, stack = [], set(), [fact]
    while stack:
        f = stack.pop()
        key = (f.name, f.source)
        if key in seen:
            continue
        seen.add(key)
        if f.kind != "rule":
            out.append(f)
            continue
        firings = by_rule.get(f.source.split(":", 1)[1], [])
        if not firings:
            out.append(f)
        for firing in reversed(firings):
            stack.extend(reversed(list(firing.facts.values())))
    return out or [fact]


def cause_entries(session: Session, dist: dict) -> list[dict]:
    kb = session.kb
    res = session.run()
    prior = session.prior()
    by_cause: dict = {}
    for cause, lr, firing in res.evidence:
        by_cause.setdefault(cause, []).append((lr, firing))
    out = []
    for cid, p in cf.ranked(dist):
        if len(out) >= MAX_CAUSES or (out and p < session.kb.param("confidence.report_floor")):
            break
        rc = kb.root_causes[cid]
        contributions = [{"rule": firing.rule.id, "factor": lr,
                          "effect": "supports" if lr > 1 else "argues against",
                          "because": render(firing.rule.explain, {k: f.value for k, f in res.wm.items()})
                          or firing.rule.description}
                         for lr, firing in sorted(by_cause.get(cid, []), key=lambda t: -abs(_log(t[0])))]
        evidence, seen = [], set()
        for lr, firing in sorted(by_cause.get(cid, []), key=lambda t: -t[0]):
            for f in firing.facts.values():
                for base in _base_sources(session, f):
                    key = (base.name, base.source)
                    if key not in seen:
                        seen.add(key)
                        item = _evidence_item(base)
                        item["effect"] = "supports" if lr > 1 else "argues against"
                        evidence.append(item)
        supporting = [c for c in contributions if c["factor"] > 1]
        specific = supporting[0]["because"] if supporting else rc["description"].strip()
        out.append({"id": cid, "name": rc["name"], "category": rc["category"], "confidence": cf.shown(p, kb.params()),
                    "specific_issue": specific, "prior": round(prior.get(cid, 0.0), _PRIOR_DECIMALS),
                    "contributions": contributions, "evidence": evidence})
    return out


def _log(x: float) -> float:
    import math
    return math.log(x) if x > 0 else 0.0


def _questions(session: Session) -> list[dict]:
    kb = session.kb
    facts = session.facts
    symptom = session.symptom()
    order = list(session.asked)
    seed = kb.symptoms.get(symptom, {}).get("questions", []) if symptom else []
    for qid in seed:
        if qid not in order:
            order.append(qid)
    out = []
    for qid in order:
        q = kb.questions.get(qid)
        if q is None:
            continue
        known = [facts[f] for f in q["facts"] if f in facts]
        if not known:
            continue
        kinds = {f.kind for f in known}
        kind = "user" if "user" in kinds else sorted(kinds)[0]
        if kind == "rule":
            kind = {b.kind for f in known for b in _base_sources(session, f)}.pop()
        answer = ", ".join(f"{fmt(f.value)}" for f in known)
        where = "; ".join(sorted({f.source for f in known}))
        out.append({"id": qid, "text": q["text"], "answer": answer, "source": kind if kind in
                    ("user", "probe", "code", "config", "log") else "user", "where": where,
                    "detail": "; ".join(f.detail for f in known if f.detail) or None})
    return out


def _gaps(session: Session) -> list[dict]:
    """What was not measured or answered that could still change the ranking, and how to close it."""
    kb = session.kb
    facts = session.facts
    gaps = []
    seen = set()
    cands = {c.question["id"]: c for c in session.candidates()} if session.deferral() is None else {}
    symptom = session.symptom()
    wanted = []
    if symptom is None:
        wanted.append("loss_behavior")
    wanted += [q for q in kb.symptoms.get(symptom, {}).get("questions", [])] if symptom else []
    min_gain = kb.param("engine.min_gain_bits")
    wanted += [qid for qid in sorted(cands, key=lambda q: -cands[q].gain)[:_BEST_QUESTIONS]
               if cands[qid].gain >= min_gain]
    wanted += session.skipped
    for qid in wanted:
        if qid in seen or qid not in kb.questions:
            continue
        seen.add(qid)
        q = kb.questions[qid]
        missing = [f for f in q["facts"] if f not in facts]
        if not missing:
            continue
        srcs = [s for s in q.get("answered_by", [])]
        how = []
        probes = [s for s in srcs if s.startswith("probe:")]
        if probes:
            how.append("run with --script train.py (or watch()) to measure it")
        if any(s.startswith("code:") for s in srcs):
            how.append("pass --code train.py")
        if any(s.startswith("config:") for s in srcs):
            how.append("pass --config FILE")
        if any(s.startswith("log:") for s in srcs):
            how.append("pass --log metrics.csv")
        how.append(f"or answer: {q['text']}")
        c = cands.get(qid)
        gaps.append({"question": qid, "facts": missing, "text": q["text"],
                     "skipped": qid in session.skipped,
                     "could_change_ranking": bool(c and c.gain >= min_gain),
                     "how_to_close": "; ".join(how)})
    return gaps


def _support(cause: dict) -> float:
    """How much a cause's own evidence multiplied its odds: the product of its supporting factors."""
    return cf.odds_factor((c["factor"] for c in cause.get("contributions", ())), supporting_only=True)


def _status(session: Session, deferral, symptom, causes) -> tuple[str, dict | None]:
    """The report's status and the diagnosed cause (None unless diagnosed)."""
    # elimination alone names nothing: the leader must also have evidence of its own
    named = bool(causes) and _support(causes[0]) >= session.kb.param("confidence.min_support_to_name")
    top = causes[0] if named and causes[0]["confidence"] >= session.kb.param("confidence.diagnosed") else None
    if deferral:
        return "out_of_scope", top
    if symptom == "healthy" and top is None and _decisive_over_healthy(session, causes):
        return "diagnosed", causes[0]
    # a healthy status never sits over a named cause: the override is at most the diagnosed level
    if symptom == "healthy" and not (named and causes[0]["confidence"] >= min(
            session.kb.param("confidence.healthy_override"), session.kb.param("confidence.diagnosed"))):
        return "healthy", None
    return ("diagnosed", top) if top else ("insufficient_evidence", top)


def _net_factor(cause: dict) -> float:
    """How much all of a cause's evidence, for and against, multiplied its odds."""
    return cf.odds_factor(c["factor"] for c in cause.get("contributions", ()))


def _decisive_over_healthy(session: Session, causes) -> bool:
    """A run whose curves read healthy, whose leading cause has evidence that is decisive alone, net of
    what argues against it (``confidence.healthy_override_support``: a mechanism the script shows, such
    as weights drawn far off their scale or a graph cut), and more than any other cause has: a
    healthy-looking curve does not show what the same run without that mechanism would have reached, so
    the cause is named though the uniform prior of a curve without a symptom keeps its posterior under
    the diagnosed level. A warm-up's tiny first LR (argued against by the warm-up) decides nothing, and
    neither does evidence that is only what the user typed (a run they describe as fine, with an LR they
    quote): the mechanism must be one the code, a log or a probe shows."""
    if not causes or _net_factor(causes[0]) < session.kb.param("confidence.healthy_override_support"):
        return False
    if not any(e["effect"] == "supports" and e["source"].split(":", 1)[0] != "user" for e in causes[0]["evidence"]):
        return False        # only the person's words: their healthy-looking run is not overruled by what they typed
    return len(causes) < 2 or _net_factor(causes[1]) < _net_factor(causes[0])


def _likely_lead(session: Session, status, symptom, causes, deferral) -> dict | None:
    """The leading cause whose usual symptom the report may predict though it names no cause: no
    symptom was observed (code read alone), and the leader has evidence of its own
    (confidence.min_support_to_name) and stands at confidence.predict_symptom or more."""
    if status == "diagnosed" or deferral or symptom is not None or not causes:
        return None
    lead = causes[0]
    if _support(lead) < session.kb.param("confidence.min_support_to_name"):
        return None
    return lead if lead["confidence"] >= session.kb.param("confidence.predict_symptom") else None


def _symptom_block(session: Session, status, symptom, top, deferral,
                   causes=()) -> tuple[str | None, dict | None, dict | None]:
    """(symptom id, its KB entry, the report's symptom block): the observed symptom, or the one a
    diagnosed cause predicts when none (or "healthy") was observed, or, when nothing was observed,
    the one a likely but unconfirmed leader (:func:`_likely_lead`) predicts, said as such."""
    kb, facts = session.kb, session.facts
    predicted = False
    lead = _likely_lead(session, status, symptom, causes, deferral)
    if status == "diagnosed" and symptom in (None, "healthy"):
        symptom, predicted = _predicted_symptom(session, top["id"], top.get("evidence", ())), True
    elif lead is not None:
        top, symptom, predicted = lead, _predicted_symptom(session, lead["id"], lead.get("evidence", ())), True
    sym = kb.symptoms.get(symptom) if symptom else None
    sym_fact = facts.get("symptom")
    if sym and predicted:
        rc = kb.root_causes[top["id"]]
        ev = [_evidence_item(facts[f]) for f in ("loss_trend", "loss_decrease_fraction") if f in facts]
        basis = "the diagnosis" if lead is None else "the likeliest cause, not yet confirmed"
        return symptom, sym, {"id": symptom, "name": sym["name"], "category": sym["category"], "evidence": ev,
                              "predicted": True,
                              "how": f"predicted from {basis}: {rc['name'].lower()} usually shows as "
                                     f"“{sym['name'].lower()}”"
                                     + (f"; the observed curve looked {fmt(facts['symptom'].value)}"
                                        if "symptom" in facts else "; no curve was observed")}
    if not sym:
        return symptom, sym, None
    ev = []
    if deferral:
        ev = [{"fact": "complaint", "value": session.value("complaint"),
               "source": "user"}] if session.value("complaint") else []
        if "error_kind" in facts:
            ev.append(_evidence_item(facts["error_kind"]))
    elif sym_fact:
        ev = [_evidence_item(b) for b in _base_sources(session, sym_fact)]
    return symptom, sym, {"id": symptom, "name": sym["name"], "category": sym["category"], "evidence": ev,
                          "how": (sym_fact.detail if sym_fact and sym_fact.detail else None)}


def _fix_and_cautions(kb, top, mis, sym, deferral, facts=None) -> tuple[dict | None, list, str | None]:
    """The diagnosed cause's fix (tailored to ``facts``, name -> value: :func:`tailored`), what not
    to do (the misdiagnosis's, the cause's, the symptom's) and the reference sheet."""
    fix = None
    what_not = []
    reference = None
    if top:
        rc = kb.root_causes[top["id"]]
        fx = kb.fixes[rc["fix"]]
        fix = {"id": fx["id"], "summary": fx["summary"], "steps": fx.get("steps", []), "code": fx["code"],
               "verify": fx.get("verify"), "reference": fx["reference"],
               "tailored": tailored(kb, fx, facts or {})}
        what_not += rc.get("what_not_to_do", [])
        reference = rc["reference"]
    if mis:
        what_not.insert(0, mis.get("what_not_to_do") or f"Assume: {mis['user_thinks']}")
    if sym and not deferral:
        what_not += [w for w in sym.get("what_not_to_do", []) if w not in what_not]
        reference = reference or sym.get("reference")
    return fix, what_not, reference


def tailored(kb, fix: dict, facts: dict) -> list[str]:
    """The fix's ``tailor`` lines whose condition holds on ``facts`` (name -> value), placeholders
    filled: what the user already does changes what to try first (dropout already at 0.5 is not
    "add dropout"). Unknown facts never hold, so a line never guesses."""
    from .conditions import compile_condition
    out = []
    for i, t in enumerate(fix.get("tailor") or []):
        test, _deps = compile_condition(t["when"], f"fix {fix['id']} tailor {i}", kb.params())
        if test(facts) is True:
            out.append(" ".join(render(t["say"], facts).split()))
    return out


def build_report(session: Session) -> dict:
    """The report (contract section 6) of a session: status, symptom, ranked causes, fix, gaps."""
    kb = session.kb
    facts = session.facts
    deferral = session.deferral()
    mis = session.misdiagnosis()
    pressure = session.pressure()
    symptom = "out_of_scope" if deferral else session.symptom()
    dist = session.posterior()
    causes = [] if deferral else cause_entries(session, dist)
    status, top = _status(session, deferral, symptom, causes)
    if status == "diagnosed":   # decided on the raw posterior; shown as a calibrated probability
        for c, p in zip(causes, cf.calibrated_ranking([dist.get(c["id"], 0.0) for c in causes], kb.params())):
            c["confidence"] = cf.shown(p, kb.params())
    symptom, sym, symptom_block = _symptom_block(session, status, symptom, top, deferral, causes)
    fix, what_not, reference = _fix_and_cautions(kb, top, mis, sym, deferral,
                                                 {k: f.value for k, f in facts.items()})

    experiments = experiment_entries(session)
    if fix is not None:
        fix["verified"] = _verified(kb, experiments, top["id"])

    gaps = [] if deferral else _gaps(session)
    conf_text = _confidence_text(status, top, causes, gaps, session)
    risk = (kb.root_causes[top["id"]]["risk"].strip() if top else
            "No fix is proposed without a diagnosis, so there is nothing to break yet.")
    caveats = _caveats(session, status, causes)

    report = {
        "schema_version": SCHEMA_VERSION,
        "status": status,
        "symptom": symptom_block,
        "root_causes": causes,
        "questions": _questions(session),
        "fix": fix,
        "experiments": experiments,
        "what_not_to_do": what_not,
        "reference": reference,
        "confidence_assessment": conf_text,
        "risk_assessment": risk,
        "information_gaps": [g["text"] + " — " + g["how_to_close"] for g in gaps],
        "information_gaps_detail": gaps,
        "caveats": caveats,
        "conflicts": _conflicts(session),
        "sources_read": list(getattr(session, "sources_read", [])),
        "deferral": ({k: deferral[k] for k in ("to", "found",
                                               "message")} | {"id": deferral["id"]}) if deferral else None,
        "misdiagnosis": ({"id": mis["id"], "user_thinks": mis["user_thinks"],
                          "usually_actually": mis["usually_actually"],
                          "message": " ".join(mis["message"].split()), "stop": bool(mis.get("stop")),
                          "decided_by": mis.get("decided_by", [])} if mis else None),
        "pressure": ({"id": pressure["id"], "response": pressure["correct_response"],
                      "instead_of": pressure["wrong_response"]} if pressure else None),
        "normal": _normal(session) if status == "healthy" else None,
        "understood": (session.understood.as_dict() if getattr(session, "understood", None) is not None else None),
        "facts": [dict(_evidence_item(f)) for f in sorted(facts.values(), key=lambda f: f.name)],
        "trace": [{"rule": fr.rule.id, "facts": {k: json_safe(v.value) for k, v in fr.facts.items()},
                   "derived": {k: json_safe(v) for k, v in fr.derived.items()}} for fr in session.run().firings],
    }
    return report


def _normal(session: Session) -> dict:
    """Why a healthy run is healthy: the "is this normal?" entries (kb/normal.yaml) its facts match,
    else the general one — each with why it is normal and what would make it abnormal."""
    kb = session.kb
    values = {k: f.value for k, f in session.facts.items()}
    matched = [nid for nid, (test, _deps) in kb.compiled_normal.items() if test(values) is True]
    if not matched:
        matched = [nid for nid, e in kb.normal.items() if not e.get("when")][:1]
    behaviours = [{"id": nid, "title": kb.normal[nid]["title"], "why": " ".join(kb.normal[nid]["why"].split()),
                   "abnormal_if": list(kb.normal[nid]["abnormal_if"])} for nid in matched]
    what = "; ".join(b["title"].lower() for b in behaviours) or "nothing abnormal"
    return {"summary": f"Training looks healthy: {what} is normal.", "behaviours": behaviours}


def experiment_entries(session: Session) -> list[dict]:
    """The experiments run on copies (facts ``exp_<id>``), in the order they were added: what was
    changed, for how many steps, the outcome, the one-line result and the measured numbers."""
    from .loader import experiment_fact
    kb = session.kb
    facts = session.facts
    out = []
    for eid, e in kb.experiments.items():
        f = facts.get(experiment_fact(eid))
        if f is None:
            continue
        m = session.measurements.get(f.name, {})
        lrs = (e.get("evidence") or {}).get(f.value) or []
        out.append({"id": eid, "intervention": dict(e["intervention"]), "steps": int(m.get("steps", e["steps"])),
                    "outcome": f.value, "result": f.detail or "", "source": f.source,
                    "metric": e["measure"]["metric"],
                    "evidence": [{"cause": x["cause"], "lr": float(x["lr"])} for x in lrs],
                    "verifies": list(e.get("verifies", [])),
                    "measured": {k: json_safe(v) for k, v in m.items()
                                 if k not in ("id", "intervention", "steps") and isinstance(v, (int, float, bool))}})
    return out


def _verified(kb, experiments: list[dict], cause: str) -> dict | None:
    """Whether the top cause's fix was tried on a copy: the experiment that applies it, and what
    it measured. None when none ran."""
    for e in experiments:
        if cause in e["verifies"] and e["outcome"] in ("confirms", "refutes", "inconclusive"):
            return {"on_copy": e["outcome"] == "confirms", "experiment": e["id"], "outcome": e["outcome"],
                    "effect": e["result"]}
    return None


def _predicted_symptom(session: Session, cause: str, evidence=()) -> str:
    """The symptom a diagnosed cause will show (or is showing, when the curve was cut short):
    among the cause's typical symptoms, the one the observed curve fits best; else its first. A
    mechanism fact among the cause's supporting ``evidence`` that decides how it shows
    (report.mechanism_symptoms.<fact>) decides it, unless the validation curve rules it out."""
    kb = session.kb
    typical = [s for s in kb.root_causes[cause].get("symptoms", []) if s in kb.symptoms] or ["not_learning"]
    # a mechanism the evidence shows decides how it shows (report.mechanism_symptoms.<fact>)
    shown = [f"report.mechanism_symptoms.{e.get('fact')}" for e in evidence if e.get("effect") == "supports"]
    mechanism = [s for name in shown if name in kb.parameters for s in kb.param(name) if s in kb.symptoms]
    # what the validation loss does rules some out (report.curve_symptoms.val_*_excludes)
    val = {"decreasing": "falling", "flat": "flat"}.get(session.value("val_loss_trend"))
    if val is not None:
        ruled_out = kb.param(f"report.curve_symptoms.val_{val}_excludes")
        typical = [s for s in typical if s not in ruled_out] or typical
        mechanism = [s for s in mechanism if s not in ruled_out]
    if mechanism:     # how the mechanism shows comes before what the curve's shape allows
        return mechanism[0]
    trend = session.value("loss_trend")
    wait = session.value("data_time_fraction")
    if wait is not None and "slow_training" in typical and wait >= kb.param("rules.data_wait.slow"):
        return "slow_training"
    # which symptoms a loss-curve shape is compatible with, best first: report.curve_symptoms.<trend>;
    # swings that grow over the run come first (report.curve_symptoms.swings_growing)
    shapes = [f"report.curve_symptoms.{trend}"] if isinstance(trend, str) else []
    # a normal pace predicts the floor a cap stops at, unless the validation loss is still falling
    # too: a run improving on held-out data at its end has reached no floor yet
    if trend == "decreasing" and session.value("loss_pace") == "normal" and val != "falling":
        shapes.insert(0, "report.curve_symptoms.decreasing_normal_pace")
    if session.value("oscillation_trend") == "growing":
        shapes.insert(0, "report.curve_symptoms.swings_growing")
    for name in shapes:
        shape = kb.parameters.get(name)
        for s in (shape["value"] if shape else []):
            if s in typical:
                return s
    return typical[0]


def _confidence_text(status, top, causes, gaps, session=None) -> str:
    if status == "out_of_scope":
        return "Not assessed: the problem is outside training-dynamics diagnosis and was handed on."
    if status == "healthy":
        lead = (f" The strongest remaining suspicion is {causes[0]['id']} at {causes[0]['confidence']:.2f}."
                if causes else "")
        why = _normal(session)["behaviours"] if session is not None else []
        because = (" " + " ".join(b["why"] for b in why[:1])) if why else ""
        return "No training-dynamics problem found: the evidence matches a healthy run." + because + lead
    if not causes:
        return "No evidence yet."
    lead = causes[0]
    second = causes[1] if len(causes) > 1 else None
    text = f"{lead['id']} at {lead['confidence']:.2f}"
    if second:
        text += f" (next: {second['id']} at {second['confidence']:.2f})"
    text += "."
    if status != "diagnosed":
        text = "Undecided: " + text + " Not enough evidence to name a root cause."
    changing = [g for g in gaps if g["could_change_ranking"]]
    if changing:
        text += " Would change it: " + "; ".join(g["text"] for g in changing[:_SHOWN_CHANGERS])
    elif status == "diagnosed":
        text += " No remaining question or measurement would change the ranking."
    return text


def _conflicts(session: Session) -> list[dict]:
    """Where the evidence's sources disagree: the readers' structured conflicts (the config's LR
    against the LR the log records) and the facts two sources stated differently."""
    out = [dict(c) for c in getattr(session, "source_conflicts", [])]
    seen = {c["fact"] for c in out}
    for text in session.conflicts:
        fact = text.split(":", 1)[0]
        if fact not in seen:
            out.append({"fact": fact, "values": [], "message": text})
    return out


def _rule_notes(session: Session) -> list[str]:
    """The notes of the rules that fired (``then.note``): what is worth telling though it causes no
    symptom, each once, in firing order."""
    values = {k: f.value for k, f in session.facts.items()}
    out = []
    for firing in session.run().firings:
        note = firing.rule.then.get("note")
        if note:
            text = render(note, values)
            if text not in out:
                out.append(text)
    return out


def _caveats(session: Session, status: str, causes: list) -> list[str]:
    out = []
    out += [f"Sources disagree — {c}" for c in session.conflicts]
    facts = session.facts
    kinds = {f.kind for f in facts.values()}
    run = getattr(session, "run_info", None)
    if run is not None and not run.get("steps"):
        why = {"timeout": "was stopped at --timeout", "crashed": "crashed", "finished": "finished",
               "max_steps": "reached --max-steps"}.get(run.get("stopped"), "stopped")
        out.insert(0, f"The script ran but reached no optimizer step before it {why} "
                      f"({run.get('seconds', 0):.1f} s): nothing about training could be measured — check that it "
                      "trains (and does not hang or wait for input) within --timeout.")
    elif status in ("diagnosed", "insufficient_evidence") and not kinds & {"probe", "log"}:
        out.append("Nothing was measured: the evidence is what you said or what the code/config shows. "
                   "A run with --script (or a --log) would measure it.")
    for f in facts.values():
        if f.detail and f.detail.startswith("from your words"):
            out.append(f"{f.name} = {fmt(f.value)} was read from your description; correct it if that is wrong.")
    if (causes and len(causes) > 1 and status == "diagnosed"
            and causes[0]["confidence"] - causes[1]["confidence"] < session.kb.param("confidence.close_behind")):
        out.append(f"{causes[1]['id']} is close behind; the fix for {causes[0]['id']} may not be the whole story.")
    out += session.notes
    out += _rule_notes(session)
    out.append("Confidences are Bayesian estimates from the knowledge base's priors and likelihood ratios; "
               "they assume the pieces of evidence are independent.")
    return out
