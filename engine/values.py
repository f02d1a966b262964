"""Typed fact values: parsing what a user types, coercing what a file or probe says, formatting.

Each fact in the vocabulary has a type (number, integer, boolean, string, enum, list) and optional
bounds. Everything entering working memory goes through :func:`coerce`, so rules never see a
string where they compare numbers.
"""

from __future__ import annotations

import math
import re
import sys

from .errors import InputError

#: A whole number written with comma thousands separators (``1,000``, ``12,500,000``, Python's
#: ``{:,d}``): one to three digits, then groups of three. The complaint reader's number slots and the
#: console reader's step counters both read it (each adds what may not follow it); ``coerce`` drops
#: the commas of a typed answer.
THOUSANDS_GROUPED = r"\d{1,3}(?:,\d{3})+"

#: How fmt shows a value: floats outside [_PLAIN_LOW, _PLAIN_HIGH) in scientific notation, lists
#: cut after _SHOWN_ITEMS. Presentation, not knowledge: no fact or confidence reads them.
_PLAIN_LOW, _PLAIN_HIGH = 1e-3, 1e5
_SHOWN_ITEMS = 6

_TRUE = {"yes", "y", "true", "t", "1", "on", "yeah", "yep", "sure", "correct", "it does", "it is"}
_FALSE = {"no", "n", "false", "f", "0", "off", "nope", "not", "none", "never", "it doesn't", "it isn't"}
SKIP_WORDS = {"skip", "s", "unknown", "?", "idk", "don't know", "dont know", "not sure", "n/a", "na", "-", "pass", ""}


class ValueProblem(ValueError):
    """An answer that does not fit the fact's type; the message says what would."""


def coerce(fact: dict, value, *, from_text: bool = False, choices: dict | None = None):
    """Return ``value`` as the fact's type, or raise :class:`ValueProblem` saying why not."""
    ftype = fact["type"]
    if isinstance(value, str) and from_text:
        value = value.strip()
        if ftype in ("number", "integer"):
            value = _sole_number(value)
    to_type = _COERCERS.get(ftype)
    if to_type is None:
        raise ValueProblem(f"unknown type {ftype!r} for {fact['id']}")
    try:
        return to_type(fact, value, choices)
    except ValueProblem:
        raise
    except (OverflowError, ValueError):   # a number too large to convert or even to print
        raise ValueProblem(f"{fact['id']}: the number given is too large to use") from None


def _as_number(fact: dict, value, choices):
    """A number or integer fact: one of the question's choice words ("none" -> 0 for a weight decay)
    or a number; a percent given for a 0..1 fact is scaled, the range is checked."""
    name = fact["id"]
    v = _chosen_number(value, choices)
    if v is None:
        v = _number(value, name)
    lo, hi = fact.get("min"), fact.get("max")
    if hi == 1 and lo == 0 and v > 1 and v <= 100 and _looks_percent(value, v):
        v = v / 100.0
    if fact["type"] == "integer":
        if not float(v).is_integer():
            raise ValueProblem(f"{name} must be a whole number, got {value!r}")
        v = int(v)
    if lo is not None and v < lo:
        raise ValueProblem(f"{name} must be ≥ {lo}, got {v}")
    if hi is not None and v > hi:
        raise ValueProblem(f"{name} must be ≤ {hi}, got {v}")
    return v


def _as_boolean(fact: dict, value, choices):
    """A yes/no fact: a bool, 0/1, one of the question's choice words, or a yes/no word."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    for v, words in (choices or {}).items():
        if text in [w.lower() for w in words]:
            return v in ("true", "yes", True)
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueProblem(f"{fact['id']} is yes or no, got {value!r}")


def _as_enum(fact: dict, value, choices):
    """An enum fact: a value, a choice word, a 1-based index, or an unambiguous prefix."""
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    values = fact["values"]
    if text in values:
        return text
    for v, words in (choices or {}).items():
        if str(value).strip().lower() in [w.lower() for w in words] or text in [w.lower() for w in words]:
            return v
    if text.isdigit() and 1 <= int(text) <= len(values):
        return values[int(text) - 1]
    named = _bare_name(value)      # "nn.CrossEntropyLoss()", "BCEWithLogits": the class or function named
    for v, words in [(v, [v]) for v in values] + list((choices or {}).items()):
        if named and named in [_bare_name(w) for w in [v, *words]]:
            return v
    prefix = [v for v in values if v.startswith(text)] if text else []
    if len(prefix) == 1:
        return prefix[0]
    raise ValueProblem(f"{fact['id']} is one of: {', '.join(values)}")


def _bare_name(text) -> str:
    """A name as code writes it, compared without module path, call brackets, case or separators:
    "torch.nn.CrossEntropyLoss()" -> "crossentropyloss", "bce_with_logits" -> "bcewithlogits"."""
    text = re.sub(r"\(.*\)\s*$", "", str(text).strip()).rsplit(".", 1)[-1]
    return re.sub(r"[\s_-]", "", text.lower())


def _as_list(fact: dict, value, choices):
    """A list fact: a sequence as strings, or text split on commas, semicolons and "and"."""
    if isinstance(value, (list, tuple, set)):
        return [str(x) for x in value]
    text = str(value).strip()
    if text.lower() in ("none", "nothing", "no", "[]", ""):
        return []
    return [p.strip() for p in re.split(r"[,;]|\band\b", text) if p.strip()]


def _as_string(fact: dict, value, choices):
    """A text fact: one of the question's choices when the text names it, else stripped text; a bool as
    "true"/"false"; a mapping or list is refused."""
    if isinstance(value, (dict, list)):
        raise ValueProblem(f"{fact['id']} is text, got {type(value).__name__}")
    if isinstance(value, str):
        if fact.get("is_name") and not re.search(r"[^\W\d_]", _NUMBER_IN_TEXT.sub("", value)):
            raise ValueProblem(f"{fact['id']} is a name, got {value.strip()!r}")   # "3e-4" names no optimizer
        named = _bare_name(value)     # a known name as code writes it: "torch.optim.Adam()" -> adam
        for v, words in (choices or {}).items():
            if named and named in [_bare_name(w) for w in [v, *words]]:
                return v
        return value.strip()
    return str(value).lower() if isinstance(value, bool) else str(value)


_COERCERS = {"number": _as_number, "integer": _as_number, "boolean": _as_boolean, "enum": _as_enum,
             "list": _as_list, "string": _as_string}


#: One number as a person types it (digits with an optional point, exponent, percent sign, or comma
#: thousands groups), not part of a word ("adamw", "l2"); used to find the value in "lr=3e-4".
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+]?(?:" + THOUSANDS_GROUPED + r"|\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?%?(?![\w.])",
                             re.IGNORECASE)


def _chosen_number(value, choices):
    """The number a question's choice word stands for ("none" -> 0), or None."""
    if not isinstance(value, str) or not choices:
        return None
    text = value.strip().lower()
    for v, words in choices.items():
        if text in [w.lower() for w in words]:
            return _number(v, "choice")
    return None


def _sole_number(value):
    """The one number in typed text that carries words around it ("lr=0.001", "about 1.6", "32 images",
    "5e-4 (adamw)"); text with no number or several ("1e-3 to 1e-4") is returned unchanged, to be refused."""
    if not isinstance(value, str):
        return value
    found = _NUMBER_IN_TEXT.findall(value)
    return found[0] if len(found) == 1 else value


def _looks_percent(raw, v) -> bool:
    return (isinstance(raw, str) and raw.strip().endswith("%")) or v > 1


def _number(value, name):
    if isinstance(value, bool):
        raise ValueProblem(f"{name} is a number, got {value!r}")
    if isinstance(value, (int, float)):
        v = float(value) if isinstance(value, float) else value
        if isinstance(v, int) and abs(v) > sys.float_info.max:
            v = math.inf if v > 0 else -math.inf       # past float range, as the text "1e400" reads
    else:
        text = str(value).strip().lower().replace("_", "").rstrip("%").strip()
        if "," in text:
            if not re.fullmatch(r"[-+]?" + THOUSANDS_GROUPED, text) or re.match(r"[-+]?0", text):
                raise ValueProblem(f"{name} is a number written with a point for decimals (0.001, not 0,001), "
                                   f"got {value!r}")
            text = text.replace(",", "")
        if text in ("nan", "inf", "+inf", "-inf", "infinity"):
            v = float(text.replace("infinity", "inf"))
        else:
            m = re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?", text)
            if not m:
                raise ValueProblem(f"{name} is a number (e.g. 0.01, 1e-6), got {value!r}")
            v = float(text)
            if v.is_integer() and "e" not in text and "." not in text:
                v = int(v)
    if isinstance(v, float) and math.isnan(v):
        return v
    return v


def fmt(value) -> str:
    """A value as a person reads it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value != 0 and (abs(value) < _PLAIN_LOW or abs(value) >= _PLAIN_HIGH):
            return f"{value:.2g}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        shown = ", ".join(str(v) for v in value[:_SHOWN_ITEMS])
        return shown + (f" (+{len(value) - _SHOWN_ITEMS} more)" if len(value) > _SHOWN_ITEMS else "")
    return str(value)


def json_safe(value):
    """A value that survives JSON (NaN/Inf become strings)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def parse_answer_file(path, params=None):
    """Read an answers file (YAML or JSON): mapping fact-or-question id -> value.

    Read within the ``limits.*`` parameters of ``params`` (default: the shipped ones)."""
    from . import bounded
    from .yamlio import load_yaml, read_text
    lim = bounded.limits(params)
    text = read_text(path, "answers file", lim)
    if str(path).endswith(".json"):
        data = bounded.loads_json(text, str(path), lim)
        marks = None
    else:
        data, marks = load_yaml(text, str(path), lim)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError("an answers file is a mapping of fact or question ids to values", str(path), 1, 1)
    return data, marks
