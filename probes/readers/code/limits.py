"""How far the interpreter follows a script."""

from __future__ import annotations




MAX_OPS = 400_000        # abstract-interpretation budget per file


MAX_DEPTH = 24           # nested inlined calls


LOOP_LITERAL_MAX = 6     # a loop over a literal list runs once per item up to this many
