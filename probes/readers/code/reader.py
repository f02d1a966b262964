"""The code reader assembled: one object that interprets a script and concludes facts from it.

:class:`CodeReader` is the generic Python interpreter (``interpreter/``) with the model of the torch
API (``torch_api/``) plugged into its calls, and one fact module per ``code:*`` source (``facts/``)
that turns what the run recorded into findings. :func:`analyze_code` is the public entry.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping

from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

from .facts.common import Conclusions
from .facts.data import DataFacts
from .facts.loop import LoopFacts
from .facts.loss import LossFacts
from .facts.model import ModelFacts, rl_markers
from .facts.optimizer import OptimizerFacts
from .interpreter.calls import Calls
from .interpreter.expressions import Expressions
from .interpreter.state import ReaderState
from .interpreter.statements import Statements
from .report import CodeReport
from .source import parse_source
from .torch_api.builders import TrainingObjects
from .torch_api.dispatch import LibraryCalls
from .torch_api.modules import ModuleModel
from .torch_api.tensors import TensorModel


class CodeReader(ReaderState, Statements, Expressions, Calls, TensorModel, ModuleModel,
                 TrainingObjects, LibraryCalls, Conclusions, OptimizerFacts, LossFacts, LoopFacts,
                 DataFacts, ModelFacts):
    """Runs one parsed script abstractly (:meth:`run`), then concludes (:meth:`build_report`)."""

    def __init__(self, path: str, tree: ast.Module, params: Mapping):
        ReaderState.__init__(self, path, tree, params)


def analyze_code(path: str | os.PathLike, params: Mapping | None = None) -> CodeReport:
    """Read a training script statically and return what it shows (see the package doc).

    ``params``: the knowledge base's parameters (``KnowledgeBase.params()``, packs applied; the
    ``code.*`` ones of kb/parameters/code.yaml are read); None: the shipped ones.
    Raises :class:`InputError` if the file is missing, not UTF-8 or not valid Python."""
    params = resolve(params)
    p = os.fspath(path)
    tree = parse_source(p)
    reader = CodeReader(p, tree, params)
    try:
        reader.run()
        report = reader.build_report()
    except RecursionError:   # a valid but absurdly deep expression: the reader walks trees recursively
        raise InputError("code nested too deeply to read (the reader recurses per level)", path=p) from None
    rl = rl_markers(tree, params)
    if rl is not None and report.get("rl_training") is None:
        line, what = rl
        report.findings.append(Finding("rl_training", True, f"code:{os.path.basename(p)}:{line}",
                                       f"reinforcement learning: {what}"))
    return report
