"""Gathering evidence from a user's artifacts — one module both front-ends use (CLI and MCP).

Each reader returns a :class:`Read`: the findings to add, notes for the report, and the one line
to print first (``Read run.out: 41,200 lines, 3 metrics (loss, val_loss, lr) over 12 epochs; 1
restart at line 18,433.``). The front-end adds the findings its own way; :func:`absorb` does it
for a :class:`~traindx.engine.inference.Session` and keeps what each source said, so that
:func:`conflicts` can name where sources disagree (the config's LR against the LR the log
records).

- :func:`read_code` — training code (never executed): the code reader's findings, the configs the
  script names, and its argparse defaults (what it ran with when no argument was given).
- :func:`read_config` — a YAML/JSON/TOML config (or a ``.py`` file's argparse defaults).
- :func:`read_log` — a metrics log: CSV, JSON lines, TensorBoard, MLflow/W&B run folders, or
  printed console output; its curve facts, plus a traceback's kind and NaN warnings.
- :func:`split_paste` / :func:`read_pasted` — a log excerpt pasted into a complaint: the prose
  stays the complaint, the excerpt is read like a console log.
- :func:`fix_patch` — the fix for the top cause as a diff against the script, where the code reader
  located the fault.

Readers are imported only when called: the Q&A path imports no probe and no torch.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, NoSupervisedMetricsError

#: How many of a config file's findings the one-line summary names, and how many characters of a
#: value it shows: the length of a line in the output, not knowledge.
_SHOWN_FINDINGS = 4
_SHORT_CHARS = 24
#: The same for a code file's flagged facts and an RL log's reward names; and the ellipsis that ends
#: a shortened value.
_SHOWN_FLAGGED = 4
_SHOWN_RL_NAMES = 4
_ELLIPSIS = "..."
#: decimals an lr_base_ratio read from a log keeps (presentation: a ratio far below 1 or about 1)
_RATIO_DECIMALS = 6


@dataclass
class Read:
    """What one artifact gave: ``findings`` (``Finding`` objects), ``notes`` (report notes),
    ``summary`` (the line to print), ``analysis`` (a curve analysis, for --plot) and ``recorded``
    (values the artifact states that are not facts, e.g. the LR the log printed)."""

    path: str
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    summary: str = ""
    analysis: Any = None
    recorded: dict = field(default_factory=dict)


def _need(path: str, what: str) -> None:
    if not os.path.exists(path):
        from ..bounded import missing
        raise InputError(missing(path, what), path)


# ------------------------------------------------------------------------------ code / config
def fix_patch(paths, facts: dict, cause: str, kb) -> dict | None:
    """The fix for ``cause`` as a unified diff against the first of ``paths`` it applies to
    (``{"file", "diff", "cause", "changes"}``, or None). ``facts``: the session's ``{fact: (value,
    source)}``; the code reader's own findings (read with ``kb``'s parameters) take precedence, since
    they say where in the script the fault is, even when a live probe's measurement of the same fact
    won in the session. The user's files are never edited."""
    from traindx.probes.readers.patch import make_patch
    for path in paths:
        try:   # the script's findings, then the configs it names: read once for both kinds of patch
            reads = read_code(path, kb.params())
        except Exception:   # noqa: BLE001 - an unreadable script gets no patch, not a traceback
            reads = []
        located = {f.fact: (f.value, f.source) for f in reads[0].findings} if reads else {}
        configs = [r.path for r in reads[1:]
                   if os.path.exists(r.path) and os.path.abspath(r.path) != os.path.abspath(path)]
        p = make_patch(path, {**facts, **located}, cause, kb=kb, configs=configs) or \
            _config_patch(reads[1:], {**facts, **located}, cause, kb)
        if p is not None:
            return p
    return None


def _config_patch(reads: list, facts: dict, cause: str, kb) -> dict | None:
    """The fix made in a config file the script reads (``lr: 0.3`` in config.yaml), where the
    script itself only passes the value on."""
    from traindx.probes.readers.patch import make_config_patch
    for r in reads:
        for f in r.findings:
            if f.source.startswith("config:") and f.source.count(":") >= 2:
                p = make_config_patch(r.path, f.source.split(":", 2)[2], {**facts, f.fact: (f.value, f.source)},
                                      cause, kb=kb)
                if p is not None:
                    return p
    return None


def read_code(path: str, params=None) -> list[Read]:
    """The code file's findings, then (as further Reads) the configs it names and its argparse
    defaults. ``params``: the knowledge base's parameters (``kb.params()``, packs applied; None: the
    shipped ones). Missing or unparsable code raises InputError."""
    _need(path, "code file")
    from traindx.probes.readers.code import analyze_code
    rep = analyze_code(path, params)
    main = Read(path, list(rep.findings))
    for u in getattr(rep, "unresolved", []) or []:
        main.notes.append(f"code reader could not resolve: {u}")
    out = [main]
    base = os.path.dirname(os.path.abspath(path))
    for cfg in getattr(rep, "config_paths", []) or []:
        full = cfg if os.path.isabs(cfg) else os.path.join(base, cfg)
        if os.path.exists(full):
            try:
                out.append(read_config(full, params))
            except InputError as exc:
                main.notes.append(f"config named by the script was not readable: {exc}")
    try:
        from traindx.probes.readers.config import argparse_defaults
        defaults = argparse_defaults(path, params)
    except (ImportError, AttributeError, InputError):
        defaults = []
    if defaults:
        have = {f.fact for r in out for f in r.findings}
        extra = [f for f in defaults if f.fact not in have]
        if extra:
            out.append(Read(path, extra, summary=""))
    main.summary = _code_summary(path, main.findings)
    return out


def _code_summary(path: str, findings: list) -> str:
    name = os.path.basename(path)
    bits = []
    by = {f.fact: f for f in findings}
    opt, lr = by.get("optimizer"), by.get("learning_rate")
    if opt is not None or lr is not None:
        s = " ".join(str(x) for x in (opt.value if opt else None, f"lr={lr.value:g}" if lr and
                                      isinstance(lr.value, (int, float)) else None) if x)
        src = (lr or opt).source.split(":", 1)[-1]
        bits.append(f"{s} ({src})" if s else "")
    flagged = [f for f in findings if f.value is True and f.fact not in ("uses_amp",)]
    if flagged:
        bits.append(", ".join(sorted({f.fact for f in flagged})[:_SHOWN_FLAGGED]))
    detail = "; ".join(b for b in bits if b) or f"{len(findings)} finding(s)"
    return f"Read {name}: {detail}."


def read_config(path: str, params=None) -> Read:
    """A config file's findings. ``params``: the knowledge base's parameters (None: the shipped ones)."""
    _need(path, "config file")
    from traindx.probes.readers.config import analyze_config
    findings = analyze_config(path, params)
    shown = ", ".join(f"{f.fact}={_short(f.value)}" for f in findings[:_SHOWN_FINDINGS])
    more = f" (+{len(findings) - _SHOWN_FINDINGS})" if len(findings) > _SHOWN_FINDINGS else ""
    return Read(path, list(findings),
                summary=f"Read {os.path.basename(path)}: {len(findings)} setting(s)"
                        + (f": {shown}{more}" if shown else "") + ".")


def _short(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    s = str(v)
    return s if len(s) <= _SHORT_CHARS else s[:_SHORT_CHARS - len(_ELLIPSIS)] + _ELLIPSIS


# ------------------------------------------------------------------------------ logs
def read_log(path: str, column_map=None, num_classes=None, params=None, rl_known: bool = False,
             other_evidence: bool = False) -> Read:
    """A metrics log of any kind the readers know; console output included. ``params``: the
    knowledge base's parameter values (``KnowledgeBase.params()``, a pack's overrides applied).
    ``rl_known``: the code already read says the run trains an agent on rewards; a log of its
    console that prints no supervised metric (episode counters, an abbreviated reward) is then
    what such a run prints, said in a note, not bad input that would discard the code's evidence.
    ``other_evidence``: the code, a config or the user's words were given with the log; a log that
    holds no metric (a script that prints "epoch 3 done") is then said in a note and the diagnosis
    rests on the rest, instead of refusing the whole diagnosis. Alone, it is bad input as before."""
    _need(path, "log")
    from traindx.probes.readers.console import describe
    from traindx.probes.readers.logs import read_log as _read
    from traindx.probes.readers.runs import is_run_store, read_run_store
    from traindx.probes.readers.logs import rl_metric_names
    from traindx.probes.readers.words import log_words
    try:
        if is_run_store(path):
            log = read_run_store(path, column_map=column_map, params=params)
        else:
            log = _read(path, column_map=column_map, params=params)
    except NoSupervisedMetricsError as err:
        if err.rl_names:    # rewards, no supervised loss: out of scope, said as evidence
            return Read(path, [_rl_finding(path, err.rl_names)], [], f"Read {os.path.basename(path)}: {err.message}.")
        name = os.path.basename(path)
        if rl_known:
            return Read(path, [], [f"{name}: {err.message}; the code trains an agent on rewards, so no supervised "
                                   "loss is expected there"],
                        f"Read {name}: no supervised metrics (the code is a reinforcement-learning run).")
        if not other_evidence:
            raise
        return Read(path, [], [f"{name}: {err.message}; the diagnosis rests on the other evidence given"],
                    f"Read {name}: no training metrics in it; diagnosing from the other evidence.")
    read = _analyze(log, path, num_classes, describe(log), params)
    rl = rl_metric_names(list(log.columns.values()) + list(log.ignored_columns), log_words(params))
    if rl and not any(f.fact == "rl_training" for f in read.findings):
        read.findings.append(_rl_finding(path, rl))
    return read


def _rl_finding(path: str, names: list):
    from traindx.engine.evidence import Finding
    return Finding("rl_training", True, f"log:{os.path.basename(os.path.normpath(path))}",
                   f"the log records an agent's rewards ({', '.join(names[:_SHOWN_RL_NAMES])}): reinforcement learning")


def _analyze(log, path, num_classes, summary, params=None) -> Read:
    from traindx.probes.readers.curves import analyze
    if hasattr(log, "evidence"):
        from traindx.probes.readers.console import analyze_console
        findings, analysis = analyze_console(log, num_classes=num_classes, params=params)
    else:
        findings, analysis = analyze(log, num_classes=num_classes, params=params)
    from traindx.probes.readers.pace import pace_facts
    findings = list(findings) + pace_facts(analysis, findings, params)
    r = Read(path, list(findings), list(log.notes), summary, analysis)
    lr = log.get("lr")
    if lr is not None and lr.finite:
        r.recorded["learning_rate"] = (lr.min, lr.max, f"log:{log.name}:{log.columns.get('lr')}")
    return r


def split_paste(text: str, params=None) -> tuple[str, str | None]:
    """``(prose, log_text)``: the lines of ``text`` that hold printed metrics, a traceback or a
    progress bar are the log (``None`` when there are fewer metric lines than
    ``console.min_pasted_records`` and no traceback); the rest is the complaint in the user's words.
    ``params``: the knowledge base's parameter values (default: the shipped ones)."""
    if not text or ("\n" not in text and "\r" not in text):
        return text, None
    from traindx.probes.readers.console import ConsoleReader
    lines = text.replace("\r\n", "\n").split("\n")
    reader = ConsoleReader("pasted", params=params, fmt="pasted")
    log_idx = set()
    in_trace = False
    title = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    min_words = int(reader.params["console.title_prose_min_words"])
    paragraphs = 0                       # metric rows the reader found in the user's paragraphs
    for i, ln in enumerate(lines):
        if i == title and _prose_title(ln, min_words):
            continue                     # "fp16 finetune will loss=0": the user's words, not a log row
        before = (reader.metric_lines, len(reader.log.errors), reader.log.nan_warnings,
                  reader.header)
        reader.feed(ln)
        after = (reader.metric_lines, len(reader.log.errors), reader.log.nan_warnings,
                 reader.header)
        if not (reader.in_trace or in_trace) and before[1:] == after[1:] and _paragraph(ln, reader.params):
            paragraphs += after[0] - before[0]     # a paragraph that mentions a loss is no log row
        elif reader.in_trace or in_trace or before != after:
            log_idx.add(i)
        elif ln.strip() and reader.epoch_on_line is False and _axis_only(ln):
            log_idx.add(i)
        in_trace = reader.in_trace
    if reader.metric_lines - paragraphs < reader.params["console.min_pasted_records"] and not reader.log.errors:
        return text, None
    prose = "\n".join(ln for i, ln in enumerate(lines) if i not in log_idx).strip()
    log = "\n".join(ln for i, ln in enumerate(lines) if i in log_idx)
    return prose, log


_STANDALONE_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?%?(?![\w.])|\b(?:nan|inf)\b",
                                re.IGNORECASE)
_PROSE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*(?!\s*[:=])|[\u4e00-\u9fff]")


def _prose_title(line: str, min_words: int) -> bool:
    """The first line of a paste is its title in the user's words ("fp16 finetune will loss=0",
    "训练时 loss = nan") when it holds one number at most and at least ``min_words`` words besides
    the metric's name: a log line holds a step or an epoch beside its value. A NaN or Inf counts as a
    number only where a value is printed (after ":" or "="): "the rpn_loss_box reports as NaN" names one.
    A line that ends in a question mark is the user's question ("total_loss: nan?"), whatever its words."""
    numbers = [m for m in _STANDALONE_NUMBER.finditer(line)
               if m.group(0)[0].isdigit() or m.group(0)[0] in "+-." or _PRINTED_BEFORE.search(line, 0, m.start())]
    if len(numbers) > 1:
        return False
    if _QUESTION_END.search(line):
        return True
    words = [w for w in _PROSE_WORD.findall(line) if w.lower() not in ("nan", "inf")]
    return len(words) >= min_words


def _paragraph(line: str, params) -> bool:
    """A line in the user's words however many numbers it mentions: at least
    ``console.prose_line_min_words`` words and ``console.prose_line_words_per_number`` words per number
    (a log row or a traceback line holds far fewer words, a printed row about one number per name)."""
    words = _PROSE_WORD.findall(line)
    if len(words) < int(params["console.prose_line_min_words"]):
        return False
    numbers = len(_STANDALONE_NUMBER.findall(line))
    return len(words) >= float(params["console.prose_line_words_per_number"]) * numbers


#: a printed value's separator right before it ("loss: nan", "loss=inf")
_PRINTED_BEFORE = re.compile(r"[:=]\s*$")
#: a line that ends in a question mark (ASCII or full-width): a question, the user's words
_QUESTION_END = re.compile(r"[?？]\s*$")


def _axis_only(line: str) -> bool:
    return bool(re.match(r"^\s*(?:epoch|step|iter(?:ation)?)\s*\[?\s*\d+(?:\s*/\s*\d+)?\s*\]?\s*$",
                         line, re.IGNORECASE))


#: facts that describe a curve's shape: a few pasted lines have values, not a shape
_SHAPE_FACTS = frozenset({"loss_trend", "val_loss_trend", "loss_decrease_fraction", "loss_spikes", "loss_noise",
                          "best_val_fraction", "val_at_best", "lr_final_ratio", "lr_collapse_fraction",
                          "lr_decay_helps", "grad_norm_trend", "step_time_trend", "loss_pace", "loss_creeping"})


def settings_from_paste(session, pasted: str) -> None:
    """The training settings printed in a pasted log or config ("lr: 2e-2", "Epoch 1/20") added to
    ``session`` as the user's, where nothing else has stated them (kb/language ``settings_in_logs``)."""
    from ..understand import read_settings
    lang = getattr(session.kb, "language", None)
    if lang is None or not pasted:
        return
    for r in read_settings(pasted, lang):
        if r.fact in session.base:
            continue
        try:
            session.add(r.fact, r.value, "user", f"from your pasted log: “{r.phrase}”")
        except InputError:
            pass


def read_pasted(text: str, name: str = "pasted log", num_classes=None, params=None) -> Read:
    """A pasted excerpt read like a console log file. An excerpt of fewer training-loss points
    than ``console.min_pasted_trend_points`` gives its values (the loss, the accuracies, a NaN) but
    no trend: two pasted lines cannot say whether a loss is flat, and a "flat" read from them
    would outrank the user's words ("it plateaued after 20 epochs" above two lines of epochs 21-22)."""
    from traindx.probes.readers.console import read_console_text

    from ..parameters import resolve
    log = read_console_text(text, name=name, params=params)
    summary = log.describe().replace(f"Read {name}:", f"Read the {name}:", 1)
    read = _analyze(log, name, num_classes, summary, params)
    P = resolve(params)
    need = int(P["console.min_pasted_trend_points"])
    _withhold_rival_values(log, read, P)
    loss = log.get("loss")
    points = len(loss.finite_points()) if loss is not None else 0
    if points < need:
        dropped = [f for f in read.findings if f.fact in _SHAPE_FACTS]
        if dropped:
            read.findings = [f for f in read.findings if f.fact not in _SHAPE_FACTS]
            read.notes.append(f"the pasted excerpt holds {points} training-loss point(s), fewer than "
                              f"{need}: its values are used, not its trend")
    return read


#: the parameters that list, per metric role of a log, the facts that state its value (its level,
#: not its shape): ``console.role_value_facts.<role>``
_ROLE_VALUES = "console.role_value_facts."


def _withhold_rival_values(log, read: Read, params) -> None:
    """An excerpt that prints one metric under more than ``console.pasted_max_names_per_metric``
    names whose last values differ by more than ``console.pasted_names_agree`` (relative) ("Loss" per batch and
    "Training Loss" per epoch, "Classification loss" beside "Total loss", "train_loss" per step
    and "average loss" per epoch) states no single value of it: which of them the user means is
    ambiguous, so none is read as the fact (precision over recall; the question is asked)."""
    most, agree = int(params["console.pasted_max_names_per_metric"]), float(params["console.pasted_names_agree"])
    names = getattr(log, "role_names", None) or {}
    roles = {pid[len(_ROLE_VALUES):]: facts for pid, facts in params.items() if pid.startswith(_ROLE_VALUES)}
    for role, facts in roles.items():
        printed = names.get(role) or {}
        values = [v for v in printed.values() if isinstance(v, (int, float)) and math.isfinite(v)]
        if len(printed) <= most or (values and max(values) - min(values) <= agree * max(abs(x) for x in values)):
            continue                    # one name, or names that agree on the value: no ambiguity
        held = [f for f in read.findings if f.fact in facts]
        if held:
            read.findings = [f for f in read.findings if f.fact not in facts]
            read.notes.append(f"the pasted excerpt prints the {role.replace('_', ' ')} under "
                              f"{len(printed)} names ({', '.join(sorted(repr(n) for n in printed))}): "
                              "its value is not read as one")


# ------------------------------------------------------------------------------ the session side
def absorb(session, read: Read, add=None):
    """Add a Read's findings and notes to ``session`` and remember what each source said.
    False (and nothing added) when this very artifact was already read into the session (a
    config given with --config and named by the script). ``add(findings)`` adds the findings
    (default ``session.add_findings``); with it, its result is returned."""
    seen = session.__dict__.setdefault("_read_keys", set())
    key = (os.path.abspath(read.path) if os.path.exists(read.path) else read.path, read.summary,
           len(read.findings))
    if key in seen:
        return False
    seen.add(key)
    added = (add or session.add_findings)(read.findings)
    for n in read.notes:
        if n not in session.notes:
            session.notes.append(n)
    if read.summary:
        session.__dict__.setdefault("sources_read", []).append(read.summary)
    remember(session, read)
    ran = _lr_that_ran(session)
    if ran:
        (add or session.add_findings)(ran)
    return True if add is None else added


def _lr_that_ran(session) -> list:
    """The LR the log records, as the ``learning_rate`` fact, when the code or config states one
    outside the recorded range (a conflict from :func:`conflicts`): the log is what ran, the config
    what was intended (``engine.source_rank.log`` over ``.config``), so the diagnosis weighs the
    recorded LR (its peak) and the report still names the disagreement. Beside a scheduler in the
    script, also ``lr_base_ratio``: the recorded peak over the rate the code or config sets, the rate
    the scheduler scales (a schedule that held the LR at a sliver of it is the schedule's fault, not
    a rate set too low). Empty without a conflict, or when the fact already holds the log's value."""
    from traindx.engine.evidence import Finding
    for c in getattr(session, "source_conflicts", []):
        if c.get("fact") != "learning_rate":
            continue
        logged = [v for v in c["values"] if v["source"].startswith("log")]
        if not logged:
            continue
        val, src = logged[0]["value"], logged[0]["source"]
        peak = max(val) if isinstance(val, list) else val
        held = getattr(session, "base", {}).get("learning_rate")
        if held is not None and getattr(held, "source", "") == src:
            return []
        set_lr, set_src = c["values"][0]["value"], c["values"][0]["source"]
        out = [Finding("learning_rate", float(peak), src,
                       f"the log records the LR the run used ({_short(val)}), not the "
                       f"{_short(set_lr)} its {set_src.split(':', 1)[0]} sets")]
        if _scheduled(session) and float(peak) < set_lr:
            out.append(Finding("lr_base_ratio", round(float(peak) / set_lr, _RATIO_DECIMALS), src,
                               f"the highest LR the log records, {_short(peak)}, is x{float(peak) / set_lr:.2g} "
                               f"the {_short(set_lr)} its {set_src.split(':', 1)[0]} sets for the scheduler to scale"))
        return out
    return []


def _scheduled(session) -> bool:
    """Whether the script builds an LR scheduler (the code's ``scheduler`` finding, other than none)."""
    return any(src.startswith("code") and v not in (None, "", "none", "constant", "constantlr")
               for v, src in session.__dict__.get("_said", {}).get("scheduler", []))


def remember(session, read: Read) -> None:
    said = session.__dict__.setdefault("_said", {})
    for f in read.findings:
        said.setdefault(f.fact, []).append((f.value, f.source))
    for fact, rec in read.recorded.items():
        session.__dict__.setdefault("_recorded", {})[fact] = rec
    session.source_conflicts = conflicts(session)


def conflicts(session, params=None) -> list[dict]:
    """Where sources disagree: ``[{"fact", "values": [{"value", "source"}], "message"}]``.

    - the learning rate the code/config set against the range the log records (outside
      ``[min / r, max * r]``, ``r = console.lr_conflict_ratio``: a schedule's warm-up and decay
      stay inside the recorded range);
    - any numeric fact two sources state differently by more than that ratio (the config's LR
      against the code's), and any other fact with different values.
    """
    from ..parameters import resolve
    p = resolve(params if params is not None else getattr(getattr(session, "kb", None), "params", lambda: None)())
    ratio = float(p["console.lr_conflict_ratio"])
    said = session.__dict__.get("_said", {})
    rec = session.__dict__.get("_recorded", {})
    out = []
    lr_log = rec.get("learning_rate")
    # a scheduler in the script that the log shows moving the LR: a base LR above every recorded
    # value is the schedule having lowered it before the first record (a StepLR stepped before
    # the epoch's print), not a disagreement
    scheduled = _scheduled(session)
    if lr_log:
        lo, hi, src = lr_log
        for value, source in said.get("learning_rate", []):
            if source.startswith(("code", "config")) and isinstance(value, (int, float)) and value > 0:
                if scheduled and lo < hi and value > hi * ratio:
                    continue
                if value > hi * ratio or value < lo / ratio:
                    rng = f"{lo:.3g}" if math.isclose(lo, hi) else f"{lo:.3g}–{hi:.3g}"
                    out.append({"fact": "learning_rate",
                                "values": [{"value": value, "source": source},
                                           {"value": [lo, hi] if lo != hi else lo, "source": src}],
                                "message": f"learning rate: {value:g} ({_where(source)}) but the log "
                                           f"records {rng} ({_where(src)})"})
    for fact, vals in said.items():
        art = [(v, s) for v, s in vals if s.split(":", 1)[0] in ("code", "config")]
        if len(art) < 2:
            continue
        first_v, first_s = art[0]
        for v, s in art[1:]:
            if s.split(":", 1)[0] == first_s.split(":", 1)[0] and s.split(":")[1:2] == first_s.split(":")[1:2]:
                continue  # one file naming a value twice (e.g. two optimizers) is not a conflict
            if _differ(first_v, v, ratio):
                out.append({"fact": fact, "values": [{"value": first_v, "source": first_s},
                                                      {"value": v, "source": s}],
                            "message": f"{fact}: {_short(first_v)} ({_where(first_s)}) but "
                                       f"{_short(v)} ({_where(s)})"})
                break
    return out


def _differ(a, b, ratio) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a != b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return False
        if a <= 0 or b <= 0:
            return True
        return max(a, b) / min(a, b) > ratio
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() != b.strip().lower()
    return False


def _where(source: str) -> str:
    try:
        from ..markdown import where
        return where(source)
    except Exception:  # pragma: no cover - formatting only
        return source


__all__ = ["Read", "read_code", "read_config", "read_log", "read_pasted", "split_paste", "absorb",
           "remember", "conflicts"]
