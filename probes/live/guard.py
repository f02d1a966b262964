"""traindx's own faults never reach the user's training run.

Everything traindx runs inside a user's loop — ``watch()``'s context, its loader wrapper, its
``observe``; a Lightning or Hugging Face callback's hooks — enters through this boundary. A fault
of traindx there (any ``Exception`` the probes raise) is caught, reported **once** as a
``RuntimeWarning`` naming where it happened, and switches the probes off for the rest of the run
(every hook removed); the user's step goes on as if traindx were not there. Exceptions that are
the user's — raised by their own data loader or model — pass through untouched.
"""

from __future__ import annotations

import functools
import warnings


class Fuse:
    """Blown by the first fault: warns once, then runs ``on_blow`` (detach everything)."""

    def __init__(self, what: str = "traindx", on_blow=None):
        self.what = what
        self.on_blow = on_blow
        self.blown = False
        self.fault = None

    def blow(self, where: str, exc: BaseException, stacklevel: int = 4) -> None:
        if self.blown:
            return
        self.blown = True
        self.fault = f"{where}: {type(exc).__name__}: {exc}"[:300]
        warnings.warn(f"{self.what}: probes switched off after an internal error in {self.fault} "
                      f"(your training is unaffected)", RuntimeWarning, stacklevel=stacklevel)
        if self.on_blow is not None:
            try:
                self.on_blow()
            except Exception:   # removing hooks is best effort once something is already wrong
                pass

    def call(self, where: str, fn, *args, default=None, **kw):
        """``fn(*args, **kw)``, or ``default`` once blown or if it raises."""
        if self.blown:
            return default
        try:
            return fn(*args, **kw)
        except Exception as exc:
            self.blow(where, exc)
            return default


def guarded_hooks(cls, on_fault, names=()):
    """Wrap every ``on_*`` method defined by callback class ``cls`` (and the methods in ``names``,
    e.g. a forward hook it registers) so that an exception in one calls ``on_fault(self, where,
    exc)`` — which warns once and switches the probes off — instead of reaching the framework's
    training loop. Returns ``cls``."""
    targets = [n for n, v in vars(cls).items() if n.startswith("on_") and callable(v)] + list(names)
    for name in targets:
        fn = vars(cls).get(name)
        if fn is None or getattr(fn, "_traindx_guarded", False):
            continue

        def make(fn=fn, name=name):
            @functools.wraps(fn)
            def hook(self, *args, **kw):
                try:
                    return fn(self, *args, **kw)
                except Exception as exc:
                    try:
                        on_fault(self, f"{cls.__name__}.{name}", exc)
                    except Exception:
                        pass
                    return None
            hook._traindx_guarded = True
            return hook
        setattr(cls, name, make())
    return cls


class _Marked:
    """The user's loader, iterated as they would iterate it, remembering the exception it raised
    itself (so it can be told from traindx's) and the batch fetched but not yet handed over."""

    def __init__(self, loader):
        self.loader = loader
        self.it = None
        self.raised = None
        self.pending = self._NONE = object()

    def __len__(self):
        return len(self.loader)

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def __iter__(self):
        self.it = iter(self.loader)
        return self

    def __next__(self):
        try:
            batch = next(self.it)
        except StopIteration:
            raise
        except BaseException as exc:
            self.raised = exc
            raise
        self.pending = batch
        return batch


class _SafeCalls:
    """A proxy of the monitor for the loader wrapper: its feed methods never raise."""

    def __init__(self, monitor, fuse: Fuse):
        self._monitor = monitor
        self._fuse = fuse

    # called on every batch: Fuse.call's guard written out (one Python frame less each)
    # (the loader tap's own calls, written out: no argument packing on every batch)
    def on_data_wait(self, seconds, synced=None, phase=None):
        if not self._fuse.blown:
            try:
                self._monitor.on_data_wait(seconds, synced=synced, phase=phase)
            except Exception as exc:
                self._fuse.blow("loader (data wait)", exc, stacklevel=3)

    def on_batch(self, inputs, targets=None, phase=None):
        if not self._fuse.blown:
            try:
                self._monitor.on_batch(inputs, targets, phase=phase)
            except Exception as exc:
                self._fuse.blow("loader (batch)", exc, stacklevel=3)

    def __getattr__(self, name):
        return getattr(self._monitor, name)


class SafeLoader:
    """Iterate the user's loader through a probe wrapper (``make_tap(loader, monitor)``, e.g. a
    :class:`~traindx.probes.live.timing.LoaderTap`); if the wrapper faults, the fuse blows and the
    same pass continues on the user's own iterator — no batch lost, none repeated."""

    def __init__(self, loader, make_tap, monitor, fuse: Fuse):
        self.loader = loader
        self.make_tap = make_tap
        self.monitor = monitor
        self.fuse = fuse

    def __len__(self):
        return len(self.loader)

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def __iter__(self):
        if self.fuse.blown:
            yield from self.loader
            return
        marked = _Marked(self.loader)
        try:
            it = iter(self.make_tap(marked, _SafeCalls(self.monitor, self.fuse)))
        except Exception as exc:
            self.fuse.blow("loader", exc)
            yield from self.loader
            return
        while True:
            try:
                batch = next(it)
            except StopIteration:
                return
            except Exception as exc:
                if exc is marked.raised:   # the user's own loader failed: theirs to see
                    raise
                self.fuse.blow("loader", exc)
                if marked.pending is not marked._NONE:
                    yield marked.pending
                if marked.it is not None:
                    yield from marked.it
                else:
                    yield from self.loader
                return
            marked.pending = marked._NONE
            yield batch
