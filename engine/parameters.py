"""Parameters: every number that decides a fact or a confidence, read from ``kb/parameters/*.yaml``.

The knowledge base owns them (``KnowledgeBase.parameters``, with a pack's overrides applied); a
reader or probe *receives* them as a plain mapping (``params``), never imports a constant.
:func:`shipped` is the core knowledge base's values, for callers that were handed none: it reads
only the parameter files (a few ms), not the whole knowledge base.
"""

from __future__ import annotations

import functools
import os
from importlib import resources
from collections.abc import Mapping


@functools.lru_cache(maxsize=1)
def _shipped() -> dict:
    from .bounded import BOOTSTRAP
    from .loader import CORE, _Builder
    b = _Builder(limits=BOOTSTRAP)   # the limits themselves are parameters: read these under fixed ones
    folder = os.path.join(str(resources.files("traindx.kb")), "parameters")
    for name in sorted(os.listdir(folder)):
        if name.endswith((".yaml", ".yml")):
            b.add_file(os.path.join(folder, name), CORE)
    return {k: v["value"] for k, v in b.kb.parameters.items()}


def shipped() -> dict:
    """The core knowledge base's parameter values (a copy: callers may not change the cache)."""
    return dict(_shipped())


def resolve(params: Mapping | None) -> Mapping:
    """``params`` if given (a knowledge base's ``params()``, packs applied), else :func:`shipped`."""
    return _shipped() if params is None else params
