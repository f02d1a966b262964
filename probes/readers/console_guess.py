"""Metric names in a language the knowledge base does not know, read from how their values behave.

A console log printed in a language without an entry in ``console.local_words`` /
``console.latin_words`` (``Epoki 3/30 | koulutushäviö: 0.512 | validointihäviö: 0.601``) holds no
name the console reader knows, and it stops with "no training metrics found". Before it does, this
module looks at the log's repeated ``label: number`` pairs and guesses each label's role from its
values alone, with no word of the language:

* a **counter** (whole numbers rising by a steady stride, in most lines) is the axis: the one that
  changes least often is the epoch, another the step;
* labels that **share a stem** (``koulutushäviö`` / ``validointihäviö``, ``训练损失`` / ``验证损失``)
  are one metric on two splits: the one printed first in a line (or in more lines) is the training
  value, the next the validation value;
* a metric printed with ``%``, or kept within [0, 1] while it rises, is an **accuracy**; any other
  is a **loss**. A label alone (no stem shared) is read only as the training loss, only beside a
  counter, and only the one seen in most lines, never one that stays below
  ``console.guess_min_loss_peak`` (a learning rate); a label of one letter (``T: 9.1``, the ``G`` of
  ``5.61G``) is never read;
  a value that never changes (a batch size) or carries a unit (``12.3s``) is never a metric.

The guesses become a vocabulary (the labels with their English roles) that the console reader reads
the log with again, and the log carries a note naming every guess, so the report says the metric
names were guessed. Only a log the shipped vocabulary could not read at all, or read only an accuracy
from (``acc`` is English in any language's print: ``koulutushäviö 0.41 - koulutus acc 0.87``), is ever
guessed at, and only labels holding no word of that vocabulary (``valid score``, ``err`` are the
readers' to refuse); the second reading is kept only when it loses no metric the first one read. A
label printed as ``nan``/``inf`` is a loss that diverged (no accuracy or setting prints one).
Every bound is a ``kb/parameters/console.yaml`` parameter (``console.guess_*``).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Mapping

from traindx.engine.parameters import resolve

from .words import log_words

#: a label: one to four words of letters or marks of any script (no digits, no punctuation that
#: separates fields), then an optional ``:``/``=``, then a number, then what follows it; a label starts
#: only where a run of label characters starts (trying one at every letter of a long word is quadratic)
_LABEL_CHAR = r"[^\s\d:=|,;()\[\]{}<>/\\\"#*+%!?@$&^~`.\-–—_'’·•：，、（）【】「」]"
_PAIR = re.compile(
    rf"(?<!{_LABEL_CHAR})(?P<label>{_LABEL_CHAR}+(?:[ '’-]{_LABEL_CHAR}+){{0,3}})\s*[:=：]?\s*"
    r"(?P<num>[-+]?(?:(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:[eE][-+]?\d+)?|(?:nan|inf(?:inity)?)(?![^\W\d_])))"
    r"(?P<after>\s*%|[^\W\d_]*)", re.IGNORECASE)
#: a character of a script written without spaces between words (CJK, Thai, ...): a shorter
#: shared stem already says "the same word"
_DENSE_SCRIPT = 0x2E80
_THAI = (0x0E00, 0x0E7F)
#: the smallest size a label's values are compared at on a log scale (a metric stuck at 0)
_TINY = 1e-12


class _Label:
    __slots__ = ("name", "lines", "values", "positions", "percent", "integer", "with_unit", "known", "stem",
                 "on_split")

    def __init__(self, name: str, known: frozenset, splits: frozenset):
        words = [w for w in re.split(r"[ '’-]+", name) if w]
        named = {w for w in words if w in known}
        #: the known split words beside unknown ones (``leungitna latihan``: {"latihan"}); empty otherwise
        self.on_split = frozenset(named) if named and named <= splits and len(named) < len(set(words)) else frozenset()
        #: the readers' to judge: a known word that names more than a split, or no unknown word at all
        self.known = bool(named)
        self.stem = " ".join(w for w in words if w not in self.on_split) if self.on_split else name
        self.name = name
        self.lines: list[int] = []
        self.values: list[float] = []
        self.positions: list[int] = []
        self.percent = False
        self.integer = True
        self.with_unit = 0


def _pairs(lines: Iterable[str], max_label: int, min_label: int, known: frozenset, splits: frozenset,
           max_labels: int) -> dict[str, _Label]:
    """Every label's values, one a line; at most ``max_labels`` distinct labels (the first seen): a
    bound on memory and on the pairing's work for text that prints a new word before every number."""
    labels: dict[str, _Label] = {}
    for i, line in enumerate(lines):
        for pos, m in enumerate(_PAIR.finditer(line)):
            name = m.group("label").strip().lower()
            if not min_label <= len(name) <= max_label:
                continue
            text = m.group("num").replace(",", ".")
            try:
                value = float(text)
            except ValueError:
                continue
            if name not in labels and len(labels) >= max_labels:
                continue
            lab = labels.get(name) or labels.setdefault(name, _Label(name, known, splits))
            after = m.group("after")
            if after and after.strip() != "%":
                lab.with_unit += 1
                continue
            if lab.lines and lab.lines[-1] == i:
                continue                      # one value of a label per line: the first
            lab.lines.append(i)
            lab.values.append(value)
            lab.positions.append(pos)
            lab.percent |= bool(after) and after.strip() == "%"
            lab.integer &= re.fullmatch(r"[-+]?\d+", m.group("num")) is not None
    return labels


def _is_counter(lab: _Label, share: float) -> bool:
    steps = [b - a for a, b in zip(lab.values, lab.values[1:])]
    if not lab.integer or not steps or any(s < 0 for s in steps):
        return False
    rising = [s for s in steps if s > 0]
    if not rising:
        return False
    stride = statistics.mode(rising)
    return sum(1 for s in rising if s == stride) >= share * len(rising)


def _dense(name: str) -> bool:
    return any(ord(c) >= _DENSE_SCRIPT or _THAI[0] <= ord(c) <= _THAI[1] for c in name)


def _shared_stem(a: str, b: str, p: Mapping) -> bool:
    """Whether ``a`` and ``b`` share a run of characters long enough to be one word (``häviö``,
    ``损失``): ``console.guess_stem_chars``, or ``console.guess_dense_stem_chars`` in a script written
    without spaces."""
    dense = _dense(a) or _dense(b)
    need = int(p["console.guess_dense_stem_chars" if dense else "console.guess_stem_chars"])
    a_nospace, b_nospace = a.replace(" ", ""), b.replace(" ", "")
    return any(a_nospace[i:i + need] in b_nospace for i in range(len(a_nospace) - need + 1))


def _together(a: _Label, b: _Label) -> float:
    """The share of the rarer label's lines that print the other too."""
    return len(set(a.lines) & set(b.lines)) / min(len(a.lines), len(b.lines))


def _level(lab: _Label) -> float:
    """The label's typical size, on a log scale: what tells a loss's two splits (alike) from a loss
    and an accuracy that share a split word (``训练损失`` / ``训练准确率``)."""
    return math.log(max(statistics.median([abs(v) for v in _finite(lab)] or [_TINY]), _TINY))


def _finite(lab: _Label) -> list[float]:
    return [v for v in lab.values if math.isfinite(v)]


def _blew_up(lab: _Label) -> bool:
    """A label printed as ``nan``/``inf``: a loss that diverged (an accuracy or a setting never prints one)."""
    return len(_finite(lab)) < len(lab.values)


def _kind(lab: _Label) -> str | None:
    """``acc`` (printed with %), ``loss`` (above 1, so no share), or None (within [0, 1]: either)."""
    if lab.percent:
        return "acc"
    return "loss" if _blew_up(lab) or max(abs(v) for v in lab.values) > 1 else None


def _pairs_of_one_metric(labels: list[_Label], p: Mapping) -> tuple[list[list[_Label]], list[_Label]]:
    """Labels paired as one metric on two splits: sharing a stem, of no different kinds; first those
    printed in the same lines (an epoch's summary, not a step's loss beside it), then the closest in
    size; and the labels left alone."""
    edges = []
    together = float(p["console.guess_together_share"])
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            ka, kb = _kind(a), _kind(b)
            if (ka and kb and ka != kb) or not _shared_stem(a.stem, b.stem, p) \
                    or (a.on_split and a.on_split == b.on_split):
                continue
            edges.append((_together(a, b) < together, abs(_level(a) - _level(b)), a.name, b.name, a, b))
    paired: set[str] = set()
    pairs = []
    for *_, a, b in sorted(edges, key=lambda e: e[:4]):
        if a.name in paired or b.name in paired:
            continue
        paired |= {a.name, b.name}
        pairs.append(sorted((a, b), key=lambda lab: (statistics.mean(lab.positions), -len(lab.lines))))
    return pairs, [lab for lab in labels if lab.name not in paired]


def _rise(members: list[_Label]) -> float:
    """How far the first member's values rose from its first third to its last (negative: fell)."""
    first = _finite(members[0])
    if not first:
        return 0.0
    third = max(1, len(first) // 3)
    return statistics.median(first[-third:]) - statistics.median(first[:third])


def _is_accuracy(members: list[_Label]) -> bool:
    if any(m.percent for m in members):
        return True
    if any(_blew_up(m) for m in members):
        return False
    values = [v for m in members for v in m.values]
    return bool(values) and min(values) >= 0 and max(values) <= 1 and _rise(members) > 0


_SPLITS = ("train", "val")


def guess_vocabulary(lines: list[str], params: Mapping | None = None) -> dict[str, str]:
    """``{printed label: English role words}`` for the labels whose role the values tell, or ``{}``
    when they tell no loss and no accuracy (nothing to read). The labels of unknown words come first;
    only when they tell nothing is an unknown word on known split words (``leungitna latihan``) guessed
    at, so a log the unknown labels already read is read as before."""
    return _guess(lines, params, on_split=False) or _guess(lines, params, on_split=True)


def _guess(lines: list[str], params: Mapping | None, on_split: bool) -> dict[str, str]:
    p = resolve(params)
    words = log_words(params)
    labels = _pairs(lines[:int(p["console.guess_max_lines"])], int(p["console.guess_max_label_chars"]),
                    int(p["console.guess_min_label_chars"]), words.known_words, words.split_only_words,
                    int(p["console.max_metric_names"]))
    need = int(p["console.guess_min_lines"])
    kept = {n: lab for n, lab in labels.items()
            if len(lab.lines) >= need and lab.with_unit <= len(lab.lines) * float(p["console.guess_max_unit_share"])}
    counters = sorted((lab for lab in kept.values() if _is_counter(lab, float(p["console.guess_counter_share"]))),
                      key=lambda lab: len(set(lab.values)))
    vocab: dict[str, str] = {}
    for lab, role in zip(counters, ("epoch", "step")):
        if not lab.known:                  # "Epoch" is the reader's already; an unknown counter is named
            vocab[lab.name] = role
    metrics = [n for n, lab in kept.items()
               if lab not in counters and (not lab.known or (on_split and lab.on_split)) and not lab.integer
               and (len(set(lab.values)) > 1 or _blew_up(lab))]
    pairs, lone = _pairs_of_one_metric([kept[n] for n in metrics], p)
    # an unknown word on a known split is guessed only as one metric on two splits (``leungitna latihan`` /
    # ``leungitna validasi``); alone (``train pplx``) it stays the readers' to refuse
    lone = [lab for lab in lone if not lab.on_split]
    # one loss and one accuracy at most: a pair printed earlier, in more lines, wins its kind; of
    # two pairs within [0, 1] (a flat BCE loss beside a flat accuracy) the one that rose more is
    # the accuracy
    ranked = sorted(pairs, key=lambda ms: (statistics.mean(ms[0].positions), -len(ms[0].lines)))
    taken: dict[str, list[_Label]] = {}
    for members in ranked:
        kind = "acc" if _is_accuracy(members) else "loss"
        if kind == "loss" and "loss" in taken and _kind(members[0]) is None and _rise(members) > _rise(taken["loss"]):
            kind = "acc"
        taken.setdefault(kind, members)
    for kind, members in taken.items():
        for lab, split in zip(members, _SPLITS):
            vocab[lab.name] = f"{split} {kind}"
    peak = float(p["console.guess_min_loss_peak"])
    lone = [lab for lab in lone if _is_accuracy([lab]) or _blew_up(lab) or max(abs(v) for v in lab.values) > peak]
    if lone and counters and not any(v.endswith(("loss", "acc")) for v in vocab.values()):
        best = max(lone, key=lambda lab: len(lab.lines))
        vocab[best.name] = "train acc" if _is_accuracy([best]) else "train loss"
    if not any(v.endswith(("loss", "acc")) for v in vocab.values()):
        return {}
    return vocab


#: a line that is one dict literal of quoted names and numbers, with at most one word before it
#: (spaCy's ``Losses {'ner': 11.27, 'tagger': 3.1}``, or the dict alone): each name and its value
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"   # one way to read each digit run: linear
_DICT_ITEM = rf"['\"]\w+['\"]\s*:\s*{_NUM}\s*"
_DICT_LINE = re.compile(rf"^\s*(?:[A-Za-z]+:?\s*)?\{{\s*({_DICT_ITEM}(?:,\s*{_DICT_ITEM})*)\}}\s*$")
_DICT_KEY = re.compile(r"['\"](\w+)['\"]\s*:")


def pipe_losses(lines: list[str], params: Mapping | None = None) -> dict[str, str]:
    """``{name: "train loss"}`` when the lines print a pipeline's losses dict (spaCy's ``losses``
    after each ``nlp.update``: ``{'ner': 11.27}``, one dict a line, keyed by the trainable
    components of ``console.pipe_loss_names``) in ``console.guess_min_lines`` lines or more; the
    component printed first in most lines is read as the training loss. ``{}`` for any other text."""
    p = resolve(params)
    pipes = frozenset(p["console.pipe_loss_names"])
    firsts: dict[str, int] = {}
    for line in lines:
        m = _DICT_LINE.match(line)
        if m is None:
            continue
        keys = _DICT_KEY.findall(m.group(1))
        if keys and all(k.lower() in pipes for k in keys):
            firsts[keys[0]] = firsts.get(keys[0], 0) + 1
    if not firsts:
        return {}
    name, count = max(firsts.items(), key=lambda kv: kv[1])
    return {name: "train loss"} if count >= int(p["console.guess_min_lines"]) else {}


def pipe_note(vocab: Mapping[str, str]) -> str:
    """The report's line on a pipeline's losses dict read as the training loss."""
    shown = ", ".join(f"'{label}'" for label in vocab)
    return (f"a dict of a pipeline's component losses (spaCy's losses): {shown} read as the training loss "
            "(console.pipe_loss_names)")


def with_vocabulary(params: Mapping | None, vocab: Mapping[str, str]) -> dict:
    """``params`` with ``vocab`` added to the console reader's words of other languages: a label
    with a character outside ASCII to ``console.local_words`` (matched anywhere in a line), any other
    to ``console.latin_words`` (matched as a whole word)."""
    p = dict(resolve(params))
    local, latin = dict(p["console.local_words"]), dict(p["console.latin_words"])
    for label, role in vocab.items():
        if label.isascii():
            latin[label] = role
        else:
            local[re.escape(label)] = f" {role} "
    p["console.local_words"], p["console.latin_words"] = local, latin
    return p


def note(vocab: Mapping[str, str]) -> str:
    """The report's line on what was guessed."""
    shown = ", ".join(f"'{label}' as {role}" for label, role in vocab.items())
    return (f"the metric names are in words traindx does not know; read by how their values behave: {shown} "
            "(add the words to console.local_words or console.latin_words in a pack to read them for sure)")
