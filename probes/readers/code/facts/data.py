"""``code:data``: shuffle, batch size and workers of the loader the training loop iterates; NaN
written into the data."""

from __future__ import annotations

import ast

from ..text import snippet
from ..values import BatchVal, Const, Event, IterVal, LoaderVal, Unknown


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:data"
FACTS = ("shuffle", "num_workers", "batch_size", "nan_written_to_data")


class DataFacts:
    """code:data: the loader the training loop iterates (shuffle, batch size, workers)."""

    def data_facts(self, step_loop: int | None, ref_ev: Event | None) -> None:
        self.nan_data_facts()
        ld = None
        how = ""
        if step_loop is not None and ref_ev is not None:
            src = self.loop_source(ref_ev.src if ref_ev.src is not None else Unknown("?"))
            if isinstance(src, BatchVal) and isinstance(src.source, LoaderVal):
                src = src.source
            if isinstance(src, LoaderVal) and src.line:
                ld, how = src, "iterated by the training loop"
            elif isinstance(src, IterVal) and src.kind == "range" and len(src.args) == 3:
                lnode = self.loop_nodes.get(step_loop)
                step = src.args[2]
                if isinstance(step, Const) and isinstance(step.value, int) \
                        and self.slices_by(lnode):
                    self.add_finding("batch_size", step.value, lnode.lineno,
                                     f"manual batching: `{snippet(lnode.iter, 50)}` (line {lnode.lineno})")
                    perm = self.permutes(lnode)
                    if perm:
                        self.add_finding("shuffle", True, perm, f"the data is permuted (line {perm}) "
                                                        f"before manual batching")
                    else:
                        self.add_finding("shuffle", False, lnode.lineno,
                                         f"manual batching by slicing at line {lnode.lineno} with no "
                                         f"permutation of the data")
                    return
        if ld is None:
            real = [x for x in self.loaders if x.line]
            named = [x for x in real if x.var and "train" in x.var.lower()]
            if named:
                ld, how = named[0], f"named {named[0].var}"
            elif len(real) == 1:
                ld, how = real[0], "the only DataLoader"
            elif real:
                self.add_unresolved(f"{len(real)} DataLoaders (lines "
                                    f"{', '.join(str(x.line) for x in real)}): could not tell which one "
                                    f"trains")
        if ld is None:
            return
        label = f"`{ld.text}` (line {ld.line}, {how})"
        if ld.shuffle is not None:
            self.add_finding("shuffle", ld.shuffle[0], ld.line, f"{ld.shuffle[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("shuffle") or ld.why.get("sampler") or
                                f"line {ld.line}: shuffling of `{ld.text}` is decided at run time")
        if ld.batch_size is not None:
            self.add_finding("batch_size", ld.batch_size[0], ld.line, f"{ld.batch_size[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("batch_size") or
                                f"line {ld.line}: batch size of `{ld.text}` is computed at run time")
        if ld.num_workers is not None:
            self.add_finding("num_workers", ld.num_workers[0], ld.line,
                             f"{ld.num_workers[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("num_workers") or
                                f"line {ld.line}: num_workers of `{ld.text}` is computed at run time")

    @staticmethod
    def slices_by(loop: ast.AST) -> bool:
        tgt = loop.target.id if isinstance(loop.target, ast.Name) else None
        if tgt is None:
            return False
        for n in ast.walk(loop):
            if isinstance(n, ast.Slice) and isinstance(n.lower, ast.Name) and n.lower.id == tgt:
                return True
        return False

    def permutes(self, loop: ast.AST) -> int | None:
        # a permutation in the loop or in the function around it
        scope = self.tree
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    n is loop for n in ast.walk(fn)):
                scope = fn
        for n in ast.walk(scope):
            if isinstance(n, ast.Call):
                t = snippet(n.func)
                if t.endswith(("randperm", "permutation", "shuffle")):
                    return n.lineno
        return None

    def nan_data_facts(self) -> None:
        """nan_written_to_data: the script stores NaN into an array (``x[mask] = float("nan")``,
        ``a[i] = np.nan``) and nothing in it removes or masks NaN afterwards (nan_to_num, isnan,
        fillna, nanmean ...). A script that cleans its NaN says nothing either way."""
        tree = self.tree
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and n.attr in _NAN_CLEANERS or \
                    isinstance(n, ast.Name) and n.id in _NAN_CLEANERS:
                return
        for n in ast.walk(tree):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
                n, ast.AugAssign) else []
            if any(isinstance(t, ast.Subscript) for t in targets) and _is_nan(n.value):
                self.add_finding("nan_written_to_data", True, n.lineno,
                                 f"`{snippet(n, 60)}` (line {n.lineno}) stores NaN in the data, and "
                                 f"nothing in {self.basename} removes or masks it")
                return


_NAN_CLEANERS = {"nan_to_num", "nan_to_num_", "isnan", "isfinite", "fillna", "dropna", "nanmean",
                 "nansum", "nanmedian", "SimpleImputer", "interpolate"}


def _is_nan(v: ast.AST) -> bool:
    """``float("nan")``, ``np.nan``, ``math.nan``, ``torch.nan``, ``numpy.NaN``."""
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "float" and v.args \
            and isinstance(v.args[0], ast.Constant) and str(v.args[0].value).strip().lower() == "nan":
        return True
    return isinstance(v, ast.Attribute) and v.attr.lower() == "nan"
