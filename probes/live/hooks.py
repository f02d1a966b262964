"""Module hooks that a copy of the user's model does not carry.

A module's forward hooks live in its ``__dict__``, so ``copy.deepcopy(model)`` and
``torch.save(model)`` take them along. A hook that is a bound method of a traindx probe (or a
closure over one) then drags the probe with it — its locks, the trainer, the loaders — and the
user's own line raises ``TypeError: cannot pickle ...``; or, where the copy succeeds, the copy's
forwards (an EMA or SWA model, a "best" snapshot) are recorded as the run's. Either way traindx
would have changed the user's run.

:class:`CopyInert` wraps such a hook: the watched module calls straight through; a deep copy, a
shallow ``copy.copy`` of the hook itself, or a pickled model gets an inert hook that does nothing
(a model saved whole while watched therefore needs traindx importable to be loaded again).
"""

from __future__ import annotations

import functools


def _inert(*args, **kwargs):
    """What a copy of a traindx hook does: nothing."""
    return None


class CopyInert(functools.partial):
    """A hook for ``register_forward_hook`` / ``register_forward_pre_hook`` whose copies are inert.

    A ``functools.partial`` without bound arguments: the watched module's call goes straight to the
    hook (no Python frame of its own on every forward); its copies and pickles hold :func:`_inert`."""

    __slots__ = ()

    def __new__(cls, fn=None):
        return super().__new__(cls, _inert if fn is None else fn)

    def __copy__(self):
        return CopyInert()

    def __deepcopy__(self, memo):
        return CopyInert()

    def __reduce__(self):
        return (CopyInert, ())
