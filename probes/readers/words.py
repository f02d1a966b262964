"""The readers' vocabulary, compiled: which column or printed name plays which role, the words that
name a data split, and metric words printed in other languages.

The words live in the knowledge base (``kb/parameters/log_words.yaml``: ``logs.split_words``,
``logs.role_spellings``, the rank scale, ``console.local_words``, ``console.latin_words``, ...), so
a pack adds a word with ``extends`` and no code changes. :func:`log_words` compiles them once per
knowledge base (the tables are the same objects however often ``kb.params()`` is called) into a
:class:`LogWords`; the log reader, the console reader and the run-folder reader receive it and call
:meth:`LogWords.match_role`, :meth:`LogWords.localized` and :meth:`LogWords.latin_words` on it.

- **Roles** (:meth:`LogWords.match_role`): a name, lower-cased with every run of non-alphanumerics
  one ``_``, is a known spelling of a role (``logs.role_spellings``, ranked by its place), Lightning's
  ``lr-Adam``, or a metric word (``loss``, ``acc``, a loss function's name, one GAN net's loss) with
  only split and filler words beside it, ranked on the scale ``logs.*_rank``; a camelCase name that
  reads as none of these whole is read split at its humps when that names a loss or an accuracy.
- **Other languages**: a line holding a character outside ASCII that a ``console.local_words`` entry
  is written with (a CJK ideograph, kana, Hangul, Devanagari, Greek, Cyrillic, full-width
  punctuation; any script a pack adds) has each entry replaced by its English, spaced, before it is
  read (:meth:`LogWords.localized`); a printed name that resolves to nothing as it is is looked up
  once more with its ``console.latin_words`` (German, French, Spanish, Portuguese, Italian, Dutch,
  Swedish, Czech, Indonesian, Vietnamese, Polish) in English (:meth:`LogWords.latin_words`); the
  console reader reads a whole line holding one of
  them (:meth:`LogWords.has_latin`, once per line shape) with them in English, its epoch and step
  words included (``Época 3/8``, ``Epoka 2``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping

from traindx.engine.parameters import resolve

#: The parameters compiled into a :class:`LogWords` (every one is a ``kb/parameters`` entry).
TABLES = ("logs.split_words", "logs.console_only_split_words", "logs.role_spellings", "logs.filler_words",
          "logs.loss_function_words", "logs.split_loss_names", "logs.one_net_words", "logs.error_words",
          "logs.plural_words",
          "logs.not_a_loss_words", "logs.lr_monitor_rank", "logs.generic_rank", "logs.loss_word_rank",
          "logs.one_net_loss_rank", "logs.test_split_rank", "logs.last_resort_rank", "console.local_words",
          "console.latin_words", "logs.rl_reward_words", "logs.rl_context_words", "logs.rl_context_names",
          "logs.rl_reward_alone_words",
          "logs.rl_value_loss_suffixes", "logs.rl_actor_critic_heads", "console.loss_scale_names",
          "console.time_cost_words", "console.summary_words", "console.data_wait_words",
          "console.data_time_words", "console.step_time_key_words", "console.step_time_words",
          "console.step_cost_words",
          "console.phrase_filler_words", "console.perplexity_words", "console.signed_objective_words",
          "console.error_rate_names", "console.error_rate_units", "console.error_rate_words",
          "console.objective_words", "console.half_chance_score_names", "console.duration_words",
          "console.quality_score_names", "console.score_heading_words")
#: tables compiled with TABLES whose words are never among the known words: a label holding "log", "p",
#: "per", "tokens" or "of" but no name of them (``old_log_prob``) is still one whose role is guessed from its values
AUX_TABLES = ("console.log_likelihood_names", "console.log_likelihood_units", "console.log_likelihood_scope_words",
              "console.error_kinds", "console.classless_error_messages", "console.loss_sum_words",
              "console.class_error_names",
              "console.loss_part_names", "console.summed_total_rank", "console.stand_in_rank",
              "console.part_rank", "console.split_alone_rank", "console.objective_word_rank",
              "console.last_resort_rank", "console.qualified_rank", "console.remaining_time_words")

#: a lower-case letter followed by an upper-case one: a word boundary of a camelCase name
CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: an upper-case run followed by a capitalised word (``VQVAELoss``, ``CTCLoss``): the run is an acronym,
#: and the word after it begins where its last capital does
ACRONYM_HUMP = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
#: the roles a camelCase name split at its humps may take: a loss or an accuracy (``DataTime`` is
#: left to the readers' own timing names)
CAMEL_ROLES = ("loss", "val_loss", "accuracy", "val_accuracy")
#: a data set's possessive before its metric (LightGBM's ``valid_0's binary_error``, its quote dropped)
_POSSESSIVE = re.compile(r"(?:'s|\s+s)\s+")
#: the metric words of an accuracy and of a loss (the roles' own names: structure, not vocabulary)
_ACC_WORDS = frozenset({"acc", "accu", "accuracy"})
#: the metric words a split word may be glued to (``trainloss``, ``valacc``)
_METRIC_WORDS = _ACC_WORDS | {"loss"}
#: How many compiled vocabularies are kept (one per knowledge base a process loads): a bound on memory.
_CACHE_SIZE = 8


def normalize_name(name: str) -> str:
    """``"Loss/train"`` -> ``"loss_train"``: lower-case, non-alphanumeric runs become ``_``."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).lower()).strip("_")


def compile_error_kinds(table: Mapping) -> tuple:
    """``console.error_kinds`` (pattern -> error kind, in order) as (compiled pattern, kind) pairs,
    case-insensitive: the one table a console log's printed crash and a ``--script`` run's crash are
    both classified by."""
    return tuple((re.compile(str(rx), re.IGNORECASE), str(kind)) for rx, kind in table.items())


def _texts(table):
    """Every string of a vocabulary table: a map's keys and values, a list's items, nested lists."""
    if isinstance(table, str):
        yield table
    elif isinstance(table, Mapping):
        for k, v in table.items():
            yield from _texts(k)
            yield from _texts(v)
    elif isinstance(table, (list, tuple)):
        for item in table:
            yield from _texts(item)


class LogWords:
    """The vocabulary of one knowledge base, compiled (see the module docstring)."""

    def __init__(self, p: Mapping):
        self._tables = [p[t] for t in TABLES]
        self._known: frozenset | None = None
        self._split_only: frozenset | None = None
        self.split = {str(w).lower(): str(s) for w, s in p["logs.split_words"].items()}
        console_only = frozenset(str(w).lower() for w in p["logs.console_only_split_words"])
        self.split_train = frozenset(w for w, s in self.split.items() if s == "train" and w not in console_only)
        self.split_val = frozenset(w for w, s in self.split.items() if s != "train" and w not in console_only)
        self.split_any = self.split_train | self.split_val
        self._splits_longest = tuple(sorted(self.split, key=len, reverse=True))
        self.aliases = {role: tuple(names) for role, names in p["logs.role_spellings"].items()}
        self.alias_rank = {name: (role, i) for role, names in self.aliases.items() for i, name in enumerate(names)}
        self.filler = frozenset(p["logs.filler_words"])
        self.allowed = self.filler | self.split_train | self.split_val
        self.loss_words = frozenset(p["logs.loss_function_words"])
        self.split_loss_names = tuple((frozenset(normalize_name(k).split("_")), str(v))
                                      for k, v in p["logs.split_loss_names"].items())
        self.one_nets = frozenset(p["logs.one_net_words"])
        self.err_words = frozenset(p["logs.error_words"])
        self.plurals = dict(p["logs.plural_words"])
        self.not_a_loss = frozenset(p["logs.not_a_loss_words"])
        self.lr_monitor_rank = int(p["logs.lr_monitor_rank"])
        self.generic_rank = int(p["logs.generic_rank"])
        self.loss_word_rank = int(p["logs.loss_word_rank"])
        self.one_net_loss_rank = int(p["logs.one_net_loss_rank"])
        self.test_split_rank = int(p["logs.test_split_rank"])
        self.last_resort_rank = int(p["logs.last_resort_rank"])
        # the console reader's ranks on the same scale (kb/parameters/log_words.yaml)
        self.summed_total_rank = int(p["console.summed_total_rank"])
        self.stand_in_rank = int(p["console.stand_in_rank"])
        self.part_rank = int(p["console.part_rank"])
        self.split_alone_rank = int(p["console.split_alone_rank"])
        self.objective_word_rank = int(p["console.objective_word_rank"])
        self.console_last_resort_rank = int(p["console.last_resort_rank"])
        self.qualified_rank = int(p["console.qualified_rank"])
        self.loss_parts = frozenset(str(w).lower() for w in p["console.loss_part_names"])
        self._compile_languages(p["console.local_words"], p["console.latin_words"])
        self.rl_reward = frozenset(p["logs.rl_reward_words"])
        self.rl_reward_alone = frozenset(p["logs.rl_reward_alone_words"])
        self.rl_context = frozenset(p["logs.rl_context_words"])
        self.rl_context_names = frozenset(p["logs.rl_context_names"])
        self.rl_value_suffixes = tuple(p["logs.rl_value_loss_suffixes"])
        self.rl_heads = {head: frozenset(ws) for head, ws in p["logs.rl_actor_critic_heads"].items()}
        self.time_cost = frozenset(p["console.time_cost_words"])
        self.duration = frozenset(str(w).lower() for w in p["console.duration_words"])
        self.remaining_time = frozenset(str(w).lower() for w in p["console.remaining_time_words"])
        self.summary = frozenset(p["console.summary_words"])
        self.half_chance_scores = frozenset(str(w).lower() for w in p["console.half_chance_score_names"])
        self.quality_scores = {str(w).lower(): i for i, w in enumerate(p["console.quality_score_names"])}
        self.score_heading = frozenset(str(w).lower() for w in p["console.score_heading_words"])
        self.data_wait = frozenset(p["console.data_wait_words"])
        self.data_time = frozenset(p["console.data_time_words"])
        self.step_time_key = frozenset(p["console.step_time_key_words"])
        self.step_time = frozenset(p["console.step_time_words"])
        self.step_cost = frozenset(p["console.step_cost_words"])
        self.phrase_filler = frozenset(p["console.phrase_filler_words"])
        self.loss_sum = frozenset(str(w).lower() for w in p["console.loss_sum_words"])
        self.class_errors = frozenset(normalize_name(w) for w in p["console.class_error_names"])
        self.perplexity = frozenset(p["console.perplexity_words"])
        self.signed_objective = frozenset(str(w).lower() for w in p["console.signed_objective_words"])
        self.log_likelihood = frozenset(normalize_name(n) for n in p["console.log_likelihood_names"])
        # (pattern, kind) in the knowledge base's order: the first that a printed exception's message matches
        self.error_kinds = compile_error_kinds(p["console.error_kinds"])
        # how a fatal error's message begins when it is logged without its exception's class
        self.classless_errors = tuple(str(m) for m in p["console.classless_error_messages"])
        self.log_likelihood_units = frozenset(str(w).lower() for w in p["console.log_likelihood_units"])
        self.log_likelihood_scope = frozenset(str(w).lower() for w in p["console.log_likelihood_scope_words"])
        self.error_rates = {str(n).lower(): i for i, n in enumerate(p["console.error_rate_names"])}
        self.error_rate_units = {str(w).lower(): str(n).lower() for w, n in p["console.error_rate_units"].items()}
        self.error_rate_words = frozenset(str(w).lower() for w in p["console.error_rate_words"])
        # a loss-scale column's names, normalised, with and without "_" between their words
        scale = {normalize_name(n) for n in p["console.loss_scale_names"]}
        self.scale_names = tuple(sorted(scale | {n.replace("_", "") for n in scale}))

    @property
    def known_words(self) -> frozenset:
        """Every word of the vocabulary (metric, split, filler, summary, timing and reward words, the
        words of other languages): a printed label holding one is the readers' to judge, never one
        whose role :mod:`.console_guess` guesses from its values."""
        if self._known is None:
            self._known = frozenset(w for table in self._tables for text in _texts(table)
                                    for w in re.split(r"[^\w]+|_", text.lower()) if w and not w.isdigit())
        return self._known

    @property
    def split_only_words(self) -> frozenset:
        """The known words that name nothing but a data split, in English (``logs.split_words``) or in
        another language (a ``console.latin_words`` entry read as a split alone: ``latihan``, ``validasi``):
        a label holding only these beside words the vocabulary does not know (``leungitna latihan``) is
        a metric named in an unknown word on a known split, for :mod:`.console_guess` to guess."""
        if self._split_only is None:
            latin = (k for k, v in self.latin.items() if str(v).strip() in ("train", "val", "test"))
            self._split_only = frozenset(w for text in itertools.chain(self.split, latin)
                                         for w in re.split(r"[^\w]+|_", text.lower()) if w)
        return self._split_only

    def _compile_languages(self, local: Mapping, latin: Mapping) -> None:
        # which lines are worth the substitutions at all: those holding a character outside ASCII
        # that some entry is written with, in either case (an entry matches only text holding one of
        # its own); both cases listed, not IGNORECASE, which makes every non-ASCII line (a tqdm bar)
        # cost twice as much to test
        chars = sorted({c for k in local for ch in str(k) if not ch.isascii() for c in (ch, ch.lower(), ch.upper())})
        self._local_chars = re.compile("[" + "".join(re.escape(ch) for ch in chars) + "]") if chars else None
        self._simple = {str(k).lower(): v for k, v in local.items() if re.escape(k) == k}
        self._simple_re = re.compile("|".join(sorted(self._simple, key=len, reverse=True)), re.IGNORECASE) \
            if self._simple else None
        self._complex = [(re.compile(k, re.IGNORECASE), v) for k, v in local.items() if re.escape(k) != k]
        self.latin = {str(k).lower(): v for k, v in latin.items()}
        # whole words (or phrases), longest first: no letter on either side (a digit, "_" or "-" may be)
        self._latin_re = re.compile(r"(?<![^\W\d_])(" + "|".join(re.escape(k) for k in sorted(self.latin, key=len,
                                                                                            reverse=True))
                                    + r")(?![^\W\d_])", re.IGNORECASE) if self.latin else None

    # -- roles -------------------------------------------------------------------------------
    def match_role(self, name: str) -> tuple[str, int] | None:
        """The role a column name plays and its rank (lower is better), or None.

        Known spellings (``logs.role_spellings``) rank by their position; other names made only of
        a metric word, a split word and filler words rank after every known spelling. A camelCase
        name that reads as none of these whole is read split at its humps when that names a loss or
        an accuracy (``ValidationCost``, ``valLoss``).
        """
        m = self._match_role(normalize_name(name))
        if m is None and CAMEL_HUMP.search(str(name)):
            m = self._match_role(normalize_name(CAMEL_HUMP.sub("_", str(name))))
            m = m if m is not None and m[0] in CAMEL_ROLES else None
        if m is None:
            glued = self._unglued(normalize_name(name))
            m = self._match_role(glued) if glued is not None else None
            m = m if m is not None and m[0] in CAMEL_ROLES else None
        if m is None and "/" in str(name):
            # a key of a nested record flattened under its container's name (a JSON-RPC call's
            # ``params/val_loss``, ``metrics/train_loss``): the name is the key's own
            m = self.match_role(str(name).rsplit("/", 1)[1])
        return m

    def _unglued(self, norm: str) -> str | None:
        """A name whose split word is glued to its metric word with no separator (fairseq-lua's
        ``trainloss`` and ``validloss``, ``VALOSS``, ``valacc``) with the two apart, the split by its own
        name (``train_loss``, ``val_loss``); None when no part of it is so glued."""
        parts = norm.split("_")
        changed = False
        for k, part in enumerate(parts):
            if part in self.split or part in _METRIC_WORDS:
                continue
            head = next((w for w in self._splits_longest if part.startswith(w) and part[len(w):] in _METRIC_WORDS),
                        None)
            if head is not None:
                parts[k] = self.split[head] + "_" + part[len(head):]   # va -> val: a split's own name
                changed = True
        return "_".join(parts) if changed else None

    def _match_role(self, norm: str) -> tuple[str, int] | None:
        if norm in self.alias_rank:
            role, rank = self.alias_rank[norm]
            return role, rank
        if norm.startswith("lr_") and norm.count("_") <= 2:  # Lightning's LearningRateMonitor: lr-Adam
            return "lr", self.lr_monitor_rank
        # a plural names the same objective (``losses : 39.6``, ``val_losses``); a number right after a
        # split word numbers one of several evaluation sets (``validation_0-rmse``, ``valid_1``)
        parts = norm.split("_")
        plurals = self.plurals
        tokens = {plurals.get(t, t) for k, t in enumerate(parts)
                  if not (k and t.isdigit() and parts[k - 1] in self.split_any)}
        allowed = self.allowed
        val = bool(tokens & self.split_val)
        if "loss" in tokens and tokens - {"loss"} <= allowed:
            return ("val_loss" if val else "loss"), self.generic_rank
        if "loss" in tokens and len(tokens) == 2 and len(min(tokens, key=len)) == 1:
            return "loss", self.one_net_loss_rank   # G_Loss, D_Loss, T_Loss: one net's loss, after every plainer name
        if tokens & self.err_words and len(tokens) == 2 and tokens - self.err_words <= self.one_nets:
            return "loss", self.one_net_loss_rank   # Err_G, Err_D (DCGAN): the generator's or the discriminator's loss
        words = tokens - allowed
        spelled = set()
        for parts, joined in self.split_loss_names:     # cross_entropy, cross_ent: one loss function's name
            if parts <= words:
                spelled |= parts
                words = (words - parts) | {joined}
        if len(words) == 1 and words <= self.loss_words and tokens - spelled - self.loss_words <= allowed:
            return ("val_loss" if val else "loss"), self.loss_word_rank
        metric = tokens & _ACC_WORDS
        if metric and "loss" not in tokens and tokens - metric <= allowed:
            return ("val_accuracy" if val else "accuracy"), self.generic_rank
        return None

    def names_a_loss(self, name: str) -> str | None:
        """``loss`` or ``val_loss`` for a name holding a loss word (or a loss function's word) and no
        qualifier that makes it something else (``logs.not_a_loss_words``); None otherwise."""
        tokens = {self.plurals.get(t, t) for t in normalize_name(name).split("_")}
        if not (tokens & ({"loss"} | self.loss_words)) or tokens & self.not_a_loss:
            return None
        return "val_loss" if tokens & self.split_val else "loss"

    # -- a loss scale, a reinforcement-learning run ------------------------------------------
    def names_a_loss_scale(self, name: str) -> bool:
        """Whether a structured log's column or tag prints the mixed-precision loss scale: its
        normalised name is one of ``console.loss_scale_names`` (words joined by ``_`` or nothing) or
        ends in one after a ``_`` (``Train/Samples/loss_scale``, Megatron's ``loss-scale``)."""
        norm = normalize_name(name)
        return any(norm == n or norm.endswith("_" + n) for n in self.scale_names)

    def rl_names(self, names) -> list[str]:
        """The names among ``names`` (a log's columns or printed metric names) that say the run is
        reinforcement learning: a reward-like name (``logs.rl_reward_words``: ``reward``,
        ``running_reward``, ``ep_rew_mean``, ``episode_return``) and at least one RL context name beside
        it (``logs.rl_context_words`` / ``rl_context_names`` / ``rl_value_loss_suffixes``: ``episode``,
        ``policy_loss``, ``value_loss``, ``entropy``, ``epsilon``, ...) — one ``return`` column alone is
        not evidence; or, with no reward printed, a loss of each actor-critic head
        (``logs.rl_actor_critic_heads``: a policy loss beside a value loss, as PPO prints). Empty when
        the names do not say so."""
        rewards, context = [], []
        heads = set()
        for name in dict.fromkeys(str(n) for n in names):
            norm = normalize_name(name)
            # (split at its humps too: MeanRew, NumTimesteps, AverageEpRet, as RL libraries print them)
            words = set(norm.split("_")) | set(normalize_name(CAMEL_HUMP.sub("_", name)).split("_"))
            if words & self.rl_reward:
                rewards.append(name)
            elif words & self.rl_context or norm in self.rl_context_names or norm.endswith(self.rl_value_suffixes):
                context.append(name)
            if words & {"loss", "losses"}:
                heads |= {h for h, ws in self.rl_heads.items() if words & ws}
        return rewards + context if (rewards and context) or (self.rl_heads and heads == set(self.rl_heads)) else []

    def reward_alone_names(self, names) -> list[str]:
        """The names among ``names`` that name an agent's reward on their own
        (``logs.rl_reward_alone_words``: ``Mean Reward``, ``TestReward``, split at its humps):
        evidence of reinforcement learning only in a log that prints no supervised metric."""
        return [n for n in dict.fromkeys(str(n) for n in names)
                if set(normalize_name(CAMEL_HUMP.sub("_", n)).split("_")) & self.rl_reward_alone]

    def names_log_likelihood(self, words: list) -> bool:
        """Whether a name's words name a log-likelihood (``console.log_likelihood_names``), once split
        words, phrase filler and ``console.log_likelihood_units`` are dropped and the words after a
        ``console.log_likelihood_scope_words`` word that follows it are cut."""
        kept = []
        for w in words:
            if kept and w in self.log_likelihood_scope:
                break   # "log-likelihood for 'out-xent'", "log_prob of heldout": what it is measured on
            if w not in self.split and w not in self.phrase_filler and w not in self.log_likelihood_units:
                kept.append(w)
        return bool(kept) and "_".join(kept) in self.log_likelihood

    def names_a_part(self, qualifiers: list) -> bool:
        """Whether the words printed before a loss word (``Classification`` in ``Classification loss``)
        name one part of the objective: words that are not split, filler or loss-function words
        (``CE loss``, ``cross entropy loss`` are the objective by its function) nor say a sum
        (``console.loss_sum_words``: ``joint loss``); numbers are no qualifier."""
        words = [w for w in qualifiers if w.isalpha() and w not in self.split and w not in self.phrase_filler]
        if not words or self.loss_sum.intersection(words):
            return False
        rest = set(words) - self.loss_words
        for parts, _joined in self.split_loss_names:
            if parts <= rest:
                rest -= parts
        return bool(rest)

    def class_error(self, words: list, phrase: str) -> bool:
        """Whether a name is a boosting library's evaluation of a classification error rate: a data
        set's name (a split word, perhaps numbered) joined in one identifier to a name of
        ``console.class_error_names`` (XGBoost's ``test-error``, ``eval-merror``, ``validation_1-error``;
        LightGBM's possessive ``valid_0's binary_error``). Printed apart (``train error``) the word is
        left to the objective's reading."""
        joined = not _POSSESSIVE.sub("_", phrase.strip()).split()[1:]
        if not joined or len(words) < 2 or words[0] not in self.split:
            return False
        rest = [w for w in words[1:] if not w.isdigit() and w != "s"]
        return "_".join(rest) in self.class_errors

    def error_rate(self, words: list) -> str | None:
        """The error rate (``console.error_rate_names``) a name's words name: the rate's own name last
        (``val_wer``), or a unit word (``console.error_rate_units``) with otherwise only split words and
        ``console.error_rate_words`` (``char train``, ``word error rate``), the unit first when no error
        word is printed; None otherwise."""
        if not words:
            return None
        if words[-1] in self.error_rates:
            return words[-1]
        units = [w for w in words if w in self.error_rate_units]
        if len(units) != 1 or len(words) < 2:
            return None
        if not all(w in self.split or w in self.error_rate_words or w == units[0] for w in words):
            return None
        # with no error word, the unit comes first (``char train``): a split and then a unit is a
        # count of what was read (``train tokens: 1000``)
        if self.error_rate_words.intersection(words) or words[0] == units[0]:
            return self.error_rate_units[units[0]]
        return None

    # -- other languages ---------------------------------------------------------------------
    def localized(self, line: str) -> str:
        """``line`` with its non-Latin metric words in English (unchanged when it has none)."""
        if line.isascii() or self._local_chars is None or not self._local_chars.search(line):
            return line
        for rx, rep in self._complex:
            line = rx.sub(rep, line)
        if self._simple_re is None:
            return line
        simple = self._simple
        return self._simple_re.sub(lambda m: f" {simple[m.group(0).lower()]} ", line)

    def has_latin(self, line: str) -> bool:
        """Whether ``line`` holds a Latin-script metric, split or axis word of another language
        (``console.latin_words``); the console reader asks once per line shape."""
        return self._latin_re is not None and self._latin_re.search(line) is not None

    def latin_words(self, phrase: str) -> str:
        """``phrase`` (a printed name, or a whole console line) with Latin-script metric, split and
        axis words of other languages in English (``Val-Verlust`` -> ``Val-loss``, ``Época 3/8 -
        pérdida validación: 0.70`` -> ``epoch 3/8 - loss val: 0.70``); unchanged when it has none."""
        if self._latin_re is None:
            return phrase
        return self._latin_re.sub(lambda m: self.latin[m.group(1).lower()], phrase)


_compiled: list = []   # [(tables, LogWords)], newest last


def log_words(params: Mapping | None = None) -> LogWords:
    """The compiled vocabulary of ``params`` (a knowledge base's ``params()``, a pack's words
    included; None: the shipped knowledge base's). Compiled once per set of tables."""
    p = resolve(params)
    tables = tuple(p[t] for t in TABLES + AUX_TABLES)
    for seen, words in _compiled:
        if all(a is b for a, b in zip(seen, tables)):
            return words
    words = LogWords(p)
    _compiled.append((tables, words))
    del _compiled[:-_CACHE_SIZE]
    return words
