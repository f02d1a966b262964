"""traindx probes: evidence from the running model (torch) and from code, configs and logs.

``import traindx.probes`` does not import torch; ``traindx.probes.watch``, ``Watch`` and
``Monitor`` load it on first use.
"""

_LAZY = {"watch": "live.watch", "Watch": "live.watch", "Monitor": "live.monitor"}

__all__ = sorted(_LAZY)


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'traindx.probes' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
