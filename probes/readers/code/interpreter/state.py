"""The interpreter's state (environments, loops, no_grad/autocast stacks, what was built) and its
bookkeeping (budget, events, unresolved notes), and the run over a whole file.
"""

from __future__ import annotations

import ast
import os
from typing import Any
from collections.abc import Mapping

from traindx.probes.readers.config import read_argparse

from ..values import (
    BudgetExceeded, Const, CtxVal, Env, Event, Frame, FuncVal, LoaderVal, ModuleVal, OptVal,
    ScalerVal, SchedVal, Val)


class ReaderState:
    """The reader's state and bookkeeping, and the run over the whole file."""

    def __init__(self, path: str, tree: ast.Module, params: Mapping):
        self.params = params
        self.max_ops = params["code.max_ops"]
        self.max_inline_depth = params["code.max_inline_depth"]
        self.path = path
        self.tree = tree
        self.basename = os.path.basename(path)
        self.dir = os.path.dirname(os.path.abspath(path))
        self.argdefaults = read_argparse(tree)
        self.events: list[Event] = []
        self.loops: list[tuple] = []
        self.loop_nodes: dict[int, ast.AST] = {}
        #: loop node id -> how many times it runs, when it iterates a ``range`` with known bounds
        self.loop_counts: dict[int, int] = {}
        self.loop_vals: list[Val] = []
        #: the comprehensions whose element is being read, innermost last: (the function they sit in,
        #: how many elements their ``range`` bounds make, None when unknown)
        self.comp_trips: list[tuple] = []
        self.frames: list[Frame] = []
        self.fn_stack: list[ast.AST] = []
        self.nograd: list[CtxVal | None] = []
        self.autocast: list[CtxVal] = []
        self.forward_depth = 0
        self.seq = 0
        self.ops = 0
        self.cond: list[str] = []
        #: the tests of the unresolved ``if`` statements being read, innermost last, each with
        #: whether its body (True) or its ``else`` (False) runs now
        self.guards: list[tuple[ast.expr, bool]] = []
        self.modules: list[ModuleVal] = []
        self.optimizers: list[OptVal] = []
        self.schedulers: list[SchedVal] = []
        self.loaders: list[LoaderVal] = []
        self.scalers: list[ScalerVal] = []
        self.records: dict[str, list] = {k: [] for k in (
            "dropout", "bn", "init", "frozen", "aug", "amp", "clip", "early", "ls",
            "loss_entry", "half", "module_rg", "functional_dropout", "frozen_after_backward", "input_scale",
            "sigmoid_layers", "input_bn", "param_data", "param_draw", "manual_update")}
        self.unresolved: list[str] = []
        self.notes: list[str] = []
        self.inlined: set = set()
        self.placeholders: dict[str, Val] = {}
        self.globals = Env()
        self.out_of_budget = False
        self.uninstantiated_lists: list = []
        self.covering_optimizers: list = []

    def spend_budget(self) -> None:
        self.ops += 1
        if self.ops > self.max_ops:
            raise BudgetExceeded()

    def add_unresolved(self, msg: str) -> None:
        if msg not in self.unresolved:
            self.unresolved.append(msg)

    def add_note(self, msg: str) -> None:
        if msg not in self.notes:
            self.notes.append(msg)

    def record_event(self, kind: str, node: ast.AST, **kw: Any) -> Event:
        self.seq += 1
        ev = Event(kind=kind, line=getattr(node, "lineno", 0), loops=tuple(self.loops),
                   seq=self.seq, nograd=self.active_no_grad() is not None,
                   funcs=tuple(getattr(f, "name", "<lambda>") for f in self.fn_stack),
                   cond=bool(self.cond), src=self.loop_vals[-1] if self.loop_vals else None,
                   **kw)
        self.events.append(ev)
        return ev

    def active_no_grad(self) -> CtxVal | None:
        for c in reversed(self.nograd):
            return c
        return None

    def run(self) -> None:
        self.globals.vars["__name__"] = Const("__main__")
        self.globals.vars["__file__"] = Const(self.path)
        try:
            self.exec_block(self.tree.body, self.globals)
            # Functions that hold a training loop but are never called from the script's
            # top level (a library-style file): read them with their arguments unknown.
            for fn in self.uncalled_training_functions():
                self.add_unresolved(f"{fn.name}() (line {fn.lineno}) is never called in "
                                    f"{self.basename}: read with its arguments unknown")
                fv = self.globals.lookup(fn.name)
                if isinstance(fv, FuncVal):
                    self.call_function(fv, None, {}, fn, placeholder_args=True)
            self.read_uninstantiated_classes()
        except BudgetExceeded:
            self.out_of_budget = True
            self.add_unresolved("the script is too large to follow completely: some facts may be "
                                "missing")
        except RecursionError:  # pragma: no cover - pathological nesting
            self.add_unresolved("the script nests too deeply to follow completely")

    def uncalled_training_functions(self) -> list[ast.FunctionDef]:
        out = []
        for node in self.tree.body:
            fns = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
            for fn in fns:
                if fn in self.inlined:
                    continue
                text = ast.unparse(fn)
                if ".backward(" in text or ".step(" in text:
                    out.append(fn)
        return out
