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


class NoSupervisedMetricsError(InputError):
    """A log with no supervised metric to read (no loss, no accuracy): one class the front ends
    catch once (``frontends/gather.read_log``). ``rl_names``: the reward names it prints when it is
    a reinforcement-learning run's log (out of scope, reported as ``rl_training``), else empty."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 col: int | None = None, hint: str | None = None, rl_names: list | None = None):
        super().__init__(message, path, line, col, hint)
        self.rl_names = list(rl_names or [])


class NoMetricsError(NoSupervisedMetricsError):
    """A log that holds no training metrics at all (no loss, no accuracy, no speed): bad input when
    the log is the evidence, expected when the code says the run trains an agent on rewards."""


class RLLogError(NoSupervisedMetricsError):
    """A log with no supervised loss or accuracy whose metrics are a reinforcement-learning run's
    rewards (``names``): out of traindx's scope, which the caller reports as ``rl_training``."""

    def __init__(self, message: str, path, line, names: list):
        super().__init__(message, path, line, rl_names=names)
        self.names = names


class KBError(InputError):
    """A knowledge-base file is malformed or inconsistent."""
