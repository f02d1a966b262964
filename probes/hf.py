"""Kept for compatibility: the module lives at :mod:`traindx.probes.integrations.hf`."""
import sys as _sys

from traindx.probes.integrations import hf as _moved

_sys.modules[__name__] = _moved
