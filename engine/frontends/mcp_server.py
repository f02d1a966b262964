"""``traindx mcp``: the engine as Model Context Protocol tools, over stdio, for coding agents and editors.

An agent drives a diagnosis the way the interactive CLI does: ``start_diagnosis`` with the user's
words (and any facts it already knows), then ``next_question`` → ``answer`` — or ``read_code`` /
``read_config`` / ``read_log`` / ``add_facts`` to let evidence answer instead — until
``next_question`` says there is nothing left worth asking, then ``get_report``. ``why``, ``how``
and ``explain`` justify each step.

Two layers:

- :class:`Engine` — the tools as plain Python: JSON-able arguments in, JSON-able results out,
  :class:`ToolFailure` (one line) for anything the caller got wrong. It holds the sessions (in
  memory, keyed by uuid) and the knowledge bases (loaded once per ``kb_dirs`` combination). It
  needs neither ``mcp`` nor torch.
- :func:`serve` — wraps the engine in the official ``mcp`` SDK's low-level ``Server`` (mcp 2.x)
  on stdio. Every tool call runs in a worker thread; a malformed call gets a tool result with
  ``isError: true`` and a one-line message, never a dead server.

``mcp`` is imported only inside :func:`serve`, so ``import traindx.engine.frontends.cli`` never needs it.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import sys
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from ..errors import InputError

log = logging.getLogger("traindx.mcp")

#: the oldest ``mcp`` this server is written against (its low-level ``Server`` changed in 2.0)
MCP_REQUIREMENT = "mcp>=2.0,<3"
MIN_MCP_VERSION = (2, 0)
#: open sessions kept; beyond this the least recently used one is dropped
MAX_SESSIONS = 256
MAX_MESSAGE = 400

INSTRUCTIONS = """\
traindx diagnoses neural-network training problems (loss flat, plateau, oscillating, NaN, \
overfitting, slow) symptom first, then evidence, then a root cause with a calibrated confidence \
and the fix. Drive it like this: start_diagnosis with the user's own words (and any facts you \
already know, e.g. {"learning_rate": 1e-7}); then repeat: next_question -> ask the user, or answer \
it from evidence (read_code / read_config / read_log on their files, add_facts for what you \
measured) -> answer; until next_question returns null; then get_report (format "markdown" for \
people, "json" for programs). why explains a question, how the leading conclusion, explain any \
id (root cause, symptom, question, rule, fix, fact). Do not guess a fix before the report names \
a root cause."""


class ToolFailure(Exception):
    """A call the caller got wrong: reported as an MCP error result with a one-line message.

    ``data`` (optional) goes out as the result's structured content too."""

    def __init__(self, message: str, data: dict | None = None):
        super().__init__(_one_line(message))
        self.message = _one_line(message)
        self.data = data


def _one_line(text: Any, limit: int = MAX_MESSAGE) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


# ------------------------------------------------------------------------------------------ tools
_SID = {"type": "string", "description": "The session_id returned by start_diagnosis."}
_KB_DIRS = {"type": ["array", "null"], "items": {"type": "string"},
            "description": "Extra folders of YAML knowledge to add to the shipped knowledge base "
                           "(on top of the server's --kb folders). Loaded once and cached."}
_SOURCE = {"type": ["string", "null"], "pattern": r"^(user|probe|code|config|log)(:.*)?$", "default": "user",
           "description": "Who says so: 'user' (default), or 'probe', 'code', 'config', 'log', optionally "
                          "with a detail after a colon ('code:train.py:42', 'probe:grad_norms'). When two "
                          "sources disagree the higher wins: user > probe > log > code/config."}
_VALUE = {"description": "The answer as the user would type it ('1e-7', 'yes', '2.302, 10', 'skip'); "
                         "a number, boolean or list also works.",
          "type": ["string", "number", "integer", "boolean", "array"]}
_PATH = {"type": "string", "description": "Path to the file (absolute, or relative to the server's "
                                          "working directory)."}


def _schema(props: dict, required: tuple = ()) -> dict:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict
    read_only: bool = False
    idempotent: bool = False


TOOLS: list[ToolSpec] = [
    ToolSpec(
        "start_diagnosis", "Start a diagnosis",
        "Open a diagnosis session. Give the user's own words as `complaint` (e.g. \"loss flat from "
        "epoch 0\", \"loss went to NaN at step 200\"; a console-log excerpt pasted with them is read like a "
        "log file, and `read` says what was found in it) and any facts already known as `facts` (fact "
        "name or question id -> value, e.g. {\"learning_rate\": 1e-7, \"optimizer\": \"adam\"}; "
        "see explain('facts')). Returns {session_id, understood, symptom, next_question, misdiagnosis, "
        "pressure, deferral, status, leading}: `understood` is what traindx read from the complaint — "
        "{symptom: {id, phrase, span} or null, facts: [{fact, value, phrase, span}]} (spans are character "
        "offsets into the complaint) — show it to the user to confirm, and correct it with add_facts "
        "({\"learning_rate\": 3e-3}, or {\"symptom\": \"plateau\"}); `symptom` is null until known; "
        "`next_question` is the question "
        "that best separates the leading hypotheses (null when nothing is worth asking); "
        "`misdiagnosis`/`pressure`/`deferral` carry traindx's response to a common misdiagnosis, to "
        "pressure, or to an out-of-scope problem.",
        _schema({"complaint": {"type": ["string", "null"], "description": "What is wrong, in the user's words."},
                 "facts": {"type": ["object", "null"],
                           "description": "Known facts: fact name or question id -> value."},
                 "kb_dirs": _KB_DIRS})),
    ToolSpec(
        "add_facts", "Add facts",
        "Add facts to a session: `facts` maps fact names (or question ids) to values, e.g. "
        "{\"batch_size\": 4, \"uses_amp\": true}. Values are checked against the fact vocabulary "
        "(explain('facts') lists it); one bad name or value rejects the whole call and changes "
        "nothing. Returns {added, symptom, status, leading, next_question}.",
        _schema({"session_id": _SID,
                 "facts": {"type": "object", "description": "Fact name or question id -> value."},
                 "source": _SOURCE},
                ("session_id", "facts"))),
    ToolSpec(
        "next_question", "Next question",
        "The question that best separates the leading hypotheses now: {id, text, hint, why, facts, "
        "choices?, answered_by}, or null when the diagnosis is decided or no question would change "
        "it (then call get_report). `answered_by` names the evidence that could answer it instead "
        "of the user (code:…: read_code; config:…: read_config; log:…: read_log).",
        _schema({"session_id": _SID}, ("session_id",)), read_only=True, idempotent=True),
    ToolSpec(
        "answer", "Answer a question",
        "Answer question `question_id` with what the user said ('skip' skips it). Returns "
        "{accepted, recorded, symptom, status, leading, next_question}. A value that does not fit "
        "the question (e.g. 'fast' for a learning rate) is an error result whose structured "
        "content is {accepted: false, error, next_question} — ask again.",
        _schema({"session_id": _SID,
                 "question_id": {"type": "string", "description": "The id of the question being answered."},
                 "answer": _VALUE},
                ("session_id", "question_id", "answer"))),
    ToolSpec(
        "back", "Undo the last answer",
        "Undo the last answer or skip; returns {undone: question id or null, next_question}.",
        _schema({"session_id": _SID}, ("session_id",))),
    ToolSpec(
        "get_report", "Get the report",
        "The diagnosis report. format 'json' (default): the report dict of schemas/report.schema.json "
        "(status, symptom, root_causes best first with confidence and evidence, fix, what_not_to_do, "
        "confidence_assessment, risk_assessment, information_gaps, caveats, …). format 'markdown': "
        "the same as Markdown with the sections Symptom Identified, Diagnostic Questions Asked, "
        "Root Cause, Fix, What NOT to Do, Reference, Confidence/Risk Assessment, Information Gaps, "
        "Caveats.",
        _schema({"session_id": _SID,
                 "format": {"type": ["string", "null"], "enum": ["json", "markdown", None], "default": "json",
                            "description": "'json' (default) or 'markdown'."}},
                ("session_id",)), read_only=True, idempotent=True),
    ToolSpec(
        "explain", "Explain an id",
        "Explain any root cause, symptom, question, rule, fix, fact or evidence source by id (e.g. "
        "'lr_too_low', 'not_learning', 'learning_rate'); or list a table with 'facts', "
        "'root-causes', 'symptoms', 'questions', 'rules' or 'fixes'. Returns {id, kind, text} "
        "(or {id, kind: 'list', items}). With session_id, uses that session's knowledge base.",
        _schema({"id": {"type": "string", "description": "The id to explain, or a table name."},
                 "session_id": {"type": ["string", "null"],
                                "description": "Optional: use this session's knowledge base."}},
                ("id",)), read_only=True, idempotent=True),
    ToolSpec(
        "why", "Why this question",
        "Why traindx asks `question_id` now: what is known, which causes lead, and what each answer "
        "would decide. Returns {question_id, text}.",
        _schema({"session_id": _SID,
                 "question_id": {"type": "string", "description": "A question id (from next_question)."}},
                ("session_id", "question_id")), read_only=True, idempotent=True),
    ToolSpec(
        "how", "How it was concluded",
        "The provenance of a conclusion: the prior, each rule that weighed in (with its likelihood "
        "factor) and the facts and sources it read. `cause` defaults to the leading root cause; "
        "'symptom' explains the symptom. Returns {cause, text}.",
        _schema({"session_id": _SID,
                 "cause": {"type": ["string", "null"],
                           "description": "A root-cause id, or 'symptom'. Default: the leading cause."}},
                ("session_id",)), read_only=True, idempotent=True),
    ToolSpec(
        "list_sessions", "List sessions",
        "The open sessions: {sessions: [{session_id, created, complaint, symptom, status, asked, leading}]}.",
        _schema({}), read_only=True, idempotent=True),
    ToolSpec(
        "end_session", "End a session",
        "Forget a session. Returns {ended: session_id}.",
        _schema({"session_id": _SID}, ("session_id",)), idempotent=False),
    ToolSpec(
        "read_code", "Read training code",
        "Read a training script statically (never executed) and add what it shows — optimizer and "
        "learning rate, frozen parameters, parameters missing from the optimizer, detached graphs, "
        "double softmax, missing zero_grad, … — to the session; config files the script names are "
        "read too. Returns {added, notes, symptom, status, leading, next_question}.",
        _schema({"session_id": _SID, "path": _PATH}, ("session_id", "path"))),
    ToolSpec(
        "read_config", "Read a config",
        "Read a YAML/JSON/TOML config (or a script's argparse defaults, for a .py file) and add its "
        "hyperparameters to the session. Returns {added, notes, symptom, status, leading, next_question}.",
        _schema({"session_id": _SID, "path": _PATH}, ("session_id", "path"))),
    ToolSpec(
        "read_log", "Read a metrics log",
        "Read a metrics log (CSV, JSON lines, or a TensorBoard event file/folder), analyse its loss "
        "curves (symptom, loss vs chance, oscillation trend, overfitting gap, …) and add the "
        "findings to the session. Returns {added, notes, symptom, status, leading, next_question}.",
        _schema({"session_id": _SID, "path": _PATH,
                 "column_map": {"type": ["string", "null"],
                                "description": "Log columns to recognise, e.g. 'loss=my_loss,val_loss=vloss'."}},
                ("session_id", "path"))),
]
TOOLS_BY_NAME = {t.name: t for t in TOOLS}
LIST_TABLES = ("facts", "root-causes", "root_causes", "symptoms", "questions", "rules", "fixes")


# ------------------------------------------------------------------------------------------ engine
@dataclass
class _Entry:
    session: Any
    kb_key: tuple
    created: float = field(default_factory=time.time)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Engine:
    """The MCP tools as plain Python (no ``mcp`` import): ``call(name, arguments) -> JSON-able``."""

    def __init__(self, kb_dirs=(), *, max_sessions: int = MAX_SESSIONS):
        self.kb_dirs = tuple(os.path.abspath(os.fspath(d)) for d in (kb_dirs or ()))
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[str, _Entry] = OrderedDict()
        self._kbs: dict[tuple, Any] = {}
        self._lock = threading.Lock()          # sessions table
        self._kb_lock = threading.Lock()       # knowledge-base cache
        self._validators: dict[str, Any] = {}

    # -------------------------------------------------------------- plumbing
    def call(self, name: str, arguments: dict | None) -> Any:
        """Validate ``arguments`` against the tool's input schema, then run it.

        Raises :class:`ToolFailure` for anything the caller got wrong."""
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            raise ToolFailure(f"unknown tool {name!r}; tools: {', '.join(TOOLS_BY_NAME)}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolFailure(f"{name}: arguments must be an object")
        self._validate(spec, arguments)
        _check_sizes(name, arguments)
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            return getattr(self, "tool_" + name)(**args)
        except InputError as err:
            raise ToolFailure(f"{name}: {err}") from None

    def _validate(self, spec: ToolSpec, arguments: dict) -> None:
        import jsonschema
        v = self._validators.get(spec.name)
        if v is None:
            v = self._validators[spec.name] = jsonschema.Draft202012Validator(spec.input_schema)
        err = jsonschema.exceptions.best_match(v.iter_errors(arguments))
        if err is None:
            return
        props = spec.input_schema["properties"]
        where = ".".join(str(p) for p in err.absolute_path)
        if err.validator == "required":
            missing = [r for r in spec.input_schema["required"] if r not in arguments]
            msg = f"missing argument {missing[0] if missing else err.message!r}"
        elif err.validator == "additionalProperties":
            extra = sorted(set(arguments) - set(props))
            msg = (f"unknown argument {extra[0]!r}" if extra else err.message) + \
                  (f" (arguments: {', '.join(props)})" if props else " (this tool takes no arguments)")
        elif err.validator == "type":
            want = [err.validator_value] if isinstance(err.validator_value, str) else \
                [t for t in err.validator_value if t != "null" and not (t == "integer"
                                                                        and "number" in err.validator_value)]
            want = want[0] if len(want) == 1 else ", ".join(want[:-1]) + " or " + want[-1]
            want = ("an " if want[0] in "aeiou" else "a ") + want
            msg = f"argument {where!r} must be {want}, not {_json_type(err.instance)}"
        elif err.validator == "enum":
            msg = (f"argument {where!r} must be one of "
                   f"{', '.join(repr(x) for x in err.validator_value if x is not None)}")
        elif err.validator == "pattern" and where == "source":
            msg = (f"argument 'source' must be user, probe, code, config or log (optionally 'kind:detail'), "
                   f"not {err.instance!r}")
        else:
            msg = f"argument {where!r}: {err.message}" if where else err.message
        raise ToolFailure(f"{spec.name}: {msg}")

    def _kb(self, extra=()):
        from ..loader import load_kb
        key = self.kb_dirs + tuple(os.path.abspath(d) for d in extra or ())
        with self._kb_lock:
            kb = self._kbs.get(key)
            if kb is None:
                kb = self._kbs[key] = load_kb(list(key))
        return kb, key

    def _entry(self, session_id: str) -> _Entry:
        with self._lock:
            entry = self._sessions.get(session_id)
            if entry is None:
                hint = "start one with start_diagnosis" if not self._sessions else "list_sessions shows the open ones"
                raise ToolFailure(f"unknown session {session_id!r} ({hint})")
            self._sessions.move_to_end(session_id)
            return entry

    def _with_session(self, session_id: str, fn: Callable):
        entry = self._entry(session_id)
        with entry.lock:
            return fn(entry.session)

    # -------------------------------------------------------------- views
    @staticmethod
    def _question(session, q: dict | None) -> dict | None:
        if q is None:
            return None
        out = {"id": q["id"], "text": q["text"], "hint": q.get("hint"), "why": q.get("why"), "facts": list(q["facts"])}
        kinds = {session.kb.facts[f]["type"] for f in q["facts"]}
        if kinds == {"enum"}:       # the whole closed set, not only the values that have alias words
            out["choices"] = [v for f in q["facts"] for v in session.kb.facts[f]["values"]]
        elif q.get("choices") and kinds == {"boolean"}:
            out["choices"] = list(q["choices"])   # a number's or a name's choices are only aliases
        out["answered_by"] = list(q.get("answered_by", []))
        return out

    def _next(self, session) -> dict | None:
        return self._question(session, session.next_question())

    @staticmethod
    def _leading(session, n: int = 3) -> list[dict]:
        from .. import confidence as cf
        if session.deferral() is not None:
            return []
        return [{"id": c, "confidence": round(cf.shown(p, session.kb.params()), 3)} for c, p in session.leading(n)]

    @staticmethod
    def _symptom(session) -> dict | None:
        d = session.deferral()
        sid = "out_of_scope" if d else session.symptom()
        s = session.kb.symptoms.get(sid) if sid else None
        return {"id": sid, "name": s["name"], "category": s["category"]} if s else None

    @staticmethod
    def _understood(session) -> dict | None:
        """What the complaint was read as: the symptom with the phrase (and character span) it came
        from, and every fact with the words and span it was read from — for the agent to confirm,
        or correct with add_facts (a fact, or {"symptom": id})."""
        u = getattr(session, "understood", None)
        if u is None:
            return None
        sym = None
        if u.symptom:
            sym = {"id": u.symptom, "phrase": u.symptom_phrase,
                   "span": list(u.symptom_span) if u.symptom_span else None, "how": u.how,
                   "words": u.symptom_words}
        facts = []
        for r in u.facts:
            f = session.base.get(r.fact)
            facts.append({"fact": r.fact, "value": _jsonable(f.value if f is not None else r.value),
                          "phrase": r.phrase, "span": list(r.span),
                          "kept": f is not None and f.detail is not None and f.detail.startswith("from your words")})
        return {"symptom": sym, "facts": facts}

    def _progress(self, session) -> dict:
        from ..report import build_report
        r = build_report(session)
        return {"symptom": self._symptom(session), "status": r["status"], "leading": self._leading(session),
                "next_question": self._next(session)}

    # -------------------------------------------------------------- facts in
    def _add_facts(self, session, facts: dict, source: str = "user") -> list[dict]:
        """All or nothing: on a bad name or value the session is left as it was."""
        kb = session.kb
        for key in facts:
            if not isinstance(key, str) or (key != "complaint" and key not in kb.facts and key not in kb.questions):
                import difflib
                from ..loader import CLOSE_MATCH_MAX_CHARS
                names = list(dict.fromkeys([*kb.facts, *kb.questions]))
                close = (difflib.get_close_matches(str(key), names, n=3)
                         if len(str(key)) <= CLOSE_MATCH_MAX_CHARS else [])
                raise ToolFailure(f"unknown fact {key!r}" + (f" (did you mean {', '.join(close)}?)" if close
                                  else " (explain('facts') lists the vocabulary)"))
        saved = (dict(session.base), list(session.asked), list(session.conflicts), list(session.notes),
                 list(session.history))
        added = []
        try:
            for key, value in facts.items():
                if key == "complaint":
                    if not isinstance(value, str):
                        raise InputError("complaint must be a string")
                    session.add_complaint(value)
                    f = session.base.get("complaint")
                    added.append(_fact_json(f))
                    continue
                if key in kb.questions and key not in kb.facts and source.split(":", 1)[0] == "user":
                    facts_in = session.answer(key, value)      # splits "2.302, 10" like a typed answer
                else:
                    facts_in = [session.add(key, value, source, from_text=isinstance(value, str))]
                added += [_fact_json(f) for f in facts_in if f is not None]
        except InputError as err:
            session.base, session.asked, session.conflicts, session.notes, session.history = saved
            session._result = None
            raise ToolFailure(_named(key, err)) from None
        return added

    def _add_findings(self, session, findings) -> list[dict]:
        added = []
        for finding in findings:
            f = session.add_finding(finding)
            if f is not None and f.source == finding.source:
                added.append(_fact_json(f))
        return added

    # -------------------------------------------------------------- the tools
    def tool_start_diagnosis(self, complaint: str | None = None, facts: dict | None = None, kb_dirs=None) -> dict:
        from ..api import Session
        kb, key = self._kb(kb_dirs)
        session = Session(kb)
        pasted = None
        if complaint:
            from . import gather
            prose, pasted_text = gather.split_paste(complaint, kb.params())
            if prose.strip():
                session.add_complaint(prose)
            elif pasted_text is not None:
                session.add("complaint", complaint.strip().splitlines()[0][:200], "user")
            if pasted_text is not None:
                gather.settings_from_paste(session, pasted_text)
                try:
                    read = gather.read_pasted(pasted_text, params=session.kb.params())
                    self._take(session, read)
                    pasted = read.summary
                except InputError as err:
                    session.notes.append(f"the pasted log could not be read: {err.message}")
        if facts:
            self._add_facts(session, facts)
        sid = uuid.uuid4().hex
        with self._lock:
            self._sessions[sid] = _Entry(session, key)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        from ..report import build_report
        r = build_report(session)
        return {"session_id": sid, "understood": self._understood(session), "symptom": self._symptom(session),
                "next_question": self._next(session),
                "misdiagnosis": r["misdiagnosis"], "pressure": r["pressure"], "deferral": r["deferral"],
                "status": r["status"], "leading": self._leading(session),
                **({"read": pasted} if pasted else {})}

    def tool_add_facts(self, session_id: str, facts: dict, source: str = "user") -> dict:
        def run(s):
            added = self._add_facts(s, facts, source)
            return {"added": added, **self._progress(s)}
        return self._with_session(session_id, run)

    def tool_next_question(self, session_id: str) -> dict | None:
        return self._with_session(session_id, self._next)

    def tool_answer(self, session_id: str, question_id: str, answer) -> dict:
        def run(s):
            if question_id not in s.kb.questions:
                import difflib
                from ..loader import CLOSE_MATCH_MAX_CHARS
                close = (difflib.get_close_matches(question_id, list(s.kb.questions), n=3)
                         if len(str(question_id)) <= CLOSE_MATCH_MAX_CHARS else [])
                raise ToolFailure(f"unknown question {question_id!r}"
                                  + (f" (did you mean {', '.join(close)}?)" if close else ""))
            try:
                recorded = s.answer(question_id, answer)
            except InputError as err:
                msg = _named(question_id, err)
                raise ToolFailure(msg, {"accepted": False, "error": _one_line(msg),
                                        "next_question": self._question(s, s.kb.questions[question_id])}) from None
            out = {"accepted": True, "skipped": question_id in s.skipped and not recorded,
                   "recorded": [_fact_json(f) for f in recorded if f is not None]}
            out.update(self._progress(s))
            return out
        return self._with_session(session_id, run)

    def tool_back(self, session_id: str) -> dict:
        def run(s):
            return {"undone": s.back(), "next_question": self._next(s)}
        return self._with_session(session_id, run)

    def tool_get_report(self, session_id: str, format: str = "json"):
        def run(s):
            if format == "markdown":
                return Text(s.markdown())
            return _jsonable(s.report())
        return self._with_session(session_id, run)

    def tool_explain(self, id: str, session_id: str | None = None) -> dict:
        from ..explain import explain
        kb = self._entry(session_id).session.kb if session_id else self._kb()[0]
        if id in LIST_TABLES:
            table = {"facts": kb.facts, "root-causes": kb.root_causes, "root_causes": kb.root_causes,
                     "symptoms": kb.symptoms, "questions": kb.questions, "rules": kb.rules, "fixes": kb.fixes}[id]
            items = []
            for k, v in table.items():
                desc = v.description if hasattr(v, "description") else (
                    v.get("name") or v.get("description") or v.get("text") or v.get("summary"))
                items.append({"id": k, "summary": _one_line(desc, 200)})
            return {"id": id, "kind": "list", "items": items}
        found = kb.lookup(id)
        text = explain(kb, id) if found else None
        if text is None:
            import difflib
            from ..loader import CLOSE_MATCH_MAX_CHARS
            names = list(kb.root_causes) + list(kb.symptoms) + list(kb.questions) + list(kb.rules) + \
                list(kb.fixes) + list(kb.facts)
            close = difflib.get_close_matches(id, names, n=3) if len(str(id)) <= CLOSE_MATCH_MAX_CHARS else []
            raise ToolFailure(f"no root cause, symptom, question, rule, fix or fact called {id!r}"
                              + (f" (did you mean {', '.join(close)}?)" if close else " (try explain('root-causes'))"))
        return {"id": id, "kind": found[0], "text": text}

    def tool_why(self, session_id: str, question_id: str) -> dict:
        def run(s):
            if question_id not in s.kb.questions:
                raise ToolFailure(f"unknown question {question_id!r}")
            return {"question_id": question_id, "text": s.why(question_id)}
        return self._with_session(session_id, run)

    def tool_how(self, session_id: str, cause: str | None = None) -> dict:
        def run(s):
            if cause is not None:
                c = s.kb.aliases.get(cause, cause)
                if c != "symptom" and c not in s.kb.root_causes:
                    raise ToolFailure(f"{cause!r} is not a root cause (or 'symptom'); "
                                      "explain('root-causes') lists them")
            return {"cause": cause, "text": s.how(cause)}
        return self._with_session(session_id, run)

    def tool_list_sessions(self) -> dict:
        with self._lock:
            entries = list(self._sessions.items())
        out = []
        for sid, e in entries:
            with e.lock:
                s = e.session
                out.append({"session_id": sid,
                            "created": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(e.created)),
                            "complaint": s.base["complaint"].value if "complaint" in s.base else None,
                            "symptom": (self._symptom(s) or {}).get("id"), "asked": list(s.asked),
                            "leading": self._leading(s, 1)})
        return {"sessions": out}

    def tool_end_session(self, session_id: str) -> dict:
        with self._lock:
            if self._sessions.pop(session_id, None) is None:
                raise ToolFailure(f"unknown session {session_id!r}")
        return {"ended": session_id}

    def _need_file(self, path: str, what: str) -> str:
        full = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(full):
            from ..bounded import missing
            raise ToolFailure(f"{path}: {missing(full, what)}" + ("" if os.path.isabs(path) else
                              f" (relative paths are read from {os.getcwd()})"))
        return full

    def _read(self, session_id: str, gather: Callable) -> dict:
        def run(s):
            before = len(s.notes)
            read_before = len(getattr(s, "sources_read", []))
            added = gather(s)
            return {"added": added, "notes": s.notes[before:],
                    "read": list(getattr(s, "sources_read", []))[read_before:], **self._progress(s)}
        return self._with_session(session_id, run)

    def _take(self, s, read) -> list[dict]:
        """Add one artifact's evidence (engine/frontends/gather.py), as the CLI does."""
        from . import gather
        added = gather.absorb(s, read, add=lambda fs: self._add_findings(s, fs))
        return added if isinstance(added, list) else []

    def tool_read_code(self, session_id: str, path: str) -> dict:
        self._entry(session_id)
        full = self._need_file(path, "code file")

        def run(s):
            from . import gather
            added = []
            for read in gather.read_code(full, s.kb.params()):
                added += self._take(s, read)
            return added
        return self._read(session_id, run)

    def tool_read_config(self, session_id: str, path: str) -> dict:
        self._entry(session_id)
        full = self._need_file(path, "config file")

        def run(s):
            from . import gather
            return self._take(s, gather.read_config(full, s.kb.params()))
        return self._read(session_id, run)

    def tool_read_log(self, session_id: str, path: str, column_map: str | None = None) -> dict:
        self._entry(session_id)
        full = self._need_file(path, "log")

        def run(s):
            from . import gather
            # as the CLI's --log beside --code/--config/--complaint/--answers: a log that prints no
            # metric is a note once the session holds other evidence, and bad input only alone
            others = bool(s.base) or s.understood is not None
            read = gather.read_log(full, column_map=column_map, num_classes=s.value("num_classes"),
                                   params=s.kb.params(), rl_known=s.value("rl_training") is True,
                                   other_evidence=others)
            return self._take(s, read)
        return self._read(session_id, run)


def _check_sizes(tool: str, arguments: dict) -> None:
    """No string in a request longer than ``limits.max_file_bytes``, no more than ``limits.max_nodes``
    values, no deeper than ``limits.max_depth``: a request is words and ids, not a data dump."""
    from .. import bounded
    lim = bounded.limits()
    stack, seen = [(arguments, 0)], 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > lim.max_nodes or depth > lim.max_depth:
            raise ToolFailure(f"{tool}: arguments too large or too deeply nested")
        if isinstance(value, str) and len(value) > lim.max_file_bytes:   # a pasted log is a file's worth
            raise ToolFailure(f"{tool}: a text argument of {len(value)} characters is over the "
                              f"{lim.max_file_bytes}-character limit")
        if isinstance(value, dict):
            stack += [(k, depth + 1) for k in value] + [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in value]


class Text(str):
    """A tool result that is text (Markdown), not JSON."""


def _named(name: str, err: InputError) -> str:
    """The error, prefixed with the fact/question it is about unless it already starts with it."""
    text = str(err)
    return text if text.startswith(name) else f"{name}: {text}"


def _fact_json(f) -> dict:
    from ..values import json_safe
    out = {"fact": f.name, "value": json_safe(f.value), "source": f.source}
    if f.detail:
        out["detail"] = f.detail
    return out


def _json_type(v) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def _jsonable(obj):
    """Strictly JSON-safe copy: NaN/Inf and unknown objects become strings."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


# ------------------------------------------------------------------------------------------ server
def _mcp_version() -> tuple[int, ...] | None:
    try:
        from importlib.metadata import version
        return tuple(int(x) for x in re.findall(r"\d+", version("mcp"))[:3])
    except Exception:  # noqa: BLE001 — not installed, or an odd version string
        return None


def _die(message: str) -> None:
    sys.stderr.write(f"traindx: {message}\n")
    sys.exit(2)


def build_server(engine: Engine):
    """The ``mcp`` low-level ``Server`` (mcp 2.x) serving ``engine``'s tools."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    from .. import __version__

    tools = [types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema,
                        annotations=types.ToolAnnotations(title=t.title, read_only_hint=t.read_only,
                                                          destructive_hint=False, idempotent_hint=t.idempotent,
                                                          open_world_hint=False))
             for t in TOOLS]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def error(message: str, data: dict | None = None) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=message)],
                                    structured_content=data, is_error=True)

    async def call_tool(ctx, params) -> types.CallToolResult:
        name = params.name
        try:
            result = await anyio.to_thread.run_sync(engine.call, name, params.arguments)
        except ToolFailure as exc:
            return error(exc.message, exc.data)
        except Exception as exc:  # noqa: BLE001 — a fault of traindx: report it, keep serving
            log.exception("tool %s failed", name)
            return error(_one_line(f"{name}: internal error in traindx: {type(exc).__name__}: {exc}"))
        if isinstance(result, Text):
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(result))])
        text = json.dumps(result, indent=1, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=result if isinstance(result, dict) else None)

    return Server("traindx", version=__version__, title="traindx — training-problem diagnosis",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


def serve(kb_dirs=()) -> None:
    """Run the MCP server on stdio until the client disconnects (``traindx mcp``)."""
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError:
        _die("the MCP server needs the 'mcp' package: pip install 'traindx[mcp]'")
    found = _mcp_version()
    if found is not None and found < MIN_MCP_VERSION:
        _die(f"the MCP server needs {MCP_REQUIREMENT}, found mcp {'.'.join(map(str, found))}: "
             "pip install 'traindx[mcp]'")
    engine = Engine(kb_dirs)
    try:
        engine._kb()      # a broken --kb folder is a usage error now, not a failure at the first call
    except InputError as err:
        _die(str(err))
    server = build_server(engine)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
