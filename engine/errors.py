"""Errors a user can cause, reported as one line naming the file and, where it applies, the line.

Everything that is the user's doing (a malformed YAML file, an unknown fact in a rule, a garbage
log, a script that crashes) raises :class:`InputError`; the CLI prints ``str(err)`` and exits 2.
Any other exception is a fault of traindx itself and keeps its traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input from the user: ``path:line:col: message (hint: ...)``."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 col: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.col = col
        self.hint = hint

    def location(self) -> str:
        parts = [str(self.path)] if self.path else []
        if self.path and self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)

    def __str__(self) -> str:
        loc = self.location()
        text = f"{loc}: {self.message}" if loc else self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


class NoMetricsError(InputError):
    """A log that holds no training metrics at all (no loss, no accuracy, no speed): bad input when
    the log is the evidence, expected when the code says the run trains an agent on rewards."""


class KBError(InputError):
    """A knowledge-base file is malformed or inconsistent."""
