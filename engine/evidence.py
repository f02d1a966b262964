"""Findings: the one shape in which every evidence source hands facts to the engine.

A question answered by the user, a torch probe, the code reader, the config reader and the log
reader all produce :class:`Finding` objects. The engine stores them in working memory with their
source, so every conclusion can say where its evidence came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: The kinds of source a finding may come from (the prefix of ``Finding.source``).
SOURCE_KINDS = ("user", "probe", "code", "config", "log", "rule")


@dataclass(frozen=True)
class Finding:
    """One fact with its provenance.

    ``fact`` is a name from the fact vocabulary (``kb/facts.yaml``). ``source`` is
    ``KIND`` or ``KIND:WHERE`` — ``"user"``, ``"probe:grad_flow"``, ``"code:train.py:41"``,
    ``"config:cfg.yaml:optim.lr"``, ``"log:run.csv:steps 0-120"``. ``detail`` is one short
    human sentence saying what was observed ("every parameter receives a gradient").
    ``extra``: the measured numbers behind it (kept as the session's ``measurements``); a reader's
    ``beyond_probe: True`` (with ``why``) marks a number holding more than a live probe can measure
    (an L2 penalty in the loss is weight decay the optimizer's ``weight_decay`` does not show), which a
    smaller probe reading of the same fact does not replace.
    """

    fact: str
    value: Any
    source: str = "user"
    detail: str | None = None
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def kind(self) -> str:
        """The source kind: user, probe, code, config, log or rule."""
        return self.source.split(":", 1)[0]

    def to_dict(self) -> dict:
        d = asdict(self)
        if not d["extra"]:
            d.pop("extra")
        if d["detail"] is None:
            d.pop("detail")
        return d
