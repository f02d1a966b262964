"""Kept for compatibility: the module lives at :mod:`traindx.probes.integrations.distributed`."""
import sys as _sys

from traindx.probes.integrations import distributed as _moved

_sys.modules[__name__] = _moved
