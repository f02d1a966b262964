"""What the code reader returns: :class:`CodeReport`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traindx.engine.evidence import Finding


@dataclass
class CodeReport:
    """What the code reader found in one script.

    ``findings``: facts with ``source="code:<basename>:<line>"``. ``unresolved``: things that
    were seen but could not be resolved statically (a learning rate read from a config at run
    time, a helper imported from another file), one sentence each. ``config_paths``: config
    files the script names (string literals ending .yaml/.yml/.json/.toml), in order.
    ``notes``: observations that are no fact of the vocabulary (e.g. step before backward).
    """

    path: str
    findings: list[Finding] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    config_paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def get(self, fact: str) -> Finding | None:
        """The finding for ``fact``, or None."""
        for f in self.findings:
            if f.fact == fact:
                return f
        return None

    def facts(self) -> dict[str, Any]:
        """``{fact: value}`` of every finding."""
        return {f.fact: f.value for f in self.findings}
