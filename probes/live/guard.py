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
import time
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


class SafeLoader:
    """Iterate the user's loader through a probe tap (``make_tap(monitor)``, a
    :class:`~traindx.probes.live.timing.LoaderTap`: ``start``, ``before_next``, ``seen``) in one
    generator: the user's own iterator is called here, so what it raises is theirs and reaches them
    unchanged; if the tap faults, the fuse blows and the same pass goes on with the user's iterator
    -- no batch lost, none repeated."""

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
        fuse = self.fuse
        if fuse.blown:
            yield from self.loader
            return
        it = iter(self.loader)
        try:
            tap = self.make_tap(self.monitor)
            tap.start()
        except Exception as exc:
            fuse.blow("loader", exc, stacklevel=3)
        clock = time.perf_counter
        seen = None if fuse.blown else tap.seen
        while True:
            if fuse.blown:             # here or elsewhere (observe): the rest of the pass untouched
                yield from it
                return
            synced = None
            if tap._cuda:                  # before_next() does nothing off CUDA
                try:
                    synced = tap.before_next()
                except Exception as exc:
                    fuse.blow("loader", exc, stacklevel=3)
                    continue
            t0 = clock()
            try:
                batch = next(it)
            except StopIteration:
                return
            dt = clock() - t0
            try:
                seen(batch, dt, synced)
            except Exception as exc:
                fuse.blow("loader", exc, stacklevel=3)
            yield batch
