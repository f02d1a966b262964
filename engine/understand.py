"""Understanding what people write: a complaint in their own words -> a symptom and the facts it states.

Everything this module knows about language lives in the knowledge base (``kb/language/*.yaml``,
kind ``language``; a pack adds phrasings, terms and extractors without code):

- ``terms``: named vocabularies (synonyms, abbreviations, common misspellings, other languages),
  used inside patterns as ``{name}`` — ``{val}`` is "val", "validation", "valid", "dev", "eval", …
- ``negators``: words that negate what follows in the same clause ("not", "no", "without", "n't").
- ``symptoms``: per symptom, weighted ``phrases`` (plain) and ``negated`` phrasings (that argue
  against it), ``examples`` — whole utterances, which are both test cases and training — and
  ``utterances`` (training only). Examples and utterances train a small classifier at load time
  (:class:`_Examples`, TF-IDF nearest centroid over words, word pairs and character n-grams): the
  second voice, which names the symptom when no phrase speaks and may overrule a weak phrase, never
  a healthy reading (:func:`_example_vote`).
- ``facts``: extractors — patterns with a ``{num}``/``{int}``/``{pct}`` slot, a ``(?P<word>…)``
  capture mapped to a value, or a fixed ``value`` (and ``negated_value`` when a negator precedes).
- ``metrics``: (split, metric) -> fact, read by one structural reader that attributes a number to
  the nearest split and metric words before it ("train acc 99% val 55%").
- the grammar words of that attribution and of the classifier (``counted_words``, ``clause_words``,
  ``unit_words``, ``from_words``, ``range_words``, ``stop_words``, ``number_words``, ...: the schema
  kb-language describes each); only punctuation, digits and arrows around them are written here.

Nothing is downloaded, nothing is evaluated as code, no torch. Thresholds come from
``kb/parameters/language.yaml``.
"""

from __future__ import annotations

import bisect
import functools
import math
import os
import re
from dataclasses import dataclass, field

from . import examplestore
from .errors import KBError
from .kbmemo import Kept
from .parameters import resolve
from .values import THOUSANDS_GROUPED

#: the number slots of a pattern, {num}/{int}/{pct} (:func:`number_slots`)
#: a percentage as written: "20%", "20 %", "20％" (full-width), "99 percent", "5 per cent"
PCT = r"(?<![\d.,])(?P<num>\d+(?:\.\d*)?|\.\d+)\s?(?:%|％|percent\b|per cent\b)"
_PERCENT_AFTER = re.compile(r"\s?(?:%|％|percent\b|per cent\b)", re.IGNORECASE)


#: an exponent written out: "3 x 10^-4", "3×10**-4", "3 x E-4" (the same number as 3e-4), or copied from a page that
#: set it as a superscript, which leaves the minus ("6×10−5": a power of ten with a minus and no caret)
_TIMES_TEN = r"\s?[x×*]\s?(?:(?:10\s?(?:\^|\*\*)|e)\s?[-−+]?|10[-−])\d+(?![\d.])"
_TIMES_TEN_RX = re.compile(r"(?P<m>.+?)\s?[x×*]\s?(?:(?:10\s?(?:\^|\*\*)|e)\s?|10(?=[-−]))(?P<x>[-−+]?\d+)(?![\d.])",
                           re.IGNORECASE)


#: thousands written with a space ("12 000 datapoints", "40 000 iterations", as French, Russian and Scandinavian
#: writers do), or with a comma and a space ("200, 000 images"): only whole thousands, so that two numbers side by
#: side ("bs 32 100 epochs", "sizes 32, 64") stay two; and the "000" of such a number is never a number of its own
_SPACED_THOUSANDS = r"|[1-9]\d{0,2}(?:,?[ \u00a0\u202f]000)+(?![\d.,])"
_NOT_A_GROUP = r"(?!(?<=\d[ \u00a0\u202f])000(?![\d.,]))(?!(?<=\d,[ \u00a0\u202f])000(?![\d.,]))"


def number_slots(magnitudes: dict, attached=()) -> dict:
    """The {num}, {int} and {pct} slots: a number as people write it — 1e-3, .001, 3E-4, 1,000, ~0.693,
    a decimal comma after a leading zero ("0,01": no thousands group starts with "0,") — and, for
    {num} and {int}, a magnitude word after it (kb/language ``magnitude_words``: "2k", "1.6 million"),
    those in ``attached`` (``attached_magnitude_words``: "20w", "30万") only right after the digits."""
    loose = "|".join(sorted(set(magnitudes) - set(attached), key=len, reverse=True))
    tight = "|".join(sorted(set(attached), key=len, reverse=True))
    mag = "|".join(x for x in ((r"\s?(?:" + loose + ")") if loose else "", ("(?:" + tight + ")") if tight else "") if x)
    after = r"(?:(?:" + mag + r")(?![a-z]))?" if mag else ""
    num = (r"(?<![\d.,])(?<!\d:)" + _NOT_A_GROUP + r"(?P<num>[-+]?(?:0,\d+(?!\d|,\d)|" + THOUSANDS_GROUPED + r"(?!\d)"
           + _SPACED_THOUSANDS + r"|\d+(?:\.\d*)?|\.\d+)"
           r"(?:e[-+]?\d+|" + _TIMES_TEN + r")?"
           + after + r")(?!\d|\.\d|e[-+]?\d|\s*[*×]\s*[\d.])")
    whole = r"|\d+(?:\.\d+)?(?:" + mag + r")(?![a-z])" if mag else ""
    int_ = (r"(?<![\d.,])(?<!\d:)" + _NOT_A_GROUP + r"(?P<num>" + THOUSANDS_GROUPED + r"(?!\d)" + _SPACED_THOUSANDS
            + whole + r"|\d+)"
            r"(?!\d|\.\d|,\d{3})")
    return {"num": num, "int": int_, "pct": PCT}


_MACRO = re.compile(r"\{([a-z_]+)\}")
#: clause boundaries in punctuation (the words, kb/language ``clause_words``, are added at load time):
#: negation and attribution never reach across them
_CLAUSE_PUNCTUATION = r"[.;!?\n]|,\s|，|。|；"
#: arrows that join a change's old value to its new one ("lr 0.1 -> 0.01"); the words are ``change_to_words``
_ARROWS = r"->|→|=>|==>"
#: an arrow alone between two values ("0.4->0.9", "2.3 → 0.4"): a change, with or without a "from" before them
_ARROW_GAP = re.compile(r"\s*%?\s*-*(?:" + _ARROWS + r")\s*~?\s*")
#: a setting's value changed with an arrow after it ("Dropout(0) -> Dropout(0.5)", "bs 32 -->16", "wd 0->2e-4")
_ARROW_AFTER = re.compile(r"[ \t]*\)?[ \t]*-*(?:" + _ARROWS + r")[ \t]*")
#: the new value right after such an arrow, written bare ("dropout 0.1 -> 0.4")
_BARE_VALUE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?(?![\w.])", re.IGNORECASE)


#: a number whose last digits are left out ("5.xx", "0.12xx", "28.xxx", "7.x"): its known digits are its value; the
#: x's become zeros (the text keeps its length, so spans still point into it). One "x" after a decimal digit stays:
#: "1.5x" is a ratio ("1.5x slower"); so do known digits that are all zero ("0.000xx" is small, not 0)
_PLACEHOLDER_DIGITS = re.compile(r"(?<![\w.])(?P<known>\d+\.\d*)(?P<x>(?<=\.)[xX]+|(?<=\d)[xX]{2,})(?![A-Za-z0-9_])")


def _zero_placeholders(m: re.Match) -> str:
    known = m.group("known")
    return known + "0" * len(m.group("x")) if re.search(r"[1-9]", known) else m.group(0)


@dataclass
class Reading:
    """One fact read from the text: its value and the words it came from (``span`` in the text)."""
    fact: str
    value: object
    span: tuple
    phrase: str

    def as_dict(self) -> dict:
        return {"fact": self.fact, "value": self.value, "span": list(self.span), "phrase": self.phrase}


@dataclass
class Understanding:
    text: str
    symptom: str | None = None
    symptom_phrase: str | None = None
    symptom_span: tuple | None = None
    scores: dict = field(default_factory=dict)
    how: str = "none"                     # "phrases", "examples" or "none"
    symptom_words: str | None = None      # how == "examples": the words that weighed most towards it
    facts: list = field(default_factory=list)     # [Reading]

    def fact(self, name):
        for r in self.facts:
            if r.fact == name:
                return r
        return None

    def as_dict(self) -> dict:
        return {"symptom": self.symptom, "symptom_phrase": self.symptom_phrase,
                "symptom_span": list(self.symptom_span) if self.symptom_span else None,
                "how": self.how, "symptom_words": self.symptom_words, "facts": [r.as_dict() for r in self.facts]}


# ------------------------------------------------------------------------------ compiling
@dataclass
class _Cue:
    symptom: str
    rx: re.Pattern
    weight: float
    negatable: bool
    source: str
    states: dict = field(default_factory=dict)
    says: str | None = None           # "chance" / "progress": where the phrasing puts the loss
    alone: bool = True                # False: counts only beside another phrasing that names a symptom


@dataclass
class _Extractor:
    fact: str
    rx: re.Pattern
    value: object = None
    has_value: bool = False
    mapping: dict | None = None
    negated_value: object = None
    has_negated: bool = False
    pick: str = "first"
    scale: str | None = None          # "fraction": 95 -> 0.95
    source: str = ""


@dataclass
class Language:
    """The compiled language knowledge of a knowledge base (core + packs)."""
    terms: dict = field(default_factory=dict)
    negators: re.Pattern | None = None
    attached_negators: re.Pattern | None = None
    cues: list = field(default_factory=list)
    extractors: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)       # (split, metric) -> fact
    split_rx: dict = field(default_factory=dict)      # split -> regex
    metric_rx: dict = field(default_factory=dict)     # metric -> regex
    examples: list = field(default_factory=list)      # (symptom, text, origin): test cases and training
    utterances: list = field(default_factory=list)    # (symptom, text, origin): training only
    exclusive: dict = field(default_factory=dict)     # fact -> symptoms it belongs to
    settings_in_logs: set = field(default_factory=set)  # facts also read from a pasted log's lines
    settings_picks: dict = field(default_factory=dict)  # which of a log's values is the setting (fact -> pick)
    other_rx: re.Pattern | None = None                # quantities the facts do not track (dice, reward)
    peak_rx: re.Pattern | None = None                 # a spike's height follows these, not the level
    later_point_rx: re.Pattern | None = None          # a value stated at a point past the start ("after epoch 2")
    now_rx: re.Pattern | None = None                  # a value stated as the run's present one ("currently 0.55")
    reference_rx: re.Pattern | None = None            # what follows is someone else's value ("the paper gets 76%")
    name_rx: re.Pattern | None = None                 # a name carrying a number ("VOC2007", "COCO 2017"): no value
    reproduction_rx: re.Pattern | None = None         # a run measured against a paper: its bare accuracy is held out
    ability_rx: re.Pattern | None = None              # what a run can reach: someone else's unless labelled before
    anaphora_rx: re.Pattern | None = None             # a pronoun subject that stands for the metric named before it
    setting_rx: re.Pattern | None = None              # a setting's name and the gap before its value ("lr is")
    counted_rx: re.Pattern | None = None              # a number after these counts or ranks ("epoch 3", "top-1")
    bound_rx: re.Pattern | None = None                # a comparative bounding the value itself ("more than 70%")
    comparison_rx: re.Pattern | None = None           # between a label and a number, these break the attribution
    comparand_rx: re.Pattern | None = None            # right before a split word, it is the quantity compared against
    relative_rx: re.Pattern | None = None             # a clause opened by these tells of the noun right before it
    hypothetical_rx: re.Pattern | None = None         # a question or plan: its settings are not the run's
    hypothetical_facts: set = field(default_factory=set)
    statement_rx: re.Pattern | None = None            # after a cue, a clause stating the run's value ("which is")
    retry_change_rx: re.Pattern | None = None         # a change tried on the run ("then I lowered the lr")
    retry_futile_rx: re.Pattern | None = None         # ... that did not help ("the error persists")
    one_number_one_fact: list = field(default_factory=list)  # (kept, dropped): one number read as both is the first
    share_rx: dict = field(default_factory=dict)      # fact -> a device's share of it ("per_device_", "micro_")
    clause_rx: re.Pattern | None = None               # clause boundaries: punctuation and ``clause_words``
    number_words: dict = field(default_factory=dict)  # "three" -> 3, "first" -> 1 (a {num} capture may be a word)
    magnitudes: dict = field(default_factory=dict)    # "k" -> 1000, "million" -> 1000000 ("2k", "1.6 million")
    attached_magnitudes: set = field(default_factory=set)   # of those, written right after the digits ("20w")
    unit_rx: re.Pattern | None = None                 # a unit right after a number: it counts ("3 epochs")
    split_after_rx: re.Pattern | None = None          # between a number and a split named after it ("61% on the")
    metric_of_split_rx: re.Pattern | None = None      # between a metric and its split ("accuracy of the val set")
    share_of_rx: re.Pattern | None = None             # between a share and the metric it is of ("62% of accuracy")
    label_next_rx: re.Pattern | None = None           # after a label, a number it names follows ("val acc is 55%")
    from_rx: re.Pattern | None = None                 # a change's old value follows ("from 2.3")
    change_to_rx: re.Pattern | None = None            # between a change's old and new value ("to", "降到")
    range_end_rx: re.Pattern | None = None            # "from 0.5" / "from 0.5 to ": a number after is no range's bound
    range_open_rx: re.Pattern | None = None           # "ranges from 0.5", "between 0.5 and ": a bound follows
    test_split_rx: re.Pattern | None = None           # "Test Loss: 0.35" beside "Vali Loss: 0.46": the validation one
    change_phrase_rx: re.Pattern | None = None        # a phrase stating a change ("from", "... to 90%")
    range_after_rx: re.Pattern | None = None          # a range goes on after a number ("3.5-3.7", "0.3 and 0.6")
    range_before_rx: re.Pattern | None = None         # a range opened before a number ("between", "3.5 to")
    between_rx: re.Pattern | None = None              # "between 0.31 and 0.33": both bounds
    continuation_break_rx: re.Pattern | None = None   # between two numbers: the second is no later value of the first
    move_to_rx: re.Pattern | None = None              # between two values, a move to the second ("goes down to")
    unreal_move_rx: re.Pattern | None = None          # right before a move's verb: not told as happening ("to go")
    coordinated_rx: re.Pattern | None = None          # what joins the items of one list ("dropout, augmentation or")
    difference_rx: re.Pattern | None = None           # after a number: it is a difference ("10% lower than")
    shared_split_rx: re.Pattern | None = None         # joins two splits that share one label ("train and val loss")
    own_values_rx: re.Pattern | None = None           # after a number, another for the second split ("0.5 and 0.6")
    stop_words: frozenset = frozenset()               # words the examples' classifier ignores
    training: list = field(default_factory=list)      # (symptom, text, origin): what the examples' classifier learns
    same_quantity: dict = field(default_factory=dict)  # fact -> the other facts that name its quantity
    params: dict = field(default_factory=dict)
    _model: _Examples | None = field(default=None, repr=False)

    @property
    def model(self) -> _Examples | None:
        """The classifier of the examples and utterances (:class:`_Examples`), built on first use:
        most commands (explain, kb tools, a log or code alone) never read a complaint, and building
        it is a third of loading the knowledge base."""
        if self._model is None and self.training:
            self._model = _examples_model(self.training, self.params, self.stop_words)
        return self._model


#: How deep ``{term}`` macros may nest inside one another: a bound on work (a term naming itself
#: stops there), not knowledge.
_MACRO_DEPTH = 4
#: The symptom scores a reading reports carry 3 decimals: presentation (the ranking uses the
#: unrounded scores).
_SCORE_DECIMALS = 3


def expand(pattern: str, terms: dict, where: str = "") -> str:
    """Replace ``{name}`` with its term alternation or number slot (both in ``terms``), recursively."""
    def sub(m):
        name = m.group(1)
        if name not in terms:
            raise KBError(f"unknown term {{{name}}} in pattern {pattern!r}", where or None,
                          hint="declare it under terms: in a language file")
        return terms[name]
    for _ in range(_MACRO_DEPTH):
        new = _MACRO.sub(sub, pattern)
        if new == pattern:
            break
        pattern = new
    return pattern


#: compiled language patterns one process keeps (a work bound: the core's language has about seven
#: hundred; ``re``'s own cache holds 512, so a second load of the knowledge base, with a pack or from
#: the memo, compiled them all again)
_PATTERNS_KEPT = 4096


#: the longest run of word characters one ``\w*`` / ``\w+`` / ``\S*`` / ``[\w-]+`` of a language pattern reads (a
#: bound on work, not knowledge): unbounded, such a run after a stem ("acc\w*", "{train}\w*") backtracks through the
#: rest of the line at every start, and a 4 KB line of one word repeated ("accaccacc...", "VOCVOC...") took seconds.
#: The rest of a word after a stem is far shorter, and so is any run a phrase steps over in a script without spaces.
_WORD_RUN = 40
#: a run of word characters (``\w`` or ``\S``, a bracketed class holding ``\w``, ``[a-z]``, ``[a-z0-9]``) with an
#: unbounded quantifier that is not possessive ("*+"); else any other escape or bracketed class, stepped over whole so
#: that a quantifier inside a class or after an escaped backslash is never read as one
_RUN_OF_WORD_CHARS = re.compile(
    r"(?P<atom>\\[wS]|\[(?!\^)(?:\\.|[^\]\\])*\\w(?:\\.|[^\]\\])*\]|\[a-z\]|\[a-z0-9\])(?P<q>[*+])(?![+])"
    r"|\\.|\[\^?\]?(?:\\.|[^\]\\])*\]")


def bounded_runs(expanded: str) -> str:
    r"""``expanded`` with every unbounded run of word characters (``\w*``, ``\w+?``, ``\S+``, ``[\w.]*``, ``[a-z]+``)
    bounded to ``_WORD_RUN`` characters, so that every language pattern reads a line in time linear in its length;
    escapes and bracketed classes other than those are stepped over whole, so a quantifier inside one is untouched."""
    def bound(m: re.Match) -> str:
        if m.group("q") is None:
            return m.group(0)
        return m.group("atom") + "{" + ("0" if m.group("q") == "*" else "1") + "," + str(_WORD_RUN) + "}"
    return _RUN_OF_WORD_CHARS.sub(bound, expanded)


@functools.lru_cache(maxsize=_PATTERNS_KEPT)
def _regex(expanded: str) -> re.Pattern:
    """A compiled pattern is immutable, so one knowledge base's is every later load's. Its runs of word characters
    are bounded (:func:`bounded_runs`)."""
    return re.compile(bounded_runs(expanded), re.IGNORECASE)


def _compile(pattern: str, terms: dict, where: str) -> re.Pattern:
    try:
        return _regex(expand(pattern, terms, where))
    except re.error as exc:
        raise KBError(f"bad pattern {pattern!r}: {exc}", where or None) from None


def _compile_symptom(lang: Language, s: dict, facts: dict, symptoms: dict, where: str) -> None:
    """One symptom's phrasings (cues), examples (test cases and training) and utterances (training)."""
    sid = s["symptom"]
    if sid not in symptoms:
        raise KBError(f"unknown symptom {sid!r} in a language file", where)
    for p in s.get("phrases", []):
        for fid in p.get("states", {}):
            if fid not in facts:
                raise KBError(f"unknown fact {fid!r} in a phrase's states", where)
        lang.cues.append(_Cue(sid, _compile(p["pattern"], lang.terms, where), float(p.get("weight", 1.0)),
                              bool(p.get("negatable", True)), where, dict(p.get("states", {})),
                              p.get("says"), bool(p.get("alone", True))))
    for p in s.get("negated", []):
        lang.cues.append(_Cue(sid, _compile(p["pattern"], lang.terms, where), -float(p.get("weight", 1.0)),
                              False, where))
    for ex in s.get("examples", []):
        lang.examples.append((sid, ex, where))
    for ex in s.get("utterances", []):
        lang.utterances.append((sid, ex, where))


def compile_language(entries: list, facts: dict, symptoms: dict, params: dict) -> Language:
    """Compile the ``language`` files' entries (each ``(data, origin)``) into one :class:`Language`."""
    lang = Language(params=params)
    raw_terms: dict = {}
    negators: list = []
    attached_negators: list = []                       # negators of scripts without spaces: no word bounds
    hypothetical: list = []
    statements: list = []
    retries: dict = {"changes": [], "futile": []}
    grammar: dict = {key: [] for key in _GRAMMAR_LISTS}
    origins: list = []                                 # (list name, word, file): a bad word names its own file
    for data, where in entries:
        for t in data.get("terms", []):
            raw_terms.setdefault(t["id"], []).extend(t["variants"])
        negators += data.get("negators", [])
        origins += [("negators", w, where) for w in data.get("negators", [])]
        attached_negators += data.get("attached_negators", [])
        origins += [("attached_negators", w, where) for w in data.get("attached_negators", [])]
        for key in _GRAMMAR_LISTS:
            grammar[key] += data.get(key, [])
            origins += [(key, w, where) for w in data.get(key, [])]
        for key, values in (data.get("split_after") or {}).items():
            grammar["split_after." + key] += values
            origins += [("split_after." + key, w, where) for w in values]
        lang.number_words.update({str(k).lower(): v for k, v in (data.get("number_words") or {}).items()})
        lang.magnitudes.update({str(k).lower(): v for k, v in (data.get("magnitude_words") or {}).items()})
        attached = {str(k).lower(): v for k, v in (data.get("attached_magnitude_words") or {}).items()}
        lang.magnitudes.update(attached)
        lang.attached_magnitudes.update(attached)
    # a term is a non-capturing alternation of its variants (longest first); variants may use other terms
    lang.terms = {k: "(?:" + "|".join(sorted(set(v), key=len, reverse=True)) + ")" for k, v in raw_terms.items()}
    lang.terms.update(number_slots(lang.magnitudes, lang.attached_magnitudes))   # a slot wins over a term of its name
    _check_words(origins, lang.terms)
    _compile_negators(lang, negators, attached_negators)
    # "val_loss", "eval_acc": a metric word may follow a split prefix of a log's column name (``metric_prefixes``)
    prefixes = "".join("|(?<=" + pre + ")" for pre in grammar["metric_prefixes"])
    for data, where in entries:
        for s in data.get("symptoms", []):
            _compile_symptom(lang, s, facts, symptoms, str(where))
        for f in data.get("facts", []):
            fid = f["fact"]
            if fid not in facts:
                raise KBError(f"unknown fact {fid!r} in a language file", str(where),
                              hint="declare it in a facts file")
            for p in f["patterns"]:
                lang.extractors.append(_Extractor(
                    fid, _compile(p, lang.terms, str(where)), value=f.get("value"), has_value="value" in f,
                    mapping={str(k).lower(): v for k, v in (f.get("map") or {}).items()} or None,
                    negated_value=f.get("negated_value"), has_negated="negated_value" in f,
                    pick=f.get("pick", "first"), scale=f.get("scale"), source=str(where)))
            if f.get("only_for"):
                lang.exclusive[fid] = set(f["only_for"])
        for fid in data.get("settings_in_logs", []):
            if fid not in facts:
                raise KBError(f"unknown fact {fid!r} in settings_in_logs", str(where))
            lang.settings_in_logs.add(fid)
        for fid, pick in (data.get("settings_pick_in_logs") or {}).items():
            if fid not in facts:
                raise KBError(f"unknown fact {fid!r} in settings_pick_in_logs", str(where))
            lang.settings_picks[fid] = pick
        for m in data.get("metrics", []):
            if m["fact"] not in facts:
                raise KBError(f"unknown fact {m['fact']!r} in a language file", str(where))
            lang.metrics[(m["split"], m["metric"])] = m["fact"]
        for sp in data.get("splits", []):
            lang.split_rx[sp["id"]] = _compile(r"(?<![a-z])(?:" + sp["pattern"] + r")(?![a-z])", lang.terms, str(where))
        for mt in data.get("metric_words", []):
            # a metric word stands alone or after a split ("val_loss"), never as a component ("loss_mn", "box_loss")
            lang.metric_rx[mt["id"]] = _compile(r"(?:(?<![a-z_])" + prefixes + r")(?:" + mt["pattern"] + r")(?![a-z_])",
                                                lang.terms, str(where))
        _same_quantity(lang, data.get("same_quantity", []), facts, str(where))
        _fact_lists(lang, data, facts, str(where), hypothetical, statements, retries)
    lang.hypothetical_rx = _alternation(hypothetical, lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.statement_rx = _alternation(statements, lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.retry_change_rx = _alternation(retries["changes"], lang.terms, "", "")
    lang.retry_futile_rx = _alternation(retries["futile"], lang.terms, "", "")
    lang.training = [(s, t, o) for s, t, o in lang.examples + lang.utterances]
    _compile_labels(lang, grammar)
    _compile_grammar(lang, grammar)
    return lang


def _compile_negators(lang: Language, negators: list, attached: list) -> None:
    """A negator between word boundaries ("not", "no", "without"), and one matched where it stands
    (``attached_negators``: a script written without spaces, "没有用混合精度")."""
    if negators:
        alternatives = "|".join(sorted(set(negators), key=len, reverse=True))
        lang.negators = re.compile(r"(?:^|\W)(?:" + alternatives + r")(?:\W|$)", re.IGNORECASE)
    if attached:
        lang.attached_negators = re.compile("(?:" + "|".join(sorted(set(attached), key=len, reverse=True)) + ")",
                                            re.IGNORECASE)


def _check_words(origins: list, terms: dict) -> None:
    """Each grammar word alone, before the lists are joined into one regex: a word that is no valid
    pattern (a pack's ``"(("``) is reported with its list and the file that brought it, not as a
    failure of the joined pattern in whichever file compiles it. A split prefix must also stand in a
    fixed-width lookbehind. The classifier's ``stop_words`` are plain words, not patterns."""
    for key, word, where in origins:
        if key == "stop_words":
            continue
        pattern = "(?<=" + str(word) + ")" if key == "metric_prefixes" else "(?:" + str(word) + ")"
        try:
            re.compile(expand(pattern, terms, str(where)), re.IGNORECASE)
        except re.error as exc:
            raise KBError(f"bad word {word!r} in {key}: {exc}", str(where) or None) from None


def _compile_labels(lang: Language, g: dict) -> None:
    """What makes a number no metric's value, or not the run's: another quantity's name, a spike's
    height, someone else's value, a setting's value, a count; and the comparatives around a label."""
    lang.other_rx = _alternation(g["other_quantities"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.peak_rx = _alternation(g["peak_words"], lang.terms, r"(?<![a-z])", "")
    lang.later_point_rx = _alternation(g["later_point_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.now_rx = _alternation(g["now_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    # a test word opening the value's phrase ("test loss 0.35") or standing right before it ("Test Loss: 0.35")
    lang.test_split_rx = _alternation(g["test_split_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.reference_rx = _alternation(g["reference_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.name_rx = _alternation(g["name_numbers"], lang.terms, r"(?<![a-z0-9_.])", "")
    lang.reproduction_rx = _alternation(g["reproduction_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.ability_rx = _alternation(g["ability_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.anaphora_rx = _alternation(g["anaphora_words"], lang.terms, r"(?<![a-z])", r"(?![a-z])")
    lang.setting_rx = _alternation(g["setting_words"], lang.terms, "", _setting_gap(g["setting_gap_words"]))
    # "epoch 3", "lr 0.1", "top-1": up to three non-word characters between
    lang.counted_rx = _alternation(g["counted_words"], lang.terms, "", r"\W{0,3}$")
    lang.bound_rx = _alternation(g["bound_words"], lang.terms, r"\b", r"\s*$")
    lang.comparison_rx = _alternation(g["comparison_words"], lang.terms, r"\b", r"\b")
    # "lower than the training loss", "相较于训练集": the split right after is the one compared against
    lang.comparand_rx = _alternation(g["comparand_words"], lang.terms, "",
                                     r"\s*(?:the\s+|my\s+|its\s+|that\s+of\s+(?:the\s+)?)?$")
    lang.relative_rx = _alternation(g["relative_words"], lang.terms, r"[\s,，(（]*", r"(?![a-z])")


#: the word lists of kb/language that :func:`_compile_labels` and :func:`_compile_grammar` turn into the
#: reader's regexes (each extended by every language file, core and packs)
_GRAMMAR_LISTS = ("other_quantities", "peak_words", "later_point_words", "now_words", "test_split_words",
                  "reference_words", "name_numbers", "reproduction_words",
                  "ability_words",
                  "anaphora_words",
                  "metric_of_split_words", "setting_words", "setting_gap_words", "counted_words", "bound_words",
                  "comparison_words", "comparand_words", "relative_words", "clause_words", "unit_words", "from_words",
                  "change_to_words", "range_words", "between_words", "continuation_break_words", "move_words",
                  "unreal_move_words",
                  "coordination_words", "coordination_fillers", "metric_prefixes", "stop_words",
                  "split_after.metric_words", "split_after.prepositions", "split_after.determiners",
                  "label_gap_words", "shared_split_words", "respective_words", "difference_words", "share_of_words")


def _any(words: list) -> str | None:
    """A non-capturing alternation of ``words`` (longest first), None when there are none."""
    return "(?:" + "|".join(sorted(set(words), key=len, reverse=True)) + ")" if words else None


def _compile_grammar(lang: Language, g: dict) -> None:
    """The number attribution's grammar: its words come from kb/language (``clause_words``,
    ``unit_words``, ...), the punctuation, digits and arrows around them are syntax, here. Where the
    reader matched a word case-sensitively (a clause's "but", a change's "from", a continuation's
    "than"), it still does."""
    def rx(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern:
        try:
            return re.compile(expand(pattern, lang.terms, "kb/language"), flags)
        except re.error as exc:
            raise KBError(f"bad pattern {pattern!r}: {exc}", "kb/language") from None

    words = {key: _any(values) for key, values in g.items()}
    clause = words["clause_words"]
    lang.clause_rx = rx(_CLAUSE_PUNCTUATION + (r"|\b" + clause + r"\b" if clause else ""), 0)
    if words["unit_words"]:
        # a unit, a total ("10/100"), or a product: "0.3*kl" weighs a term, it is no metric's value
        lang.unit_rx = rx(r"[ \t]*(?:" + words["unit_words"] + r"|/\s*\d|[*×])")
    if words["split_after.prepositions"]:
        metric = words["split_after.metric_words"]
        det = words["split_after.determiners"]
        # "62% of accuracy on the test set": a share's "of" may stand before the metric
        share = r"(?:(?:(?<=%)|(?<=%\s))(?:" + words["share_of_words"] + r")\s+)?" if words["share_of_words"] else ""
        lang.split_after_rx = rx(r"\s*(?:%\s*)?" + share + (r"(?:" + metric + r"\s+)?" if metric else "")
                                 + words["split_after.prepositions"] + r"\s+"
                                 + (r"(?:" + det + r"\s+)?" if det else ""))
    if words["metric_of_split_words"]:
        det = words["split_after.determiners"]
        lang.metric_of_split_rx = rx(r"\s+(?:" + words["metric_of_split_words"] + r")\s+"
                                     + (r"(?:" + det + r"\s+)?" if det else ""))
    if words["share_of_words"]:
        lang.share_of_rx = rx(r"\s*%\s*(?:" + words["share_of_words"] + r")\s+")
    gap = words["label_gap_words"]
    lang.label_next_rx = rx(r"(?:\s|[:=~≈]" + (r"|\b" + gap + r"\b" if gap else "") + r")*[-+]?\.?\d")
    to = words["change_to_words"]
    joins = (to + "|" if to else "") + _ARROWS
    lang.change_to_rx = rx(r"^\s*%?\s*(?:" + joins + r")\s*~?\s*$")
    if words["from_words"]:
        frm = words["from_words"]
        lang.from_rx = rx(frm + r"\s*~?\s*$", 0)
        lang.range_end_rx = rx(frm + r"\s*$|" + frm + r"\s*~?\s*[-+\d.e]+%?\s*(?:" + joins + r")\s*~?\s*$", 0)
        to_number = r"|(?<![A-Za-z0-9_])" + to + r"\s*~?\s*[-+]?[\d.]+\s*%?\s*$" if to else ""
        # "train acc goes 0.6 -> 0.8 -> 0.9": an arrow before the last value states a change as "to" does
        arrow_number = r"|\d\s*%?\s*-*(?:" + _ARROWS + r")\s*~?\s*[-+]?[\d.]+\s*%?\s*$"
        lang.change_phrase_rx = rx(frm + to_number + arrow_number, 0)
    rng = words["range_words"]
    dash = r"-|–|~" + ("|" + rng if rng else "")
    lang.range_after_rx = rx(r"[ \t]*(?:" + dash + r")[ \t]*[~]?[\d.]|[ \t]*,\s*[\d.]+\s*[\])]")
    between = words["between_words"]
    lang.range_before_rx = rx(r"(?:\d\s*(?:" + dash + r")" + (r"|\b" + between if between else "")
                              + r"|\[|\[\s*[\d.]+\s*,)\s*[~]?\s*$")
    if between:
        # an opener's bounds, "from" in it or not ("varies from 2.6 to 2.9"): no change from one to the other
        lang.range_open_rx = rx(r"\b" + between + r"\s*~?\s*(?:[-+]?[\d.]+(?:e[-+]?\d+)?\s*%?\s*(?:" + dash
                                + r")\s*~?\s*)?$")
        num = r"(?:\d+(?:\.\d*)?|\.\d+)"
        lang.between_rx = rx(r"\b" + between + r"\s+~?\s*(?P<a>" + num + r")\s*%?\s*(?:" + (rng + "|" if rng else "")
                             + r"-|–|&)\s*~?\s*(?P<b>" + num + r")\s*%?")
    brk = words["continuation_break_words"]
    lang.continuation_break_rx = rx(r"[:=]" + (r"|\b" + brk + r"\b" if brk else ""), 0)
    if words["move_words"] and to:
        # a verb of a move, at most two words (an adverb, "down", "all the way") and a change word at the gap's end
        lang.move_to_rx = rx(r"(?<![a-z])" + words["move_words"] + r"(?:\s+[a-z]+){0,2}?\s*(?<![a-z])" + to
                             + r"\s*~?\s*$")
        unreal = words["unreal_move_words"]
        lang.unreal_move_rx = rx(r"(?<![a-z])" + unreal + r"\s*$") if unreal else None
    coord, fill = words["coordination_words"], words["coordination_fillers"]
    lang.coordinated_rx = rx(r"\s*(?:,|/" + (r"|\b" + coord + r"\b|,\s*" + coord + r"\b" if coord else "") + r")\s*"
                             + (r"(?:" + fill + r"\s+)?" if fill else ""))
    lang.stop_words = frozenset(w.lower() for w in g["stop_words"])
    diff = words["difference_words"]
    if diff:
        lang.difference_rx = rx(r"\s*(?:%|percent\b|percentage points?\b|points?\b|pp\b)?\s*(?:" + diff
                                + r")\s+th[ae]n\b")
    shared = words["shared_split_words"]
    if shared:
        lang.shared_split_rx = rx(r"\s*(?:,|/|(?<![a-z])(?:" + shared + r")(?![a-z]))\s*(?:the\s+)?")
        resp = words["respective_words"]
        lang.own_values_rx = rx(r"\s*%?\s*(?:,|/|(?<![a-z])(?:" + shared + r")(?![a-z]))\s*~?\s*[-+]?\.?\d"
                                + (r"|[^.;!?\n]*\b" + resp + r"\b" if resp else ""))


def _fact_lists(lang: Language, data: dict, facts: dict, where: str, hypothetical: list, statements: list,
                retries: dict) -> None:
    """A language file's ``hypothetical`` cues, statements, retries and facts (gathered into ``hypothetical``,
    ``statements`` and ``retries``), and its ``one_number_one_fact`` pairs."""
    hyp = data.get("hypothetical") or {}
    hypothetical += hyp.get("cues", [])
    statements += hyp.get("statements", [])
    for key in ("changes", "futile"):
        retries[key] += (hyp.get("retries") or {}).get(key, [])
    for fid in hyp.get("facts", []):
        if fid not in facts:
            raise KBError(f"unknown fact {fid!r} in hypothetical", where)
        lang.hypothetical_facts.add(fid)
    for pair in data.get("one_number_one_fact", []):
        if any(fid not in facts for fid in pair):
            raise KBError(f"unknown fact in one_number_one_fact {pair!r}", where)
        lang.one_number_one_fact.append(tuple(pair))
    for fid, words in (data.get("share_words") or {}).items():
        if fid not in facts:
            raise KBError(f"unknown fact {fid!r} in share_words", where)
        old = [lang.share_rx[fid].pattern] if fid in lang.share_rx else []
        lang.share_rx[fid] = re.compile("|".join(old + [f"(?:{w})" for w in words]), re.IGNORECASE)


def _same_quantity(lang: Language, groups: list, facts: dict, where: str) -> None:
    """``same_quantity`` groups: each fact maps to the others that name its quantity."""
    for group in groups:
        for fid in group:
            if fid not in facts:
                raise KBError(f"unknown fact {fid!r} in same_quantity", where)
            lang.same_quantity.setdefault(fid, set()).update(g for g in group if g != fid)


def _alternation(patterns: list, terms: dict, before: str, after: str) -> re.Pattern | None:
    """One case-insensitive regex matching any of ``patterns`` (None when there are none)."""
    if not patterns:
        return None
    alternatives = "|".join(sorted(set(patterns), key=len, reverse=True))
    return _compile(before + "(?:" + alternatives + ")" + after, terms, "kb/language")


# ------------------------------------------------------------------------------ numbers
def parse_number(text: str, words: dict | None = None, magnitudes: dict | None = None):
    """'1e-3' -> 0.001, '1,000' -> 1000, '~0.693' -> 0.693, '0,01' -> 0.01; a magnitude word through
    ``magnitudes`` ('2k' -> 2000: kb/language ``magnitude_words``), a number word through ``words``
    (``number_words``: 'three' -> 3); None if not a number."""
    t = text.strip().lower().lstrip("~≈")
    tt = _TIMES_TEN_RX.fullmatch(t)
    if tt is not None:
        t = tt.group("m").strip() + "e" + tt.group("x").replace("−", "-")
    t = t.replace(",", ".", 1) if re.fullmatch(r"[-+]?0,\d+", t) else t
    t = t.replace(",", "").replace(" ", "")
    mult = 1
    for suffix in sorted(magnitudes or {}, key=len, reverse=True):
        m = (magnitudes or {})[suffix]
        if t.endswith(suffix):
            mult, t = m, t[: -len(suffix)]
            break
    t = t.rstrip("%")
    try:
        v = float(t) * mult
    except ValueError:
        return (words or {}).get(t)
    if math.isfinite(v) and v.is_integer() and "." not in t and "e" not in t:
        return int(v)
    if mult > 1 and v.is_integer():
        return int(v)
    return v


#: characters: longer than any clause or sentence mark with its lookaround, so a scan restarted at the end of a
#: mark this far back finds what a scan from the start finds (a work bound, not knowledge)
_SCAN_MARGIN = 256
#: texts and sentence starts whose scans are remembered (a work bound: one report reads a handful of texts)
_SCANS_KEPT = 16
_SENTENCES_KEPT = 256


@functools.lru_cache(maxsize=_SCANS_KEPT)
def _mark_spans(rx: re.Pattern, text: str) -> tuple[list, list]:
    spans = [m.span() for m in rx.finditer(text)]
    return [a for a, _ in spans], [b for _, b in spans]


def _last_mark_end(rx: re.Pattern, text: str, pos: int) -> int:
    """Where the last match of ``rx`` in ``text[:pos]`` ends (0: none), as ``rx.finditer(text, 0, pos)`` finds
    it, without rescanning the text from its start for every number (quadratic on a long, number-dense text):
    the scan resumes after the last mark that starts more than ``_SCAN_MARGIN`` before ``pos``, or at that
    distance when there is none, since the scans agree that far back."""
    starts, ends = _mark_spans(rx, text)
    i = bisect.bisect_left(starts, pos - _SCAN_MARGIN) - 1
    last = ends[i] if i >= 0 else 0
    for m in rx.finditer(text, ends[i] if i >= 0 else max(0, pos - _SCAN_MARGIN), pos):
        last = m.end()
    return last


@functools.lru_cache(maxsize=_SENTENCES_KEPT)
def _first_match_from(rx: re.Pattern, text: str, start: int):
    """``rx.search(text, start)``, once per sentence start rather than once per number in the sentence."""
    return rx.search(text, start)


def _clause_start(lang: Language, text: str, pos: int) -> int:
    return _last_mark_end(lang.clause_rx, text, pos)


def negation_at(lang: Language, text: str, pos: int) -> int | None:
    """Where a negator starts, in the same clause within the window before ``pos`` (None: not negated).
    A negator of a script without spaces (``attached_negators``) has a window of its own, shorter:
    it negates the verb and object right after it ("没有用混合精度"), and nothing marks where its reach
    ends but punctuation."""
    clause = _clause_start(lang, text, pos)
    found = []
    if lang.negators is not None:
        start = max(clause, pos - int(lang.params["language.negation_window_chars"]))
        m = lang.negators.search(text[start:pos] + " ")
        if m is not None:
            found.append(start + m.start() + (1 if not text[start + m.start()].isalnum() else 0))
    if lang.attached_negators is not None:
        start = max(clause, pos - int(lang.params["language.attached_negation_window_chars"]))
        m = lang.attached_negators.search(text, start, pos)
        if m is not None:
            found.append(m.start())
    return min(found) if found else None


def negated_before(lang: Language, text: str, pos: int) -> bool:
    """A negator in the same clause, within the window before ``pos``."""
    return negation_at(lang, text, pos) is not None


# ------------------------------------------------------------------------------ the reader
def understand(text: str, lang: Language) -> Understanding:
    """Read ``text``: the symptom (and the phrase it came from) and every stated fact with its span."""
    u = Understanding(text=text)
    if not text or not text.strip():
        return u
    work = _PLACEHOLDER_DIGITS.sub(_zero_placeholders, text.replace("\u3000", " ").replace("≈", "~"))
    named = _blank_names(work, lang)
    readings = _read_facts(named, lang) + _read_metrics(named, lang)
    best: dict[str, Reading] = {}
    for r in readings:
        if r.fact not in best:
            best[r.fact] = r
    # "the initial loss is 4.6": that number is the starting loss, not the current one
    if "initial_loss" in best and "train_loss" in best and best["train_loss"].span[1] == best["initial_loss"].span[1]:
        del best["train_loss"]
    _one_number_one_fact(best, lang)
    # the symptom from the phrases
    scores, strongest, says, denied = _read_cues(work, lang, best)
    _level(scores, strongest, says, best, lang, work)
    u.scores = {k: round(v, _SCORE_DECIMALS) for k, v in scores.items()}
    floor = float(lang.params["language.min_symptom_score"])
    ranked = sorted(((v, k) for k, v in scores.items() if k in strongest), reverse=True)
    lexicon = ranked[0] if ranked and ranked[0][0] >= floor else None
    if lexicon is not None:
        u.symptom, u.how = lexicon[1], "phrases"
        _, u.symptom_span, phrase = strongest[u.symptom]
        u.symptom_phrase = " ".join(phrase.split())
    vote = None if "numbers" in says else _example_vote(work, lang, lexicon, scores, denied)
    if vote is not None:
        # the text as a whole resembles the knowledge base's examples of another symptom
        u.symptom, u.how, u.symptom_phrase, u.symptom_span, u.symptom_words = vote[0], "examples", None, None, vote[1]
    # facts that only belong to some symptoms (an error kind, RL) are dropped when the post is about another
    for fid, only in lang.exclusive.items():
        if fid in best and u.symptom not in only:
            del best[fid]
    # a two-class classification is a binary one
    if best.get("num_classes") and best["num_classes"].value == 2 and best.get("task_type") \
            and best["task_type"].value == "classification":
        r = best["task_type"]
        best["task_type"] = Reading("task_type", "binary", r.span, r.phrase + " · " + best["num_classes"].phrase)
    elif best.get("task_type") and best["task_type"].value == "binary" and best.get("num_classes") \
            and isinstance(best["num_classes"].value, int) and best["num_classes"].value > 2:
        del best["task_type"]       # "3 classes ... binary_crossentropy": a binary loss, not a binary task
    u.facts = sorted(best.values(), key=lambda r: r.span[0])
    if named != text:
        _as_written(u, named, text)
    return u


#: a digit of a name that carries a number (kb/language ``name_numbers``)
_NAME_DIGIT = re.compile(r"\d")


def _blank_names(work: str, lang: Language) -> str:
    """The text the facts are read from: the digits of a name that carries a number (a data set's year, "VOC2007",
    "COCO 2017", "iwlst2015的数据"; kb/language ``name_numbers``) turned into "_", so that no loss, size or count is
    read from them. The text keeps its length (spans point into both)."""
    if lang.name_rx is None:
        return work
    return lang.name_rx.sub(lambda m: _NAME_DIGIT.sub("_", m.group(0)), work)


def _as_written(u: Understanding, work: str, text: str) -> None:
    """The echo quotes the user's own words: a phrase read from the normalised text ("0.1200" for "0.12xx")
    is given back as written (the two have the same length, so a span points into both)."""
    for r in u.facts:
        a, b = r.span
        if r.phrase == " ".join(work[a:b].split()):
            r.phrase = " ".join(text[a:b].split())
    if u.symptom_span and u.symptom_phrase == " ".join(work[u.symptom_span[0]:u.symptom_span[1]].split()):
        u.symptom_phrase = " ".join(text[u.symptom_span[0]:u.symptom_span[1]].split())


def _read_cues(work: str, lang: Language, best: dict) -> tuple[dict, dict, set, set]:
    """Every phrasing of kb/language over the text: the symptoms' scores, each symptom's strongest
    phrase, what the phrasings say of the loss's level (``says``) and the symptoms a negated phrasing
    argued against (``denied``); facts a phrasing states go into ``best``."""
    scores: dict[str, float] = {}
    strongest: dict[str, tuple] = {}
    says: set = set()
    denied: set = set()
    # the first sentence (a post's title, a user's opening words) names the problem: its phrasings weigh more
    # (a decimal point, "AUC score of 0.5 on ...", ends no sentence)
    first = re.search(r"(?<!\d)\.|\.(?!\d)|[?!\n。？！]", work.strip())
    title_end = (first.start() + (len(work) - len(work.lstrip()))) if first else len(work)
    title_weight = float(lang.params["language.first_sentence_weight"])
    found, named = [], False
    for cue in lang.cues:
        m = cue.rx.search(work)
        while m is not None and cue.weight > 0 and cue.negatable and negated_before(lang, work, m.start()):
            m = cue.rx.search(work, m.end())
        if m is None:
            continue
        weight = cue.weight
        if weight > 0 and m.start() < title_end:
            inside = cue.rx.search(work, 0, title_end)
            if inside is not None and not (cue.negatable and negated_before(lang, work, inside.start())):
                weight *= title_weight
                m = inside
        named = named or (weight > 0 and cue.alone)
        found.append((cue, m, weight))
    # a phrasing that only tells where the loss stands ("after 20 epochs": it moved first) names nothing alone
    # ("the loss drops to 780 after 70 epochs"); beside one that names a symptom it weighs in
    for cue, m, weight in found:
        if not (cue.alone or named):
            continue
        scores[cue.symptom] = scores.get(cue.symptom, 0.0) + weight
        if weight > 0 and cue.says:
            says.add(cue.says)
        if weight < 0:
            denied.add(cue.symptom)     # the words argued against it: the example classifier will not name it
        for fid, val in cue.states.items():
            if fid not in best:
                best[fid] = Reading(fid, val, m.span(), " ".join(m.group(0).split()))
        if weight > 0 and weight > strongest.get(cue.symptom, (0,))[0]:
            strongest[cue.symptom] = (weight, m.span(), m.group(0))
    return scores, strongest, says, denied


def _one_number_one_fact(best: dict, lang: Language) -> None:
    """One number read as two facts that exclude each other (kb/language ``one_number_one_fact``: "the val set of
    200 images" is no training size, "a batch size of 8 images" no size of the data): the first fact keeps it."""
    for kept, dropped in lang.one_number_one_fact:
        a, b = best.get(kept), best.get(dropped)
        if a is not None and b is not None and a.span[0] < b.span[0] and b.span[1] <= a.span[1]:
            del best[dropped]


def read_settings(text: str, lang: Language) -> list[Reading]:
    """The training settings (``settings_in_logs``: learning rate, batch size, epochs, ...) stated in
    the lines of a pasted log or config — "lr: 2.0000e-02", "Epoch 1/20", "'learning_rate': 2e-4" —
    read by the same extractors as prose; no symptom, no metric (those are the log reader's)."""
    if not text or not lang.settings_in_logs:
        return []
    # a config prints them at the top, a log on every line: its head and tail say them (bounded time)
    head = int(lang.params["language.settings_head_lines"])
    tail = int(lang.params["language.settings_tail_lines"])
    lines = text.splitlines()
    if len(lines) > head + tail:
        lines = lines[:head] + lines[len(lines) - tail:]
    work = "\n".join(lines).replace("\u3000", " ")
    return _read_facts(work, lang, only=lang.settings_in_logs, picks=lang.settings_picks)


def _credit(scores: dict, strongest: dict, side: str, w: float, reading) -> None:
    """``w`` more for ``side``; with no phrasing of its own, the number that argued for it is its phrase."""
    scores[side] = scores.get(side, 0.0) + w
    if side not in strongest and reading is not None:
        strongest[side] = (w, reading.span, reading.phrase)


def _level(scores: dict, strongest: dict, says: set, best: dict, lang: Language, text: str = "") -> None:
    """Not Learning or Plateau? Generic wording ("the loss is not decreasing", "stuck", "doesn't
    change") fits both; where the loss stands tells them apart. A phrasing or a stated number that
    puts it at chance (a constant prediction, accuracy 1/C, loss ln C, "from the start") argues for
    Not Learning; one that shows it moved first ("after 20 epochs", "no longer") or a level only
    learning reaches (accuracy well above chance, a loss far below ln C) argues for Plateau. When
    one side has such evidence and the other none, it gets ``language.level_weight``. The stated
    numbers speak before the phrasings: where they put the run on one side, that side ends
    ``language.level_weight`` above the other, whatever the phrasings said ("went down a bit, then
    stagnated" at ln C is Not Learning); with no phrasing at all, numbers at chance still name Not
    Learning (a low loss alone names nothing)."""
    top = max(scores, key=scores.get) if scores else None
    if top in (None, "not_learning", "plateau", "healthy") and _gap_numbers(scores, strongest, best, lang):
        says.add("numbers")         # what the stated numbers show: the example classifier does not overrule it
        return
    if top is None and _val_above_train(scores, strongest, best, lang):
        says.add("numbers")
        return
    if top == "overfitting":
        _close_numbers(scores, strongest, best, lang)
        return
    if top == "instability":
        _small_swing(scores, strongest, lang, text)
        return
    if top == "healthy":
        _not_normal(scores, strongest, says, best, lang)
        return
    if top not in ("not_learning", "plateau", None):
        return
    chance, learned, witness = _level_numbers(best, lang)
    w = float(lang.params["language.level_weight"])
    if chance != learned:
        # the numbers speak: they outweigh a phrasing that puts the loss on the other side ("decreased
        # a little, then stuck" while the loss is still at ln C is Not Learning)
        side = "plateau" if learned else "not_learning"
        if top is None and side == "plateau":
            return                  # a low loss alone names no symptom
        rival = scores.get("plateau" if side == "not_learning" else "not_learning", 0.0)
        _credit(scores, strongest, side, max(w, rival - scores.get(side, 0.0) + w), witness.get(side))
        return
    if chance or top is None:
        return
    chance, learned = "chance" in says, "progress" in says
    if chance == learned:
        return
    side = "plateau" if learned else "not_learning"
    _credit(scores, strongest, side, w, None)


def _level_numbers(best: dict, lang: Language) -> tuple[bool, bool, dict]:
    """Where the stated numbers put the run: at chance (accuracy 1/C, loss ln C) and/or past it
    (accuracy well above chance, a loss far below ln C), with the readings that say so."""
    chance, learned = False, False
    witness = {}
    c = best["num_classes"].value if "num_classes" in best else None
    if c is None and "task_type" in best and best["task_type"].value == "binary":
        c = 2
    good = float(lang.params["language.learned_accuracy"])
    near = float(lang.params["language.chance_accuracy_tolerance"])
    for f in ("train_accuracy", "val_accuracy"):
        if f in best and isinstance(best[f].value, (int, float)):
            a = float(best[f].value)
            if a <= float(lang.params["language.zero_accuracy"]) or (c and c >= 2 and abs(a - 1.0 / c) <= near):
                chance = True
                witness.setdefault("not_learning", best[f])
            elif a >= good and (not c or a >= float(lang.params["language.learned_over_chance"]) / c):
                learned = True
                witness.setdefault("plateau", best[f])
    for f in ("train_loss", "current_loss"):
        if f in best and isinstance(best[f].value, (int, float)) and best[f].value >= 0:
            v = float(best[f].value)
            if c and c >= 2:
                ln = math.log(c)
                if abs(v - ln) <= float(lang.params["language.chance_loss_tolerance"]) * ln:
                    chance = True
                    witness.setdefault("not_learning", best[f])
                elif v < float(lang.params["language.learned_loss_fraction"]) * ln:
                    learned = True
                    witness.setdefault("plateau", best[f])
    moved = _fall_from_initial(best)
    if moved is not None:
        fall, now = moved
        if fall < float(lang.params["language.barely_moved_fraction"]):
            chance = True
            witness.setdefault("not_learning", now)
        else:
            learned = True
            witness.setdefault("plateau", now)
    return chance, learned, witness


def _not_normal(scores: dict, strongest: dict, says: set, best: dict, lang: Language) -> None:
    """A reassuring reading ("is this normal?", "it became normal") over stated numbers at chance and
    none past it (an accuracy of 0 or 1/C, a loss at ln C) is no healthy run: the numbers name Not
    Learning, ``language.level_weight`` above the healthy reading, and the example classifier does not
    overrule them."""
    chance, learned, witness = _level_numbers(best, lang)
    if not chance or learned:
        return
    w = float(lang.params["language.level_weight"])
    says.add("numbers")
    _credit(scores, strongest, "not_learning",
            max(w, scores.get("healthy", 0.0) - scores.get("not_learning", 0.0) + w), witness.get("not_learning"))


def _fall_from_initial(best: dict) -> tuple[float, Reading] | None:
    """How far the stated loss fell from the stated initial loss, as a share of it (and the reading of
    where it is now); None without both, or for a loss that rose or is not positive."""
    first = best.get("initial_loss")
    now = best.get("train_loss") or best.get("current_loss")
    if first is None or now is None or not all(isinstance(r.value, (int, float)) for r in (first, now)):
        return None
    a, b = float(first.value), float(now.value)
    if a <= 0 or b < 0 or b > a:
        return None
    return (a - b) / a, now


def _small_swing(scores: dict, strongest: dict, lang: Language, text: str) -> None:
    """Swing words over a range that is narrow ("fluctuates between 0.31 and 0.33", "between 91% and
    93%": within ``language.small_swing`` of its top) describe ordinary step-to-step noise — healthy."""
    if lang.between_rx is None:
        return
    ranges = [(m, parse_number(m.group("a")), parse_number(m.group("b"))) for m in lang.between_rx.finditer(text)]
    ranges = [(m, a, b) for m, a, b in ranges if isinstance(a, (int, float)) and isinstance(b, (int, float))
              and max(abs(a), abs(b)) > 0]
    if not ranges:
        return
    tol = float(lang.params["language.small_swing"])
    if all(abs(b - a) / max(abs(a), abs(b)) <= tol for _, a, b in ranges):
        w = float(lang.params["language.level_weight"])
        m = ranges[0][0]
        scores["instability"] -= w
        _credit(scores, strongest, "healthy", 2 * w, Reading("", None, m.span(), m.group(0)))


def _gap_numbers(scores: dict, strongest: dict, best: dict, lang: Language) -> bool:
    """Stated numbers that show a generalisation gap name Overfitting whatever the words said: a
    training accuracy of at least ``language.overfit_train_accuracy`` with the validation accuracy
    ``language.overfit_accuracy_gap`` or more below it ("train acc 0.99, val 0.55"; "the validation
    accuracy is stuck at 55%" is then a validation plateau, not a training one), or a validation loss
    at least ``language.overfit_loss_ratio`` times the training loss. Overfitting ends
    ``language.level_weight`` above every other symptom; True when it did."""
    pair = None
    ta, va = best.get("train_accuracy"), best.get("val_accuracy")
    if ta is not None and va is not None and all(isinstance(r.value, (int, float)) for r in (ta, va)):
        if float(ta.value) >= float(lang.params["language.overfit_train_accuracy"]) \
                and float(ta.value) - float(va.value) >= float(lang.params["language.overfit_accuracy_gap"]):
            pair = (ta, va)
    tl, vl = best.get("train_loss") or best.get("current_loss"), best.get("val_loss")
    if pair is None and tl is not None and vl is not None \
            and all(isinstance(r.value, (int, float)) for r in (tl, vl)) and float(tl.value) > 0 \
            and float(vl.value) >= float(lang.params["language.overfit_loss_ratio"]) * float(tl.value):
        pair = (tl, vl)
    if pair is None:
        return False
    w = float(lang.params["language.level_weight"])
    a, b = pair
    both = Reading("", None, (min(a.span[0], b.span[0]), max(a.span[1], b.span[1])), f"{a.phrase} · {b.phrase}")
    rival = max((v for k, v in scores.items() if k != "overfitting"), default=0.0)
    _credit(scores, strongest, "overfitting", max(w, rival - scores.get("overfitting", 0.0) + w), both)
    return True


def _close_numbers(scores: dict, strongest: dict, best: dict, lang: Language) -> None:
    """Overfitting words ("is it overfitting?") over stated numbers that show no gap — training and
    validation accuracy within ``language.no_gap_accuracy``, or a validation loss no more than that
    share above the training loss — describe a healthy run: the numbers outweigh the worry (overfitting loses twice
    ``language.level_weight``, healthy gains it once). A stated test accuracy ``language.overfit_accuracy_gap`` or
    more below the training one ("train and val above 90%, the test accuracy only 44%") is a gap all the same."""
    tol = float(lang.params["language.no_gap_accuracy"])
    close, pair = None, ()
    test, train = best.get("test_accuracy"), best.get("train_accuracy")
    if test is not None and train is not None \
            and float(train.value) - float(test.value) >= float(lang.params["language.overfit_accuracy_gap"]):
        return      # training and validation close, the test set far below both: a gap all the same
    if "train_accuracy" in best and "val_accuracy" in best:
        pair = (best["train_accuracy"], best["val_accuracy"])
        # no gap, or the validation side ahead ("is it overfitting? train 85%, val 91%"): no overfitting
        close = float(pair[0].value) - float(pair[1].value) <= tol
    elif "train_loss" in best and "val_loss" in best and float(best["train_loss"].value) > 0:
        pair = (best["train_loss"], best["val_loss"])
        close = float(pair[1].value) <= (1 + tol) * float(pair[0].value)
    if close:
        w = float(lang.params["language.level_weight"])
        scores["overfitting"] -= 2 * w
        a, b = pair
        both = Reading("", None, (min(a.span[0], b.span[0]), max(a.span[1], b.span[1])), f"{a.phrase} · {b.phrase}")
        _credit(scores, strongest, "healthy", w, both)


def _val_above_train(scores: dict, strongest: dict, best: dict, lang: Language) -> bool:
    """With no phrasing at all, a stated validation accuracy ``language.val_above_train_accuracy`` or more above
    the stated training accuracy ("train acc 0.88 ... test acc 0.93") is a healthy run (dropout and augmentation are
    off at evaluation): healthy gets ``language.level_weight``; True when it did."""
    ta, va = best.get("train_accuracy"), best.get("val_accuracy")
    if ta is None or va is None or not all(isinstance(r.value, (int, float)) for r in (ta, va)):
        return False
    if float(va.value) - float(ta.value) < float(lang.params["language.val_above_train_accuracy"]):
        return False
    both = Reading("", None, (min(ta.span[0], va.span[0]), max(ta.span[1], va.span[1])), f"{ta.phrase} · {va.phrase}")
    _credit(scores, strongest, "healthy", float(lang.params["language.level_weight"]), both)
    return True


def _value_of(ex: _Extractor, m: re.Match, lang: Language, text: str):
    if ex.has_value:
        v = ex.value
    elif "num" in m.groupdict() and m.group("num") is not None:
        v = parse_number(m.group("num"), lang.number_words, lang.magnitudes)
        if v is None:
            return None
        v = _scaled(ex, v, m.string, m.end("num"))
    elif "word" in m.groupdict() and m.group("word") is not None:
        w = " ".join(m.group("word").lower().split())
        if ex.mapping is not None:
            if w not in ex.mapping:
                w2 = re.sub(r"[\s_-]", "", w)
                if w2 not in {re.sub(r"[\s_-]", "", k) for k in ex.mapping}:
                    return None
                w = next(k for k in ex.mapping if re.sub(r"[\s_-]", "", k) == w2)
            v = ex.mapping[w]
            if v is None:
                return _SKIP
        else:
            v = w
    else:
        return None
    if ex.has_negated and negated_before(lang, text, m.start()):
        v = ex.negated_value
        if v is None:
            return _SKIP
    return v


_SKIP = object()


def _scaled(ex: _Extractor, v, text: str, end: int):
    """A number read for ``ex`` in its unit: a fraction written as a percentage ("dropout 30", "dropout 30%") is
    divided by 100."""
    if ex.scale == "fraction" and isinstance(v, (int, float)) and (1 < v <= 100 or _PERCENT_AFTER.match(text, end)):
        return v / 100.0
    return v


#: a tuple assignment ("num_epochs, lr, batch_size = 500, 0.01, 32"): names and values paired by position
_TUPLE_ASSIGN = re.compile(r"(?<![\w.,])([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)+)[ \t]*=[ \t]*\(?[ \t]*"
                           r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?(?:[ \t]*,[ \t]*[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
                           r"(?:e[-+]?\d+)?)+)(?![\w.])", re.IGNORECASE)


def _unpacked(text: str) -> list[tuple[int, tuple, str]]:
    """Each name of a tuple assignment with its own value ("num_epochs, lr = 500, 0.01" -> "num_epochs = 500",
    "lr = 0.01"), as (where the assignment starts, its span, "name = value"); only where the counts match."""
    out = []
    for m in _TUPLE_ASSIGN.finditer(text):
        names = [x.strip() for x in m.group(1).split(",")]
        values = [x.strip() for x in m.group(2).split(",")]
        if len(names) == len(values):
            out.extend((m.start(), m.span(), f"{a} = {b}") for a, b in zip(names, values))
    return out


def _read_facts(text: str, lang: Language, only=None, picks=None) -> list[Reading]:
    out: dict[str, list] = {}
    picks = dict(picks or {})
    negated_end: dict[str, int] = {}       # fact -> where its last negated mention ends
    pieces = _unpacked(text)
    for order, ex in enumerate(lang.extractors):
        if only is not None and ex.fact not in only:
            continue
        picks.setdefault(ex.fact, ex.pick)
        for at, span, piece in pieces:
            m = ex.rx.search(piece)
            v = _value_of(ex, m, lang, piece) if m is not None and m.start() == 0 else None
            if v is not None and v is not _SKIP and not (ex.fact in lang.hypothetical_facts
                                                         and _hypothetical_at(lang, text, at, at)):
                out.setdefault(ex.fact, []).append((at, v, span, piece, order, False))
        for m in ex.rx.finditer(text):
            v = _value_of(ex, m, lang, text)
            if v is None or any(a <= m.start() < b for _, (a, b), _ in pieces):
                continue            # inside a tuple assignment: its names and values are paired above
            if ex.fact in lang.hypothetical_facts and _hypothetical_at(lang, text, m.start(), m.end()):
                continue            # "should I train for 160 epochs?": a plan, not the run's setting
            neg = negation_at(lang, text, m.start()) if ex.has_negated else None
            if ex.has_negated and neg is None and ex.fact in negated_end \
                    and lang.coordinated_rx.fullmatch(text, negated_end[ex.fact], m.start()):
                # "not using any dropout or augmentation": the negation reaches every item of the list
                v = _SKIP if ex.negated_value is None else ex.negated_value
                negated_end[ex.fact] = m.end()
            elif ex.has_negated and neg is not None:
                negated_end[ex.fact] = m.end()
            phrase = text[neg:m.end()] if neg is not None else m.group(0)
            span = (neg if neg is not None else m.start(), m.end())
            out.setdefault(ex.fact, []).append((m.start(), v, span, phrase, order, neg is not None))
    readings = []
    for fact, found in out.items():
        found = [f for f in found if f[1] is not _SKIP] if picks[fact] not in ("last", "all") else found
        found = sorted(found, key=lambda f: f[0])
        found = _changed_by_arrows(lang, text, fact, _without_shares(lang, text, fact, found))
        if not found:
            continue
        pick = picks[fact]
        if any(f[5] for f in found) and any(f[1] is True for f in found) and any(f[1] is False for f in found):
            continue                # "without fp16 it works, with fp16 it is nan": denied and said, no reading
        if pick == "last" and fact in lang.hypothetical_facts and len({str(f[1]) for f in found}) > 1:
            # "lr = 2e-4 ... then I changed it (lr = 2e-7), the error persists": the retry is not the run asked about
            found = [f for f in found if not _futile_retry(lang, text, f[2][1])] or found
        if pick == "last":
            chosen = found[-1]
            if chosen[1] is _SKIP:
                continue
        elif pick == "max":
            chosen = max(found, key=lambda f: f[1])
        elif pick == "min":
            chosen = min(found, key=lambda f: f[1])
        elif pick == "all":
            vals = sorted({f[1] for f in found if f[1] is not None and f[1] is not _SKIP}, key=str)
            readings.append(Reading(fact, vals, found[0][2], " · ".join(" ".join(f[3].split()) for f in found)))
            continue
        elif pick == "priority":
            chosen = min(found, key=lambda f: (f[4], f[0]))
        else:
            chosen = found[0]
        readings.append(Reading(fact, chosen[1], chosen[2], " ".join(chosen[3].split())))
    return readings


def _changed_by_arrows(lang: Language, text: str, fact: str, found: list) -> list:
    """A setting's number with an arrow right after it was changed from ("nn.Dropout(0) -> nn.Dropout(0.5)", "batch
    size 32 -->16"): the value after the arrow is the run's. A reading of the setting after the arrow stands for it;
    else a bare number right after the arrow becomes the reading (scaled as its extractor scales); else the old
    value is dropped. Only for the settings (kb/language ``hypothetical.facts``)."""
    if fact not in lang.hypothetical_facts:
        return found
    out = []
    for f in found:
        arrow = _ARROW_AFTER.match(text, f[2][1]) if isinstance(f[1], (int, float)) \
            and not isinstance(f[1], bool) else None
        if arrow is None:
            out.append(f)
            continue
        if any(g[0] >= arrow.end() for g in found):
            continue
        new = _BARE_VALUE.match(text, arrow.end())
        v = parse_number(new.group(0)) if new is not None else None
        if v is None:
            continue
        v = _scaled(lang.extractors[f[4]], v, text, new.end())
        if isinstance(f[1], int) and float(v).is_integer():
            v = int(v)
        out.append((f[0], v, (f[2][0], new.end()), text[f[2][0]:new.end()], f[4], f[5]))
    return out


#: the name a value is read from may start before the match, glued to it ("--micro_batch_size=12"); how far back
#: that name is looked for: characters of text, a reach of the grammar
_GLUED_HEAD = re.compile(r"[\w-]*$")
_GLUED_REACH = 40


def _without_shares(lang: Language, text: str, fact: str, found: list) -> list:
    """Beside the whole of a setting ("train_batch_size=512"), one device's share of it
    ("per_device_train_batch_size=4", kb/language ``share_words``) is not the run's setting; a share stated
    alone still is."""
    rx = lang.share_rx.get(fact)
    if rx is None or len(found) < 2:
        return found
    def name(f) -> str:
        a, b = f[2]
        return _GLUED_HEAD.search(text, max(0, a - _GLUED_REACH), a).group(0) + text[a:b]
    whole = [f for f in found if not rx.search(name(f))]
    return whole if whole and len(whole) < len(found) else found


def _futile_retry(lang: Language, text: str, pos: int) -> bool:
    """The value at ``pos`` stands in a sentence that tells of a change tried after the run and that it did not
    help (kb/language ``hypothetical.retries``: "then I adjusted bs and lr (bs=2, lr=2e-7), the error persists"):
    a change verb before the end of the value's phrase ("学习率调整为 5e-6") and a futile outcome after the change, in
    that sentence or the one right after it ("When I change the batch size to 1. The same error occurs.")."""
    if lang.retry_change_rx is None or lang.retry_futile_rx is None:
        return False
    start, end = _last_mark_end(_SENTENCE, text, pos), len(text)
    nxt = _SENTENCE.search(text, pos)
    if nxt is not None:
        after = _SENTENCE.search(text, nxt.end() + 1)
        end = after.start() if after is not None else len(text)
    change = None
    for m in lang.retry_change_rx.finditer(text, start, pos):
        change = m
    return change is not None and lang.retry_futile_rx.search(text, change.end(), end) is not None


#: the total of a progress counter ("10/100"): it counts, it is no metric's value
_PROGRESS_TOTAL = re.compile(r"\d\s*/\s*$")
#: a second decimal after a slash ("2.35/2.36", "1.4/1.5"): the same value written twice (or two splits' values,
#: "train/val loss 0.52/0.61"), where a progress counter ("10/100") has whole numbers
_DECIMAL_PAIR = re.compile(r"[ \t]*/[ \t]*~?\d*\.\d")
#: a number after a percentage and a slash ("97%/61%", "88% / 52%"): a percentage counts nothing out of a total, so
#: the two are two values (or one written twice), as two decimals are
_AFTER_SLASH = re.compile(r"[ \t]*/[ \t]*~?\d")


def _paired_by_slash(raw: str, text: str, end: int) -> bool:
    """The number ``raw`` ending at ``end`` and the one after a slash are two values, no count out of a total."""
    return bool(("." in raw and _DECIMAL_PAIR.match(text, end))
                or (raw.endswith("%") and _AFTER_SLASH.match(text, end)))


def _setting_gap(words: list) -> str:
    """What may stand between a setting's name (kb/language ``setting_words``) and its value:
    punctuation, the function words of ``setting_gap_words`` ("the lr is 0.004"), CJK characters
    ("batch_size调整为4"); at most 12 of them."""
    function_words = r"|\b(?:" + "|".join(sorted(set(words), key=len, reverse=True)) + r")\b" if words else ""
    return r"(?:[^\w\n]" + function_words + r"|[\u4e00-\u9fff]){0,12}$"


#: (in _NUM_RX) "0.几", "2.多": a number whose decimals are "some" states no value ("90多", ninety-odd, does)
_BLANKS = re.compile(r"\s*")
_COLON_AHEAD = re.compile(r"\s*[:=]")
_SENTENCE = re.compile(r"(?<=[A-Za-z0-9)\]\"'])[.!?]\s+(?=[A-Z])|[\n;]|[!?]\s|。|；|！|？")
_NUM_RX = re.compile(r"(?<![A-Za-z0-9_.])(?<![A-Za-z]-)[~]?\s?(?:[-+]?(?:[1-9]\d{0,2}(?:,\d{3})+(?![\d.,])|0,\d+(?!\d|,\d)|\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|nan|inf)(?:\s?%)?(?![A-Za-z0-9_]|\.\d|\.[几多]|(?<=\.)[几多])",  # noqa: E501
                     re.IGNORECASE)

_GLUED_NUM = re.compile(r"\d+\.\d+(?:e[-+]?\d+)?(?![A-Za-z0-9_]|\.\d)", re.IGNORECASE)


# (complexity above the cap came with the merge of main: to be split, issue 11)
def _hypothetical_at(lang: Language, text: str, pos: int, end: int | None = None) -> bool:
    """A question or plan cue ("should I", "what if", "have you") earlier in the sentence of ``pos``, unless a
    clause stating the run's value (kb/language ``hypothetical.statements``) stands between it and ``end``."""
    if lang.hypothetical_rx is None:
        return False
    sentence = _last_mark_end(_SENTENCE, text, pos)
    # searched past ``pos`` so that a cue may look ahead ("tried --lr 1e-07, --lr 1e-08": a sweep); it starts before
    m = _first_match_from(lang.hypothetical_rx, text, sentence)
    if m is None or m.start() >= pos:
        return False
    # "should I lower my learning rate, which is 5e-5?": the relative clause states the run's value
    return not (lang.statement_rx is not None and lang.statement_rx.search(text, m.end(), end or pos))


def _read_metrics(text: str, lang: Language) -> list[Reading]:
    """Numbers attributed to (split, metric): the nearest split and metric words before them in the
    same clause or log line. A metric without a split is the training one; a series (a log) keeps
    its last value, and for the loss its first value is the initial loss."""
    if not lang.metrics:
        return []
    marks = _metric_marks(text, lang)
    reach = int(lang.params["language.attribution_window_chars"])
    series: dict[str, list] = {}
    prev_fact = None            # (fact, end, start) of the last attributed number, for "from X to Y"
    # a decimal written right after a metric's name ("loss0.27", "acc0.91") is that metric's too
    glued = (_GLUED_NUM.match(text, mk[1]) for mk in marks if mk[2] == "metric" and mk[3] != "other")
    numbers = sorted([*_NUM_RX.finditer(text), *(g for g in glued if g is not None)], key=lambda m: m.start())
    for n in numbers:
        prev_fact = _attribute_number(text, lang, n, marks, reach, series, prev_fact)
    return _readings_from_series(text, lang, series)


def _metric_marks(text: str, lang: Language) -> list[tuple]:
    """Every split and metric word in the text as (start, end, kind, id), in text order."""
    marks = []
    for sid, rx in lang.split_rx.items():
        for m in rx.finditer(text):
            marks.append((m.start(), m.end(), "split", sid))
    for mid, rx in lang.metric_rx.items():
        for m in rx.finditer(text):
            marks.append((m.start(), m.end(), "metric", mid))
    if lang.other_rx is not None:
        # "the dice stays at 0": a number labelled by a quantity the facts do not track is none of theirs
        for m in lang.other_rx.finditer(text):
            # "top-5 accuracy", "acc@5": the other quantity's name holds a metric word, which labels nothing alone
            marks = [mk for mk in marks if not (mk[2] == "metric" and m.start() <= mk[0] and mk[1] <= m.end())]
            if not any(mk[0] <= m.start() < mk[1] for mk in marks):
                marks.append((m.start(), m.end(), "metric", "other"))
    marks.sort()
    return marks


def _as_fraction(raw: str, v: float) -> float:
    """An accuracy written as a percentage ("61%", "61") becomes a fraction."""
    return v / 100.0 if (raw.endswith("%") or v > 1) else v


def _continue_from_to(lang: Language, text: str, n, raw: str, series: dict, prev_fact) -> tuple | None:
    """"from 2.3 to 1.1": the second number of the pair belongs to the first one's fact.
    Returns the new last-attributed fact, or None when the number is no such continuation."""
    start = n.start()
    lead = max(0, prev_fact[2] - int(lang.params["language.from_word_reach_chars"])) if prev_fact else 0
    fm = lang.from_rx.search(text[lead:prev_fact[2]]) if prev_fact and lang.from_rx is not None else None
    arrow = prev_fact is not None and _ARROW_GAP.fullmatch(text, prev_fact[1], start) is not None
    if not (prev_fact and lang.change_to_rx.match(text[prev_fact[1]:start]) and (fm or arrow)):
        return None
    if lang.range_open_rx is not None and lang.range_open_rx.search(text, lead, start):
        return None                 # "it ranges from 2.6 to 2.9": a range's two bounds, no change
    fact = prev_fact[0]
    v = parse_number(raw.lower().lstrip("~").strip())
    if v is None or not fact or not math.isfinite(v):
        return None                 # "2.3 -> nan": a NaN is no later level of the loss (the NaN reader's)
    if fact.endswith("accuracy"):
        v = _as_fraction(raw, v)
    # the phrase keeps its "from": "went from 60% to 90%" states where the value is now (the later one)
    series.setdefault(fact, []).append((start, v, (n.start(), n.end()),
                                        text[(lead + fm.start()) if fm else prev_fact[2]:n.end()]))
    return (fact, n.end(), prev_fact[2])


def _continues_quantity(lang: Language, text: str, start: int, sentence: int, prev_fact, window: int) -> bool:
    """A bare number soon after an attributed one (at most ``window`` characters on), in the same
    sentence and with no label or comparison between them, states the same quantity later ("starts
    at 33 but plateaus at 3.0"; kb/language ``continuation_break_words``)."""
    return bool(prev_fact and start - prev_fact[1] <= window and prev_fact[1] >= sentence
                and not lang.continuation_break_rx.search(text[prev_fact[1]:start]))


def _moves_on(lang: Language, text: str, start: int, before: list, prev_fact) -> bool:
    """The number at ``start`` is where the quantity valued last moved to: no label stands between that value and
    this number, and the words between end in a move to it (kb/language ``move_words``: "starts at 70% and goes
    down to 40%", "was 0.8, then it fell to 0.3")."""
    if not prev_fact or lang.move_to_rx is None or before[-1][1] > prev_fact[2]:
        return False
    move = lang.move_to_rx.search(text, prev_fact[1], start)
    return move is not None and not (lang.unreal_move_rx is not None
                                     and lang.unreal_move_rx.search(text, prev_fact[1], move.start()))


def _add_later_value(lang: Language, text: str, n, raw: str, series: dict, prev_fact) -> tuple:
    """Record a later value of the last attributed quantity (see _continues_quantity)."""
    start = n.start()
    fact = prev_fact[0]
    v = parse_number(raw.lower().lstrip("~").strip())
    if v is not None and not (fact.endswith("accuracy") and not (0 <= _as_fraction(raw, v) <= 1)):
        if fact.endswith("accuracy"):
            v = _as_fraction(raw, v)
        if not _range_word_near(lang, text, n):
            series.setdefault(fact, []).append((start, v, (n.start(), n.end()), text[prev_fact[2]:n.end()]))
            prev_fact = (fact, n.end(), prev_fact[2])
    return prev_fact


def _marks_near(lang: Language, text: str, n, marks: list, reach: int, split_gap: int) -> tuple[list, list, int]:
    """The metric words right after the number, the split/metric words before it within reach in
    its sentence, and where that sentence starts. With a metric word right after the number, a
    split word counts only within ``split_gap`` characters before it."""
    start = n.start()
    sentence = _last_mark_end(_SENTENCE, text, start)
    after, split_after = _metric_right_after(lang, text, n.end(), marks)
    before = [mk for mk in marks if mk[1] <= start and start - mk[1] <= reach and mk[0] >= sentence]
    if before and before[0][2] == "split" and lang.metric_of_split_rx is not None:
        # "the accuracy of the validation set was very low, about 30%": the split's metric stands before it
        head = next((mk for mk in reversed(marks) if mk[1] <= before[0][0]), None)
        if head is not None and head[2] == "metric" and head[0] >= sentence \
                and lang.metric_of_split_rx.fullmatch(text, head[1], before[0][0]):
            before = [head, *before]
    if split_after is not None and before and (_labels(lang, text, before[-1][1], n) or _own_label(lang, text, before)):
        after, split_after = [], None          # "loss 0.5 train accuracy stays low": 0.5 has its own label
    if after:                                  # "50% accuracy, 2.5 loss": the metric right after the number
        mk = after[0]
        split = split_after or next((b for b in reversed(before) if b[2] == "split" and start - b[1] <= split_gap),
                                    None)
        before = ([split] if split else []) + [(mk[0], mk[1], "metric", mk[3])]
    return after, before, sentence


def _parallel_metric(lang: Language, text: str, before: list, prev_fact, reach: int) -> str | None:
    """A split word alone before the number, in a clause that answers the last attributed value of
    another split ("the accuracy on the training set reaches 99%, but the testing set only gets 66%"):
    the number is the same metric for this split. The split word stands within ``reach`` characters
    after that value, in its sentence. Returns the metric, or None when the number is no such answer."""
    last = before[-1]
    if not prev_fact or last[2] != "split" or any(mk[2] == "metric" for mk in before):
        return None
    said = next(((sp, me) for (sp, me), f in lang.metrics.items() if f == prev_fact[0]), None)
    between = text[prev_fact[1]:last[0]]
    if said is None or said[0] == last[3] or said[0] == "initial" or not 0 <= last[0] - prev_fact[1] <= reach \
            or re.search(r"[\d.!?;\n。；！？]", between):
        return None
    return said[1] if (last[3], said[1]) in lang.metrics else None


def _labels(lang: Language, text: str, end: int, n) -> bool:
    """A label that ends at ``end`` names the number ``n`` (only kb/language ``label_gap_words``,
    spaces and : = ~ between them)."""
    m = lang.label_next_rx.match(text, end) if lang.label_next_rx is not None else None
    return m is not None and n.start() < m.end() <= n.end()


def _own_label(lang: Language, text: str, before: list) -> bool:
    """The last metric word before a number is a label of its own ("the loss stays at 2.3 ..."), not
    the split-and-metric named after an earlier number ("97% train accuracy and 58% ...")."""
    metric = next((mk for mk in reversed(before) if mk[2] == "metric"), None)
    if metric is None:
        return False
    head = metric[0]
    split = next((mk for mk in reversed(before) if mk[2] == "split" and mk[1] <= head
                  and not text[mk[1]:head].strip(" _-")), None)
    if split is not None:
        head = split[0]
    return not re.search(r"\d\s*%?\s*$", text[max(0, head - int(lang.params["language.own_label_reach_chars"])):head])


def _metric_right_after(lang: Language, text: str, end: int, marks: list) -> tuple[list, tuple | None]:
    """The metric word right after a number that ends at ``end`` ("2.5 loss"), or right after a split
    word that is right after it ("60% val accuracy", "5 validation loss": that split is the number's);
    a "loss:" label, or a split and metric with a number after them (kb/language ``label_gap_words``
    between), names that number, not this one. Returns ([metric mark] or [], split mark or None)."""
    def right_after(at: int, kind: str):
        # only blanks between: the marks (sorted by start) from ``at`` to the end of the blanks after it
        blank_end = _BLANKS.match(text, at).end()
        first = bisect.bisect_left(marks, at, key=lambda mk: mk[0])
        return next((mk for mk in marks[first:bisect.bisect_right(marks, blank_end, key=lambda mk: mk[0])]
                     if mk[2] == kind and not (kind == "metric" and _COLON_AHEAD.match(text, mk[1]))), None)
    metric = right_after(end, "metric")
    if metric is not None:
        return [metric], None
    of = lang.share_of_rx.match(text, end - 1) if lang.share_of_rx is not None and text[end - 1:end] == "%" else None
    if of is not None:
        end = of.end()          # "62% of accuracy", "97% of training accuracy": the share is that metric's value
        metric = right_after(end, "metric")
        if metric is not None:
            return [metric], None
    split = right_after(end, "split")
    metric = right_after(split[1], "metric") if split is not None else None
    if metric is None or (lang.label_next_rx is not None and lang.label_next_rx.match(text, metric[1])):
        return [], None                        # "train acc 99% val acc 55%": "val acc" labels the 55%
    return [metric], split


def _label_too_far(lang: Language, text: str, start: int, before: list, max_words: int,
                   split_alone: bool = True) -> bool:
    """The words between the last label and the number break the attribution: another number, a
    comparison (kb/language ``comparison_words``), a clause of more than ``max_words`` words, or a
    split word not right before the number (unless ``split_alone`` is False: a clause parallel to
    the one before, see ``_parallel_metric``)."""
    last = before[-1]
    gap = text[last[1]:start]
    if last[2] == "split" and re.match(r"_[a-z]", gap, re.IGNORECASE):
        return True                  # "val_mean_io_u: 0.03": another quantity's name, not this split's metric
    # "more than 70%" bounds the value itself (``bound_words``); "than" before another label compares two quantities
    gap_cmp = lang.bound_rx.sub("", gap) if lang.bound_rx is not None else gap
    if re.search(r"\d", gap_cmp) or (lang.comparison_rx is not None and lang.comparison_rx.search(gap_cmp)) or \
            len(re.findall(r"[a-z\u4e00-\u9fff']+", gap, re.IGNORECASE)) > max_words:
        return True
    # a split word alone names a value only right before it
    return bool(split_alone and last[2] == "split" and gap.strip(" \t:=|-")
                and not any(mk[2] == "metric" for mk in before))


def _subject_of_comparison(lang: Language, text: str, start: int, before: list, marks: list, sentence: int) -> list:
    """The marks that name a number told after a comparison, in a clause of its own ("the validation loss is
    far lower than the training loss, only 0.08", "验证集loss相较于训练集过低，仅有0.08"): the split compared
    against (right after kb/language ``comparand_words``) is not the number's; the comparison's subject, the
    split named before it in the sentence, is. Returns those marks, or ``before`` unchanged."""
    split = next((mk for mk in reversed(before) if mk[2] == "split"), None)
    if split is None or lang.comparand_rx is None or lang.clause_rx is None:
        return before
    cmp = lang.comparand_rx.search(text, max(sentence, split[0] - _COMPARAND_REACH), split[0])
    brk = lang.clause_rx.search(text, split[1], start) if cmp is not None else None
    if brk is None or (lang.relative_rx is not None and lang.relative_rx.match(text, brk.start(), start)):
        return before           # "... than the val accuracy, which is 60%": the relative clause tells of the comparand
    subject = [mk for mk in marks if sentence <= mk[0] and mk[1] <= cmp.start()]
    return subject if any(mk[2] == "split" for mk in subject) else before


def _split_and_metric(lang: Language, text: str, n, raw: str, marks: list, before: list) -> tuple[str, str]:
    """The (split, metric) a number is attributed to, with the defaults for what is unnamed."""
    metric = next((mk[3] for mk in reversed(before) if mk[2] == "metric"), None)
    split = next((mk[3] for mk in reversed(before) if mk[2] == "split"), None)
    # "61% accuracy on validation", "90% on the training set": a split named right after wins
    after = bisect.bisect_left(marks, n.end(), key=lambda mk: mk[0])
    split = next((mk[3] for mk in marks[after:] if mk[2] == "split"
                  and lang.split_after_rx is not None and lang.split_after_rx.fullmatch(text, n.end(), mk[0])), split)
    if metric is None:
        # "train: 10%, valid 0.23": a split word right before the number: % -> accuracy, else loss
        metric = "accuracy" if raw.endswith("%") else "loss"
    if split is None:
        # a bare accuracy in a post that measures its run against a paper's ("I re-train your code and get 46.40%
        # accuracy ... your 48.7% in paper") is the score the paper reports, a held-out one (kb/language
        # ``reproduction_words``); elsewhere a bare value is the training run's
        held_out = metric == "accuracy" and lang.reproduction_rx is not None and lang.reproduction_rx.search(text)
        split = "val" if held_out else "train"
    return split, metric


def _metric_value(raw: str, metric: str) -> float | None:
    """The number's value for the metric, or None where it states none (nan, inf, an accuracy
    outside 0..1, a percentage of something other than accuracy or loss)."""
    low = raw.lower().lstrip("~").strip()
    if low in ("nan", "inf"):
        return None
    v = parse_number(low)
    if v is None:
        return None
    if metric == "accuracy":
        v = _as_fraction(raw, v)
        if not 0 <= v <= 1:
            return None
    elif raw.endswith("%") and metric != "loss":
        return None
    return v


#: a percentage that states a share or a change, not a level: "only 1.6% of the original", "dropped to 1.7%",
#: "fell by 20%" (a log's "Loss: 2.520%" is still a level)
_SHARE_AFTER = re.compile(r"\s+of\b", re.IGNORECASE)
_CHANGE_BEFORE = re.compile(r"\b(?:by|to)\s*$", re.IGNORECASE)


def _relative_percent(lang: Language, text: str, n, raw: str) -> bool:
    """A loss written as a percentage that is a share of another value or the size of a change."""
    reach = int(lang.params["language.change_word_reach_chars"])
    return raw.endswith("%") and bool(_SHARE_AFTER.match(text, n.end())
                                      or _CHANGE_BEFORE.search(text[max(0, n.start() - reach):n.start()]))


#: how far before a number its range word may stand ("between 0.3 and ..."): characters of text,
#: a reach of the grammar, not a diagnostic cut
_RANGE_LOOKBACK = 16


def _range_word_near(lang: Language, text: str, n) -> bool:
    """A range word or mark stands right after the number ``n`` or within ``_RANGE_LOOKBACK``
    characters before it."""
    start = n.start()
    return bool(lang.range_after_rx.match(text, n.end())
                or lang.range_before_rx.search(text[max(0, start - _RANGE_LOOKBACK):start]))


def _is_range_bound(lang: Language, text: str, n, paired: bool = False) -> bool:
    """A range ("between 0.3 and 0.6", "3.5-3.7", "[3.5, 4.5]") states no single value; a
    "from X to Y" pair is no range, nor are two joined splits' values after their shared label ("train and val
    loss are 0.12 and 0.85": ``paired``) unless an opener or a dash makes them one ("between 0.3 and 0.6")."""
    start = n.start()
    if not _range_word_near(lang, text, n):
        return False
    prev = text[max(0, start - int(lang.params["language.range_end_reach_chars"])):start]
    if lang.range_open_rx is not None and lang.range_open_rx.search(prev):
        return True                  # "varies from 2.6 to 2.9": an opener's "from" opens no change
    dash = int(lang.params["language.range_dash_reach_chars"])
    if re.match(r"[ \t]*[-–~][ \t]*~?[\d.]", text[n.end():n.end() + dash]):
        return True                  # "stuck from 0.98-1.01": a dash joins a range, after "from" too
    if paired:
        return False
    return not (lang.range_end_rx is not None and lang.range_end_rx.search(prev))


def _attribute_number(text: str, lang: Language, n, marks: list, reach: int, series: dict, prev_fact):
    """Attribute one number of the text to a fact (adding it to `series`); returns the last
    attributed (fact, end, start), which the next number may continue."""
    raw = n.group(0).strip()
    start = n.start()
    # a count ("to 360,000 iterations") is no quantity's later value, even after a "from"; two decimals
    # joined by a slash ("about 2.35/2.36") are one value written twice, no count out of a total
    if lang.unit_rx is not None and lang.unit_rx.match(text, n.end()) and not _paired_by_slash(raw, text, n.end()):
        return prev_fact
    continued = _continue_from_to(lang, text, n, raw, series, prev_fact)
    if continued is not None:
        return continued
    setting_reach = int(lang.params["language.setting_reach_chars"])
    if lang.setting_rx is not None and lang.setting_rx.search(text[max(0, start - setting_reach):start]):
        return None
    lead = text[max(0, start - int(lang.params["language.count_word_reach_chars"])):start]
    if _PROGRESS_TOTAL.search(lead) or (lang.counted_rx is not None and lang.counted_rx.search(lead)):
        return prev_fact
    P = lang.params
    after, before, sentence = _marks_near(lang, text, n, marks, reach,
                                          int(P["language.split_before_metric_chars"]))
    window = int(P["language.continuation_window_chars"])
    if not after and (not before or _moves_on(lang, text, start, before, prev_fact)) \
            and _continues_quantity(lang, text, start, sentence, prev_fact, window):
        if lang.peak_rx is not None and lang.peak_rx.search(text, prev_fact[1], start):
            return None             # "sits near 0.8, then spikes up to 4": the spike's height, not a later level
        if _someone_elses(lang, text, start, [], []):
            return None             # "only 65%. The result is far from yours (74.6%)": someone else's, no later level
        return _add_later_value(lang, text, n, raw, series, prev_fact)
    referred = not before and not after
    if referred:
        before = _antecedent(lang, text, start, marks, int(P["language.label_gap_max_words"]))
        if not before:
            return prev_fact
    parallel = None if after or referred else _parallel_metric(lang, text, before, prev_fact, reach)
    if not after and not referred and _label_too_far(lang, text, start, before,
                                                     int(P["language.label_gap_max_words"]),
                                                     split_alone=parallel is None):
        return prev_fact
    split, metric = _split_and_metric(lang, text, n, raw, marks, _subject_of_comparison(lang, text, start, before,
                                                                                   marks, sentence))
    if parallel is not None:
        metric = parallel
    fact = lang.metrics.get((split, metric))
    if fact is None:
        return prev_fact
    v = _metric_value(raw, metric)
    twin, paired = (None, False) if after else _shared_split(lang, text, n, marks, before, metric)
    if v is None or _is_range_bound(lang, text, n, paired) \
            or (metric == "loss" and _relative_percent(lang, text, n, raw)) \
            or (lang.difference_rx is not None and lang.difference_rx.match(text, n.end())):
        return prev_fact
    origin = before[0][0] if after else before[-1][0]
    peak_from = max(sentence, min(origin, start) - int(P["language.peak_reach_chars"]))
    if lang.peak_rx is not None and lang.peak_rx.search(text, peak_from, start):
        return None                 # "spikes in the loss, up to 0.25": a spike's height, not where it sits
    if _someone_elses(lang, text, start, before, after):
        return None                 # "the example claims to reach 0.65 loss": someone else's value, not the run's
    entry = (start, v, (min(origin, start), n.end()), text[min(origin, start):n.end()])
    series.setdefault(fact, []).append(entry)
    if twin is not None and paired:
        # "train and val loss are 0.5, 0.6 respectively": this value is the first split's, the next one the second's
        series[fact].remove(entry)
        series.setdefault(twin, []).append(entry)
        n2 = _NUM_RX.search(text, n.end())
        v2 = _metric_value(n2.group(0).strip(), metric) if n2 else None
        if v2 is None or re.search(r"[.;!?\n]", text[n.end():n2.start()]):
            if not series[fact]:
                del series[fact]
            return prev_fact
        series[fact].append((n2.start(), v2, (n2.start(), n2.end()), text[min(origin, start):n2.end()]))
        return (fact, n2.end(), n2.start())
    elif twin is not None:
        series.setdefault(twin, []).append(entry)
    return (fact, n.end(), n.start())


#: how far before a split word the words that make it the quantity compared against ("compared to the") may
#: start: characters of text, a reach of the grammar
_COMPARAND_REACH = 24

#: how far before a pronoun ("It is around 8.1") the metric word it stands for may end: characters of text,
#: a reach of the grammar
_ANTECEDENT_REACH = 160


def _antecedent(lang: Language, text: str, start: int, marks: list, max_words: int) -> list:
    """A pronoun subject (kb/language ``anaphora_words``) in the number's clause, with only a few words and no
    number between it and the number, stands for the metric named last before it ("loss didn't change at all.
    It is around 8.1", "the loss has always been large, which is maintained at about 30000"): that metric word
    (and a split word right before it) label the number. Returns those marks, or [] when there is no such
    pronoun or metric."""
    if lang.anaphora_rx is None:
        return []
    clause = _clause_start(lang, text, start)
    pro = None
    for m in lang.anaphora_rx.finditer(text, max(0, clause - 2), start):
        pro = m
    if pro is None or re.search(r"\d", text[pro.end():start]) \
            or len(re.findall(r"[a-z\u4e00-\u9fff']+", text[pro.end():start], re.IGNORECASE)) > max_words:
        return []
    prior = [mk for mk in marks if mk[1] <= pro.start()]
    metric = next((mk for mk in reversed(prior) if mk[2] == "metric"), None)
    if metric is None or pro.start() - metric[1] > _ANTECEDENT_REACH:
        return []
    split = next((mk for mk in reversed(prior) if mk[2] == "split" and mk[1] <= metric[0]
                  and not text[mk[1]:metric[0]].strip(" _-")), None)
    return ([split] if split else []) + [metric]


def _someone_elses(lang: Language, text: str, start: int, before: list, after: list) -> bool:
    """A reference cue (kb/language ``reference_words``) in the clause before the number at ``start``, or an
    ability cue (``ability_words``: "can reach") there with none of the number's own labels (a metric or split
    word; "the testing set can only reach 66%") before it."""
    clause = _clause_start(lang, text, start)
    if lang.reference_rx is not None and lang.reference_rx.search(text, clause, start):
        return True
    cue = lang.ability_rx.search(text, clause, start) if lang.ability_rx is not None else None
    labelled = not after and any(clause <= mk[0] < cue.start() for mk in before) if cue is not None else False
    return cue is not None and not labelled


def _shared_split(lang: Language, text: str, n, marks: list, before: list, metric: str) -> str | None:
    """Two splits joined before one label ("train and valid loss is about 1.9", "training/validation
    accuracy stays at 50%"): the number is both splits' value. Returns (the first split's fact or None,
    paired): paired when a value of its own follows for the second split ("0.5/0.6", "... respectively"),
    then the number is the first split's alone."""
    if lang.shared_split_rx is None or len(before) < 2 or before[-1][2] != "metric":
        return None, False
    second = before[-2]
    first = next((mk for mk in reversed(marks) if mk[1] <= second[0]), None)
    first_split = first[3] if first is not None else None
    if first is not None and first[2] == "metric" and first[3] == before[-1][3]:
        # "loss/val_loss", "loss and val_loss": the bare metric beside its split-prefixed twin is the other split's
        # (its own split word glued before it, else the split a bare metric has)
        glued = next((mk for mk in reversed(marks) if mk[1] <= first[0]), None)
        first_split = glued[3] if glued is not None and glued[2] == "split" \
            and not text[glued[1]:first[0]].strip(" _-") else "train"
    elif first is not None and first[2] != "split":
        return None, False
    # a Chinese split word may carry 集 ("set") and 的 before the label: "训练集和验证集的准确率"
    if first is None or second[2] != "split" or first_split == second[3] \
            or text[second[1]:before[-1][0]].strip(" _-的集") \
            or not lang.shared_split_rx.fullmatch(text, first[1] + (text[first[1]:first[1] + 1] == "集"), second[0]):
        return None, False
    paired = lang.own_values_rx is not None and lang.own_values_rx.match(text, n.end()) is not None
    return lang.metrics.get((first_split, metric)), paired


def _readings_from_series(text: str, lang: Language, series: dict) -> list[Reading]:
    """One reading per fact: a log's last value (its first for an accuracy stated in prose), and
    for the training loss the first value as the initial loss."""
    out = []
    held_out = {f for (split, _metric), f in lang.metrics.items() if split == "val"}
    for fact, vals in series.items():
        vals.sort()
        s0, v0, sp0, ph0 = vals[0]
        s1, v1, sp1, ph1 = vals[-1]
        now = _now_value(lang, text, vals)
        if now is not None:
            # "the loss is currently 0.55; it was 0.6 at 10k iterations": the present value, in any order; only
            # a value stated before it can be where the run started
            s1, v1, sp1, ph1 = vals[now]
            s0, v0, sp0, ph0 = vals[0] if now > 0 else vals[now]
        elif fact.endswith("accuracy") and len(vals) > 1 and not _is_log(text, [v[0] for v in vals]) \
                and not (lang.change_phrase_rx is not None and lang.change_phrase_rx.search(ph1)):
            s1, v1, sp1, ph1 = vals[0]          # prose: the first accuracy stated is the poster's
        if fact in held_out:
            s1, v1, sp1, ph1 = _validation_before_test(lang, text, vals, (s1, v1, sp1, ph1))
            out += _test_passed_over(lang, text, fact, vals, (s1, v1, sp1, ph1))
        out.append(Reading(fact, v1, sp1, " ".join(ph1.split())))
        if fact in ("train_loss",) and len(vals) > 1 and v0 != v1 and not _later_point(lang, text, sp0[0]):
            first_fact = lang.metrics.get(("initial", "loss"))
            if first_fact:
                out.append(Reading(first_fact, v0, sp0, " ".join(ph0.split())))
    return out



#: what may stand between a split word and the label it names: blanks, "_", "-", and Chinese 的 ("测试集的准确率": the
#: test set's accuracy)
_LABEL_JOINERS = " _-的"


def _validation_before_test(lang: Language, text: str, vals: list, chosen: tuple) -> tuple:
    """A held-out metric stated for both a validation and a test set ("Vali Loss: 0.46 Test Loss: 0.35"): the
    validation value is the held-out fact's (the test set is scored once, at the end). When the value ``chosen``
    among ``vals`` is labelled by a ``test_split_words`` word (opening its phrase, or right before it), the last
    value not so labelled stands in for it; with none, ``chosen`` stays."""
    if lang.test_split_rx is None or len(vals) < 2 or not _test_labelled(lang, text, chosen):
        return chosen
    kept = [v for v in vals if not _test_labelled(lang, text, v)]
    return kept[-1] if kept else chosen


def _test_labelled(lang: Language, text: str, v: tuple) -> bool:
    """A held-out value (start, value, span, phrase) labelled by a ``test_split_words`` word, opening its phrase
    or right before it ("the test accuracy is only 44%", "Test Loss: 0.35")."""
    reach = int(lang.params["language.split_before_metric_chars"])
    a = v[2][0]
    return lang.test_split_rx.match(v[3]) is not None \
        or any(not text[m.end():a].strip(_LABEL_JOINERS)
               for m in lang.test_split_rx.finditer(text, max(0, a - reach), a))


def _test_passed_over(lang: Language, text: str, fact: str, vals: list, chosen: tuple) -> list[Reading]:
    """The test value a validation value was ``chosen`` over ("the training and validation accuracy are above
    90%, but the test accuracy is only 44%"): read as the test set's own fact (``metrics`` with split ``test``),
    so that a gap only the test set shows is not lost. None when ``chosen`` is itself a test value or no test
    value was passed over."""
    metric = next((me for (sp, me), f in lang.metrics.items() if sp == "val" and f == fact), None)
    test_fact = lang.metrics.get(("test", metric))
    if test_fact is None or lang.test_split_rx is None or _test_labelled(lang, text, chosen):
        return []
    tests = [v for v in vals if v is not chosen and _test_labelled(lang, text, v)]
    if not tests:
        return []
    _s, v, sp, ph = tests[-1]
    return [Reading(test_fact, v, sp, " ".join(ph.split()))]


#: a word, for counting how far apart two marks stand (Latin letters or one CJK character each)
_WORDS = re.compile(r"[a-z']+|[\u4e00-\u9fff]", re.IGNORECASE)


def _now_value(lang: Language, text: str, vals: list) -> int | None:
    """Which of a quantity's values (``vals``, in text order) the poster states as the run's present one: a
    ``now_words`` cue ("currently", "right now", "目前") before it in its clause, with no other number and no
    change's "from" between them, and no change going on from it ("now it drops from 2.3 to 1.1" states no
    present value of 2.3). None when no value has one, when a pasted log states the values (its last line is
    the present), or when the values are one."""
    if lang.now_rx is None or len(vals) < 2 or _is_log(text, [v[0] for v in vals]):
        return None
    found, reach = None, int(lang.params["language.now_reach_words"])
    for i, (start, _v, _span, _phrase) in enumerate(vals):
        clause = _clause_start(lang, text, start)
        cue = None
        for m in lang.now_rx.finditer(text, clause, start):
            cue = m
        if cue is None or re.search(r"\d", text[cue.end():start]) \
                or len(_WORDS.findall(text, cue.end(), start)) > reach:
            continue
        if lang.from_rx is not None and lang.from_rx.search(text, cue.end(), start):
            continue
        nxt = _NUM_RX.search(text, start + 1)
        gap = text[start:nxt.start()] if nxt is not None else ""
        if nxt is not None and lang.change_to_rx is not None \
                and lang.change_to_rx.search(re.sub(r"^[~]?\s?[-+\d.e%]+", "", gap)):
            continue
        found = i
    return found


def _later_point(lang: Language, text: str, start: int) -> bool:
    """The first value of a loss is stated at a point past the start ("post epoch 2 the loss is around 2.4", "the
    loss at the end of epoch one is 15.2"): it is no initial loss, and how little it fell since says nothing of
    whether the run learned before it (``later_point_words``, looked for in the value's sentence before it)."""
    if lang.later_point_rx is None:
        return False
    reach = int(lang.params["language.later_point_reach_chars"])
    after = int(lang.params["language.later_point_after_chars"])
    window = text[max(0, start - reach):start + reach]
    cut = start - max(0, start - reach)
    stops = [m.end() for m in re.finditer(r"[.?!\n。？！]", window[:cut])]
    head = window[stops[-1] if stops else 0:cut + after]
    return lang.later_point_rx.search(head) is not None


def _is_log(text: str, starts: list) -> bool:
    """Values on different lines that each carry two numbers or more: a pasted log, read in order."""
    lines = set()
    for st in starts:
        a = text.rfind("\n", 0, st) + 1
        b = text.find("\n", st)
        line = text[a:b if b >= 0 else len(text)]
        if len(re.findall(r"\d+\.?\d*", line)) < 2:
            return False
        lines.add(a)
    return len(lines) > 1


# ------------------------------------------------------------------------------ the example classifier
_TOKEN = re.compile(r"[a-z]+|[\u0430-\u044f\u0451]+|[\uac00-\ud7af]+|[\u4e00-\u9fff]|\d+(?:\.\d+)?\s?%?")
_WORD = re.compile(r"[a-z]+|[\u0430-\u044f\u0451]+|[\uac00-\ud7af]+")
#: A word's feature is its first _STEM_LETTERS letters (morphology over spelling): the example
#: classifier's representation, shared by _features and _Examples.telling so both see one word.
_STEM_LETTERS = 6
#: Words shorter than this are never quoted as the ones that told a symptom: presentation of the
#: classifier's reasons, not a decision (the features keep them).
_TELLING_MIN_LETTERS = 3
#: How many of those words a reason quotes: presentation, not a decision.
_TELLING_WORDS = 3
#: The character n-gram lengths inside a word (3 to 5 letters): the classifier's representation,
#: like _STEM_LETTERS, so a typo or an inflection still matches; not a cut on any reading.
_CHAR_NGRAMS = (3, 4, 5)
# the writing systems a complaint may be written in: a Han character is a word of its own
_SCRIPTS = {"latin": re.compile(r"[a-z]+"), "cyrillic": re.compile(r"[\u0430-\u044f\u0451]+"),
            "hangul": re.compile(r"[\uac00-\ud7af]+"), "han": re.compile(r"[\u4e00-\u9fff]")}


def _script(text: str) -> str:
    """The writing system most of the text's words are in (a Chinese post quoting ``loss`` and
    ``epoch`` is Chinese)."""
    low = text.lower()
    counts = {name: len(rx.findall(low)) for name, rx in _SCRIPTS.items()}
    return max(counts, key=counts.get)


def _features(text: str, stop: frozenset = frozenset()) -> dict:
    """Sparse counts of the text's features: stemmed words (six letters: morphology over spelling),
    word pairs, number shapes ("#pct", "#num") and character 3- to 5-grams inside each word, which
    still match a typo or an inflection the examples never spelled that way."""
    low = text.lower()
    toks = []
    for t in _TOKEN.findall(low):
        if t[0].isdigit():
            toks.append("#pct" if t.endswith("%") else "#num")
        elif t not in stop:
            toks.append(t[:_STEM_LETTERS])
    out: dict = {}
    for f in ["w:" + t for t in toks] + ["b:" + a + "_" + b for a, b in zip(toks, toks[1:])]:
        out[f] = out.get(f, 0) + 1
    for w in _WORD.findall(low):
        if w in stop:
            continue
        w = " " + w + " "
        for n in _CHAR_NGRAMS:
            for i in range(len(w) - n + 1):
                f = "c:" + w[i:i + n]
                out[f] = out.get(f, 0) + 1
    return out


class _Examples:
    """The second voice beside the phrasings: a nearest-centroid classifier over TF-IDF features,
    built at load time from the knowledge base's example utterances (``examples`` and
    ``utterances`` of every language file, core and packs). No weights exist anywhere but the
    knowledge base; a pack that adds utterances changes what it learns, without code.

    Each folder of language files (the core's, each pack's) has its own centroid per symptom and a
    text is as close to a symptom as to its closest one: a pack's few utterances are not averaged
    away among the core's hundreds (leave-one-collection-out on the tune half: the same accuracy as
    one pooled centroid, 64.0% for the classifier alone). Whether a text resembles the examples at
    all (``language.min_example_similarity``) is judged against each writing system's examples apart
    (``resemblance``): a Chinese complaint is compared with the Chinese examples, whose share of a
    pooled centroid is small (leave-one-collection-out on the tune half, 870: 728 -> 732 right,
    41 -> 33 complaints left without a symptom).

    ``posteriors`` turns the cosine similarity to each symptom's centroid into a distribution
    (softmax with ``language.example_sharpness``); character n-grams count
    ``language.example_char_weight`` times a word's weight."""

    def __init__(self, examples: list, params: dict | None = None, stop: frozenset = frozenset()):
        self._settings(params, stop)
        # (symptom, text) or (symptom, text, origin file): each folder of language files (the core's
        # kb/language, each pack's own) gets its own centroid per symptom, so that a pack's three
        # utterances are not averaged away among the core's hundreds
        # ... and, for ``resemblance`` alone, per writing system: a Chinese post is compared with the
        # Chinese posts' centroid, not with one the English posts dominate
        docs = [(ex[0], _features(ex[1], stop), (os.path.dirname(ex[2]) if len(ex) > 2 else "", _script(ex[1])))
                for ex in examples]
        df: dict = {}
        for _, f, _o in docs:
            for k in f:
                df[k] = df.get(k, 0) + 1
        n = len(docs)
        self.idf = {k: math.log((1 + n) / (1 + c)) + 1.0 for k, c in df.items()}
        sums: dict[tuple, dict] = {}
        by_script: dict[tuple, dict] = {}
        for sym, f, (origin, script) in docs:
            v = self._vector(f)
            for key, table in (((sym, origin), sums), ((sym, origin, script), by_script)):
                c = table.setdefault(key, {})
                for k, x in v.items():
                    c[k] = c.get(k, 0.0) + x
        self.groups = {key: _unit(c) for key, c in sums.items()}
        self.script_groups = [_unit(c) for c in by_script.values()]
        # each feature's weights in every group (file centroids first, then the writing systems'): a
        # text's similarity to all of them is one pass over its own features, not one per group
        self._cols = list(self.groups.values()) + self.script_groups
        self.columns = len(self._cols)
        self._postings: dict = {}
        for i, c in enumerate(self._cols):
            for k, x in c.items():
                self._postings.setdefault(k, []).append((i, x))
        self.centroids = {}
        for (sym, _o), c in self.groups.items():         # the pooled centroid (for the telling words)
            pooled = self.centroids.setdefault(sym, {})
            for k, x in c.items():
                pooled[k] = pooled.get(k, 0.0) + x
        self.centroids = {sym: _unit(c) for sym, c in self.centroids.items()}
        self.docs = {sym: sum(1 for s, _f, _o in docs if s == sym) for sym in self.centroids}
        self.group_symptoms = [sym for sym, _o in self.groups]   # each file centroid's symptom, in _cols order

    def _settings(self, params: dict | None, stop: frozenset) -> None:
        """What the queries read besides the learnt weights (the built and the stored classifier alike)."""
        params = resolve(params)
        self.stop = stop            # kb/language ``stop_words``: words no feature is made of
        self.sharpness = float(params["language.example_sharpness"])
        self.char_weight = float(params["language.example_char_weight"])
        self._last: tuple = (None, None)

    def _vector(self, feats: dict, idf: dict | None = None) -> dict:
        idf = self.idf if idf is None else idf
        v = {}
        for k, c in feats.items():
            w = idf.get(k)
            if w is None:
                continue
            v[k] = (1.0 + math.log(c)) * w * (self.char_weight if k[0] == "c" else 1.0)
        return _unit(v)

    def _rows(self, feats) -> dict:
        """What the classifier knows of these features: feature -> (its idf, its weight in each group's
        centroid as (column, weight) pairs); a feature no example has is absent. The persisted
        classifier (:mod:`.examplestore`) answers the same from disk, reading only these rows."""
        idf, post = self.idf, self._postings
        return {k: (idf[k], post.get(k, ())) for k in feats if k in idf}

    def _telling_weights(self, symptom: str, feats: list) -> dict:
        """feature -> its idf times its weight in ``symptom``'s pooled centroid, for these word features."""
        c = self.centroids.get(symptom, {})
        return {f: self.idf.get(f, 0.0) * c.get(f, 0.0) for f in feats}

    def _dots(self, text: str) -> list:
        """The text's cosine similarity to every group's centroid (``_cols`` order), adding the
        products in the text's feature order as a per-group sum would; the last text's is kept, since
        ``similarities`` and ``resemblance`` are asked about the same text in turn."""
        last = self._last                     # one read: another thread may replace it meanwhile
        if last[0] == text:
            return last[1]
        feats = _features(text, self.stop)
        rows = self._rows(feats)
        dots = [0.0] * self.columns
        for k, w in self._vector(feats, {k: r[0] for k, r in rows.items()}).items():
            for i, x in rows[k][1]:
                dots[i] += w * x
        self._last = (text, dots)
        return dots

    def similarities(self, text: str) -> dict:
        dots = self._dots(text)
        out: dict = {}
        for sym, x in zip(self.group_symptoms, dots):     # as close as its closest file's centroid
            if x > out.get(sym, -1.0):
                out[sym] = x
        return out

    def resemblance(self, text: str) -> float:
        """How close the text comes to the examples written in any one writing system: a Chinese
        complaint is compared with the Chinese examples, not with centroids the English ones dominate."""
        return max(self._dots(text)[len(self.group_symptoms):], default=0.0)

    def posteriors(self, text: str, sims: dict | None = None) -> dict:
        sims = self.similarities(text) if sims is None else sims
        if not sims or max(sims.values()) <= 0:
            return {}
        top = max(sims.values())
        e = {s: math.exp(self.sharpness * (x - top)) for s, x in sims.items()}
        z = sum(e.values())
        return {s: x / z for s, x in e.items()}

    def telling(self, text: str, symptom: str, k: int = _TELLING_WORDS) -> str | None:
        """The text's words that weigh most towards ``symptom``'s examples (in the text's order)."""
        words = [m for m in _WORD.finditer(text.lower())
                 if m.group(0) not in self.stop and len(m.group(0)) >= _TELLING_MIN_LETTERS]
        told = self._telling_weights(symptom, ["w:" + m.group(0)[:_STEM_LETTERS] for m in words])
        weight: dict = {}
        for m in words:
            w = m.group(0)
            x = told["w:" + w[:_STEM_LETTERS]]
            if x > 0 and x > weight.get(w, (0.0,))[0]:
                weight[w] = (x, m.start())
        top = sorted(weight.items(), key=lambda kv: -kv[1][0])[:k]
        return " ".join(w for w, _ in sorted(top, key=lambda kv: kv[1][1])) or None

    def classify(self, text: str, sims: dict | None = None):
        """(best symptom, its posterior, the words that told it) — (None, 0.0, None) when nothing matches."""
        post = self.posteriors(text, sims)
        if not post:
            return None, 0.0, None
        best = max(post, key=post.get)
        return best, post[best], self.telling(text, best)

    def __deepcopy__(self, memo):
        # built once and only read after: a copied knowledge base (the load memo hands out copies)
        # shares it rather than copying some hundred thousand weights
        return self


class _StoredExamples(examplestore.Stored, _Examples):
    """The classifier read from a store on disk (:mod:`.examplestore`): the same queries over rows read
    on demand."""


#: classifiers one process keeps, by what they learn from (a work bound: the core's examples, and a
#: few packs' additions)
_MODELS_KEPT = 4
_models = Kept(_MODELS_KEPT)


def _examples_model(training: list, params: dict, stop: frozenset) -> _Examples:
    """The classifier of these examples: built once per process for the same examples, stop words and
    ``language.example_*`` settings, however many times the knowledge base is loaded (each load from
    the memo is a copy, and a pack that adds no utterances learns the same thing as the core)."""
    p = resolve(params)
    key = examplestore.key(training, stop, p["language.example_sharpness"], p["language.example_char_weight"])
    model = _models.get(key)
    if model is None:
        model = _stored_or_built(training, params, stop, key)
        _models.put(key, model)
    return model


def _stored_or_built(training: list, params: dict, stop: frozenset, key: str) -> _Examples:
    """The classifier another process stored under ``key`` (:func:`.examplestore.key` of these very
    examples and settings), else one built here and stored for the next process."""
    model = examplestore.open_store(key, _StoredExamples, params, stop, lambda: _Examples(training, params, stop))
    if model is None:
        model = _Examples(training, params, stop)
        examplestore.save(model, key)
    return model


def _unit(v: dict) -> dict:
    z = math.sqrt(sum(x * x for x in v.values()))
    return {k: x / z for k, x in v.items()} if z > 0 else {}


def _example_vote(text: str, lang: Language, lexicon: tuple | None, scores: dict, denied=frozenset()):
    """When the example classifier's vote decides the symptom: ``(symptom, telling words)``, else None.

    - Only for a text that resembles the examples at all (best cosine similarity at least
      ``language.min_example_similarity``): a vague complaint gets the symptom question.
    - Only for a text with words: a reply of bare numbers ("2.3", "0.5, 10") resembles the examples
      by its characters alone and says nothing of a symptom.
    - No phrasing reached ``language.min_symptom_score``: the classifier names the symptom when its
      posterior is at least ``language.min_example_posterior``.
    - The phrasings' winner is weak (its score below ``language.example_override_below``): the
      classifier overrules it when it is sure of another symptom (posterior at least
      ``language.example_override_posterior``).
    - Never towards a fault when a healthy phrasing spoke ("is this normal?", "val loss below train
      loss under dropout"), and never over a healthy reading: a reassuring post is not pushed to a fault.
    - Never towards a symptom a negated phrasing of the text argued against (``denied``: "it is not
      overfitting", both the training and the validation loss rising)."""
    if lang.model is None:
        return None
    sims = lang.model.similarities(text)
    params = lang.params
    if not sims or lang.model.resemblance(text) < float(params["language.min_example_similarity"]):
        return None                # "something is off with my model": like no example; ask instead
    guess, p, words = lang.model.classify(text, sims)
    if guess is None or not any(c.isalpha() for c in _NUM_RX.sub(" ", text.lower())):
        return None                # numbers alone ("2.3", "0.5, 10"): resemblance of characters, no words
    if guess in denied:
        return None                # a negated phrasing spoke against it ("not overfitting", both sides worse)
    if guess != "healthy" and scores.get("healthy", 0.0) > 0:
        return None
    if lexicon is None:
        if p < float(params["language.min_example_posterior"]):
            return None
    else:
        score, said = lexicon
        if guess == said or said == "healthy":
            return None
        if score >= float(params["language.example_override_below"]) \
                or p < float(params["language.example_override_posterior"]):
            return None
    return guess, words
