"""Kept for compatibility: the module lives at :mod:`traindx.probes.integrations.lightning`."""
import sys as _sys

from traindx.probes.integrations import lightning as _moved

_sys.modules[__name__] = _moved
